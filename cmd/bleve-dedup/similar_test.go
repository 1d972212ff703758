package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimilarCmd(t *testing.T) {
	dir := fixtureIndex(t)
	reprint := filepath.Join(pagesDir, "en", "daily-reader", "rooftop-hives-reprint.html")
	tests := []struct {
		name string
		args []string
		want []string // id and grade of each line, in order
	}{
		{"by id", []string{"en/harbor-gazette/library-bees"}, []string{
			"en/daily-reader/rooftop-hives-reprint copy",
			"en/bee-archive/library-bees copy",
			"en/green-column/plant-a-meadow related",
		}},
		{"k", []string{"--k", "1", "en/harbor-gazette/library-bees"}, []string{"en/daily-reader/rooftop-hives-reprint copy"}},
		{"text file", []string{"--text", reprint}, []string{
			"en/daily-reader/rooftop-hives-reprint copy",
			"en/harbor-gazette/library-bees copy",
			"en/bee-archive/library-bees copy",
			"en/green-column/plant-a-meadow related",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, append([]string{"similar", "--index", dir, "--format", "jsonl"}, tt.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got []string
			for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var l similarLine
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				if l.Rank != i+1 || l.Verdict == nil {
					t.Errorf("line %d: rank %d, verdict %v, want rank %d and a verdict", i, l.Rank, l.Verdict, i+1)
				}
				got = append(got, l.ID+" "+string(l.Grade))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestSimilarCmdTable(t *testing.T) {
	dir := fixtureIndex(t)
	out, err := runCmd(t, "similar", "--index", dir, "en/harbor-gazette/library-bees")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"GRADE", "copy", "related", "en/daily-reader/rooftop-hives-reprint", "(3 similar documents;"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestSimilarCmdStdin: --text - reads plain text, a paragraph a line.
func TestSimilarCmdStdin(t *testing.T) {
	dir := fixtureIndex(t)
	text, err := runCmd(t, "extract", "--format", "jsonl", filepath.Join(pagesDir, "en", "harbor-gazette", "library-bees.html"))
	if err != nil {
		t.Fatalf("extract: %v\n%s", err, text)
	}
	var page struct{ Text string }
	if err := json.Unmarshal([]byte(text), &page); err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(page.Text))
	root.SetArgs([]string{"similar", "--index", dir, "--text", "-", "--k", "1"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "en/harbor-gazette/library-bees") {
		t.Errorf("got:\n%s\nwant the page itself first", out.String())
	}
}

func TestSimilarCmdErrors(t *testing.T) {
	dir := fixtureIndex(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", []string{"similar", "x"}, "--index"},
		{"no id", []string{"similar", "--index", dir}, "one document ID, or --text FILE"},
		{"id and text", []string{"similar", "--index", dir, "--text", "x.txt", "some-id"}, "no ID with --text"},
		{"unknown id", []string{"similar", "--index", dir, "nope"}, `no document "nope"`},
		{"k zero", []string{"similar", "--index", dir, "--k", "0", "nope"}, "--k 0"},
		{"missing file", []string{"similar", "--index", dir, "--text", filepath.Join(t.TempDir(), "none.html")}, "--text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v (%s), want one saying %q", err, out, tt.want)
			}
		})
	}
}
