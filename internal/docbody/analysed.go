package docbody

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/unicodewords"
)

// Analysed maps body, document id's JSON object, with m and analyses its
// indexed text fields (an analyzer that uses bleve's unicode tokenizer
// with package unicodewords' in its place: the same tokens in about half
// the time), so that bleve's Batch, which analyses every field it is
// given between the previous batch's segment and this one's, finds
// nothing left to do: done ahead, while the previous batch is written, a
// batch's write is its segment alone. The field at path unindexed (and
// below it), when not "", is kept as stored only: a page's raw HTML,
// whose main text another field holds.
func Analysed(m mapping.IndexMapping, id string, body map[string]any, unindexed string) (*document.Document, error) {
	doc := document.NewDocument(id)
	if err := m.MapDocument(doc, body); err != nil {
		return nil, fmt.Errorf("docbody: %s: %w", id, err)
	}
	if unindexed != "" {
		doc.Fields = storedOnly(doc.Fields, unindexed)
	}
	for i, f := range doc.Fields {
		if t, ok := f.(*document.TextField); ok && t.Options().IsIndexed() {
			if a := unicodewords.Faster(t.Analyzer()); a != t.Analyzer() {
				// The same tokens as the mapping's analyzer, in less time.
				t = document.NewTextFieldCustom(t.Name(), t.ArrayPositions(), t.Value(), t.Options(), a)
			}
			t.Analyze()
			doc.Fields[i] = &analyzedField{TextField: t, size: t.Size()}
		}
	}
	return doc, nil
}

// analyzedField is a text field analysed already: Analyze does nothing.
// Its size (which bleve counts for its statistics, walking the token
// frequencies) is taken once.
type analyzedField struct {
	*document.TextField
	size int
}

func (*analyzedField) Analyze() {}

func (f *analyzedField) Size() int { return f.size }

// storedOnly returns fields with those at path (or below it) kept as
// stored, unindexed text, and left out where they are not stored.
func storedOnly(fields []document.Field, path string) []document.Field {
	out := fields[:0]
	for _, f := range fields {
		name := f.Name()
		if name != path && !strings.HasPrefix(name, path+".") {
			out = append(out, f)
			continue
		}
		if !f.Options().IsStored() {
			continue
		}
		out = append(out, document.NewTextFieldWithIndexingOptions(name, f.ArrayPositions(), f.Value(), index.StoreField))
	}
	return out
}
