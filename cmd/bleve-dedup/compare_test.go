package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestCompareCmd(t *testing.T) {
	tests := []struct {
		a, b string
		dup  bool
	}{
		{"en/harbor-gazette/library-bees.html", "en/daily-reader/rooftop-hives-reprint.html", true},
		{"zh/hedong-news/library-night.html", "zh/tw-mirror/library-night.html", true},         // Big5, traditional script
		{"en/harbor-gazette/library-bees.html", "en/green-column/plant-a-meadow.html", false},  // quotes one paragraph
		{"en/harbor-gazette/library-bees.html", "en/harbor-gazette/bike-workshop.html", false}, // same template
	}
	for _, tt := range tests {
		out, err := runCmd(t, "compare", "--format", "jsonl", filepath.Join(pagesDir, tt.a), filepath.Join(pagesDir, tt.b))
		if err != nil {
			t.Fatalf("compare %s %s: %v", tt.a, tt.b, err)
		}
		var v struct {
			Duplicate bool
			Measure   string
			Scores    []struct{ Measure string }
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if v.Duplicate != tt.dup || len(v.Scores) == 0 || v.Measure == "" {
			t.Errorf("compare %s %s: duplicate=%v measure=%q with %d scores, want duplicate=%v", tt.a, tt.b, v.Duplicate, v.Measure, len(v.Scores), tt.dup)
		}
	}
	if _, err := runCmd(t, "compare", filepath.Join(pagesDir, "missing.html"), filepath.Join(pagesDir, "en")); err == nil {
		t.Error("compare of a missing file: no error")
	}
}
