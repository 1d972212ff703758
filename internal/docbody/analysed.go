package docbody

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Analysed maps body, document id's JSON object, with m and analyses its
// indexed text fields, so that bleve's Batch, which analyses every field
// it is given between the previous batch's segment and this one's, finds
// nothing left to do: done ahead, while the previous batch is written, a
// batch's write is its segment alone.
func Analysed(m mapping.IndexMapping, id string, body map[string]any) (*document.Document, error) {
	doc := document.NewDocument(id)
	if err := m.MapDocument(doc, body); err != nil {
		return nil, fmt.Errorf("docbody: %s: %w", id, err)
	}
	for i, f := range doc.Fields {
		if t, ok := f.(*document.TextField); ok && t.Options().IsIndexed() {
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
