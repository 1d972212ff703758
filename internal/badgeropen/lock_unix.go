//go:build unix

package badgeropen

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockDir takes Badger's directory lock on dir (flock of dir/LOCK, as
// badger.Open does), without waiting.
func lockDir(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, true
}
