package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalCmd(t *testing.T) {
	out, err := runCmd(t, "eval", "--format", "jsonl", "--labels", pagesLabel, pagesDir)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Docs, GoldPairs, TruePairs int
		Precision, Recall, F1      float64
		LeftOut                    int     `json:"left_out"`
		Lost                       int     `json:"lost"`
		LostMinShare               float64 `json:"lost_min_share"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if s.Docs != 15 || s.Precision != 1 || s.Recall != 1 {
		t.Errorf("eval on the fixtures = %+v, want 15 docs, precision and recall 1", s)
	}
	// 15 pages in 9 clusters: 6 pages left out, all reprints.
	if s.LeftOut != 15-9 || s.Lost != 0 || !strings.Contains(out, `"lost":0`) || s.LostMinShare < 0.6 || s.LostMinShare > 1 {
		t.Errorf("eval on the fixtures: left_out %d, lost %v, lost_min_share %v; want 6, 0, in [0.6, 1]", s.LeftOut, s.Lost, s.LostMinShare)
	}

	table, err := runCmd(t, "eval", "--labels", pagesLabel, pagesDir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "lost content: 0 of 6 pages left out (lowest share ") {
		t.Errorf("eval table:\n%s\nwant a line \"lost content: 0 of 6 pages left out (lowest share ...)\"", table)
	}

	bad := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(bad, []byte("{\"id\": \"x\"}\n"), 0o644)
	if _, err := runCmd(t, "eval", "--labels", bad, pagesDir); err == nil {
		t.Error("labels without a cluster: no error")
	}
}
