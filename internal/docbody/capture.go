package docbody

import (
	"errors"
	"fmt"
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

// captureType is the bleve index type of a Capture's scratch index.
const captureType = "bleve-dedup-capture"

// captureKey is where a scratch index's config carries its Capture.
const captureKey = "bleve-dedup-capture"

func init() {
	registry.RegisterIndexType(captureType, newCaptureIndex)
}

// errScratch: a read or a direct write of a Capture's scratch index,
// which holds nothing.
var errScratch = errors.New("docbody: an Index's batch index holds nothing: write through the Index")

// Capture makes bleve batches whose documents it hands back with the
// data they were added with (see the package doc). It holds each
// document's data while the document is held (a batch dropped unsubmitted
// lets them go). Its methods are safe for concurrent use.
type Capture struct {
	data    sync.Map // weak.Pointer[document.Document] → captured
	seq     atomic.Uint64
	scratch bleve.Index

	mu sync.Mutex // one batch through the scratch index at a time
	// got is the batch the scratch index was last given (under mu).
	got *index.Batch
}

type captured struct {
	data any
	seq  uint64
}

// NewCapture makes a Capture whose batches map with m (the wrapped
// index's mapping) when they are taken.
func NewCapture(m mapping.IndexMapping) (*Capture, error) {
	c := &Capture{}
	var err error
	c.scratch, err = bleve.NewUsing("", captureMapping{IndexMapping: m, c: c}, captureType, captureType, map[string]any{captureKey: c})
	if err != nil {
		return nil, fmt.Errorf("docbody: %w", err)
	}
	return c, nil
}

// NewBatch returns a batch to fill and pass to Take.
func (c *Capture) NewBatch() *bleve.Batch { return c.scratch.NewBatch() }

// Take returns the operations of b, a batch of NewBatch: its documents
// (nil for a delete), whose data Recall gives, and its internal
// key-values (nil for a delete).
func (c *Capture) Take(b *bleve.Batch) (*index.Batch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The scratch index hands the batch's operations to c.got.
	err := c.scratch.Batch(b)
	got := c.got
	c.got = nil
	if err != nil {
		return nil, fmt.Errorf("docbody: %w", err)
	}
	return got, nil
}

// Recall returns the data doc was made from, and its place in the order
// documents were added, once: false for a document not added to a batch
// of c (a batch of the wrapped index's own), or recalled already.
func (c *Capture) Recall(doc *document.Document) (data any, seq uint64, ok bool) {
	v, ok := c.data.LoadAndDelete(weak.Make(doc))
	if !ok {
		return nil, 0, false
	}
	cd := v.(captured)
	return cd.data, cd.seq, true
}

// Close closes the scratch index.
func (c *Capture) Close() error { return c.scratch.Close() }

func (c *Capture) remember(doc *document.Document, data any) {
	k := weak.Make(doc)
	c.data.Store(k, captured{data, c.seq.Add(1)})
	runtime.AddCleanup(doc, func(k weak.Pointer[document.Document]) { c.data.Delete(k) }, k)
}

// captureMapping is the scratch index's mapping: it remembers a
// document's data instead of mapping it (the indexer maps it when it
// writes it, with its cluster id).
type captureMapping struct {
	mapping.IndexMapping // the wrapped index's, for everything else
	c                    *Capture
}

func (m captureMapping) MapDocument(doc *document.Document, data any) error {
	m.c.remember(doc, data)
	return nil
}

// captureIndex is the scratch index's bleve index: it holds nothing.
type captureIndex struct{ c *Capture }

func newCaptureIndex(_ string, config map[string]any, _ *index.AnalysisQueue) (index.Index, error) {
	c, ok := config[captureKey].(*Capture)
	if !ok {
		return nil, errScratch
	}
	return captureIndex{c}, nil
}

func (captureIndex) Open() error  { return nil }
func (captureIndex) Close() error { return nil }

func (captureIndex) Update(index.Document) error { return errScratch }
func (captureIndex) Delete(string) error         { return errScratch }

// Batch hands b to the Capture.
func (ci captureIndex) Batch(b *index.Batch) error {
	ci.c.got = b
	return nil
}

// SetInternal takes the mapping bleve stores when it makes the index.
func (captureIndex) SetInternal(_, _ []byte) error      { return nil }
func (captureIndex) DeleteInternal(_ []byte) error      { return nil }
func (captureIndex) Reader() (index.IndexReader, error) { return nil, errScratch }
func (captureIndex) StatsMap() map[string]any           { return map[string]any{} }
