// Package badgeropen opens Badger stores, first removing the empty
// memtable and value-log files a process killed while creating them
// leaves behind: Badger refuses to open a store with one ("Create a new
// file", dgraph-io/badger#2207), though they hold nothing. Files are
// removed only under the store's directory lock, so never from under a
// process that has the store open.
package badgeropen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Open opens the Badger store of opts after removing the empty log files
// a kill left.
func Open(opts badger.Options) (*badger.DB, error) {
	if !opts.InMemory && !opts.ReadOnly {
		if err := removeEmptyLogs(opts.Dir); err != nil {
			return nil, fmt.Errorf("open %s: %w", opts.Dir, err)
		}
	}
	return badger.Open(opts)
}

// HolderOf names the process holding dir's lock: "process PID" from the
// pid Badger wrote in dir/LOCK, else "another process".
func HolderOf(dir string) string {
	if b, err := os.ReadFile(filepath.Join(dir, "LOCK")); err == nil {
		if pid := strings.TrimSpace(string(b)); pid != "" {
			return "process " + pid
		}
	}
	return "another process"
}

// removeEmptyLogs removes dir's empty .mem and .vlog files if it can take
// the directory lock (Badger's LOCK file); otherwise it leaves them to
// badger.Open, which then reports the store as in use.
func removeEmptyLogs(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var empty []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".mem") && !strings.HasSuffix(e.Name(), ".vlog") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() == 0 {
			empty = append(empty, filepath.Join(dir, e.Name()))
		}
	}
	if len(empty) == 0 {
		return nil
	}
	unlock, ok := lockDir(dir)
	if !ok {
		return nil
	}
	defer unlock()
	for _, path := range empty {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}
