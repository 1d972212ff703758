package embedded

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// allocate reserves the disk blocks of f's first size bytes. A file
// system without fallocate keeps the file sparse.
func allocate(f *os.File, size int64) error {
	err := unix.Fallocate(int(f.Fd()), 0, 0, size)
	switch {
	case errors.Is(err, unix.ENOSPC):
		return store.ErrDiskFull
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
		return nil
	}
	return err
}
