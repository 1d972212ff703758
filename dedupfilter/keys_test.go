package dedupfilter

import (
	"crypto/sha1"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

func TestPostingKeys(t *testing.T) {
	f := &analyzer.Features{
		Pieces:  []string{"a.b", "c.d", "a.b", "e.f"},
		Terms:   map[string]int{"x": 1, "y": 2, "z": 1},
		Blocks:  [][20]byte{sha1.Sum([]byte("p")), sha1.Sum([]byte("q")), sha1.Sum([]byte("p"))},
		MinHash: make([]uint64, 8),
	}
	tests := []struct {
		terms, pieces int
		want          map[byte]int
	}{
		{0, 8, map[byte]int{kindBand: 4, kindStructure: 1, kindBlock: 2, kindPiece: 3}},
		{2, 1, map[byte]int{kindBand: 4, kindStructure: 1, kindBlock: 2, kindTerm: 2, kindPiece: 1}},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.Bands, o.Rows, o.TermsPerDoc, o.PiecesPerDoc = 4, 2, tt.terms, tt.pieces
		got := map[byte]int{}
		sig := similarity.Of(f, "", o.Options).WithPieceSample(o.PiecesPerDoc)
		for _, p := range o.postingKeys(sig, f.Terms) {
			if len(p) != store.PostingKeyLen {
				t.Fatalf("key %q has length %d, want %d", p, len(p), store.PostingKeyLen)
			}
			got[store.PostingKind(p)]++
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("terms=%d pieces=%d: posting kinds %v, want %v", tt.terms, tt.pieces, got, tt.want)
		}
	}
}

func TestBottomK(t *testing.T) {
	words := strings.Fields("a b c d e f g h i j k l m n o p q r s t u v w x y z a b c alpha beta gamma")
	for _, k := range []int{0, 1, 8, 40} {
		for _, n := range []int{0, 1, 5, len(words)} {
			var want []uint64
			for _, w := range words[:n] {
				want = append(want, similarity.HashString(w))
			}
			slices.Sort(want)
			want = slices.Compact(want)
			want = want[:min(k, len(want))]
			got := bottomK(slices.Values(words[:n]), k)
			if !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Errorf("bottomK(%d words, %d) = %x, want %x", n, k, got, want)
			}
		}
	}
}
