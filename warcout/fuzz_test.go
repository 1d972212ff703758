package warcout

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorded returns the bytes of a file of four exchanges recorded from
// the test server, gzipped or not.
func recorded(tb testing.TB, ext string) []byte {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "seed"+ext)
	recordPages(tb, name, DefaultOptions(), testServer(tb).URL, 4)
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzFinish gives finish, which repairs the file a crashed run left
// open, any bytes: it must not fail on content (only on the file
// system), and what it leaves must be a prefix of the input that reads
// whole, or nothing.
func FuzzFinish(f *testing.F) {
	for _, ext := range []string{".warc.gz", ".warc"} {
		b := recorded(f, ext)
		gz := ext == ".warc.gz"
		f.Add(b, gz)
		for _, cut := range []int{1, 20, len(b) / 3, len(b) / 2, len(b) - 1} {
			f.Add(b[:cut], gz)
		}
		f.Add(append(bytes.Clone(b), "junk"...), gz)
	}
	f.Add([]byte("WARC/1.1\r\nContent-Length: 5\r\n\r\nab"), false)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		ext := ".warc"
		if gz {
			ext = ".warc.gz"
		}
		open := filepath.Join(t.TempDir(), "crawl"+ext+openSuffix)
		if err := os.WriteFile(open, data, 0o644); err != nil {
			t.Fatal(err)
		}
		name, cut, err := finish(open)
		if err != nil {
			t.Fatalf("finish: %v", err)
		}
		if exists(open) {
			t.Fatalf("%s still there", open)
		}
		if name == "" {
			if cut != int64(len(data)) {
				t.Fatalf("file removed, %d of %d bytes said cut", cut, len(data))
			}
			return
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got))+cut != int64(len(data)) || !bytes.HasPrefix(data, got) {
			t.Fatalf("left %d bytes, cut %d, of %d: not the input's prefix", len(got), cut, len(data))
		}
		end, err := wholeRecords(name)
		if err != nil || end != int64(len(got)) {
			t.Fatalf("finished file reads whole to %d of %d (%v)", end, len(got), err)
		}
	})
}

// FuzzSerial parses any file name as a member of the series "crawl":
// a name taken for one must be the stem, or the stem and a serial of
// five digits or more, and every serial's name must parse back to it.
func FuzzSerial(f *testing.F) {
	for _, s := range []string{"crawl.warc.gz", "crawl-00001.warc.gz", "crawl-00012.warc.gz.open", "crawl-1.warc.gz",
		"crawl-000000.warc.gz", "crawl-x0001.warc.gz", "crawl.warc", "other.warc.gz", "crawl--0001.warc.gz"} {
		f.Add(s)
	}
	s := &series{dir: ".", stem: "crawl", ext: ".warc.gz"}
	f.Fuzz(func(t *testing.T, name string) {
		n, ok := s.serial(name)
		if !ok {
			return
		}
		rest := strings.TrimSuffix(strings.TrimSuffix(name, openSuffix), s.ext)
		if n < 0 || (n == 0) != (rest == s.stem) {
			t.Fatalf("serial(%q) = %d", name, n)
		}
		if back, ok := s.serial(s.base(n)); !ok || back != n {
			t.Fatalf("serial(base(%d) = %q) = %d, %v", n, s.base(n), back, ok)
		}
	})
}

func TestSerial(t *testing.T) {
	s := &series{dir: ".", stem: "crawl", ext: ".warc.gz"}
	tests := []struct {
		name   string
		want   int
		wantOK bool
	}{
		{"crawl.warc.gz", 0, true},
		{"crawl.warc.gz.open", 0, true},
		{"crawl-00001.warc.gz", 1, true},
		{"crawl-00042.warc.gz.open", 42, true},
		{"crawl-123456.warc.gz", 123456, true}, // past five digits
		{"crawl-1.warc.gz", 0, false},          // not written by us
		{"crawl-00000.warc.gz", 0, false},      // serials start at 1
		{"crawl-0000a.warc.gz", 0, false},
		{"crawl-+0001.warc.gz", 0, false},
		{"crawl.warc", 0, false}, // the other extension: another series
		{"crawler-00001.warc.gz", 0, false},
		{"xcrawl.warc.gz", 0, false},
	}
	for _, tt := range tests {
		got, ok := s.serial(tt.name)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("serial(%q) = %d, %v; want %d, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
	for _, n := range []int{0, 1, 99999, 100000} {
		if got, ok := s.serial(s.base(n)); got != n || !ok {
			t.Errorf("serial(base(%d) = %q) = %d, %v", n, s.base(n), got, ok)
		}
	}
}

// TestFinishTable cuts a recorded file at record boundaries and inside
// records and checks where finish cuts it.
func TestFinishTable(t *testing.T) {
	for _, ext := range []string{".warc.gz", ".warc"} {
		data := recorded(t, ext)
		ends := recordEnds(t, data, ext)
		if len(ends) != 9 { // warcinfo and four exchanges
			t.Fatalf("%s: %d records, want 9", ext, len(ends))
		}
		// The last record's final four bytes (a plain record's end marker,
		// a gzip member's length) overwritten, and bytes after them: the
		// record reads whole only while something follows it.
		damaged := append(bytes.Clone(data[:ends[8]-4]), "XXXXjunk after the record"...)
		tests := []struct {
			name    string
			input   []byte
			wantEnd int64 // 0: file removed
		}{
			{"whole", data[:ends[8]], ends[8]},
			{"at a boundary", data[:ends[4]], ends[4]},
			{"inside the last record", data[:ends[8]-10], ends[7]},
			{"one byte into a record", data[:ends[5]+1], ends[5]},
			{"inside the warcinfo", data[:ends[0]-1], 0},
			{"empty", nil, 0},
			{"end of the last record damaged", damaged, ends[7]},
		}
		for _, tt := range tests {
			open := filepath.Join(t.TempDir(), "crawl"+ext+openSuffix)
			if err := os.WriteFile(open, tt.input, 0o644); err != nil {
				t.Fatal(err)
			}
			size := int64(len(tt.input))
			name, cut, err := finish(open)
			if err != nil {
				t.Fatalf("%s %s: %v", ext, tt.name, err)
			}
			var got int64
			if name != "" {
				info, err := os.Stat(name)
				if err != nil {
					t.Fatal(err)
				}
				got = info.Size()
			}
			if got != tt.wantEnd || cut != size-tt.wantEnd {
				t.Errorf("%s %s: left %d bytes, cut %d; want %d, cut %d", ext, tt.name, got, cut, tt.wantEnd, size-tt.wantEnd)
			}
		}
	}
}

// recordEnds returns the offset after each record of a file.
func recordEnds(tb testing.TB, data []byte, ext string) []int64 {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "f"+ext)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	var ends []int64
	for _, r := range readRecords(tb, name) {
		ends = append(ends, r.end)
	}
	return ends
}
