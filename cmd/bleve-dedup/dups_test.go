package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

func TestDupsCmd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	if out, err := runCmd(t, "index", "--index", dir, pagesDir); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	out, err := runCmd(t, "dups", "--index", dir, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var c struct {
			Cluster, Representative string
			Members                 []string
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if c.Cluster == "" || !strings.Contains(strings.Join(c.Members, " "), c.Representative) {
			t.Errorf("cluster %+v: want an id and the representative among the members", c)
		}
		got = append(got, strings.Join(c.Members, " "))
	}
	want := []string{
		"en/bee-archive/library-bees en/daily-reader/rooftop-hives-reprint en/harbor-gazette/library-bees",
		"en/field-notes/tide-tables en/plain/tide-tables",
		"zh/city-blog/greenway zh/forum/greenway-repost",
		"zh/hedong-news/library-night zh/portal/library-night-reprint zh/tw-mirror/library-night",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("clusters:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	table, err := runCmd(t, "dups", "--index", dir)
	if err != nil || !strings.Contains(table, "(4 clusters of duplicates)") {
		t.Errorf("table: %v\n%s", err, table)
	}
	if _, err := runCmd(t, "dups", "--index", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no index there") {
		t.Errorf("dups on a missing index: error %v, want 'no index there'", err)
	}
}

// TestDupsAll: --all lists every document once, singletons included.
func TestDupsAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	if out, err := runCmd(t, "index", "--index", dir, pagesDir); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	out, err := runCmd(t, "dups", "--index", dir, "--all", "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	lines, singletons := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var c struct{ Members []string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		lines++
		if len(c.Members) == 1 {
			singletons++
		}
		for _, m := range c.Members {
			if seen[m] {
				t.Errorf("%s listed twice", m)
			}
			seen[m] = true
		}
	}
	if len(seen) != 15 || lines != 9 || singletons != 5 {
		t.Errorf("--all: %d documents in %d clusters, %d of one; want 15 in 9, 5 of one", len(seen), lines, singletons)
	}
	if _, err := runCmd(t, "dups", "--server", "http://127.0.0.1:1", "--all"); err == nil {
		t.Error("--all with --server: no error")
	}
}

// TestDupsUnseen: a document written into the bleve index around the
// filter is named, and the clusters are listed as before.
func TestDupsUnseen(t *testing.T) {
	dir := fixtureIndex(t)
	before, err := runCmd(t, "dups", "--index", dir)
	if err != nil || strings.Contains(before, "around the filter") {
		t.Fatalf("dups before: %v\n%s", err, before)
	}
	idx, err := bleve.Open(filepath.Join(dir, "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Index("sneaked-in", map[string]any{"text": "written without the filter"}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runStatus("dups", "--index", dir)
	if code != 0 || out != before {
		t.Errorf("dups after: exit %d\n%s\nwant exit 0 and the clusters as before:\n%s", code, out, before)
	}
	if want := "documents written into the bleve index around the filter, in no cluster: 1 (sneaked-in)"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
}
