//go:build unix

package embedded

import "golang.org/x/sys/unix"

// freeBytes is the space an unprivileged writer has left on the file
// system holding path.
func freeBytes(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
