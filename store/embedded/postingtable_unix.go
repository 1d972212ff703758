//go:build unix

package embedded

import "golang.org/x/sys/unix"

// syncHeader writes the table's header page to disk.
func (t *postingTable) syncHeader() error {
	return unix.Msync(t.data[:postingTableHeader], unix.MS_SYNC)
}
