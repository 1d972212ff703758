// Package jsonfile writes small JSON files that a crash never leaves half
// written: an index's settings, the fields an index was adopted with.
package jsonfile

import (
	"encoding/json"
	"fmt"
	"os"
)

// Write writes v to path as indented JSON, atomically: the file is
// written beside path and renamed over it, so a reader, or the next run
// after a crash, finds the old file or the new one.
func Write(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("jsonfile: %s: %w", path, err)
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("jsonfile: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("jsonfile: %w", err)
	}
	return nil
}
