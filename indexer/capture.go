package indexer

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"
)

// A bleve Batch is opaque: it maps each document as it is added (through
// its index's mapping) and hands its operations to that index's Batch
// only. So a Wrapper's NewBatch makes its batches on a scratch index of
// its own, whose mapping remembers each document's data (in the order
// added) and maps nothing, and whose index type, registered here, takes
// the batch's operations and hands them to the Wrapper (Batch): the
// documents to decide with their data, the deletes, the internal
// key-values.

// captureType is the bleve index type of a Wrapper's scratch index.
const captureType = "bleve-dedup-capture"

// captureKey is where a scratch index's config carries its Wrapper.
const captureKey = "bleve-dedup-capture"

func init() {
	registry.RegisterIndexType(captureType, newCaptureIndex)
}

// capture is a Wrapper's record of the documents added to its batches:
// each document's data and the order it was added in, held while the
// document is (a batch dropped unsubmitted lets them go).
type capture struct {
	data sync.Map // weak.Pointer[document.Document] → captured
	seq  atomic.Uint64
	// got is the batch the scratch index was last given (under the
	// Wrapper's batch lock).
	got *index.Batch
}

type captured struct {
	data any
	seq  uint64
}

func (c *capture) remember(doc *document.Document, data any) {
	k := weak.Make(doc)
	c.data.Store(k, captured{data, c.seq.Add(1)})
	runtime.AddCleanup(doc, func(k weak.Pointer[document.Document]) { c.data.Delete(k) }, k)
}

// recall returns the data doc was made from, and when it was added.
func (c *capture) recall(doc *document.Document) (captured, bool) {
	v, ok := c.data.LoadAndDelete(weak.Make(doc))
	if !ok {
		return captured{}, false
	}
	return v.(captured), true
}

// captureMapping is the scratch index's mapping: it remembers a
// document's data instead of mapping it (the Wrapper maps it when it
// writes it, with its cluster id).
type captureMapping struct {
	mapping.IndexMapping // the wrapped index's, for everything else
	c                    *capture
}

func (m captureMapping) MapDocument(doc *document.Document, data any) error {
	m.c.remember(doc, data)
	return nil
}

// newScratch makes the scratch index of c over the wrapped index's
// mapping.
func newScratch(m mapping.IndexMapping, c *capture) (bleve.Index, error) {
	return bleve.NewUsing("", captureMapping{IndexMapping: m, c: c}, captureType, captureType, map[string]any{captureKey: c})
}

// captureIndex is the scratch index's bleve index: it holds nothing.
type captureIndex struct{ c *capture }

var errScratch = errors.New("indexer: a Wrapper's batch index holds nothing: write through the Wrapper")

func newCaptureIndex(_ string, config map[string]any, _ *index.AnalysisQueue) (index.Index, error) {
	c, ok := config[captureKey].(*capture)
	if !ok {
		return nil, errScratch
	}
	return captureIndex{c}, nil
}

func (captureIndex) Open() error  { return nil }
func (captureIndex) Close() error { return nil }

func (captureIndex) Update(index.Document) error { return errScratch }
func (captureIndex) Delete(string) error         { return errScratch }

// Batch hands b to the Wrapper.
func (ci captureIndex) Batch(b *index.Batch) error {
	ci.c.got = b
	return nil
}

// SetInternal takes the mapping bleve stores when it makes the index.
func (captureIndex) SetInternal(_, _ []byte) error      { return nil }
func (captureIndex) DeleteInternal(_ []byte) error      { return nil }
func (captureIndex) Reader() (index.IndexReader, error) { return nil, errScratch }
func (captureIndex) StatsMap() map[string]any           { return map[string]any{} }
