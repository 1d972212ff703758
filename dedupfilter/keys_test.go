package dedupfilter

import (
	"bytes"
	"crypto/sha1"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestSignatureKeys: the keys derived from a stored signature are the
// document's own keys but its terms', for pages of both scripts, with and
// without term keys.
func TestSignatureKeys(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(5)
	for _, terms := range []int{0, 3} {
		o := DefaultOptions()
		o.TermsPerDoc = terms
		f := &Filter{opts: o}
		for i := range 20 {
			d := Doc{ID: "d", URL: "https://example.com/d", Features: a.Analyze(c.article(2 + i%6))}
			p, err := f.prepare(d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := o.SignatureKeys(encodeSignature(d.ID, time.Unix(1, 0), p.sig))
			if err != nil {
				t.Fatal(err)
			}
			want := slices.DeleteFunc(slices.Clone(p.own), func(k []byte) bool { return store.PostingKind(k) == kindTerm })
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Errorf("terms %d, page %d: derived %d keys, want the %d own keys but the terms'", terms, i, len(got), len(want))
			}
			if n := len(termKeys(p.own)); n != terms {
				t.Errorf("terms %d, page %d: %d term keys", terms, i, n)
			}
		}
	}
	if _, err := DefaultOptions().SignatureKeys([]byte{0xff}); err == nil {
		t.Error("SignatureKeys of a damaged signature: nil error")
	}
}
