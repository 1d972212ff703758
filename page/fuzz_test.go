package page

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func FuzzDecode(f *testing.F) {
	for _, b := range fixtures(f) {
		f.Add(b, "")
	}
	f.Add([]byte("<meta charset=gbk>\x81\x30\x81\x30"), "text/html; charset=big5")
	f.Fuzz(func(t *testing.T, raw []byte, contentType string) {
		s, err := Decode(raw, contentType)
		if err == nil && !utf8.ValidString(s) {
			t.Errorf("Decode returned invalid UTF-8 %q", s)
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "pages.jsonl")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("{\"id\":\"a\",\"text\":\"x\"}\r\n\n{\"id\":\"a\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for p, err := range Read([]string{path}, Options{MaxBytes: 64}) {
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Errorf("error %v is %T, want *Error", err, err)
				}
				continue
			}
			if p.ID == "" || seen[p.ID] || (p.HTML == "") == (p.Text == "") {
				t.Errorf("bad page %+v", p)
			}
			seen[p.ID] = true
		}
	})
}
