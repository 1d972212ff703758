package indexer

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/indexer/internal/bleveresult"
	"github.com/bleve-dedup/bleve-dedup/internal/docbody"
	"github.com/bleve-dedup/bleve-dedup/internal/parallel"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/recluster"
)

// Index is a bleve.Index that keeps near-duplicates out: a bleve index
// (Open's own, or the one given to Wrap), with every write decided by
// the filter and every search collapsed to one hit per duplicate
// cluster. Methods it does not override pass through to the bleve index.
//
// Writes: Index, Batch (of batches from NewBatch) and Delete decide each
// document under the policy (in the order they were added to a batch; a
// batch decides as its documents one at a time would); IndexPages and
// Feed take pages (HTML, WARC, JSONL: package page), extract their main
// text and index them the same way. A Document given to Index or a batch
// is written to the fields Options name, keeping its paragraphs, time,
// hash and tag sequence. A batch's bleve write goes on while the next batch is
// read and decided; every read of the index (Search, Document, DocCount,
// ...) waits for it first, and an error of that write is returned by the
// next call. A document written carries its cluster id in the
// keyword field FieldCluster, stored, so Document, facets and queries see
// it. IndexDecision and BatchDecisions return the decisions. A document
// without one of the fields Options name fails its batch whole,
// before any of it is written (see BatchDecisions).
//
// Search and SearchInContext return one hit per cluster, ranked by its
// best member's score, with exact paging: SearchResult.Total is the
// number of matching clusters, and each hit's Fields carry FieldCluster,
// FieldFolded (the number of other documents of the hit's cluster, which it stands for) and
// FieldFoldedIDs (up to DefaultMaxFolded of their ids), beside the fields
// and highlights the request asks for; facets count documents. A context
// made with Uncollapsed, or a request sorted by anything but score, is
// searched as the wrapped index searches it.
type Index struct {
	wrapped  // the bleve index: its methods pass through
	ix       *engine
	opts     config
	fields   []wrapField // the fields it reads (Options.fields)
	searcher *collapse.Searcher
	// shards are the indexes an Alias searches as one (nil otherwise).
	shards []*Index
	others []bleve.Index // searched beside shards (AliasWith)

	// batches makes NewBatch's batches and hands back their documents
	// with their data (nil over an alias of several indexes).
	batches *docbody.Capture

	// A batch's bleve write goes on while the next batch is read and
	// decided; every read of the index waits for it (settle).
	writing  sync.WaitGroup
	writeMu  sync.Mutex
	writeErr error

	closeOnce sync.Once
	closeErr  error
}

// wrapped names the embedded bleve index: the field would otherwise be
// called Index, like the method that decides.
type wrapped = bleve.Index

// The fields an Index adds to its hits (FieldCluster too).
const (
	FieldFolded    = "_folded"
	FieldFoldedIDs = "_folded_ids"
	// DefaultMaxFolded is how many folded ids a hit lists.
	DefaultMaxFolded = 10
)

// Wrap puts the filter in front of idx: see Index. idx may be a bleve
// IndexAlias of shards written through Wraps of their own sharing one
// shared Store: the Index then searches them as one, collapsing across
// shards (it writes only through an alias of one index).
//
// Wrap checks o's TextFields against idx's mapping where the mapping is
// explicit; every field o names is checked in each document as it is
// indexed (see Options.TitleField).
//
// The store remembers the settings it was made with, as an index does,
// and the index it was made for (its path): opening it for another is
// refused. Close closes both the store and idx; when Wrap fails, idx is
// left open, its caller's to close.
func Wrap(idx bleve.Index, o Options) (*Index, error) {
	if idx == nil || o.Store == "" || len(o.TextFields) == 0 && o.HTMLField == "" {
		return nil, fmt.Errorf("indexer: Wrap needs an index, a Store and TextFields or an HTMLField: %w", ErrInvalidOptions)
	}
	c, err := o.resolve()
	if err != nil {
		return nil, err
	}
	if m := idx.Mapping(); m != nil {
		// Only the text fields: bleve must index them for a search to
		// find what the filter compared, while a raw HTML, title or URL
		// field may well be left out of an explicit mapping on purpose.
		var text []wrapField
		for _, f := range o.fields() {
			if f.option == "TextFields" {
				text = append(text, f)
			}
		}
		if o.HTMLField != "" {
			text = append(text, wrapField{c.mainText(), "HTMLField's main text"})
		}
		if err := checkMappingFields(text, m); err != nil {
			return nil, err
		}
		if c.notInIndex = docbody.Rebuilds(m); c.notInIndex == nil && !c.NoDedup {
			c.payloadsInIndex = true
		}
	}
	dir := o.Store
	if c.shared != "" {
		if o.LocalDir == "" {
			return nil, fmt.Errorf("indexer: a shared Store needs a LocalDir for this process' own part: %w", ErrInvalidOptions)
		}
		dir = o.LocalDir
	}
	if err := checkWrapDir(dir, idx); err != nil {
		return nil, err
	}
	return start(dir, c, idx.Name(), false, func(e *engine) (bleve.Index, error) {
		e.bleve = idx
		return idx, nil
	})
}

// newIndex is the Index over idx, written by e.
func newIndex(idx bleve.Index, e *engine, c config) (*Index, error) {
	ix := &Index{wrapped: idx, ix: e, opts: c, fields: c.fields()}
	e.text, e.body = ix.paragraphsOf, ix.documentBody
	if c.HTMLField != "" {
		e.html, e.mainText = c.HTMLField, c.mainText()
	}
	if m := idx.Mapping(); m != nil && !c.ReadOnly { // (an alias of several indexes has none: no writes)
		var err error
		if ix.batches, err = docbody.NewCapture(m); err != nil {
			return nil, fmt.Errorf("indexer: %w", err)
		}
	}
	ix.searcher = collapse.NewWithFields(idx, e.filter, collapse.Fields{Cluster: FieldCluster, Title: c.TitleField, URL: c.URLField})
	return ix, nil
}

// checkWrapDir refuses a store directory inside the wrapped index's own,
// or holding something other than a store of ours.
func checkWrapDir(dir string, idx bleve.Index) error {
	if name := idx.Name(); name != "" {
		if rel, err := filepath.Rel(name, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return fmt.Errorf("indexer: the store %s would be inside the bleve index %s: give a directory of its own: %w", dir, name, ErrInvalidOptions)
		}
	}
	return checkOurs(dir)
}

// Alias returns an Index searching shards as one: a bleve IndexAlias of
// their bleve indexes, collapsed through the store they share (a shared
// Store: their clusters must be one), each document's payload read from
// the shard that added it. It writes nothing (write through each shard);
// Close closes every shard. One shard is returned as it is.
func Alias(shards ...*Index) (*Index, error) {
	if len(shards) == 1 {
		return shards[0], nil
	}
	return AliasWith(shards)
}

// AliasWith is Alias with other bleve indexes searched beside the
// shards: shards written by other processes into the same shared store,
// such as shards served on other machines (package remote/shard). Their
// documents' payloads are read there, not through Doc. Close closes the
// shards and the others.
func AliasWith(shards []*Index, others ...bleve.Index) (*Index, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("indexer: Alias of no index: %w", ErrInvalidOptions)
	}
	bs := make([]bleve.Index, len(shards), len(shards)+len(others))
	for i, s := range shards {
		if s.opts.shared == "" || s.opts.shared != shards[0].opts.shared {
			return nil, fmt.Errorf("indexer: Alias of %d indexes without one shared store: each has clusters of its own: %w", len(shards)+len(others), ErrInvalidOptions)
		}
		bs[i] = s.wrapped
	}
	first := shards[0]
	alias := bleve.NewIndexAlias(append(bs, others...)...)
	ix := &Index{wrapped: alias, ix: first.ix, opts: first.opts, fields: first.fields, shards: shards, others: others}
	ix.searcher = collapse.NewWithFields(alias, first.ix.filter, collapse.Fields{Cluster: FieldCluster, Title: first.opts.TitleField, URL: first.opts.URLField})
	return ix, nil
}

// Filter returns the filter, for reading clusters and documents.
func (w *Index) Filter() *dedupfilter.Filter { return w.ix.filter }

// Doc returns document id with its payload (see dedupfilter.Filter.Doc),
// from the shard that added it.
func (w *Index) Doc(id string) (dedupfilter.Entry, error) {
	if w.shards == nil {
		return w.ix.filter.Doc(id)
	}
	var err error
	for _, s := range w.shards {
		var e dedupfilter.Entry
		if e, err = s.ix.filter.Doc(id); err == nil && e.Local {
			return e, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("indexer: %s: no shard holds its text: %w", id, dedupfilter.ErrNotFound)
	}
	return dedupfilter.Entry{}, err
}

// Repaired is the number of documents Open or Wrap wrote to the bleve
// index again, as the store holds them, because an earlier process
// stopped between the store and bleve writes: those with a bleve write
// pending (see the package doc).
func (w *Index) Repaired() int {
	if w.shards == nil {
		return w.ix.repaired
	}
	n := 0
	for _, s := range w.shards {
		n += s.Repaired()
	}
	return n
}

// Mapping returns the index mapping: over an Alias, its first shard's
// (a bleve alias has none), which every shard shares.
func (w *Index) Mapping() mapping.IndexMapping {
	if w.shards != nil {
		return w.shards[0].Mapping()
	}
	return w.wrapped.Mapping()
}

// Unwrap returns the bleve index. Reading it directly sees a batch once
// the batch's bleve write has ended, which any read through the Index
// (DocCount, for one) waits for. Writing it directly bypasses the filter.
func (w *Index) Unwrap() bleve.Index { return w.wrapped }

// Close closes the store and the bleve index (an Alias: every shard).
// Later calls return the first's result.
func (w *Index) Close() error {
	w.closeOnce.Do(func() {
		var err error
		if w.shards != nil {
			for _, s := range w.shards {
				err = errors.Join(err, s.Close())
			}
			for _, o := range w.others {
				err = errors.Join(err, o.Close())
			}
		} else {
			err = w.settle()
			if w.batches != nil {
				err = errors.Join(err, w.batches.Close())
			}
			err = errors.Join(err, w.ix.closeStore(), w.wrapped.Close())
		}
		if err != nil {
			w.closeErr = fmt.Errorf("indexer: close: %w", err)
		}
	})
	return w.closeErr
}

// writable returns why the Index takes no writes, if it does not.
func (w *Index) writable() error {
	switch {
	case w.ix.readOnly:
		return fmt.Errorf("indexer: %w", ErrReadOnly)
	case w.batches == nil:
		return fmt.Errorf("indexer: %s is an alias of several indexes: write through each shard: %w", w.wrapped.Name(), ErrInvalidOptions)
	}
	return nil
}

// IndexPages reads pages, extracts their main text and indexes them: see
// the package doc, "Pages".
func (w *Index) IndexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o RunOptions) (Stats, error) {
	if err := w.writable(); err != nil {
		return Stats{}, err
	}
	if err := w.settle(); err != nil {
		return Stats{}, err
	}
	return w.ix.indexPages(ctx, pages, o)
}

// Feed starts a feed with o: see Feed.
func (w *Index) Feed(ctx context.Context, o RunOptions) (*Feed, error) {
	if err := w.writable(); err != nil {
		return nil, err
	}
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.ix.feed(ctx, o)
}

// Recluster refines the index's clusters with one batch pass over the
// store (see package recluster): clusters found to be one are merged,
// clusters whose members fall apart are split. Unless dryRun, the changes
// are applied and the bleve documents they touch are indexed again (with
// their new cluster id) or removed as the policy says. It holds the
// index's write lock throughout, so nothing is indexed meanwhile.
func (w *Index) Recluster(ctx context.Context, o recluster.Options, dryRun bool) (*recluster.Plan, error) {
	if !dryRun {
		if err := w.writable(); err != nil {
			return nil, err
		}
		if err := w.settle(); err != nil {
			return nil, err
		}
	}
	return w.ix.recluster(ctx, o, dryRun)
}

// Index decides and writes one document: see Index.
func (w *Index) Index(id string, data any) error {
	_, err := w.IndexDecision(id, data)
	return err
}

// IndexDecision is Index returning the document's decision. Unlike a
// Batch, it returns once bleve has the document.
func (w *Index) IndexDecision(id string, data any) (dedupfilter.Decision, error) {
	if err := w.writable(); err != nil {
		return dedupfilter.Decision{}, err
	}
	b := w.NewBatch()
	if err := b.Index(id, data); err != nil {
		return dedupfilter.Decision{}, err
	}
	decs, err := w.BatchDecisions(b)
	if err == nil {
		err = w.settle() // one document is searchable once written
	}
	if err != nil || len(decs) == 0 {
		return dedupfilter.Decision{}, err
	}
	return decs[0], nil
}

// Delete removes a document and repairs its cluster: under Suppress and
// Replace a suppressed copy may take its place in the index.
func (w *Index) Delete(id string) error {
	if err := w.writable(); err != nil {
		return err
	}
	b := w.NewBatch()
	b.Delete(id)
	if err := w.Batch(b); err != nil {
		return err
	}
	return w.settle()
}

// NewBatch returns a batch to fill and pass to Batch; nil over an alias
// of several indexes (write through each shard).
func (w *Index) NewBatch() *bleve.Batch {
	if w.batches == nil {
		return nil
	}
	return w.batches.NewBatch()
}

// Batch decides and writes a batch made by NewBatch: see Index.
func (w *Index) Batch(b *bleve.Batch) error {
	_, err := w.BatchDecisions(b)
	return err
}

// BatchDecisions is Batch returning the decisions of the documents it
// indexes, in the order they were added (deletes have none).
//
// A batch is written whole or not at all: a document that cannot be read
// (without a field Options name: ErrInvalidDocument) fails the batch
// before any of its writes or deletes is done, and the error names the
// first such document in the order added, and how many more there are.
// The batch's documents are then spent: add them to a new batch.
func (w *Index) BatchDecisions(b *bleve.Batch) ([]dedupfilter.Decision, error) {
	if err := w.writable(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("indexer: a nil batch: %w", ErrInvalidOptions)
	}
	ix := w.ix
	got, err := w.batches.Take(b)
	if err != nil {
		return nil, fmt.Errorf("indexer: batch: %w", err)
	}
	type doc struct {
		seq uint64
		s   staged
		err error
	}
	var docs []doc
	var mapped []index.Document
	var deletes []string
	for id, d := range got.IndexOps {
		if d == nil {
			deletes = append(deletes, id)
			continue
		}
		docs = append(docs, doc{s: staged{Item: dedupfilter.Item{Doc: dedupfilter.Doc{ID: id}}}})
		mapped = append(mapped, d)
	}
	// Reading the documents' text (their JSON, the HTML's main text) is
	// most of an Index's own work: on GOMAXPROCS goroutines.
	parallel.Each(len(docs), func(i int) {
		d := &docs[i]
		id := d.s.Doc.ID
		d.s, d.seq, d.err = w.stage(id, mapped[i])
		d.s.Doc.ID = id // (kept for an error's message)
	})
	slices.SortFunc(docs, func(a, b doc) int { return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.s.Doc.ID, b.s.Doc.ID)) })
	// A document that cannot be read fails the batch whole, before any
	// of it is written: the first in the order added is named.
	if i := slices.IndexFunc(docs, func(d doc) bool { return d.err != nil }); i >= 0 {
		more, n := "", 0
		for _, d := range docs[i+1:] {
			if d.err != nil {
				n++
			}
		}
		switch {
		case n == 1:
			more = " (and 1 more document of the batch)"
		case n > 1:
			more = fmt.Sprintf(" (and %d more documents of the batch)", n)
		}
		return nil, fmt.Errorf("indexer: %s%s: %w", docs[i].s.Doc.ID, more, docs[i].err)
	}
	slices.Sort(deletes)
	for _, id := range deletes {
		if err := w.delete(id); err != nil {
			return nil, err
		}
	}
	prep := make([]staged, len(docs))
	for i, d := range docs {
		prep[i] = d.s
	}
	if err := w.lastWriteErr(); err != nil {
		return nil, err
	}
	w.writing.Add(1)
	decs, err := ix.commitThen(prep, func(err error) {
		if err != nil {
			w.writeMu.Lock()
			w.writeErr = cmp.Or(w.writeErr, err)
			w.writeMu.Unlock()
		}
		w.writing.Done()
	})
	if err != nil {
		return decs, err
	}
	if len(got.InternalOps) > 0 {
		if err := w.settle(); err != nil {
			return decs, err
		}
	}
	for k, v := range got.InternalOps {
		if v == nil {
			err = w.wrapped.DeleteInternal([]byte(k))
		} else {
			err = w.wrapped.SetInternal([]byte(k), v)
		}
		if err != nil {
			return decs, fmt.Errorf("indexer: internal %q: %w", k, err)
		}
	}
	return decs, nil
}

// lastWriteErr returns, once, the error of a bleve write that failed
// after its batch returned.
func (w *Index) lastWriteErr() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	err := w.writeErr
	w.writeErr = nil
	if err != nil {
		return fmt.Errorf("indexer: an earlier batch's bleve write: %w", err)
	}
	return nil
}

// settle waits for the last batch's bleve write and returns its error.
func (w *Index) settle() error {
	w.writing.Wait()
	return w.lastWriteErr()
}

// The reads of the index wait for the last batch's write, so that what a
// Batch returned is there: settle, then pass through.

// Document returns the stored fields of id (see bleve.Index).
func (w *Index) Document(id string) (index.Document, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.Document(id)
}

// DocCount returns the number of documents in the index.
func (w *Index) DocCount() (uint64, error) {
	if err := w.settle(); err != nil {
		return 0, err
	}
	return w.wrapped.DocCount()
}

// Fields returns the names of the index's fields.
func (w *Index) Fields() ([]string, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.Fields()
}

// FieldDict returns the terms of field.
func (w *Index) FieldDict(field string) (index.FieldDict, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.FieldDict(field)
}

// FieldDictRange returns the terms of field from start to end.
func (w *Index) FieldDictRange(field string, start, end []byte) (index.FieldDict, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.FieldDictRange(field, start, end)
}

// FieldDictPrefix returns the terms of field starting with prefix.
func (w *Index) FieldDictPrefix(field string, prefix []byte) (index.FieldDict, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.FieldDictPrefix(field, prefix)
}

// GetInternal returns the index's internal value of key.
func (w *Index) GetInternal(key []byte) ([]byte, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.GetInternal(key)
}

// SetInternal sets the index's internal value of key.
func (w *Index) SetInternal(key, val []byte) error {
	if err := w.settle(); err != nil {
		return err
	}
	return w.wrapped.SetInternal(key, val)
}

// DeleteInternal deletes the index's internal value of key.
func (w *Index) DeleteInternal(key []byte) error {
	if err := w.settle(); err != nil {
		return err
	}
	return w.wrapped.DeleteInternal(key)
}

// Advanced returns the index's low-level index.
func (w *Index) Advanced() (index.Index, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.Advanced()
}

// delete removes id from the filter (it may hold no such document: a
// document written around the Index) and the index.
func (w *Index) delete(id string) error {
	err := w.ix.delete(id)
	if errors.Is(err, dedupfilter.ErrNotFound) {
		err = w.ix.apply([]dedupfilter.Op{{Kind: dedupfilter.OpDelete, ID: id}}, nil)
	}
	return err
}

// stage makes the staged document of id from what was added to the
// batch: its data when NewBatch's batch remembered it, else the fields
// it was mapped to (a batch of the wrapped index's own).
func (w *Index) stage(id string, d index.Document) (staged, uint64, error) {
	var body map[string]any
	var payload []byte
	var seq uint64
	var err error
	var data any // what was added, when known
	if doc, ok := d.(*document.Document); ok {
		var captured bool
		if data, seq, captured = w.batches.Recall(doc); captured {
			if d, ok := asDocument(data); ok {
				d.ID = id
				s, err := w.ix.stage(d, urlKey(d.URL, ""))
				return s, seq, err
			}
			if body, payload, err = docbody.Of(data, w.wrapped.Mapping()); err != nil {
				return staged{}, seq, err
			}
		}
	}
	if body == nil {
		body = docbody.FromFields(d)
		if payload, err = docbody.Encode(body); err != nil {
			return staged{}, seq, err
		}
	}
	if err := checkDocFields(w.fields, body, data); err != nil {
		return staged{}, seq, err
	}
	s, err := w.stageBody(id, body, payload)
	return s, seq, err
}

// asDocument returns data as a Document, when it is one (or points to
// one).
func asDocument(data any) (Document, bool) {
	switch d := data.(type) {
	case Document:
		return d, true
	case *Document:
		if d != nil {
			return *d, true
		}
	}
	return Document{}, false
}

// documentBody is d's bleve body in the fields the Index reads: its text
// in the main text field, its title and URL in theirs, d.Fields beside
// them.
func (w *Index) documentBody(d Document) (map[string]any, error) {
	body := make(map[string]any, len(d.Fields)+3)
	maps.Copy(body, d.Fields)
	setPath(body, w.opts.mainText(), joinParagraphs(d.Paragraphs))
	if w.opts.TitleField != "" {
		setPath(body, w.opts.TitleField, d.Title)
	}
	if w.opts.URLField != "" && d.URL != "" {
		setPath(body, w.opts.URLField, d.URL)
	}
	return body, nil
}

// setPath sets the field at a dotted path of body, making the objects on
// the way.
func setPath(body map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := body[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			body[p] = next
		}
		body = next
	}
	body[parts[len(parts)-1]] = v
}

// stageBody stages a document from its JSON object.
func (w *Index) stageBody(id string, body map[string]any, payload []byte) (staged, error) {
	title, pageURL := docbody.First(body, w.opts.TitleField), docbody.First(body, w.opts.URLField)
	paras, htmlTitle, err := w.text(body, pageURL)
	if err != nil {
		return staged{}, err
	}
	if title == "" {
		title = htmlTitle
	}
	paras, truncated := capText(paras, w.ix.maxText)
	if w.ix.mainText != "" {
		setPath(body, w.ix.mainText, joinParagraphs(paras)) // (not in the payload: read again from the HTML)
	}
	return staged{
		Item: dedupfilter.Item{Doc: dedupfilter.Doc{ID: id, URL: pageURL, Title: title, Payload: payload}, Paras: paras},
		body: body, truncated: truncated, urlKey: urlKey(pageURL, ""),
	}, nil
}

// text returns a document's main text as paragraphs, and its HTML's
// title when it has HTML.
func (w *Index) text(body map[string]any, pageURL string) ([]string, string, error) {
	if w.opts.HTMLField == "" {
		var texts []string
		for _, f := range w.opts.TextFields {
			texts = append(texts, docbody.Strings(body, f)...)
		}
		return paragraphsOf(texts), "", nil
	}
	html := docbody.First(body, w.opts.HTMLField)
	if html == "" {
		// A Document written to an HTML index holds its text only.
		return paragraphsOf(docbody.Strings(body, w.opts.mainText())), "", nil
	}
	c, err := extract.DefaultOptions().HTMLContext(context.Background(), html, pageURL)
	if errors.Is(err, extract.ErrNoContent) {
		return nil, c.Title, nil // indexed, in a cluster of its own
	}
	if err != nil {
		return nil, "", err
	}
	return c.Paragraphs, c.Title, nil
}

// paragraphsOf reads the paragraphs of a stored payload (for analysing a
// document again).
func (w *Index) paragraphsOf(payload []byte) ([]string, error) {
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		return nil, err
	}
	paras, _, err := w.text(body, docbody.First(body, w.opts.URLField))
	return paras, err
}

// paragraphsOf cuts plain texts into paragraphs at line breaks.
func paragraphsOf(texts []string) []string {
	var out []string
	for _, t := range texts {
		out = append(out, Paragraphs(t)...)
	}
	return out
}

// Paragraphs cuts a plain text into paragraphs at line breaks, blank
// lines left out: how a text field is read (Options.TextFields), and
// what SimilarRequest.Paragraphs takes.
func Paragraphs(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// Search is SearchInContext with a background context.
func (w *Index) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return w.SearchInContext(context.Background(), req)
}

type uncollapsedKey struct{}

// Uncollapsed returns ctx marked so that an Index's SearchInContext
// searches as the wrapped index does: every matching document a hit.
func Uncollapsed(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncollapsedKey{}, true)
}

// SearchInContext searches with one hit per duplicate cluster: see
// Index.
func (w *Index) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	if ctx.Value(uncollapsedKey{}) != nil || !bleveresult.Collapses(req) {
		return w.wrapped.SearchInContext(ctx, req)
	}
	res, err := bleveresult.Search(ctx, w.wrapped, w.searcher, req,
		bleveresult.Fields{Cluster: FieldCluster, Folded: FieldFolded, FoldedIDs: FieldFoldedIDs}, DefaultMaxFolded)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	return res, nil
}

var _ bleve.Index = (*Index)(nil)
