package docbody

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Analysed maps body, document id's JSON object, with m and analyses
// its indexed text fields (with faster forms of bleve's analyzers where
// it has them: the same tokens in less time), so that bleve's Batch,
// which analyses every field it is given between the previous batch's
// segment and this one's, finds nothing left to do: done ahead, while
// the previous batch is written, a batch's write is its segment alone.
// The field at path unindexed (and below it), when not "", is kept as
// stored only: a page's raw HTML, whose main text another field holds.
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
			doc.Fields[i] = analyse(t)
		}
	}
	return doc, nil
}

// analyzedField is a text field analysed already: Analyze does nothing.
// Its size (which bleve counts for its statistics, walking the token
// frequencies) is taken once.
type analyzedField struct {
	*document.TextField
	length int
	freqs  index.TokenFrequencies
	size   int
}

// analyse analyses t as bleve's TextField.Analyze does, with the faster
// form of its analyzer and token frequencies counted in fewer
// allocations.
func analyse(t *document.TextField) *analyzedField {
	a := t.Analyzer()
	if a == nil {
		t.Analyze() // the whole value, one token
		return &analyzedField{TextField: t, length: t.AnalyzedLength(), freqs: t.AnalyzedTokenFrequencies(), size: t.Size()}
	}
	value := t.Value()
	if t.Options().IsStored() {
		value = bytes.Clone(value) // an analyzer may write to its input: not to what is stored
	}
	tokens := faster(a).Analyze(value)
	freqs := frequencies(tokens, t.ArrayPositions(), t.Options())
	return &analyzedField{TextField: t, length: len(tokens), freqs: freqs, size: t.Size() + freqs.Size()} // (t's without frequencies)
}

func (*analyzedField) Analyze() {}

func (f *analyzedField) AnalyzedLength() int { return f.length }

func (f *analyzedField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

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
