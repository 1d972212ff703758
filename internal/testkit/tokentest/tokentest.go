// Package tokentest compares bleve token streams, for the tests of
// analysis components that must give exactly bleve's tokens.
package tokentest

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Diff reports how got differs from want, token by token (term, offsets,
// position, type, keyword flag), or "" when it does not.
func Diff(got, want analysis.TokenStream) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d tokens, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := *got[i], *want[i]
		if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type || g.KeyWord != w.KeyWord {
			return fmt.Sprintf("token %d = %+v, want %+v", i, g, w)
		}
	}
	return ""
}
