//go:build unix

package badgeropen

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockDir takes Badger's directory lock on dir (a flock of the directory
// itself, as badger.Open takes it), without waiting.
func lockDir(dir string) (unlock func(), ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, true
}

// Held reports whether a process holds Badger's directory lock on dir,
// and names it (HolderOf), without writing anything.
func Held(dir string) (holder string, held bool) {
	f, err := os.Open(dir)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return "", false
	}
	return HolderOf(dir), true
}
