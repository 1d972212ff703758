package indexer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/sitetext"
)

// Field names of the documents written to bleve.
const (
	FieldTitle   = "title"
	FieldText    = "text"
	FieldURL     = "url"
	FieldCluster = "cluster" // keyword: the document's duplicate-cluster id
)

// Options configures Open.
type Options struct {
	// Filter configures the dedup store. Its Dir is ignored: the store
	// lives in DIR/dedup.
	Filter dedupfilter.Options
	// Analyzer configures the features. Changing it for an existing index
	// makes old and new documents incomparable.
	Analyzer analyzer.Options
	// Mapping is used when the bleve index is created; an existing index
	// keeps its own mapping. Default NewMapping().
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

// TextFields are the fields a search term without a field name looks in
// (boolquery.Options.Fields): the title and the text.
func TextFields() []string { return []string{FieldTitle, FieldText} }

// DefaultOptions returns the defaults documented on Options. Open rejects
// a zero Options: start from these.
func DefaultOptions() Options {
	return Options{
		Filter:   dedupfilter.DefaultOptions(""),
		Analyzer: analyzer.DefaultOptions(),
		Mapping:  NewMapping(),
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
	site     *sitetext.Table // nil when Options.KeepSiteText or NoDedup
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
		if opts.Mapping == nil {
			f.Close()
			return nil, fmt.Errorf("indexer: no Mapping to create %s with: %w", bpath, ErrInvalidOptions)
		}
		b, err = bleve.New(bpath, opts.Mapping)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("indexer: open %s: %w", bpath, err)
	}
	ix := &Index{bleve: b, filter: f, analyzer: an, noDedup: opts.NoDedup}
	if !opts.KeepSiteText && !opts.NoDedup {
		if ix.site, err = sitetext.Open(filepath.Join(dir, "site")); err != nil {
			ix.Close()
			return nil, fmt.Errorf("indexer: %w", err)
		}
	}
	if err := ix.replay(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
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
