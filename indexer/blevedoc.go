package indexer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/docbody"
	"github.com/bleve-dedup/bleve-dedup/internal/parallel"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// bleveDocs maps the documents of ops for bleve and analyses their text,
// on GOMAXPROCS goroutines, returning one document for each OpIndex that
// is its document's last op (bleve's batch keeps a document's last op
// only) and nil for the others. The bodies of prep stand in for payloads
// they encode, sparing a decode.
//
// bleve analyses a batch's documents inside Batch, between the previous
// batch's segment and this one's: with the analysis done here, while the
// previous batch is still being written, a batch's write is its segment
// alone (plain bleve at 100,000 pages: analysis 2.8 s of the 15 s of CPU
// of a tenth, the segments 7.3 s).
func (ix *engine) bleveDocs(ops []dedupfilter.Op, prep []staged) ([]*document.Document, error) {
	known := make(map[string]*staged, len(prep))
	for i := range prep {
		known[prep[i].Doc.ID] = &prep[i]
	}
	last := make(map[string]int, len(ops))
	for i, op := range ops {
		last[op.ID] = i
	}
	docs := make([]*document.Document, len(ops))
	errs := make([]error, len(ops))
	parallel.Each(len(ops), func(i int) {
		if op := ops[i]; op.Kind == dedupfilter.OpIndex && last[op.ID] == i {
			docs[i], errs[i] = ix.bleveDoc(op, known[op.ID])
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// bleveDoc maps op's document, from p's body when p is its staged
// version, and analyses its text fields.
func (ix *engine) bleveDoc(op dedupfilter.Op, p *staged) (*document.Document, error) {
	var body map[string]any
	if p != nil && bytes.Equal(p.Doc.Payload, op.Payload) {
		body = maps.Clone(p.body) // the cluster is this op's
	} else if err := json.Unmarshal(op.Payload, &body); err != nil {
		return nil, fmt.Errorf("indexer: %s: stored payload: %w", op.ID, err)
	} else if ix.mainText != "" && docbody.First(body, ix.html) != "" {
		// A page's main text is not kept in its payload: extracted again.
		paras, err := ix.text(op.Payload)
		if err != nil {
			return nil, fmt.Errorf("indexer: %s: %w", op.ID, err)
		}
		paras, _ = capText(paras, ix.maxText)
		setPath(body, ix.mainText, joinParagraphs(paras))
	}
	body[FieldCluster] = op.Cluster
	doc, err := docbody.Analysed(ix.bleve.Mapping(), op.ID, body, ix.html)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	return doc, nil
}

// indexedPayload reads id's payload back from the stored fields of the
// bleve index (dedupfilter.Filter.KeepPayloadsIn): the body it was
// indexed with, less what the index added (its cluster, and a page's main
// text where its HTML is kept).
func (ix *engine) indexedPayload(id string) ([]byte, error) {
	d, err := ix.bleve.Document(id)
	if err != nil {
		return nil, fmt.Errorf("indexer: %s: %w", id, err)
	}
	if d == nil {
		return nil, fmt.Errorf("indexer: %s is not in the bleve index: %w", id, dedupfilter.ErrNotFound)
	}
	return ix.rebuilt(d)
}

// canonicalPayload is payload as indexedPayload gives it back once bleve
// holds it: mapped by bleve's mapping, rebuilt from its fields.
func (ix *engine) canonicalPayload(payload []byte) ([]byte, error) {
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		return nil, fmt.Errorf("indexer: payload: %w", err)
	}
	d := document.NewDocument("")
	if err := ix.bleve.Mapping().MapDocument(d, body); err != nil {
		return nil, fmt.Errorf("indexer: payload: %w", err)
	}
	return ix.rebuilt(d)
}

// rebuilt is the payload of a document from its fields.
func (ix *engine) rebuilt(d index.Document) ([]byte, error) {
	body := docbody.FromFields(d)
	delete(body, FieldCluster)
	if ix.mainText != "" && docbody.First(body, ix.html) != "" {
		deletePath(body, ix.mainText)
	}
	return docbody.Encode(body)
}

// deletePath deletes the field at a dotted path of body.
func deletePath(body map[string]any, path string) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := body[p].(map[string]any)
		if !ok {
			return
		}
		body = next
	}
	delete(body, parts[len(parts)-1])
}
