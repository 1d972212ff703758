package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// adoptedIndex returns a plain index of the shipped pages adopted by the
// command (14 documents: 3 clusters of two or more), its store in store
// ("": beside it).
func adoptedIndex(t *testing.T, store string) string {
	t.Helper()
	dir := plainIndex(t, nil)
	args := []string{"adopt", "--index", dir, "--html-field", "HTML", "--title-field", "Title", "--url-field", "URL"}
	if store != "" {
		args = append(args, "--store", store)
	}
	if code, out, errs := runStatus(args...); code != 0 {
		t.Fatalf("adopt: exit %d\n%s%s", code, out, errs)
	}
	return dir
}

// The clusters of the adopted pages: those of an index of the command's
// own but for the tide tables, whose plain-text copy is not in it.
var adoptedClusters = []string{
	"en/bee-archive/library-bees en/daily-reader/rooftop-hives-reprint en/harbor-gazette/library-bees",
	"zh/city-blog/greenway zh/forum/greenway-repost",
	"zh/hedong-news/library-night zh/portal/library-night-reprint zh/tw-mirror/library-night",
}

// TestAdoptedDupsSearchServe: dups, search, recluster and serve read an
// index adopted by the command, with its store beside it or elsewhere.
func TestAdoptedDupsSearchServe(t *testing.T) {
	beside := adoptedIndex(t, "")
	store := filepath.Join(t.TempDir(), "elsewhere")
	away := adoptedIndex(t, store)
	tests := []struct {
		name string
		args []string
	}{
		{"store beside", []string{"--index", beside}},
		{"store beside, named", []string{"--index", beside, "--store", beside + ".dedup"}},
		{"trailing slash", []string{"--index", beside + "/"}},
		{"store elsewhere", []string{"--index", away, "--store", store}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runStatus(append([]string{"dups", "--format", "jsonl"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("dups: exit %d\n%s", code, errs)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var c clusterLine
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatalf("dups line %q: %v", line, err)
				}
				got = append(got, strings.Join(c.Members, " "))
			}
			if strings.Join(got, "\n") != strings.Join(adoptedClusters, "\n") {
				t.Errorf("dups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(adoptedClusters, "\n"))
			}

			code, out, errs = runStatus(append([]string{"search", "--format", "jsonl"}, append(tt.args, "bees")...)...)
			if code != 0 {
				t.Fatalf("search: exit %d\n%s", code, errs)
			}
			if !strings.Contains(out, `"id":"en/bee-archive/library-bees"`) || !strings.Contains(out, `"folded":2`) {
				t.Errorf("search bees: %s\nwant the bee story with its 2 copies folded", out)
			}
		})
	}

	code, out, errs := runStatus("recluster", "--index", beside, "--dry-run")
	if code != 0 || !strings.Contains(out, "14 documents") {
		t.Errorf("recluster --dry-run: exit %d\n%s%s", code, out, errs)
	}

	t.Run("serve", func(t *testing.T) {
		url := startServe(t, "--index", beside)
		resp, err := http.Get(url + "api/search?q=bees")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Hits []struct {
				ID     string `json:"id"`
				Folded int    `json:"folded"`
			} `json:"hits"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("search: status %d, %v", resp.StatusCode, err)
		}
		found := false
		for _, h := range body.Hits {
			found = found || h.ID == "en/bee-archive/library-bees" && h.Folded == 2
		}
		if !found {
			t.Errorf("search bees: %+v, want the bee story with its 2 copies folded", body.Hits)
		}
	})
}

// startServe runs serve with args on a loopback port and returns its URL;
// the test's end stops it.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	root := newRootCmd()
	root.SetOut(pw)
	root.SetErr(io.Discard)
	root.SetArgs(append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "none"}, args...))
	done := make(chan error, 1)
	go func() {
		err := root.ExecuteContext(ctx)
		pw.Close()
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	t.Cleanup(func() {
		cancel()
		go io.Copy(io.Discard, pr) // the lines after the stop
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	if !lines.Scan() {
		t.Fatalf("serve printed nothing: %v", <-done)
	}
	url, ok := strings.CutPrefix(lines.Text(), "serving ")
	if !ok {
		t.Fatalf("serve's first line %q, want serving URL", lines.Text())
	}
	return url
}

// TestAdoptedErrors: what the read commands say of a plain index they
// cannot read, and what to do.
func TestAdoptedErrors(t *testing.T) {
	plain := plainIndex(t, nil)
	adopted := adoptedIndex(t, "")
	store := filepath.Join(t.TempDir(), "store")
	other := adoptedIndex(t, store)
	unrecorded := adoptedIndex(t, "")
	if err := os.Remove(filepath.Join(unrecorded+".dedup", adoptFile)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no store", []string{"dups", "--index", plain},
			[]string{"a plain bleve index, with no bleve-dedup store beside it (" + plain + ".dedup)", "bleve-dedup adopt --index " + plain + " --text-field F|--html-field F"}},
		{"no store there", []string{"search", "--index", plain, "--store", filepath.Join(t.TempDir(), "none"), "bees"},
			[]string{"with no bleve-dedup store in --store", "bleve-dedup adopt --index " + plain}},
		{"store elsewhere, not named", []string{"serve", "--index", other},
			[]string{"with no bleve-dedup store beside it"}},
		{"another index's store", []string{"dups", "--index", adopted, "--store", store},
			[]string{"was adopted for the index " + other + ", not this one"}},
		{"no fields recorded", []string{"dups", "--index", unrecorded},
			[]string{"does not say which fields", "run the same bleve-dedup adopt again"}},
		{"the store for the index", []string{"dups", "--index", adopted + ".dedup"},
			[]string{"the bleve-dedup store of the adopted bleve index " + adopted, "give --index " + adopted}},
		{"a store directory alone", []string{"dups", "--store", adopted + ".dedup"},
			[]string{"--index DIR --store " + adopted + ".dedup"}},
		{"ingest", []string{"serve", "--index", adopted, "--ingest"},
			[]string{"is a plain bleve index", "without --ingest"}},
		{"not an index", []string{"dups", "--index", t.TempDir()},
			[]string{"no index there"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runStatus(tt.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s%s", code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q, want %q", errs, w)
				}
			}
		})
	}
}

// TestAdoptCmdFields: adopt refuses a field the index does not have once,
// naming the fields it has, before it makes a store; and a store adopted
// with some fields is not adopted again with others.
func TestAdoptCmdFields(t *testing.T) {
	plain := plainIndex(t, nil)
	adopted := adoptedIndex(t, "")
	tests := []struct {
		name  string
		index string
		flags []string
		want  string
	}{
		{"html, by case", plain, []string{"--html-field", "html"},
			"--index " + plain + " has no field html (--html-field html; field names are case-sensitive: HTML?); its fields: HTML, Title, URL"},
		{"text and title", plain, []string{"--text-field", "Body", "--title-field", "Headline"},
			"has no fields Body (--text-field Body), Headline (--title-field Headline); its fields: HTML, Title, URL"},
		{"other fields than adopted", adopted, []string{"--html-field", "HTML"},
			"was adopted with --html-field HTML --title-field Title --url-field URL, this run names --html-field HTML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runStatus(append([]string{"adopt", "--index", tt.index}, tt.flags...)...)
			if code != 1 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q\nwant exit 1 and %q\n%s", code, errs, tt.want, out)
			}
			if n := strings.Count(errs, "\n"); n != 1 {
				t.Errorf("%d lines on stderr, want the one error", n)
			}
		})
	}
	if _, err := os.Stat(plain + ".dedup"); !os.IsNotExist(err) {
		t.Errorf("a store after refused fields: %v, want none", err)
	}
}

// TestAdoptedDupsUnseenAndTitles: search shows the titles of the field
// adopt was given, and dups names a document written around the filter
// with the adopt that brings it under it.
func TestAdoptedDupsUnseenAndTitles(t *testing.T) {
	page := `<html><head><title>Harbour Bees</title></head><body><article><p>` +
		strings.Repeat("The harbour master keeps bees on the roof of the old customs house. ", 20) +
		`</p></article></body></html>`
	dir := plainIndex(t, map[string]any{"harbour-bees": webPage{URL: "http://example.com/harbour-bees", Title: "Harbour Bees", HTML: page}})
	if code, out, errs := runStatus("adopt", "--index", dir, "--html-field", "HTML", "--title-field", "Title", "--url-field", "URL"); code != 0 {
		t.Fatalf("adopt: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := runStatus("search", "--index", dir, "--format", "jsonl", "harbour master")
	if code != 0 || !strings.Contains(out, `"title":"Harbour Bees","url":"http://example.com/harbour-bees"`) {
		t.Errorf("search: exit %d\n%s%s\nwant the hit's title and URL from the fields Title and URL", code, out, errs)
	}

	idx, err := bleve.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Index("sneaked-in", webPage{HTML: page}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runStatus("dups", "--index", dir)
	want := "in no cluster: 1 (sneaked-in); bring them under the filter with bleve-dedup adopt --index " + dir + " --html-field HTML --title-field Title --url-field URL again"
	if code != 0 || !strings.Contains(errs, want) {
		t.Errorf("dups: exit %d, stderr %q\nwant exit 0 and %q", code, errs, want)
	}
}
