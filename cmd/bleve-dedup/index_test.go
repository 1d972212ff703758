package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

var (
	pagesDir   = filepath.Join("..", "..", "testdata", "pages")
	pagesLabel = filepath.Join("..", "..", "testdata", "pages-labels.jsonl")
	badDir     = filepath.Join("..", "..", "testdata", "bad")
)

func TestIndexCmd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	out, err := runCmd(t, "index", "--index", dir, pagesDir)
	if err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	if want := "read 15 = indexed 9 + duplicates 6 + unchanged 0 + errors 0 + skipped 0"; !strings.Contains(out, want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out, want)
	}
	// Indexing the same pages again passes over them all as unchanged.
	out, err = runCmd(t, "index", "--index", dir, pagesDir)
	if err != nil || !strings.Contains(out, "read 15 = indexed 0 + duplicates 0 + unchanged 15 + errors 0") {
		t.Errorf("re-index: %v\n%s", err, out)
	}
}

func TestIndexCmdBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	mixed := filepath.Join(badDir, "mixed.jsonl")
	tests := []struct {
		name     string
		args     []string
		status   int
		wantOut  []string
		notInOut []string
	}{
		{"bad pages are errors, named, counted", []string{badDir}, 2,
			[]string{"error: page: " + filepath.Join(badDir, "binary.html"), "empty.html", "mixed.jsonl:2", "mixed.jsonl:3: missing id: syntax error",
				"read 6 = indexed 2 + duplicates 0 + unchanged 0 + errors 4 + skipped 0", "bleve-dedup: 4 pages not indexed because of errors (named above)"},
			[]string{"skipped:", "were skipped"}},
		{"a JSONL file given and in a directory given is read once", []string{badDir, mixed}, 2,
			[]string{"read 6 = indexed 0 + duplicates 0 + unchanged 2 + errors 4"}, nil},
		{"a missing input fails the run before anything is read", []string{"no-such-dir", mixed, "no-such.jsonl"}, 1,
			[]string{"bleve-dedup: 2 inputs cannot be read (nothing was read): no-such-dir: no such file or directory; no-such.jsonl: no such file or directory"},
			[]string{"= indexed", "mixed.jsonl:"}},
		{"one missing input", []string{"no-such.html"}, 1,
			[]string{"bleve-dedup: input no-such.html: no such file or directory (nothing was read)"}, []string{"= indexed"}},
		{"a file of no kind page reads", []string{"../../README.md"}, 1,
			[]string{"input ../../README.md: not a file of pages"}, []string{"= indexed"}},
		{"unknown policy", []string{"--policy", "drop", pagesDir}, 1, []string{`unknown policy "drop"`}, []string{"read "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			status := run(context.Background(), append([]string{"index", "--index", dir}, tt.args...), &buf, &buf)
			out := buf.String()
			if status != tt.status {
				t.Errorf("exit status %d, want %d\n%s", status, tt.status, out)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notInOut {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
	// The readable pages (the malformed HTML page has text) stay indexed.
	out, err := runCmd(t, "search", "--index", dir, "--format", "jsonl", "--syntax", "querystring", "*")
	if err != nil || strings.Count(out, "\n") != 2 || !strings.Contains(out, `"id":"truncated"`) || !strings.Contains(out, `"id":"bad-jsonl/good"`) {
		t.Errorf("after bad input, index holds:\n%s (err %v), want the truncated page and the good JSONL line", out, err)
	}
}

// TestIndexCounts: the summary adds up, under every policy, for pages
// indexed, unchanged and with errors.
func TestIndexCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"suppress", []string{"--index", dir + "-s", pagesDir}, "read 15 = indexed 9 + duplicates 6 + unchanged 0 + errors 0 + skipped 0 (not HTML 0, HTTP status 0); updated 0, truncated 0;"},
		{"suppress again", []string{"--index", dir + "-s", pagesDir}, "read 15 = indexed 0 + duplicates 0 + unchanged 15 + errors 0"},
		{"mark", []string{"--index", dir + "-m", "--policy", "mark", pagesDir}, "read 15 = indexed 15 (6 of them duplicates) + unchanged 0 + errors 0"},
		{"replace", []string{"--index", dir + "-r", "--policy", "replace", pagesDir, badDir}, "read 21 = indexed 17 + duplicates 0 + unchanged 0 + errors 4"},
		// No duplicates: kept out or marked, the sum is the same.
		{"mark, errors", []string{"--index", dir + "-m", badDir}, "read 6 = indexed 2 + duplicates 0 + unchanged 0 + errors 4"},
	}
	sum := regexp.MustCompile(`read (\d+) = indexed (\d+)(?: \(\d+ of them duplicates[^)]*\))?(?: \+ duplicates (\d+))? \+ unchanged (\d+) \+ errors (\d+) \+ skipped (\d+)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := runCmd(t, append([]string{"index"}, tt.args...)...)
			if !strings.Contains(out, tt.want) {
				t.Errorf("summary:\n%s\nwant %q", out, tt.want)
			}
			m := sum.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no sum in:\n%s", out)
			}
			n := make([]int, len(m))
			for i, s := range m[1:] {
				n[i+1], _ = strconv.Atoi(s)
			}
			if n[1] != n[2]+n[3]+n[4]+n[5]+n[6] {
				t.Errorf("%s: the counts do not add up", m[0])
			}
		})
	}
}

// TestCountsLine: the summary states a sum only when the counts make one.
func TestCountsLine(t *testing.T) {
	tests := []struct {
		name string
		st   indexer.Stats
		want string
	}{
		{"duplicates kept out", indexer.Stats{Read: 10, Indexed: 5, Duplicates: 2, Unchanged: 1, Errors: 1, NotHTML: 1},
			"read 10 = indexed 5 + duplicates 2 + unchanged 1 + errors 1 + skipped 1 (not HTML 1, HTTP status 0); updated 0, truncated 0"},
		{"duplicates marked", indexer.Stats{Read: 10, Indexed: 7, Duplicates: 2, KeptDuplicates: 2, Unchanged: 1, Errors: 1, BadStatus: 1},
			"read 10 = indexed 7 (2 of them duplicates) + unchanged 1 + errors 1 + skipped 1 (not HTML 0, HTTP status 1); updated 0, truncated 0"},
		{"duplicates kept out but those with text of their own", indexer.Stats{Read: 10, Indexed: 7, Duplicates: 3, KeptDuplicates: 1, Unchanged: 1},
			"read 10 = indexed 7 (1 of them duplicates with text of their own) + duplicates 2 + unchanged 1 + errors 0 + skipped 0 (not HTML 0, HTTP status 0); updated 0, truncated 0"},
		{"no sum", indexer.Stats{Read: 10, Indexed: 1, Duplicates: 1},
			"read 10: indexed 1, duplicates 1, unchanged 0, errors 0, skipped 0 (not HTML 0, HTTP status 0); updated 0, truncated 0"},
	}
	for _, tt := range tests {
		if got := countsLine(tt.st); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestIndexReadsDirJSONL: a directory's JSONL files, gzipped or not, are
// read as if given; its WARC archives are named, not read.
func TestIndexReadsDirJSONL(t *testing.T) {
	in := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(in, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if strings.HasSuffix(name, ".gz") {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(body))
			zw.Close()
			body = b.String()
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.html", "<html><body><p>A page about the bees kept on the roof of the city library.</p></body></html>")
	write("sub/b.jsonl", `{"id":"b","text":"A page about tide tables printed for the harbor each spring."}`+"\n")
	write("sub/c.jsonl.gz", `{"id":"c","text":"A page about the old lighthouse keeper and his logbooks."}`+"\n")
	write("d.warc.gz", "not read")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"index", []string{"index", "--index", filepath.Join(t.TempDir(), "ix"), in}, []string{"read 3 = indexed 3 + duplicates 0"}},
		{"extract", []string{"extract", "--format", "jsonl", in}, []string{`"id":"a"`, `"id":"b"`, `"id":"c"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, tt.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			want := append(tt.want, "bleve-dedup: not read: "+filepath.Join(in, "d.warc.gz")+": a WARC archive in a directory is read only when given as an input of its own")
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestIndexSettingsMessage: a refused decision flag is named with the
// flag that lets it change, once; a refused store keeps the library's
// message, which does not offer --reconfigure.
func TestIndexSettingsMessage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	en := filepath.Join(pagesDir, "en")
	if out, err := runCmd(t, "index", "--index", dir, "--policy", "mark", en); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	tests := []struct {
		name      string
		args      []string
		want      string
		reconfigs int // how many times --reconfigure is named
	}{
		{"policy", []string{"--policy", "suppress"},
			"--index " + dir + " was made with --policy mark, this run gives --policy suppress: leave --policy out to go on with the index's, or add --reconfigure to decide the pages indexed from now on with this run's", 1},
		{"policy and measure", []string{"--policy", "suppress", "--measure", "minhash"},
			"was made with --policy mark --measure combined, this run gives --policy suppress --measure minhash: leave --policy and --measure out", 1},
		{"store", []string{"--store", "redis://127.0.0.1:1"}, "they cannot change on an existing index", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, append(append([]string{"index", "--index", dir}, tt.args...), en)...)
			if !errors.Is(err, indexer.ErrSettings) {
				t.Fatalf("error %v, want indexer.ErrSettings\n%s", err, out)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message:\n%s\nwant it to contain %q", msg, tt.want)
			}
			if n := strings.Count(msg, "--reconfigure"); n != tt.reconfigs || strings.Contains(msg, "Options.Reconfigure") {
				t.Errorf("message names --reconfigure %d times (want %d), or the library's option:\n%s", n, tt.reconfigs, msg)
			}
		})
	}
}

// TestIndexProgress: the progress line shows the inputs' bytes read of
// their total (a .jsonl.gz's compressed bytes), the time left and one
// rate; the line logged off a terminal has them all.
func TestIndexProgress(t *testing.T) {
	defer func(d time.Duration) { logEvery = d }(logEvery)
	logEvery = 0
	in := t.TempDir()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for i := range 40 {
		fmt.Fprintf(zw, `{"id":"p%d","text":"Page %d of a stream, about %d bees kept on the roof of library number %d."}`+"\n", i, i, i*7, i*13)
	}
	zw.Close()
	gz := filepath.Join(in, "pages.jsonl.gz")
	if err := os.WriteFile(gz, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "index", "--index", filepath.Join(t.TempDir(), "ix"), "--batch", "10", gz, pagesDir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var lines []string
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, "bleve-dedup: indexing: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		t.Fatalf("%d progress lines, want one a batch:\n%s", len(lines), out)
	}
	total := int64(b.Len())
	filepath.WalkDir(pagesDir, func(p string, d fs.DirEntry, err error) error {
		if info, ierr := d.Info(); err == nil && ierr == nil && !d.IsDir() && page.FileFormat(d.Name()) == kindPage {
			total += info.Size()
		}
		return nil
	})
	for _, l := range lines {
		for _, w := range []string{" of " + sizeString(total) + " (", "%), ETA ", "; pages read ", " errors 0, skipped 0; "} {
			if !strings.Contains(l, w) {
				t.Errorf("progress line lacks %q: %s", w, l)
			}
		}
		if n := strings.Count(l, "/s"); n != 1 {
			t.Errorf("progress line with %d rates: %s", n, l)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "(100%), ETA 0s") {
		t.Errorf("last progress line: %s, want all read", last)
	}
}

// TestProgressLine: the bytes done of the total, and the time left at
// the rate so far; without a total, what was read.
func TestProgressLine(t *testing.T) {
	st := indexer.Stats{Read: 100, Indexed: 90, Duplicates: 10, Elapsed: 10 * time.Second}
	tests := []struct {
		name        string
		done, total int64
		want        []string
		not         []string
	}{
		{"a quarter", 25 << 20, 100 << 20, []string{"25.0 MiB of 100.0 MiB (25%), ETA 30s; pages read 100: indexed 90, duplicates 10, unchanged 0, errors 0, skipped 0; 10 docs/s; RssAnon "}, nil},
		{"all", 3 << 10, 3 << 10, []string{"3.0 KiB of 3.0 KiB (100%), ETA 0s;"}, nil},
		{"no total", 512, 0, []string{"512 B read; pages read 100"}, []string{"ETA", "%"}},
	}
	for _, tt := range tests {
		got := progressLine(st, tt.done, tt.total)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s\nwant it to contain %q", tt.name, got, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %s\nhas %q", tt.name, got, w)
			}
		}
	}
}

// TestIndexRemembersSettings: an index made with --policy mark is indexed
// again with its own policy when --policy is not given, and refused
// another one unless --reconfigure.
func TestIndexRemembersSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	en, zh := filepath.Join(pagesDir, "en"), filepath.Join(pagesDir, "zh")
	if out, err := runCmd(t, "index", "--index", dir, "--policy", "mark", en); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	if out, err := runCmd(t, "index", "--index", dir, zh); err != nil {
		t.Fatalf("index again without --policy: %v\n%s", err, out)
	}
	out, err := runCmd(t, "index", "--index", dir, "--policy", "suppress", zh)
	if err == nil || !strings.Contains(out+err.Error(), "was made with --policy mark, this run gives --policy suppress") {
		t.Errorf("--policy suppress on a mark index: %v\n%s\nwant a refusal naming both", err, out)
	}
	if out, err := runCmd(t, "index", "--index", dir, "--policy", "suppress", "--reconfigure", zh); err != nil {
		t.Errorf("--reconfigure: %v\n%s", err, out)
	}
	s, err := indexer.SavedOptions(dir)
	if err != nil || s.Filter == nil || s.Policy != dedupfilter.Suppress {
		t.Errorf("saved policy after --reconfigure: %v, %v; want suppress", s.Policy, err)
	}
}

// TestIndexLongID: an id longer than the store takes is the page's error,
// named with its line; the pages after it are indexed.
func TestIndexLongID(t *testing.T) {
	in := filepath.Join(t.TempDir(), "long.jsonl")
	body := `{"id":"` + strings.Repeat("L", 70000) + `","text":"x y z."}` + "\n" +
		`{"id":"after","text":"A page about bees kept on the roof of the city library."}` + "\n"
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "index", "--index", filepath.Join(t.TempDir(), "ix"), in)
	var pe *partialError
	if !errors.As(err, &pe) || pe.n != 1 || err.Error() != "1 page not indexed because of an error (named above)" {
		t.Errorf("error = %v, want 1 page not indexed", err)
	}
	for _, w := range []string{"long.jsonl:1: indexer: id of 70000 bytes", "at most 8192", "indexed 1 +"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%.600s", w, out)
		}
	}
	if len(out) > 2000 {
		t.Errorf("output of %d bytes: the id is printed whole", len(out))
	}
}
