package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestStatsCmd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	if out, err := runCmd(t, "index", "--index", dir, pagesDir); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	out, err := runCmd(t, "stats", "--index", dir, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got usageLine
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if got.Docs != 15 || got.Indexed != 9 || got.Clusters != 9 || got.BleveBytes <= 0 || got.StoreBytes <= 0 {
		t.Errorf("stats %+v: want 15 documents, 9 in bleve, 9 clusters, bytes of both", got)
	}
	keys := map[string]int{}
	for _, p := range got.Parts {
		keys[p.Name] = p.Keys
	}
	for _, name := range []string{"payloads", "signatures", "records", "members"} {
		if keys[name] != 15 {
			t.Errorf("part %q: %d keys, want one a document (15)", name, keys[name])
		}
	}

	table, err := runCmd(t, "stats", "--index", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"documents: 15 in the store, 9 in bleve; 9 clusters", "\npayloads ", "\nbleve index "} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if _, err := runCmd(t, "stats", "--index", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no index there") {
		t.Errorf("stats on a missing index: error %v, want 'no index there'", err)
	}
}
