package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if s.Docs != 15 || s.Precision != 1 || s.Recall != 1 {
		t.Errorf("eval on the fixtures = %+v, want 15 docs, precision and recall 1", s)
	}

	bad := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(bad, []byte("{\"id\": \"x\"}\n"), 0o644)
	if _, err := runCmd(t, "eval", "--labels", bad, pagesDir); err == nil {
		t.Error("labels without a cluster: no error")
	}
}
