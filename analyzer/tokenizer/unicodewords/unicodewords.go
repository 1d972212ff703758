// Package unicodewords is a bleve tokenizer, and an analyzer of the same
// name, giving exactly the tokens of bleve's "unicode" tokenizer — UAX #29
// words with their terms, byte offsets, positions and types — in about
// half its time (it cuts the commonest words itself; see package
// analyzer/internal/segwords). It takes no config.
//
// The indexer analyses documents ahead of bleve's batch with it in place
// of bleve's tokenizer wherever their mapping's analyzer tokenises with
// bleve's (the "standard" and "cjk" analyzers, the indexer's default
// mapping), and the index holds the same terms as bleve would have made,
// which queries, analysed by bleve's own analyzer, find.
package unicodewords

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/segment"

	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/component"
	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/segwords"
)

// Name is the registered name of both the tokenizer and the analyzer.
const Name = "dedup_unicode"

// Tokenizer emits the words of its input. It is safe for concurrent use.
type Tokenizer struct{}

// New returns a Tokenizer.
func New() *Tokenizer { return &Tokenizer{} }

// work is the memory a Tokenize call reuses.
type work struct {
	seg  segwords.Segmenter
	segs []segwords.Segment
}

var pool = sync.Pool{New: func() any { return new(work) }}

// Tokenize returns the words of input as bleve's unicode tokenizer does:
// terms are slices of input.
func (*Tokenizer) Tokenize(input []byte) analysis.TokenStream {
	w := pool.Get().(*work)
	defer pool.Put(w)
	w.segs = w.seg.Append(w.segs[:0], input)
	tokens := make([]analysis.Token, len(w.segs))
	out := make(analysis.TokenStream, len(w.segs))
	for i, s := range w.segs {
		t := &tokens[i]
		t.Term, t.Start, t.End, t.Position = input[s.Start:s.End], int(s.Start), int(s.End), i+1
		switch s.Type {
		case segment.Ideo, segment.Kana:
			t.Type = analysis.Ideographic
		case segment.Number:
			t.Type = analysis.Numeric
		default:
			t.Type = analysis.AlphaNumeric
		}
		out[i] = t
	}
	return out
}

// Constructor is the tokenizer registry adapter.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.Tokenizer, error) {
	return New(), nil
}

func init() {
	component.RegisterTokenizer(Name, Constructor)
}
