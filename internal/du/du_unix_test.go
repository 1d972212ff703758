//go:build unix

package du

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBytesSparse: a file's apparent size is not what it takes on disk.
func TestBytesSparse(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 20); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := Bytes(dir); got >= 1<<20 {
		t.Errorf("Bytes of a sparse 1 MiB file = %d, want its blocks only", got)
	}
}
