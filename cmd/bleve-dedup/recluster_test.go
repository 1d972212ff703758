package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestReclusterCmd: on the test pages the incremental clusters are right
// already, so recluster finds nothing to change, in a dry run and in a
// real one, and says so in both formats.
func TestReclusterCmd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	if out, err := runCmd(t, "index", "--index", dir, pagesDir); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	out, err := runCmd(t, "recluster", "--index", dir, "--dry-run", "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var sum reclusterSummary
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &sum); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	want := reclusterSummary{Op: "summary", Docs: 15, Clusters: 9, Classes: 9, Pairs: sum.Pairs, Seconds: sum.Seconds, RSSAnonMiB: sum.RSSAnonMiB, HeapMiB: sum.HeapMiB}
	if sum != want || sum.Pairs < 8 {
		t.Errorf("summary %+v, want %+v with at least the 8 pairs inside clusters verified", sum, want)
	}
	table, err := runCmd(t, "recluster", "--index", dir)
	if err != nil || !strings.Contains(table, "15 documents in 9 clusters") || !strings.Contains(table, "0 merges, 0 splits (applied)") {
		t.Errorf("table: %v\n%s", err, table)
	}
	if _, err := runCmd(t, "recluster", "--index", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no index there") {
		t.Errorf("recluster on a missing index: error %v, want 'no index there'", err)
	}
	if _, err := runCmd(t, "recluster", "--index", dir, "--min-st", "0"); err == nil {
		t.Error("--min-st 0: no error")
	}
}
