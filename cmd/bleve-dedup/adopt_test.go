package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// webPage is a user's own document type, as a bleve program has it.
type webPage struct{ URL, Title, HTML string }

// plainIndex writes the shipped HTML pages (14, in 9 clusters) into a new
// plain bleve index with bleve's default mapping, and extra documents
// beside them.
func plainIndex(t *testing.T, extra map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pages.bleve")
	idx, err := bleve.New(dir, bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	b := idx.NewBatch()
	for p, err := range page.Read([]string{"../../testdata/pages"}, page.DefaultOptions()) {
		if err != nil {
			t.Fatal(err)
		}
		if p.HTML == "" {
			continue // the one plain-text page
		}
		if err := b.Index(p.ID, webPage{p.URL, p.Title, p.HTML}); err != nil {
			t.Fatal(err)
		}
	}
	for id, d := range extra {
		if err := b.Index(id, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runStatus(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestAdoptCmd(t *testing.T) {
	dir := plainIndex(t, map[string]any{"no-text": map[string]any{"URL": "http://example.com/x", "Title": "no body"}})
	args := []string{"adopt", "--index", dir, "--html-field", "HTML", "--title-field", "Title", "--url-field", "URL", "--format", "jsonl"}

	code, out, errs := runStatus(args...)
	if code != 2 || !strings.Contains(errs, "not adopted: no-text:") {
		t.Fatalf("first adopt: exit %d, want 2 with the document without text named\nstdout: %s\nstderr: %s", code, out, errs)
	}
	var got adoptLine
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if want := (adoptLine{Unseen: 15, Adopted: 14, Duplicates: 5, Missing: 1}); got.Unseen != want.Unseen || got.Adopted != want.Adopted ||
		got.Duplicates != want.Duplicates || got.Missing != want.Missing {
		t.Errorf("first adopt = %+v, want %+v", got, want)
	}

	// Again: the document without text is still unseen, nothing else.
	code, out, _ = runStatus(args...)
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 2 || got.Unseen != 1 || got.Adopted != 0 {
		t.Errorf("second adopt: exit %d, %+v (%v), want exit 2 and the one document without text unseen", code, got, err)
	}

	// Still a plain bleve index; every copy kept (mark) and carrying its
	// cluster; the filter's state beside it, not in it.
	idx, err := bleve.Open(dir)
	if err != nil {
		t.Fatalf("bleve.Open after adopt: %v", err)
	}
	defer idx.Close()
	if n, _ := idx.DocCount(); n != 15 {
		t.Errorf("%d documents after adopt, want 15", n)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 100, 0, false)
	req.Fields = []string{"cluster"}
	res, err := idx.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	clusters := map[any]int{}
	for _, h := range res.Hits {
		if h.ID != "no-text" {
			clusters[h.Fields["cluster"]]++
		}
	}
	if len(clusters) != 9 || clusters[nil] != 0 {
		t.Errorf("clusters of the adopted documents: %v, want 9, none missing", clusters)
	}
	if _, err := os.Stat(dir + ".dedup"); err != nil {
		t.Errorf("the filter's store: %v", err)
	}
}

func TestAdoptCmdRefuses(t *testing.T) {
	ours := fixtureIndex(t)
	plain := plainIndex(t, nil)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", []string{"adopt", "--text-field", "Body"}, "--index"},
		{"no field", []string{"adopt", "--index", plain}, "--text-field FIELD or --html-field"},
		{"both fields", []string{"adopt", "--index", plain, "--text-field", "Body", "--html-field", "HTML"}, "html-field"},
		{"ours", []string{"adopt", "--index", ours, "--text-field", "Body"}, "a bleve-dedup index already"},
		{"not an index", []string{"adopt", "--index", t.TempDir(), "--text-field", "Body"}, "--index"},
		{"store inside", []string{"adopt", "--index", plain, "--html-field", "HTML", "--store", filepath.Join(plain, "dedup")}, "inside the bleve index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runStatus(tt.args...)
			if code != 1 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q, want 1 and %q\n%s", code, errs, tt.want, out)
			}
		})
	}
}
