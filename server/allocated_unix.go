//go:build unix

package server

import (
	"io/fs"
	"syscall"
)

// allocated is the disk space a file takes: its blocks, not its length,
// since the store preallocates sparse files of gigabytes (badger's value
// log) that hold a few megabytes.
func allocated(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
