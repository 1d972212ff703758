package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/stubs"
)

// The product's quality claims, checked on the real pages of
// ../shared/data: no page with text of its own joins another's cluster,
// none is lost from a suppress index, and the development set's copies
// are found. Each skips where the data is absent.

// scores is what a test reads of eval's JSON line.
type scores struct {
	Docs, PredPairs, TruePairs, GoldPairs int
	Precision, Recall                     float64
	LeftOut                               int `json:"left_out"`
	Lost                                  int `json:"lost"`
	LostIDs                               []string
}

// evalJSON runs eval on inputs against labels and reads its scores.
func evalJSON(t *testing.T, labels string, inputs ...string) scores {
	t.Helper()
	out, err := runCmd(t, append([]string{"eval", "--format", "jsonl", "--labels", labels}, inputs...)...)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	var s struct {
		Docs      int      `json:"docs"`
		GoldPairs int      `json:"gold_pairs"`
		PredPairs int      `json:"pred_pairs"`
		TruePairs int      `json:"true_pairs"`
		Precision float64  `json:"precision"`
		Recall    float64  `json:"recall"`
		LeftOut   int      `json:"left_out"`
		Lost      int      `json:"lost"`
		LostIDs   []string `json:"lost_ids"`
	}
	if err := json.Unmarshal([]byte(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]), &s); err != nil {
		t.Fatalf("eval output %q: %v", out, err)
	}
	return scores{s.Docs, s.PredPairs, s.TruePairs, s.GoldPairs, s.Precision, s.Recall, s.LeftOut, s.Lost, s.LostIDs}
}

// writeJSONL writes one JSON value a line to a new file in dir.
func writeJSONL[T any](t *testing.T, dir, name string, vs []T) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type label struct {
	ID      string `json:"id"`
	Cluster string `json:"cluster"`
}

// TestQualityDevelopment: the labelled development set under the default
// policy, suppress: precision 1, recall at least 0.995, and no page left
// out whose text its cluster's kept page does not hold.
func TestQualityDevelopment(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the development set")
	}
	dir := extracttest.Path(t, "neardup")
	s := evalJSON(t, filepath.Join(dir, "dev-labels.jsonl"), filepath.Join(dir, "dev-corpus.jsonl.gz"))
	if s.Precision != 1 || s.Recall < 0.995 || s.Lost != 0 || s.LeftOut == 0 {
		t.Errorf("development set: precision %.4f recall %.4f, lost %d of %d left out (%v); want 1, at least 0.995, 0 lost",
			s.Precision, s.Recall, s.Lost, s.LeftOut, s.LostIDs)
	}
}

// cmrcArticles reads cmrc2018's passages: 848 Wikipedia articles, none a
// copy of another (some stubs written from one template).
func cmrcArticles(t *testing.T) (ids []string, arts []stubs.Article) {
	t.Helper()
	for _, p := range extracttest.LoadCMRC(t) {
		ids = append(ids, p.ID)
		arts = append(arts, stubs.Article{Title: p.Title, Text: p.Text})
	}
	return ids, arts
}

// TestQualityDistinctArticles: pages that are all distinct articles
// (cmrc2018's Wikipedia passages, three of them eel species written from
// one template; extract/en's news pages) make no cluster.
func TestQualityDistinctArticles(t *testing.T) {
	ids, arts := cmrcArticles(t)
	dir := t.TempDir()
	type doc struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	var docs []doc
	var labels []label
	for i, a := range arts {
		docs = append(docs, doc{ids[i], a.Title, a.Text})
		labels = append(labels, label{ids[i], ids[i]})
	}
	s := evalJSON(t, writeJSONL(t, dir, "labels.jsonl", labels), writeJSONL(t, dir, "cmrc.jsonl", docs))
	if s.Docs != len(docs) || s.PredPairs != 0 {
		t.Errorf("cmrc2018 passages: %d docs, %d predicted pairs; want %d, 0", s.Docs, s.PredPairs, len(docs))
	}

	html := extracttest.Path(t, "extract", "en", "html")
	names, err := filepath.Glob(filepath.Join(html, "*.html.gz"))
	if err != nil || len(names) == 0 {
		t.Fatalf("extract/en: %v, %d pages", err, len(names))
	}
	labels = labels[:0]
	for _, n := range names {
		id := strings.TrimSuffix(filepath.Base(n), ".html.gz")
		labels = append(labels, label{id, id})
	}
	s = evalJSON(t, writeJSONL(t, dir, "en-labels.jsonl", labels), html)
	if s.Docs != len(names) || s.PredPairs != 0 {
		t.Errorf("extract/en: %d docs, %d predicted pairs; want %d, 0", s.Docs, s.PredPairs, len(names))
	}
}

// TestQualityReadability: extract/readability's source pages. Its small
// test pages fill their templates with lorem ipsum, real copies of each
// other, and two are snapshots of one article; every other page is an
// article of its own.
func TestQualityReadability(t *testing.T) {
	src := extracttest.Path(t, "extract", "readability")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pages := filepath.Join(dir, "pages")
	if err := os.Mkdir(pages, 0o755); err != nil {
		t.Fatal(err)
	}
	var labels []label
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(src, e.Name(), "source.html.gz"))
		if !e.IsDir() || err != nil {
			continue
		}
		html, err := gunzip(raw)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if e.Name() == "js-link-replacement" {
			continue // its text is written by a script: no main text to index
		}
		cluster := e.Name()
		switch {
		case bytes.Contains(bytes.ToLower(html), []byte("lorem")):
			cluster = "lorem ipsum"
		case strings.HasPrefix(e.Name(), "lifehacker-"):
			cluster = "lifehacker"
		}
		if err := os.WriteFile(filepath.Join(pages, e.Name()+".html"), html, 0o644); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, label{e.Name(), cluster})
	}
	s := evalJSON(t, writeJSONL(t, dir, "labels.jsonl", labels), pages)
	if s.Docs != len(labels) || s.Precision != 1 || s.TruePairs == 0 {
		t.Errorf("extract/readability: %d docs, %d predicted pairs, %d true; want %d docs, every predicted pair true, some", s.Docs, s.PredPairs, s.TruePairs, len(labels))
	}
}

func gunzip(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// TestQualityTemplatedStubs: pages written from one template with
// another real article's names, numbers and some of its facts (package
// stubs), from cmrc2018's passages and extract/en's articles, and a
// reprint of every third: the filter finds every reprint and joins no
// two pages of one template (the numbers test keeps apart those whose
// feature strings agree: similarity.Options.NumbersMin).
func TestQualityTemplatedStubs(t *testing.T) {
	_, arts := cmrcArticles(t)
	b, err := os.ReadFile(filepath.Join(extracttest.Path(t, "extract", "en"), "ground-truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gt map[string]struct {
		Body string `json:"articleBody"`
	}
	if err := json.Unmarshal(b, &gt); err != nil {
		t.Fatal(err)
	}
	var en []stubs.Article
	for _, k := range slices.Sorted(maps.Keys(gt)) {
		en = append(en, stubs.Article{Text: gt[k].Body})
	}
	pages := append(stubs.Make(arts, "zh", stubs.DefaultOptions()), stubs.Make(en, "en", stubs.DefaultOptions())...)
	var labels []label
	for _, p := range pages {
		labels = append(labels, label{p.ID, p.Cluster})
	}
	dir := t.TempDir()
	s := evalJSON(t, writeJSONL(t, dir, "labels.jsonl", labels), writeJSONL(t, dir, "stubs.jsonl", pages))
	if s.Docs != len(pages) || s.Recall != 1 || s.Precision != 1 || s.Lost != 0 {
		t.Errorf("templated stubs: %d docs, %d predicted pairs of which %d true, %d reprints: precision %.4f recall %.4f, lost %d; want %d docs, precision 1, recall 1, 0 lost",
			s.Docs, s.PredPairs, s.TruePairs, s.GoldPairs, s.Precision, s.Recall, s.Lost, len(pages))
	}
	t.Logf("templated stubs: %d pages, %d reprints; predicted pairs %d, true %d", s.Docs, s.GoldPairs, s.PredPairs, s.TruePairs)
}
