package jsonfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	for _, v := range []map[string]int{{"format": 1}, {"format": 2}} {
		if err := Write(path, v); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"format\": " + string(rune('0'+v["format"])) + "\n}\n"
		if string(got) != want {
			t.Errorf("file %q, want %q", got, want)
		}
	}
	if _, err := os.Stat(path + ".new"); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left: %v", err)
	}
	if err := Write(filepath.Join(t.TempDir(), "no", "dir.json"), 1); err == nil {
		t.Error("Write into a missing directory: nil error")
	}
}
