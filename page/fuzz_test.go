package page

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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

// allocMeter fails a test when reading allocates more than budget bytes
// between two of the reader's yields (or before the first, or after the
// last): memory must not grow with what an input decompresses to.
type allocMeter struct {
	t            *testing.T
	budget, last uint64
}

func newAllocMeter(t *testing.T, budget uint64) *allocMeter {
	return &allocMeter{t: t, budget: budget, last: allocated()}
}

// allocated is how many bytes the program has allocated so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// step checks the allocations since the last step.
func (m *allocMeter) step() {
	if d := allocated() - m.last; d > m.budget {
		m.t.Fatalf("%d bytes allocated between two yields, want at most %d", d, m.budget)
	}
	m.last = allocated()
}

// fuzzBudget is what reading may allocate between two yields under
// limits (the page or line limit plus the header limit) from an input of
// n bytes: a page's decoding costs a few dozen times its size, and a scan
// through damaged data a few hundred bytes for each record it tries (one
// every few bytes). Holding what the input decompresses to (up to about
// a thousand times its size) exceeds it.
func fuzzBudget(limits int64, n int) uint64 {
	return 1<<20 + 64*uint64(limits) + 256*uint64(n)
}

// zeros is what the gzip bombs among the seeds decompress to.
var zeros = make([]byte, 8<<20)

func FuzzReadJSONL(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "pages.jsonl")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("{\"id\":\"a\",\"text\":\"x\"}\r\n\n{\"id\":\"a\"}"))
	f.Add(gzipMember(f, zeros))
	f.Add(gzipMember(f, append(bytes.Repeat([]byte("\n"), 1<<20), `{"id":"a","text":"x"}`...)))
	opts := Options{MaxBytes: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newAllocMeter(t, fuzzBudget(opts.lineLimit(), len(data)))
		for p, err := range ReadJSONL("f.jsonl", bytes.NewReader(data), opts) {
			m.step()
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
		m.step()
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
	// Bombs: a member of zeros, a header line without an end, a member
	// going on past its record, a record declaring all the zeros, a
	// WARC gzipped whole ending in zeros, a content-encoded body.
	f.Add(gzipMember(f, zeros))
	f.Add(gzipMember(f, append([]byte("WARC/1.1"), zeros...)))
	f.Add(gzipMember(f, append(bytes.Clone(recs[8]), zeros...)))
	f.Add(gzipMember(f, append([]byte(fmt.Sprintf("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.com/\r\n"+
		"Content-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(zeros))), zeros...)))
	f.Add(gzipMember(f, append(bytes.Join(recs[7:9], nil), zeros...)))
	f.Add(gzipMember(f, warcRecord("1.1", "response", "http://example.com/", map[string]string{"Content-Type": "application/http; msgtype=response"},
		httpResponse("200 OK", "Content-Type: text/html\r\nContent-Encoding: gzip\r\n", string(gzipMember(f, zeros))))))
	opts := Options{MaxBytes: 4 << 10, MaxHeaderBytes: 1 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newAllocMeter(t, fuzzBudget(opts.MaxBytes+int64(opts.MaxHeaderBytes), len(data)))
		var last int64 = -1
		for p, err := range ReadWARC("f.warc", bytes.NewReader(data), int64(len(data)), opts) {
			m.step()
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
		m.step()
	})
}

// FuzzReadFile reads one file of a directory, gzipped or not.
func FuzzReadFile(f *testing.F) {
	for name, b := range fixtures(f) {
		f.Add(b, strings.HasSuffix(name, ".gz"))
	}
	f.Add(gzipMember(f, zeros), true)
	f.Add(gzipMember(f, append([]byte("<p>"), bytes.Repeat([]byte("\xe4\xb8\xad"), 1<<20)...)), true)
	opts := Options{MaxBytes: 4 << 10}
	f.Fuzz(func(t *testing.T, data []byte, gzipped bool) {
		path := filepath.Join(t.TempDir(), "f.html")
		if gzipped {
			path += ".gz"
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m := newAllocMeter(t, fuzzBudget(opts.MaxBytes, len(data)))
		for p, err := range Read([]string{path}, opts) {
			m.step()
			var pe *Error
			switch {
			case err != nil && (!errors.As(err, &pe) || pe.Source != path):
				t.Errorf("error %v does not name %s", err, path)
			case err == nil && (p.ID != "f" || p.HTML == "" || !utf8.ValidString(p.HTML)):
				t.Errorf("bad page %+v", p)
			}
		}
		m.step()
	})
}
