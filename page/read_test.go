package page

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// result is one yielded item, flattened for comparison.
type result struct {
	id   string // page id, or Error.ID
	line int    // Error.Line
	err  error  // sentinel the error must wrap; nil for a page
	html string // substring HTML must contain
	text string // substring Text must contain
}

func collect(tb testing.TB, inputs []string, opts Options) ([]Page, []error) {
	tb.Helper()
	var pages []Page
	var errs []error
	for p, err := range Read(inputs, opts) {
		pages = append(pages, p)
		errs = append(errs, err)
	}
	return pages, errs
}

func check(t *testing.T, inputs []string, opts Options, want []result) {
	t.Helper()
	pages, errs := collect(t, inputs, opts)
	if len(pages) != len(want) {
		for i := range pages {
			t.Logf("got %d: %q %v", i, pages[i].ID, errs[i])
		}
		t.Fatalf("got %d items, want %d", len(pages), len(want))
	}
	for i, w := range want {
		p, err := pages[i], errs[i]
		if w.err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, w.err) || pe.ID != w.id || pe.Line != w.line {
				t.Errorf("item %d: got page %q err %v, want *Error{ID:%q Line:%d} wrapping %v", i, p.ID, err, w.id, w.line, w.err)
			}
			continue
		}
		if err != nil || p.ID != w.id || !strings.Contains(p.HTML, w.html) || !strings.Contains(p.Text, w.text) ||
			(w.html == "") != (p.HTML == "") {
			t.Errorf("item %d: got %+v, %v; want id %q html~%q text~%q", i, p, err, w.id, w.html, w.text)
		}
	}
}

func TestReadDir(t *testing.T) {
	check(t, []string{filepath.Join("testdata", "corpus")}, Options{MaxBytes: 1000}, []result{
		{id: "a/gbk-meta", html: zhSimplified},
		{id: "a/gbk-sniff", html: zhSimplified},
		{id: "b/big5-sniff", html: zhTraditional},
		{id: "b/utf8", html: zhSimplified},
		{id: "bad-utf8", html: "café"},
		{id: "big", err: ErrTooLarge},
		{id: "binary", err: ErrBinary},
		{id: "c/d/nested", html: "nested"},
		{id: "empty", err: ErrEmpty},
		{id: "note", text: "second paragraph"},
	})
}

func TestReadJSONL(t *testing.T) {
	check(t, []string{filepath.Join("testdata", "pages.jsonl")}, DefaultOptions(), []result{
		// The meta says gb2312 but the field is text already: no second decode.
		{id: "j1", html: "<p>中文</p>"},
		{line: 3, err: ErrSyntax},
		{line: 4, err: ErrSyntax},
		{id: "j2", line: 5, err: ErrSyntax},
		{id: "j1", text: "dup"}, // a later version of j1
		{id: "j3", text: "hello"},
		{id: "j4", line: 8, err: ErrEmpty},
	})
}

func TestReadJSONLTooLong(t *testing.T) {
	// lineLimit is 2*MaxBytes+64KiB; line 1 exceeds it, line 2 does not.
	dir := t.TempDir()
	path := filepath.Join(dir, "long.jsonl")
	long := `{"id":"long","text":"` + strings.Repeat("x", 70<<10) + `"}`
	writeFile(t, path, long+"\n"+`{"id":"ok","text":"fine"}`+"\n")
	check(t, []string{path}, Options{MaxBytes: 10}, []result{
		{line: 1, err: ErrTooLarge},
		{id: "ok", text: "fine"},
	})
	check(t, []string{path}, Options{}, []result{
		{id: "long", text: "xxx"},
		{id: "ok", text: "fine"},
	})
}

func TestReadSingleFilesAndMissing(t *testing.T) {
	check(t, []string{
		filepath.Join("testdata", "corpus", "b", "utf8.html.gz"),
		filepath.Join("testdata", "corpus", "note.txt"),
		filepath.Join("testdata", "corpus", "ignored.json"),
		filepath.Join("testdata", "missing"),
	}, DefaultOptions(), []result{
		{id: "utf8", html: zhSimplified},
		{id: "note", text: "plain text"},
		{err: errors.ErrUnsupported},
		{err: fs.ErrNotExist},
	})
}

func TestReadStopsEarly(t *testing.T) {
	n := 0
	for range Read([]string{filepath.Join("testdata", "corpus")}, DefaultOptions()) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("got %d iterations, want 2", n)
	}
}

// TestReadStreams reads a JSONL and a WARC input as streams (a request
// body), plain and gzipped: the pages and problems are those of the file,
// named by the stream's name.
func TestReadStreams(t *testing.T) {
	var plainWARC, gzWARC []byte
	for _, r := range testRecords(t) {
		plainWARC = append(plainWARC, r...)
		gzWARC = append(gzWARC, gzipMember(t, r)...)
	}
	jsonl, err := os.ReadFile(filepath.Join("testdata", "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in.jsonl"), string(jsonl))
	writeFile(t, filepath.Join(dir, "in.warc"), string(plainWARC))
	tests := []struct {
		name, file string
		seq        iter.Seq2[Page, error]
	}{
		{"jsonl", "in.jsonl", ReadJSONL("body", bytes.NewReader(jsonl), DefaultOptions())},
		{"jsonl gzip", "in.jsonl", ReadJSONL("body", bytes.NewReader(gzipMember(t, jsonl)), DefaultOptions())},
		{"warc", "in.warc", ReadWARC("body", bytes.NewReader(plainWARC), int64(len(plainWARC)), DefaultOptions())},
		{"warc gzip", "in.warc", ReadWARC("body", bytes.NewReader(gzWARC), int64(len(gzWARC)), DefaultOptions())},
		{"warc gzipped whole", "in.warc", ReadWARC("body", bytes.NewReader(gzipMember(t, plainWARC)), int64(len(gzipMember(t, plainWARC))), DefaultOptions())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got []string
			for p, err := range Read([]string{filepath.Join(dir, tt.file)}, DefaultOptions()) {
				want = append(want, fmt.Sprint(p.ID, p.URL, len(p.HTML), p.Text, err))
			}
			for p, err := range tt.seq {
				if err != nil && !strings.HasPrefix(err.Error(), "page: body") {
					t.Errorf("error %q does not name the stream", err)
				}
				got = append(got, fmt.Sprint(p.ID, p.URL, len(p.HTML), p.Text, err))
			}
			if len(want) == 0 {
				t.Fatal("the file yielded nothing")
			}
			for i := range max(len(got), len(want)) {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = strings.ReplaceAll(want[i], filepath.Join(dir, tt.file), "body")
				}
				if tt.name == "warc gzipped whole" {
					g = strings.ReplaceAll(g, "body (gunzipped)", "body")
				}
				if tt.name != "warc" {
					g = offsets.ReplaceAllString(g, "@N")
					w = offsets.ReplaceAllString(w, "@N")
				}
				if g != w {
					t.Errorf("item %d: got %q, want %q", i, g, w)
				}
			}
		})
	}
}

// offsets are the byte offsets in WARC errors, which differ between a
// plain and a gzipped file.
var offsets = regexp.MustCompile(`at byte \d+`)

// TestReadBounds reads files and JSONL lines past the page limit: each is
// reported with its file (and line), without being held in memory, and
// what follows is still read.
func TestReadBounds(t *testing.T) {
	opts := Options{MaxBytes: 1 << 10}
	long := strings.Repeat("x", 4<<10)
	ok := `{"id":"ok","text":"fine"}` + "\n"
	tests := []struct {
		name string
		file string
		data []byte
		want []string // the error after "page: PATH", then the page ids
	}{
		{"JSONL line too long", "x.jsonl", []byte(`{"id":"a","text":"` + strings.Repeat("x", 70<<10) + "\"}\n" + ok),
			[]string{":1: a line longer than 67584 bytes: document too large", "ok"}},
		{"JSONL page too large", "x.jsonl", []byte(`{"id":"a","text":"` + long + "\"}\n" + ok),
			[]string{":1 (a): 4096 bytes, more than 1024: document too large", "ok"}},
		{"gzipped JSONL line without an end", "x.jsonl.gz", gzipMember(t, append(append(bytes.Clone(zeros), '\n'), ok...)),
			[]string{":1: a line longer than 67584 bytes: document too large", "ok"}},
		{"file too large", "x.html", []byte(long),
			[]string{" (x): 4096 bytes, more than 1024: document too large"}},
		{"gzipped file decompressing past the limit", "x.html.gz", gzipMember(t, zeros),
			[]string{" (x): more than 1024 bytes: document too large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			writeFile(t, path, string(tt.data))
			var got []string
			before := allocated()
			for p, err := range Read([]string{path}, opts) {
				if err != nil {
					got = append(got, err.Error())
				} else {
					got = append(got, p.ID)
				}
			}
			if a := allocated() - before; a > 1<<20 {
				t.Errorf("reading allocated %d bytes, want at most 1 MiB", a)
			}
			want := append([]string{"page: " + path + tt.want[0]}, tt.want[1:]...)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestReadJSONLControlBytes: a stray NUL in a record's HTML is dropped;
// a record that is mostly control bytes is binary.
func TestReadJSONLControlBytes(t *testing.T) {
	in := `{"id":"nul","html":"<p>Grüße \u0000aus Köln, a page with a stray NUL in it.</p>"}` + "\n" +
		`{"id":"bin","html":"\u0001\u0002\u0003\u0000\u0004PK"}` + "\n"
	var got []string
	for p, err := range ReadJSONL("in.jsonl", strings.NewReader(in), DefaultOptions()) {
		switch {
		case err != nil && !errors.Is(err, ErrBinary):
			t.Errorf("unexpected error %v", err)
		case err != nil:
			got = append(got, "binary")
		default:
			got = append(got, p.HTML)
		}
	}
	want := []string{"<p>Grüße aus Köln, a page with a stray NUL in it.</p>", "binary"}
	if !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
}

// TestReadJSONLBOM: a UTF-8 byte order mark before the first line is not
// part of its JSON.
func TestReadJSONLBOM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bom.jsonl")
	if err := os.WriteFile(path, []byte("\xef\xbb\xbf{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, []string{path}, DefaultOptions(), []result{{id: "a", text: "one"}, {id: "b", text: "two"}})
}

func TestFileFormat(t *testing.T) {
	tests := []struct{ name, want string }{
		{"a.html", FormatPage}, {"a.HTM.gz", FormatPage}, {"notes.txt", FormatPage},
		{"pages.jsonl", FormatJSONL}, {"pages.jsonl.gz", FormatJSONL},
		{"crawl.warc.gz", FormatWARC}, {"README.md", ""}, {"archive.gz", ""},
	}
	for _, tt := range tests {
		if got := FileFormat(tt.name); got != tt.want {
			t.Errorf("FileFormat(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
