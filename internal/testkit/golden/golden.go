// Package golden compares test output with golden files under testdata/,
// and rewrites them from the current output when the tests run with
// -update (go test ./pkg -update).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files from the current output")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with testdata/name, first writing got there under
// -update.
func Check(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test with -update to create it)", err)
	}
	if got != string(want) {
		tb.Errorf("output differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
