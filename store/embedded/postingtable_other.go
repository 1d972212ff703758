//go:build !unix

package embedded

// syncHeader writes the table's header to disk, with the rest of the
// mapping (mmap-go flushes a whole mapping only).
func (t *postingTable) syncHeader() error { return t.data.Flush() }
