//go:build unix

package du

import (
	"io/fs"
	"syscall"
)

// allocated is the space info's file takes on disk: its blocks.
func allocated(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
