package indexer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// Field names of the documents written to bleve.
const (
	FieldTitle   = "title"
	FieldText    = "text"
	FieldURL     = "url"
	FieldCluster = "cluster" // keyword: the document's duplicate-cluster id
)

// ErrInvalidDocument is returned for a document without an id or text.
var ErrInvalidDocument = errors.New("indexer: invalid document")

// Options configures Open.
type Options struct {
	// Filter configures the dedup store. Its Dir is ignored: the store
	// lives in DIR/dedup.
	Filter dedupfilter.Options
	// Analyzer configures the features. Changing it for an existing index
	// makes old and new documents incomparable.
	Analyzer analyzer.Options
	// Mapping is used when the bleve index is created; nil means
	// NewMapping(). An existing index keeps its own mapping.
	Mapping mapping.IndexMapping
	// NoDedup writes every document straight to bleve, each in a cluster
	// of its own, without features or store writes: plain bleve indexing
	// through the same pipeline, to measure what the filter costs.
	NoDedup bool
	// KeepSiteText analyses pages whole. By default a paragraph that
	// another page of the same site (URL host) showed is template text —
	// navigation, sidebars, a blog's other posts — and is left out of the
	// features, unless that would leave (almost) nothing of the page (a
	// same-site copy). Turning it off makes different articles in one
	// template look alike.
	KeepSiteText bool
}

// DefaultOptions returns the options Open uses when given the zero value's
// parts: the dedupfilter and analyzer defaults, and NewMapping.
func DefaultOptions() Options {
	return Options{
		Filter:   dedupfilter.DefaultOptions(""),
		Analyzer: analyzer.DefaultOptions(),
	}
}

// NewMapping is the default bleve mapping: title and text analysed with
// bleve's CJK analyzer (Unicode words, Han bigrams: English and Chinese
// alike), url and cluster as stored keywords. Extra fields given in
// Document.Fields are mapped dynamically.
func NewMapping() *mapping.IndexMappingImpl {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = cjk.AnalyzerName
	stored := bleve.NewTextFieldMapping()
	stored.Analyzer = cjk.AnalyzerName
	stored.IncludeTermVectors = true
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name

	doc := bleve.NewDocumentMapping()
	doc.AddFieldMappingsAt(FieldTitle, stored)
	doc.AddFieldMappingsAt(FieldText, text)
	doc.AddFieldMappingsAt(FieldURL, kw)
	doc.AddFieldMappingsAt(FieldCluster, kw)

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = cjk.AnalyzerName
	return m
}

// Document is one page's main content, ready to index.
type Document struct {
	ID         string
	URL        string
	Title      string
	Paragraphs []string
	// Time orders copies under the replace policy's "newer" rule; zero
	// means the time of indexing.
	Time time.Time
	// Fields are extra fields stored and indexed with the document (for
	// example a relevance score); they must marshal to JSON.
	Fields map[string]any
}

// Index is a bleve index with its dedup store.
type Index struct {
	bleve    bleve.Index
	filter   *dedupfilter.Filter
	analyzer *analyzer.Analyzer
	site     *siteText     // nil when Options.KeepSiteText
	clusters *clusterCache // per-segment cluster tables for collapsing
	noDedup  bool

	mu       sync.Mutex // one filter decision and its bleve write at a time
	repaired int

	closeOnce sync.Once
	closeErr  error
}

// Open opens the index in dir, creating it when absent, and replays
// bleve writes that a crash left pending (see Repaired).
func Open(dir string, opts Options) (*Index, error) {
	an, err := analyzer.New(opts.Analyzer)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	fo := opts.Filter
	fo.Dir = filepath.Join(dir, "dedup")
	f, err := dedupfilter.Open(fo)
	if err != nil {
		return nil, fmt.Errorf("indexer: open %s: %w", fo.Dir, err)
	}
	bpath := filepath.Join(dir, "bleve")
	b, err := bleve.Open(bpath)
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		m := opts.Mapping
		if m == nil {
			m = NewMapping()
		}
		b, err = bleve.New(bpath, m)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("indexer: open %s: %w", bpath, err)
	}
	ix := &Index{bleve: b, filter: f, analyzer: an, noDedup: opts.NoDedup, clusters: newClusterCache()}
	if !opts.KeepSiteText && !opts.NoDedup {
		if ix.site, err = openSiteText(filepath.Join(dir, "site")); err != nil {
			ix.Close()
			return nil, fmt.Errorf("indexer: open %s: %w", filepath.Join(dir, "site"), err)
		}
	}
	if err := ix.replay(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// replay re-applies the bleve operations a crash left pending.
func (ix *Index) replay() error {
	var ops []dedupfilter.Op
	err := ix.filter.Pending(func(op dedupfilter.Op) error {
		ops = append(ops, op)
		return nil
	})
	if err == nil {
		err = ix.apply(ops, nil)
	}
	if err != nil {
		return fmt.Errorf("indexer: repairing pending writes: %w", err)
	}
	ix.repaired = len(ops)
	return nil
}

// Repaired is the number of pending bleve operations Open re-applied
// because an earlier process stopped between the store and bleve writes.
func (ix *Index) Repaired() int { return ix.repaired }

// Bleve returns the underlying bleve index, for reading.
func (ix *Index) Bleve() bleve.Index { return ix.bleve }

// Filter returns the dedup filter, for reading clusters and documents.
func (ix *Index) Filter() *dedupfilter.Filter { return ix.filter }

// Close closes bleve and the store. Later calls return the first call's
// result, so a deferred Close after an explicit one is harmless.
func (ix *Index) Close() error {
	ix.closeOnce.Do(func() {
		ix.closeErr = errors.Join(ix.bleve.Close(), ix.filter.Close())
		if ix.site != nil {
			ix.closeErr = errors.Join(ix.closeErr, ix.site.Close())
		}
	})
	return ix.closeErr
}

// Index analyses d, lets the filter decide, and writes bleve accordingly.
func (ix *Index) Index(d Document) (dedupfilter.Decision, error) {
	decs, err := ix.Batch([]Document{d})
	if err != nil {
		return dedupfilter.Decision{}, err
	}
	return decs[0], nil
}

// Batch indexes docs in order (earlier documents are the originals of
// later copies) with one bleve batch. Features are computed in parallel.
// On error, the decisions made so far are written and returned.
func (ix *Index) Batch(docs []Document) ([]dedupfilter.Decision, error) {
	prep := make([]prepared, len(docs))
	for i, d := range docs {
		var err error
		if prep[i], err = ix.prepare(d); err != nil {
			return nil, err
		}
	}
	return ix.write(prep)
}

func validate(d Document) error {
	if d.ID == "" {
		return fmt.Errorf("%w: empty id", ErrInvalidDocument)
	}
	return nil
}

// prepared is a document with its features and bleve payload computed.
type prepared struct {
	doc   dedupfilter.Doc
	body  map[string]any // doc.Payload decoded, for bleve
	paras []string       // analysed in write, after the site's template text is known
	fp    *dedupfilter.Prepared
	err   error
}

func (ix *Index) prepare(d Document) (prepared, error) {
	if err := validate(d); err != nil {
		return prepared{}, err
	}
	body := map[string]any{}
	for k, v := range d.Fields {
		body[k] = v
	}
	body[FieldTitle] = d.Title
	body[FieldText] = joinParagraphs(d.Paragraphs)
	if d.URL != "" {
		body[FieldURL] = d.URL
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return prepared{}, fmt.Errorf("indexer: %s: fields: %w", d.ID, err)
	}
	return prepared{doc: dedupfilter.Doc{ID: d.ID, URL: d.URL, Title: d.Title, Payload: payload, Time: d.Time}, body: body, paras: d.Paragraphs}, nil
}

func joinParagraphs(ps []string) string {
	n := 0
	for _, p := range ps {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for i, p := range ps {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, p...)
	}
	return string(b)
}

// write runs the filter decisions for prep in order and applies their
// bleve operations in one batch.
func (ix *Index) write(prep []prepared) ([]dedupfilter.Decision, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	decs := make([]dedupfilter.Decision, 0, len(prep))
	var ops []dedupfilter.Op
	if ix.noDedup {
		for _, p := range prep {
			op := dedupfilter.Op{Kind: dedupfilter.OpIndex, ID: p.doc.ID, Cluster: p.doc.ID, Payload: p.doc.Payload}
			decs = append(decs, dedupfilter.Decision{ID: p.doc.ID, Cluster: p.doc.ID, Representative: p.doc.ID, Ops: []dedupfilter.Op{op}})
			ops = append(ops, op)
		}
		return decs, ix.apply(ops, prep)
	}
	// The site's template text depends on the pages before, so it is found
	// in order; the features are computed in parallel while the filter
	// decides, in order, on the documents already analysed.
	stale := make([][]string, len(prep))
	for i := range prep {
		var err error
		if prep[i].paras, stale[i], err = ix.site.clean(site(prep[i].doc.URL, prep[i].doc.ID), prep[i].doc.ID, prep[i].paras); err != nil {
			return nil, err
		}
	}
	ready, stop := ix.analyze(prep)
	var addErr error
	for i := range prep {
		<-ready[i]
		p := &prep[i]
		var dec dedupfilter.Decision
		err := p.err
		if err == nil {
			dec, err = ix.filter.AddPrepared(p.fp)
		}
		if err != nil {
			addErr = fmt.Errorf("indexer: %s: %w", p.doc.ID, err)
			break
		}
		decs = append(decs, dec)
		ops = append(ops, dec.Ops...)
		if len(stale[i]) > 0 {
			reops, err := ix.recluster(stale[i])
			ops = append(ops, reops...)
			if err != nil {
				addErr = fmt.Errorf("indexer: re-deciding after %s: %w", p.doc.ID, err)
				break
			}
		}
	}
	stop() // after an error, analysis of the documents left is dropped
	// Ops of decisions already committed must reach bleve even when a later
	// Add failed, or the stores would disagree until the next Open.
	if err := ix.apply(ops, prep); err != nil {
		return decs, errors.Join(addErr, err)
	}
	return decs, addErr
}

// analyze computes the features of prep and prepares them for the filter
// on GOMAXPROCS goroutines, taking documents in order; ready[i] is closed
// when prep[i] is done. stop ends the work early and waits for it.
func (ix *Index) analyze(prep []prepared) (ready []chan struct{}, stop func()) {
	ready = make([]chan struct{}, len(prep))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	var next atomic.Int64
	var halt atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(prep)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(prep) && !halt.Load(); i = int(next.Add(1) - 1) {
				p := &prep[i]
				p.doc.Features = ix.analyzer.Analyze(p.paras)
				p.fp, p.err = ix.filter.Prepare(p.doc)
				close(ready[i])
			}
		})
	}
	return ready, func() {
		halt.Store(true)
		wg.Wait()
	}
}

// add analyses paras, without the site's template text, into d's
// features and lets the filter decide. stale lists earlier pages to
// analyse again (see siteText.clean).
func (ix *Index) add(d dedupfilter.Doc, paras []string) (dedupfilter.Decision, []string, error) {
	paras, stale, err := ix.site.clean(site(d.URL, d.ID), d.ID, paras)
	if err != nil {
		return dedupfilter.Decision{}, nil, err
	}
	d.Features = ix.analyzer.Analyze(paras)
	dec, err := ix.filter.Add(d)
	return dec, stale, err
}

// recluster analyses the stale pages again and re-decides their whole
// clusters: members may have joined through template text that a stale
// page has now lost, so every member is taken out and added back, in the
// order they were added, with fresh features. Re-decided clusters get new
// ids. Pages analysed again may reveal more stale pages; each page is
// redone at most once per call.
func (ix *Index) recluster(stale []string) ([]dedupfilter.Op, error) {
	var ops []dedupfilter.Op
	done := map[string]bool{}
	for len(stale) > 0 {
		id := stale[0]
		stale = stale[1:]
		if done[id] {
			continue
		}
		c, err := ix.filter.ClusterOf(id)
		if errors.Is(err, dedupfilter.ErrNotFound) {
			continue // deleted since
		}
		if err != nil {
			return ops, err
		}
		entries := make([]dedupfilter.Entry, 0, len(c.Members))
		for _, m := range c.Members {
			e, err := ix.filter.Doc(m)
			if err != nil {
				return ops, err
			}
			entries = append(entries, e)
		}
		slices.SortFunc(entries, func(a, b dedupfilter.Entry) int { return cmp.Compare(a.Seq, b.Seq) })
		for _, e := range entries {
			res, err := ix.filter.Delete(e.ID)
			if err != nil {
				return ops, err
			}
			ops = append(ops, res.Ops...)
		}
		for _, e := range entries {
			done[e.ID] = true
			var body map[string]any
			if err := json.Unmarshal(e.Payload, &body); err != nil {
				return ops, fmt.Errorf("%s: stored payload: %w", e.ID, err)
			}
			text, _ := body[FieldText].(string)
			dec, more, err := ix.add(e.Doc, strings.Split(text, "\n"))
			if err != nil {
				return ops, fmt.Errorf("%s: %w", e.ID, err)
			}
			ops = append(ops, dec.Ops...)
			stale = append(stale, more...)
		}
	}
	return ops, nil
}

// apply writes ops to bleve in one batch and clears their pending marks.
// The bodies of prep stand in for payloads they encode, sparing a decode.
func (ix *Index) apply(ops []dedupfilter.Op, prep []prepared) error {
	if len(ops) == 0 {
		return nil
	}
	known := make(map[string]*prepared, len(prep))
	for i := range prep {
		known[prep[i].doc.ID] = &prep[i]
	}
	b := ix.bleve.NewBatch()
	for _, op := range ops {
		switch op.Kind {
		case dedupfilter.OpDelete:
			b.Delete(op.ID)
		case dedupfilter.OpIndex:
			var body map[string]any
			if p := known[op.ID]; p != nil && bytes.Equal(p.doc.Payload, op.Payload) {
				body = p.body // bleve maps it in Index, so reuse is safe
			} else if err := json.Unmarshal(op.Payload, &body); err != nil {
				return fmt.Errorf("indexer: %s: stored payload: %w", op.ID, err)
			}
			body[FieldCluster] = op.Cluster
			if err := b.Index(op.ID, body); err != nil {
				return fmt.Errorf("indexer: %s: %w", op.ID, err)
			}
		}
	}
	if err := ix.bleve.Batch(b); err != nil {
		return fmt.Errorf("indexer: bleve batch: %w", err)
	}
	if ix.noDedup {
		return nil
	}
	if err := ix.filter.Applied(ops...); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	return nil
}

// Delete removes id from bleve and the store, and repairs its cluster (a
// suppressed member may be promoted into bleve in its place). It returns
// an error wrapping dedupfilter.ErrNotFound for an unknown id.
func (ix *Index) Delete(id string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	res, err := ix.filter.Delete(id)
	if err != nil {
		return fmt.Errorf("indexer: delete %s: %w", id, err)
	}
	return ix.apply(res.Ops, nil)
}

// Exists reports whether dir holds an index created by Open.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "bleve", "index_meta.json"))
	return err == nil
}

// Search runs req on bleve. Every hit carries its cluster id in
// Fields[FieldCluster] (requested from bleve's stored field).
func (ix *Index) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if !slices.Contains(req.Fields, FieldCluster) && !slices.Contains(req.Fields, "*") {
		req.Fields = append(req.Fields, FieldCluster)
	}
	res, err := ix.bleve.Search(req)
	if err != nil {
		return nil, fmt.Errorf("indexer: search: %w", err)
	}
	return res, nil
}
