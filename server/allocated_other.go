//go:build !unix

package server

import "io/fs"

// allocated is the disk space a file takes; here its length.
func allocated(info fs.FileInfo) int64 { return info.Size() }
