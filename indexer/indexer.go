package indexer

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/badgeropen"
	"github.com/bleve-dedup/bleve-dedup/internal/sitedecide"
	"github.com/bleve-dedup/bleve-dedup/sitetext"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
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
	// Filter configures the filter's decisions.
	Filter dedupfilter.Options
	// Store configures the embedded store in DIR/store (its Dir,
	// InMemory, PostingTable and ReadOnly are set by Open). Default
	// embedded.DefaultOptions.
	Store embedded.Options
	// Analyzer configures the features. Changing it for an existing index
	// makes old and new documents incomparable.
	Analyzer analyzer.Options
	// Mapping is used when the bleve index is created; an existing index
	// keeps its own mapping. Default NewMapping().
	Mapping mapping.IndexMapping
	// BleveConfig is scorch's configuration (its "scorchPersisterOptions"
	// and "scorchMergePlanOptions"), stored with a new index and applied
	// over the stored one when an index is opened. Default
	// DefaultBleveConfig().
	BleveConfig map[string]any
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
	// SharedStore, when set, is the URL of a store shared by several
	// indexes, each this process' own bleve shard:
	// redis://HOST:PORT[,HOST:PORT...][/NAME] (see package rediscluster).
	// The shared store holds the decisions (signatures, posting lists,
	// clusters); DIR/store keeps what is this shard's own (payloads,
	// pending bleve writes, site tables). Default "": the embedded store.
	SharedStore string
	// ReadOnly opens the index for searching only: no pending writes are
	// repaired, and every write fails with ErrReadOnly. It works on a
	// read-only file system, or on a copy of an index; not on an index
	// another process has open for writing (see ErrLocked).
	ReadOnly bool
	// Reconfigure accepts decision options (Filter) other than those the
	// index was made with, and records them: they apply to the documents
	// indexed from then on. Without it Open refuses them (ErrSettings), as
	// it always refuses another store or analysis (see Settings). Default
	// false.
	Reconfigure bool
	// StaleShare is how much of an earlier page's text must turn out to
	// be its site's template before the page is analysed again and its
	// cluster re-decided (sitetext.DefaultStaleShare, the default; 0
	// re-decides on every reveal).
	StaleShare float64
	// MaxTextBytes caps the main text of a document that is analysed and
	// indexed (default 256 KiB; 0: no cap); the rest is left out, at a
	// paragraph or character boundary, and the document counted as
	// Truncated. Indexing is linear in the text, but 8 MB of unbroken
	// Chinese costs bleve seconds and a GiB (its bigrams), and a stop
	// waits for the batch being committed; an article is rarely past 100
	// KB. Like Google's 15 MB cut of a page, a bound on one page's cost
	// whatever the page.
	MaxTextBytes int
}

// TextFields are the fields a search term without a field name looks in
// (boolquery.Options.Fields): the title and the text.
func TextFields() []string { return []string{FieldTitle, FieldText} }

// DefaultOptions returns the defaults documented on Options. Open rejects
// a zero Options: start from these.
func DefaultOptions() Options {
	return Options{
		Filter:       dedupfilter.DefaultOptions(),
		Store:        embedded.DefaultOptions(""),
		Analyzer:     analyzer.DefaultOptions(),
		Mapping:      NewMapping(),
		BleveConfig:  DefaultBleveConfig(),
		StaleShare:   sitetext.DefaultStaleShare,
		MaxTextBytes: 256 << 10,
	}
}

// DefaultBleveConfig is the scorch configuration Open uses by default:
// bleve's own.
func DefaultBleveConfig() map[string]any {
	return map[string]any{}
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
	// Hash identifies the input the document was made from; IndexPages
	// sets it to a hash of the page and skips pages whose stored document
	// has the same (see Stats.Unchanged). 0 when unknown.
	Hash uint64
	// Tags is the page's HTML tag sequence (htmltags.Sequence), for the
	// tag edit distance (similarity.TagEdit); FromPage sets it.
	Tags []byte
}

// Index is a bleve index with its dedup store.
type Index struct {
	bleve    bleve.Index
	local    *embedded.Local // the process' own keys: payloads, site tables, URL owners
	filter   *dedupfilter.Filter
	analyzer *analyzer.Analyzer
	decider  *sitedecide.Decider // the filter's decisions, with each site's template text left out
	noDedup  bool
	readOnly bool
	maxText  int
	// text reads the paragraphs of a stored payload when its documents
	// are not the index's own (Wrapper); nil: the payload's text field.
	text func(payload []byte) ([]string, error)

	mu sync.Mutex // one batch of filter decisions at a time
	// applyMu orders bleve writes: it is taken before mu is let go, so
	// they happen in the order of the decisions, while the next batch is
	// decided (see commitThen).
	applyMu  sync.Mutex
	repaired int

	closeOnce sync.Once // the store's
	closeErr  error
	bleveOnce sync.Once
	bleveErr  error
}

// The parts of an index directory.
const (
	bleveDir     = "bleve"
	storeDir     = "store"
	postingsFile = "store.postings" // dedupfilter's posting table
	// oldKeyFilterFile held a Bloom filter of posting keys, before the
	// posting table.
	oldKeyFilterFile = "store.keys"
	// oldStoreDir held the filter's state before the store took the sites'
	// template text too (and changed layout).
	oldStoreDir = "dedup"
)

// Open opens the index in dir, creating it when absent, and replays
// bleve writes that a crash left pending (see Repaired). An index
// remembers the settings it was made with (Settings): Open refuses other
// ones (ErrSettings), but for Options.Reconfigure; opened ReadOnly, an
// index uses its own. A directory that is not a bleve-dedup index (a
// plain bleve index, or other files) is refused (ErrNotIndex) before
// anything is written in it.
func Open(dir string, opts Options) (*Index, error) {
	if err := checkOurs(dir); err != nil {
		return nil, err
	}
	had, known, err := ReadSettings(dir)
	if err != nil {
		return nil, err
	}
	// Another process holding the index says so first, whatever the
	// settings.
	if holder, held := badgeropen.Held(filepath.Join(dir, storeDir)); held {
		return nil, openError(dir, fmt.Errorf("%s is open in %s: %w", filepath.Join(dir, storeDir), holder, embedded.ErrLocked))
	}
	record := settingsOf(opts)
	switch {
	case known && opts.ReadOnly:
		opts = had.Apply(opts)
		record = had
	case known:
		if record, err = checkSettings(dir, had, record, opts.Reconfigure); err != nil {
			return nil, err
		}
	}
	an, err := analyzer.New(opts.Analyzer)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	ix := &Index{analyzer: an, noDedup: opts.NoDedup, readOnly: opts.ReadOnly, maxText: opts.MaxTextBytes}
	if err := ix.open(dir, opts); err != nil {
		return nil, errors.Join(err, ix.Close())
	}
	if ix.readOnly {
		return ix, nil
	}
	if !known || !settingsEqual(record, had) {
		if err := writeSettings(dir, record); err != nil {
			return nil, errors.Join(err, ix.Close())
		}
	}
	if err := ix.replay(); err != nil {
		return nil, errors.Join(err, ix.Close())
	}
	if err := ix.finishStale(); err != nil {
		return nil, errors.Join(err, ix.Close())
	}
	return ix, nil
}

// siteCacheSize is how many site-table values the index keeps in memory
// (a few MiB): enough for every site's template paragraphs and the
// paragraphs of the last pages, which copies show again.
const siteCacheSize = 1 << 16

// open opens the store and bleve; Close closes what it opened.
func (ix *Index) open(dir string, opts Options) error {
	if err := ix.openStore(dir, opts); err != nil {
		return err
	}
	return ix.openBleve(filepath.Join(dir, bleveDir), opts)
}

// openStore opens the store in dir (its Badger store in dir/store, the
// posting table beside it) and the filter over it.
func (ix *Index) openStore(dir string, opts Options) error {
	eo := opts.Store
	eo.Dir, eo.InMemory = filepath.Join(dir, storeDir), false
	eo.ReadOnly = opts.ReadOnly
	eo.PostingTable = filepath.Join(dir, postingsFile)
	if !opts.ReadOnly {
		if err := os.Remove(filepath.Join(dir, oldKeyFilterFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("indexer: %w", err)
		}
	}
	var backend store.Backend
	if opts.SharedStore != "" {
		local, err := embedded.OpenLocal(eo)
		if err != nil {
			return openError(dir, err)
		}
		ix.local = local
		if backend, err = rediscluster.Open(opts.SharedStore, local); err != nil {
			return fmt.Errorf("indexer: %w", err)
		}
	} else {
		st, err := embedded.Open(eo)
		if err != nil {
			return openError(dir, err)
		}
		ix.local, backend = st.Local(), st
	}
	var err error
	if ix.filter, err = dedupfilter.New(backend, opts.Filter); err != nil {
		return errors.Join(fmt.Errorf("indexer: %s: %w", eo.Dir, err), backend.Close())
	}
	do := sitedecide.Options{Local: ix.local, Filter: ix.filter, Analyzer: ix.analyzer, Shared: opts.SharedStore != "", Text: ix.paragraphs}
	if !opts.KeepSiteText && !opts.NoDedup {
		do.Site, do.CacheSize = sitetext.New().WithStaleShare(opts.StaleShare), siteCacheSize
	}
	ix.decider = sitedecide.New(do)
	return nil
}

// openBleve opens the bleve index at bpath, creating it when absent.
func (ix *Index) openBleve(bpath string, opts Options) error {
	config := opts.BleveConfig
	if opts.ReadOnly {
		config = maps.Clone(config)
		if config == nil {
			config = map[string]any{}
		}
		config["read_only"] = true
	}
	b, err := bleve.OpenUsing(bpath, config)
	if err != nil && !opts.ReadOnly && !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) && ix.filter.Empty() {
		// A crash while bleve made its first files leaves an index it
		// cannot open; nothing was indexed yet, so it is made again.
		if rerr := os.RemoveAll(bpath); rerr != nil {
			return fmt.Errorf("indexer: open %s: %w", bpath, errors.Join(err, rerr))
		}
		err = bleve.ErrorIndexPathDoesNotExist
	}
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) && !opts.ReadOnly {
		if opts.Mapping == nil {
			return fmt.Errorf("indexer: no Mapping to create %s with: %w", bpath, ErrInvalidOptions)
		}
		b, err = bleve.NewUsing(bpath, opts.Mapping, scorch.Name, scorch.Name, opts.BleveConfig)
	}
	if err != nil {
		return fmt.Errorf("indexer: open %s: %w", bpath, err)
	}
	ix.bleve = b
	return nil
}

// openError explains a failure to open the store: another process
// holding it gets ErrLocked, naming that process.
func openError(dir string, err error) error {
	if errors.Is(err, embedded.ErrLocked) {
		return fmt.Errorf("indexer: %s: %w: reach it through that process' server (--server URL: search, dups, and index when it serves with --ingest), or stop it first: %w", dir, err, ErrLocked)
	}
	return fmt.Errorf("indexer: %w", err)
}

// Repaired is the number of documents Open wrote to bleve again, as the
// store holds them, because an earlier process stopped between the store
// and bleve writes: those with a bleve write pending.
func (ix *Index) Repaired() int { return ix.repaired }

// Bleve returns the underlying bleve index, for reading.
func (ix *Index) Bleve() bleve.Index { return ix.bleve }

// Doc returns document id with its payload (see dedupfilter.Filter.Doc).
func (ix *Index) Doc(id string) (dedupfilter.Entry, error) { return ix.filter.Doc(id) }

// Filter returns the dedup filter, for reading clusters and documents.
func (ix *Index) Filter() *dedupfilter.Filter { return ix.filter }

// Close closes bleve and the store. Later calls return the first call's
// result, so a deferred Close after an explicit one is harmless.
func (ix *Index) Close() error {
	ix.bleveOnce.Do(func() {
		if ix.bleve != nil {
			ix.bleveErr = ix.bleve.Close()
		}
	})
	if err := errors.Join(ix.bleveErr, ix.closeStore()); err != nil {
		return fmt.Errorf("indexer: close: %w", err)
	}
	return nil
}

// closeStore closes the filter and the store, once: later calls return
// the first call's result.
func (ix *Index) closeStore() error {
	ix.closeOnce.Do(func() {
		var errs []error
		if ix.filter != nil {
			errs = append(errs, ix.filter.Close())
		}
		if ix.local != nil {
			errs = append(errs, ix.local.Close())
		}
		ix.closeErr = errors.Join(errs...)
	})
	return ix.closeErr
}

// Exists reports whether dir holds an index created by Open.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, bleveDir, "index_meta.json"))
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
