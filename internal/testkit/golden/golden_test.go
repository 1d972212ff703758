package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder records failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "x.golden"), []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, got  string
		wantFailed bool
	}{
		{"x.golden", "same", false},
		{"x.golden", "other", true},
		{"missing.golden", "any", true},
	} {
		r := &recorder{TB: t}
		Check(r, tt.name, tt.got)
		if r.failed != tt.wantFailed {
			t.Errorf("Check(%s, %q) failed = %v, want %v", tt.name, tt.got, r.failed, tt.wantFailed)
		}
	}
}
