package indexer

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/internal/bleveresult"
	"github.com/bleve-dedup/bleve-dedup/internal/docbody"
	"github.com/bleve-dedup/bleve-dedup/internal/parallel"
	"github.com/bleve-dedup/bleve-dedup/internal/sitedecide"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

// WrapOptions configure Wrap: where the filter keeps its state and which
// of the user's fields hold what a page says.
type WrapOptions struct {
	// Store is where the filter keeps its state: a directory of its own
	// for the embedded store (made when absent; never the bleve index's
	// own directory), or the URL of a store shared by several indexes,
	// redis://HOST:PORT[,HOST:PORT...][/NAME], whose process-local part
	// (payloads, pending writes) is then kept in LocalDir.
	Store string
	// LocalDir is the directory of this process' own part of a shared
	// Store (required with one, unused without).
	LocalDir string
	// TextFields are the fields holding a document's plain text, in
	// order, by bleve's field paths ("Body", "article.body"); or
	// HTMLField, a field holding a page's raw HTML, whose main text is
	// extracted (package extract). One of the two is required.
	TextFields []string
	HTMLField  string
	// TitleField and URLField, optional, hold the title and the URL: the
	// URL names the page's site (its template text is left out of the
	// features) and makes a later page of the same URL a new version of
	// the document; collapsed hits show the title.
	//
	// The fields named here (TextFields only without an HTMLField) are
	// named as bleve names them: by JSON tag, else Go name, for a
	// struct's fields ("html" for HTML string `json:"html"`), by key for
	// a map's, by dotted path for nested ones. Every document must have
	// each of them: Index and Batch refuse one that does not
	// (ErrInvalidDocument), naming the field and the fields the document
	// has; a field present but empty ("", null, an empty array, a
	// struct field omitted as empty) is no error. Wrap refuses
	// (ErrInvalidOptions) a field the index's mapping cannot hold: one it
	// does not name where it is not dynamic. (A field to read but not to
	// index: name it in the mapping with a disabled document mapping.)
	TitleField, URLField string
	// Policy: Suppress (the zero value), Mark or Replace (see
	// dedupfilter.Policy). Under Suppress and Replace the Wrapper keeps
	// suppressed copies out of the wrapped index.
	Policy dedupfilter.Policy
	// Filter, when set, are the filter's decision options (their Policy
	// is replaced by Policy); nil: dedupfilter.DefaultOptions.
	Filter *dedupfilter.Options
	// Analyzer, when set, configures the features; nil:
	// analyzer.DefaultOptions.
	Analyzer *analyzer.Options
	// KeepSiteText analyses pages whole (see Options.KeepSiteText).
	KeepSiteText bool
	// Reconfigure accepts decision options other than those the store was
	// made with (see Options.Reconfigure).
	Reconfigure bool
}

// Wrapper is a bleve.Index that keeps near-duplicates out: the index it
// wraps, with every write decided by the filter and every search
// collapsed to one hit per duplicate cluster. Methods it does not
// override pass through to the wrapped index.
//
// Writes: Index, Batch (of batches from NewBatch) and Delete decide each
// document under the policy, as package indexer decides pages (in the
// order they were added to a batch; a batch decides as its documents one
// at a time would). A batch's bleve write goes on while the next batch is
// read and decided; every read of the index (Search, Document, DocCount,
// ...) waits for it first, and an error of that write is returned by the
// next call. A document written carries its cluster id in the
// keyword field FieldCluster, stored, so Document, facets and queries see
// it. IndexDecision and BatchDecisions return the decisions. A document
// without one of the fields WrapOptions name fails its batch whole,
// before any of it is written (see BatchDecisions).
//
// Search and SearchInContext return one hit per cluster, ranked by its
// best member's score, with exact paging: SearchResult.Total is the
// number of matching clusters, and each hit's Fields carry FieldCluster,
// FieldFolded (how many other documents the cluster holds) and
// FieldFoldedIDs (up to DefaultMaxFolded of their ids), beside the fields
// and highlights the request asks for; facets count documents. A context
// made with Uncollapsed, or a request sorted by anything but score, is
// searched as the wrapped index searches it.
type Wrapper struct {
	wrapped  // the wrapped index: its methods pass through
	ix       *Index
	opts     WrapOptions
	fields   []wrapField // the fields it reads (WrapOptions.fields)
	owned    string      // the directory of the embedded store, when Wrap made it
	searcher *collapse.Searcher

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

// wrapped names the embedded index: the field would otherwise be called
// Index, like the method that decides.
type wrapped = bleve.Index

// The fields a Wrapper adds to its hits (FieldCluster too).
const (
	FieldFolded    = "_folded"
	FieldFoldedIDs = "_folded_ids"
	// DefaultMaxFolded is how many folded ids a hit lists.
	DefaultMaxFolded = 10
)

// Wrap puts the filter in front of idx: see Wrapper. idx may be a bleve
// IndexAlias of shards written through Wraps of their own sharing one
// shared Store: the Wrapper then searches them as one, collapsing across
// shards (it writes only through an alias of one index).
//
// Wrap checks o's TextFields against idx's mapping where the mapping is
// explicit; every field o names is checked in each document as it is
// indexed (see WrapOptions.TitleField).
//
// The store remembers the settings it was made with, as an index does
// (Settings), and the index it was made for: opening it for another is
// refused. Close closes both the store and idx.
func Wrap(idx bleve.Index, o WrapOptions) (*Wrapper, error) {
	if idx == nil || o.Store == "" || len(o.TextFields) == 0 && o.HTMLField == "" {
		return nil, fmt.Errorf("indexer: Wrap needs an index, a Store and TextFields or an HTMLField: %w", ErrInvalidOptions)
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
		if err := checkMappingFields(text, m); err != nil {
			return nil, err
		}
	}
	opts := DefaultOptions()
	if o.Filter != nil {
		opts.Filter = *o.Filter
	}
	opts.Filter.Policy = o.Policy
	if o.Analyzer != nil {
		opts.Analyzer = *o.Analyzer
	}
	opts.KeepSiteText, opts.Reconfigure = o.KeepSiteText, o.Reconfigure
	dir := o.Store
	if strings.HasPrefix(o.Store, "redis://") {
		if o.LocalDir == "" {
			return nil, fmt.Errorf("indexer: a shared Store needs a LocalDir for this process' own part: %w", ErrInvalidOptions)
		}
		opts.SharedStore, dir = o.Store, o.LocalDir
		if _, _, err := rediscluster.ParseURL(o.Store); err != nil {
			return nil, fmt.Errorf("indexer: %w", err)
		}
	}
	if err := checkWrapDir(dir, idx); err != nil {
		return nil, err
	}
	had, known, err := ReadSettings(dir)
	if err != nil {
		return nil, err
	}
	record := settingsOf(opts)
	record.Wraps = idx.Name()
	if known {
		if had.Wraps != "" && had.Wraps != record.Wraps {
			return nil, fmt.Errorf("indexer: the store in %s was made for the index %q, not %q: %w", dir, had.Wraps, record.Wraps, ErrSettings)
		}
		if record, err = checkSettings(dir, had, record, opts.Reconfigure); err != nil {
			return nil, err
		}
		record.Wraps = idx.Name()
	}
	an, err := analyzer.New(opts.Analyzer)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	w := &Wrapper{wrapped: idx, opts: o, fields: o.fields()}
	ix := &Index{analyzer: an, maxText: opts.MaxTextBytes, text: w.paragraphsOf}
	if err := ix.openStore(dir, opts); err != nil {
		return nil, errors.Join(err, ix.closeStore())
	}
	ix.bleve = idx
	w.ix = ix
	fail := func(err error) (*Wrapper, error) { return nil, errors.Join(err, ix.closeStore()) }
	if !known || !settingsEqual(record, had) {
		if err := writeSettings(dir, record); err != nil {
			return fail(err)
		}
	}
	if m := idx.Mapping(); m != nil { // (an alias of several indexes has none: no writes)
		if w.batches, err = docbody.NewCapture(m); err != nil {
			return fail(fmt.Errorf("indexer: wrap: %w", err))
		}
	}
	if err := ix.replay(); err != nil {
		return fail(err)
	}
	if err := ix.finishStale(); err != nil {
		return fail(err)
	}
	w.searcher = collapse.NewWithFields(idx, ix.filter, collapse.Fields{Cluster: FieldCluster, Title: o.TitleField, URL: o.URLField})
	return w, nil
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

// Filter returns the filter, for reading clusters and documents.
func (w *Wrapper) Filter() *dedupfilter.Filter { return w.ix.filter }

// Repaired is the number of documents Wrap wrote to the wrapped index
// again, as the store holds them, because an earlier process stopped
// between the store and bleve writes (see Index.Repaired).
func (w *Wrapper) Repaired() int { return w.ix.repaired }

// Unwrap returns the wrapped index. Reading it directly sees a batch once
// the batch's bleve write has ended, which any read through the Wrapper
// (DocCount, for one) waits for.
func (w *Wrapper) Unwrap() bleve.Index { return w.wrapped }

// Close closes the store and the wrapped index. Later calls return the
// first's result.
func (w *Wrapper) Close() error {
	w.closeOnce.Do(func() {
		err := w.settle()
		if w.batches != nil {
			err = errors.Join(err, w.batches.Close())
		}
		if err = errors.Join(err, w.ix.closeStore(), w.wrapped.Close()); err != nil {
			w.closeErr = fmt.Errorf("indexer: close: %w", err)
		}
	})
	return w.closeErr
}

// Index decides and writes one document: see Wrapper.
func (w *Wrapper) Index(id string, data any) error {
	_, err := w.IndexDecision(id, data)
	return err
}

// IndexDecision is Index returning the document's decision.
func (w *Wrapper) IndexDecision(id string, data any) (dedupfilter.Decision, error) {
	b := w.NewBatch()
	if b == nil {
		return dedupfilter.Decision{}, fmt.Errorf("indexer: %s is an alias of several indexes: write through each one's Wrapper: %w", w.wrapped.Name(), ErrInvalidOptions)
	}
	if err := b.Index(id, data); err != nil {
		return dedupfilter.Decision{}, err
	}
	decs, err := w.BatchDecisions(b)
	if err != nil || len(decs) == 0 {
		return dedupfilter.Decision{}, err
	}
	return decs[0], nil
}

// Delete removes a document and repairs its cluster: under Suppress and
// Replace a suppressed copy may take its place in the index.
func (w *Wrapper) Delete(id string) error {
	b := w.NewBatch()
	if b != nil {
		b.Delete(id)
	}
	return w.Batch(b)
}

// NewBatch returns a batch to fill and pass to Batch; nil over an alias
// of several indexes (write through each one's Wrapper).
func (w *Wrapper) NewBatch() *bleve.Batch {
	if w.batches == nil {
		return nil
	}
	return w.batches.NewBatch()
}

// Batch decides and writes a batch made by NewBatch: see Wrapper.
func (w *Wrapper) Batch(b *bleve.Batch) error {
	_, err := w.BatchDecisions(b)
	return err
}

// BatchDecisions is Batch returning the decisions of the documents it
// indexes, in the order they were added (deletes have none).
//
// A batch is written whole or not at all: a document that cannot be read
// (without a field WrapOptions name: ErrInvalidDocument) fails the batch
// before any of its writes or deletes is done, and the error names the
// first such document in the order added, and how many more there are.
// The batch's documents are then spent: add them to a new batch.
func (w *Wrapper) BatchDecisions(b *bleve.Batch) ([]dedupfilter.Decision, error) {
	if w.batches == nil || b == nil {
		return nil, fmt.Errorf("indexer: %s is an alias of several indexes: write through each one's Wrapper: %w", w.wrapped.Name(), ErrInvalidOptions)
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
		docs = append(docs, doc{s: staged{Item: sitedecide.Item{Doc: dedupfilter.Doc{ID: id}}}})
		mapped = append(mapped, d)
	}
	// Reading the documents' text (their JSON, the HTML's main text) is
	// most of a Wrapper's own work: on GOMAXPROCS goroutines.
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
func (w *Wrapper) lastWriteErr() error {
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
func (w *Wrapper) settle() error {
	w.writing.Wait()
	return w.lastWriteErr()
}

// The reads of the index wait for the last batch's write, so that what a
// Batch returned is there: settle, then pass through.

// Document returns the stored fields of id (see bleve.Index).
func (w *Wrapper) Document(id string) (index.Document, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.Document(id)
}

// DocCount returns the number of documents in the index.
func (w *Wrapper) DocCount() (uint64, error) {
	if err := w.settle(); err != nil {
		return 0, err
	}
	return w.wrapped.DocCount()
}

// Fields returns the names of the index's fields.
func (w *Wrapper) Fields() ([]string, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.Fields()
}

// FieldDict returns the terms of field.
func (w *Wrapper) FieldDict(field string) (index.FieldDict, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.FieldDict(field)
}

// FieldDictRange returns the terms of field from start to end.
func (w *Wrapper) FieldDictRange(field string, start, end []byte) (index.FieldDict, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.FieldDictRange(field, start, end)
}

// FieldDictPrefix returns the terms of field starting with prefix.
func (w *Wrapper) FieldDictPrefix(field string, prefix []byte) (index.FieldDict, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.FieldDictPrefix(field, prefix)
}

// GetInternal returns the index's internal value of key.
func (w *Wrapper) GetInternal(key []byte) ([]byte, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.GetInternal(key)
}

// SetInternal sets the index's internal value of key.
func (w *Wrapper) SetInternal(key, val []byte) error {
	if err := w.settle(); err != nil {
		return err
	}
	return w.wrapped.SetInternal(key, val)
}

// DeleteInternal deletes the index's internal value of key.
func (w *Wrapper) DeleteInternal(key []byte) error {
	if err := w.settle(); err != nil {
		return err
	}
	return w.wrapped.DeleteInternal(key)
}

// Advanced returns the index's low-level index.
func (w *Wrapper) Advanced() (index.Index, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	return w.wrapped.Advanced()
}

// delete removes id from the filter (it may hold no such document: a
// document written around the Wrapper) and the index.
func (w *Wrapper) delete(id string) error {
	err := w.ix.Delete(id)
	if errors.Is(err, dedupfilter.ErrNotFound) {
		err = w.ix.apply([]dedupfilter.Op{{Kind: dedupfilter.OpDelete, ID: id}}, nil)
	}
	return err
}

// stage makes the staged document of id from what was added to the
// batch: its data when NewBatch's batch remembered it, else the fields
// it was mapped to (a batch of the wrapped index's own).
func (w *Wrapper) stage(id string, d index.Document) (staged, uint64, error) {
	var body map[string]any
	var payload []byte
	var seq uint64
	var err error
	var data any // what was added, when known
	if doc, ok := d.(*document.Document); ok {
		var captured bool
		if data, seq, captured = w.batches.Recall(doc); captured {
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

// stageBody stages a document from its JSON object.
func (w *Wrapper) stageBody(id string, body map[string]any, payload []byte) (staged, error) {
	title, pageURL := docbody.First(body, w.opts.TitleField), docbody.First(body, w.opts.URLField)
	paras, htmlTitle, err := w.text(body, pageURL)
	if err != nil {
		return staged{}, err
	}
	if title == "" {
		title = htmlTitle
	}
	paras, truncated := capText(paras, w.ix.maxText)
	return staged{
		Item: sitedecide.Item{Doc: dedupfilter.Doc{ID: id, URL: pageURL, Title: title, Payload: payload}, Paras: paras},
		body: body, truncated: truncated, urlKey: urlKey(pageURL, ""),
	}, nil
}

// text returns a document's main text as paragraphs, and its HTML's
// title when it has HTML.
func (w *Wrapper) text(body map[string]any, pageURL string) ([]string, string, error) {
	if w.opts.HTMLField == "" {
		var texts []string
		for _, f := range w.opts.TextFields {
			texts = append(texts, docbody.Strings(body, f)...)
		}
		return paragraphsOf(texts), "", nil
	}
	html := docbody.First(body, w.opts.HTMLField)
	if html == "" {
		return nil, "", nil
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
func (w *Wrapper) paragraphsOf(payload []byte) ([]string, error) {
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		return nil, err
	}
	paras, _, err := w.text(body, docbody.First(body, w.opts.URLField))
	return paras, err
}

// paragraphsOf cuts plain text into paragraphs at line breaks.
func paragraphsOf(texts []string) []string {
	var out []string
	for _, t := range texts {
		for line := range strings.Lines(t) {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

// Search is SearchInContext with a background context.
func (w *Wrapper) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return w.SearchInContext(context.Background(), req)
}

type uncollapsedKey struct{}

// Uncollapsed returns ctx marked so that a Wrapper's SearchInContext
// searches as the wrapped index does: every matching document a hit.
func Uncollapsed(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncollapsedKey{}, true)
}

// SearchInContext searches with one hit per duplicate cluster: see
// Wrapper.
func (w *Wrapper) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
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

var _ bleve.Index = (*Wrapper)(nil)
