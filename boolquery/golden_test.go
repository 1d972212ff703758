package boolquery

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
)

// TestCompileGolden pins the shape of compiled queries (as bleve's JSON),
// e.g. that "a NOT b" is one boolean query rather than a conjunction with
// a match-all.
func TestCompileGolden(t *testing.T) {
	inputs := []string{
		"a",
		`title:"law school"`,
		"a NOT b",
		"NOT a",
		"a OR b c",
		"雪花 NOT 啤酒 AND 歌曲 OR 小说",
	}
	var b strings.Builder
	for _, in := range inputs {
		q, err := Query(in, Options{Fields: []string{"title", "text"}})
		if err != nil {
			t.Fatalf("Query(%q) error: %v", in, err)
		}
		js, err := json.MarshalIndent(q, "", "  ")
		if err != nil {
			t.Fatalf("marshal Query(%q): %v", in, err)
		}
		b.WriteString(in + "\n" + string(js) + "\n\n")
	}
	got := b.String()
	golden.Check(t, "compile.golden", got)
}
