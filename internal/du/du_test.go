package du

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBytes(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"a": 10000, "sub/b": 20000} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := Bytes(dir); got < 30000 || got > 30000+4*8192 {
		t.Errorf("Bytes = %d, want the 30,000 bytes written, up to a few blocks more", got)
	}
	if got := Bytes(filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("Bytes of a missing path = %d, want 0", got)
	}
}
