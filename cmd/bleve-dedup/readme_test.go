package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpReadme: what README says of the command agrees with what it
// does and with the library's documentation.
func TestHelpReadme(t *testing.T) {
	readme := mustRead(t, filepath.Join("..", "..", "README.md"))
	row := func(cmd string) string {
		for l := range strings.Lines(readme) {
			if strings.HasPrefix(l, "| `bleve-dedup "+cmd+" ") {
				return l
			}
		}
		t.Fatalf("README has no row for %s", cmd)
		return ""
	}
	// A phrase of the doc comment of indexer.FieldFolded, and README's.
	const folded = "the number of other documents of the hit's cluster, which it stands for"
	wrap, err := os.ReadFile(filepath.Join("..", "..", "indexer", "wrap.go"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text, want string
	}{
		{"dups row: its default output", row("dups"), "a table (cluster, representative, size, members) by default"},
		{"dups row: --format jsonl", row("dups"), "`{\"cluster\",\"representative\",\"members\"}` a line with `--format jsonl`"},
		{"index row: the sum", row("index --index"), "`read` = `indexed` + `duplicates` + `unchanged`"},
		{"index row: --reconfigure", row("index --index"), "refused unless `--reconfigure`"},
		{"README: _folded", strings.Join(strings.Fields(readme), " "), "`_folded` (" + folded + ")"},
		{"godoc: FieldFolded", string(wrap), "// FieldFolded (" + folded + ")"},
	}
	for _, tt := range tests {
		if !strings.Contains(tt.text, tt.want) {
			t.Errorf("%s: lacks %q", tt.name, tt.want)
		}
	}
	// The default output is the table the row says.
	out, err := runCmd(t, "dups", "--index", fixtureIndex(t))
	if err != nil || !strings.HasPrefix(out, "CLUSTER ") {
		t.Errorf("dups: %v\n%s, want a table", err, out)
	}
}
