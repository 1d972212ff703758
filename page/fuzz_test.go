package page

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzDecode(f *testing.F) {
	for _, b := range fixtures(f) {
		f.Add(b, "")
	}
	real, _ := filepath.Glob(filepath.Join("testdata", "decode", "*.html"))
	for _, path := range real {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b, "text/html; charset=iso-8859-1")
		}
	}
	f.Add([]byte("<meta charset=gbk>\x81\x30\x81\x30"), "text/html; charset=big5")
	sources := []string{SourceBOM, SourceHeader, SourceMeta, SourceSniffed, SourceOverridden}
	f.Fuzz(func(t *testing.T, raw []byte, contentType string) {
		d, err := Decode(raw, contentType)
		switch {
		case err != nil && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrBinary):
			t.Errorf("Decode(%q) = %v, want no error but ErrEmpty or ErrBinary", raw, err)
		case err != nil:
		case !utf8.ValidString(d.Text):
			t.Errorf("Decode returned invalid UTF-8 %q", d.Text)
		case strings.IndexByte(d.Text, 0) >= 0:
			t.Errorf("Decode returned a NUL in %q", d.Text)
		case d.Charset == "" || !slices.Contains(sources, d.Source):
			t.Errorf("Decode(%q) charset %q from %q", raw, d.Charset, d.Source)
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "pages.jsonl")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("{\"id\":\"a\",\"text\":\"x\"}\r\n\n{\"id\":\"a\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for p, err := range ReadJSONL("f.jsonl", bytes.NewReader(data), Options{MaxBytes: 64}) {
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Errorf("error %v is %T, want *Error", err, err)
				}
				continue
			}
			if p.ID == "" || (p.HTML == "") == (p.Text == "") {
				t.Errorf("bad page %+v", p)
			}
		}
	})
}

func FuzzReadWARC(f *testing.F) {
	recs := testRecords(f)
	for _, r := range recs {
		f.Add(r)
		f.Add(gzipMember(f, r))
	}
	f.Add(bytes.Join(recs[:4], nil))
	f.Add(gzipMember(f, bytes.Join(recs[:3], nil)))
	f.Add(append(gzipMember(f, recs[2]), gzipMember(f, recs[3])[:40]...))
	f.Fuzz(func(t *testing.T, data []byte) {
		var last int64 = -1
		for p, err := range ReadWARC("f.warc", bytes.NewReader(data), int64(len(data)), Options{MaxBytes: 1 << 16}) {
			if err != nil {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %v is %T, want *Error", err, err)
				}
				if pe.Record > 0 && pe.Offset <= last {
					t.Fatalf("record offsets do not increase: %d after %d", pe.Offset, last)
				}
				last = max(last, pe.Offset)
				continue
			}
			if p.ID == "" || p.HTML == "" || !utf8.ValidString(p.HTML) {
				t.Errorf("bad page %+v", p)
			}
		}
	})
}
