// Package du measures the space files take on disk, as du(1) counts it,
// for benchmarks: allocated blocks where the system reports them, since
// Badger preallocates sparse value-log files whose apparent size means
// nothing.
package du

import (
	"io/fs"
	"path/filepath"
)

// Bytes is the space the files under path take on disk. A missing path is
// 0, and files that vanish during the walk (bleve merging) are passed
// over.
func Bytes(path string) int64 {
	var total int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			total += allocated(info)
		}
		return nil
	})
	return total
}
