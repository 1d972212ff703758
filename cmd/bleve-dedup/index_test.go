package main

import (
	"errors"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/indexer"
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
	if want := "read 15, indexed 9, duplicates 6, errors 0"; !strings.Contains(out, want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out, want)
	}
	// Indexing the same pages again skips them all as unchanged.
	out, err = runCmd(t, "index", "--index", dir, pagesDir)
	if err != nil || !strings.Contains(out, "read 15, indexed 0, duplicates 0, errors 0, unchanged 15") {
		t.Errorf("re-index: %v\n%s", err, out)
	}
}

func TestIndexCmdBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	tests := []struct {
		name     string
		args     []string
		wantErr  bool
		wantOut  []string
		notInOut []string
	}{
		{"bad pages are skipped, named, counted", []string{badDir, filepath.Join(badDir, "mixed.jsonl")}, true,
			[]string{"binary.html", "empty.html", "mixed.jsonl:2", "mixed.jsonl:3: missing id: syntax error", "errors 4", "4 pages were skipped"}, nil},
		{"a missing input fails the run after the rest", []string{"no-such-dir", filepath.Join(badDir, "mixed.jsonl")}, true,
			[]string{"no-such-dir", "1 of the inputs could not be read", "unchanged 1"}, nil},
		{"unknown policy", []string{"--policy", "drop", pagesDir}, true, []string{`unknown policy "drop"`}, []string{"read "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, append([]string{"index", "--index", dir}, tt.args...)...)
			if err != nil {
				out += err.Error()
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("error = %v, want error %v\n%s", err, tt.wantErr, out)
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
	if err == nil || !strings.Contains(out+err.Error(), "Policy: the index's mark, this run's suppress") {
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
	var sk *skippedError
	if !errors.As(err, &sk) || sk.n != 1 {
		t.Errorf("error = %v, want 1 page skipped", err)
	}
	for _, w := range []string{"long.jsonl:1: indexer: id of 70000 bytes", "at most 8192", "indexed 1,"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%.600s", w, out)
		}
	}
	if len(out) > 2000 {
		t.Errorf("output of %d bytes: the id is printed whole", len(out))
	}
}
