package indexer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/badgeropen"
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

// Options configure Open and Wrap. The zero value means the defaults:
// an embedded store, the default filter and analysis, Suppress.
type Options struct {
	// Store is where the filter keeps its state. Open: "" for DIR/store,
	// or the URL of a store shared by several indexes,
	// redis://HOST:PORT[,HOST:PORT...][/NAME] (see package rediscluster),
	// whose process-local part (payloads, pending bleve writes, site
	// tables) is then kept in DIR/store. Wrap: a directory of its own
	// for the embedded store (made when absent; never inside the bleve
	// index's own directory), or a shared store's URL, required.
	Store string
	// LocalDir is the directory of this process' own part of a shared
	// Store, for Wrap (Open keeps it in DIR/store).
	LocalDir string

	// TextFields are the fields holding a document's plain text, in
	// order, by bleve's field paths ("Body", "article.body"); or
	// HTMLField, a field holding a page's raw HTML, whose main text is
	// extracted (package extract). Wrap needs one of the two; Open's
	// default is TextFields {FieldText}.
	//
	// With an HTMLField, the main text is what bleve searches: it is
	// written to the document's first TextFields field (FieldText when
	// none is given), and the raw HTML is stored but not indexed, so that
	// navigation, scripts and markup match no query and highlights show
	// the article. The mapping's analyzer for that field decides how it
	// is searched: AddFilterFields maps FieldText as NewMapping does
	// (Han bigrams as well as words, for Chinese and English alike).
	TextFields []string
	HTMLField  string
	// TitleField and URLField hold the title and the URL (Open's defaults:
	// FieldTitle and FieldURL): the URL names the page's site (its
	// template text is left out of the features) and makes a later page
	// of the same URL a new version of the document; collapsed hits show
	// the title.
	//
	// The fields named here (TextFields only without an HTMLField) are
	// named as bleve names them: by JSON tag, else Go name, for a
	// struct's fields ("html" for HTML string `json:"html"`), by key for
	// a map's, by dotted path for nested ones. Every document must have
	// each of them: Index and Batch refuse one that does not
	// (ErrInvalidDocument), naming the field and the fields the document
	// has; a field present but empty ("", null, an empty array, a
	// struct field omitted as empty) is no error. Wrap refuses
	// (ErrInvalidOptions) a text field the index's mapping cannot hold:
	// one it does not name where it is not dynamic. (A field to read but
	// not to index: name it in the mapping with a disabled document
	// mapping.)
	TitleField, URLField string

	// Policy is what happens to a copy: Suppress (the zero value), Mark
	// or Replace (see dedupfilter.Policy). Under Suppress and Replace,
	// suppressed copies stay out of the bleve index.
	Policy dedupfilter.Policy
	// Filter, when set, are the filter's decision options; nil:
	// dedupfilter.DefaultOptions. The policy is Policy: a Filter whose
	// own Policy is set to another is refused.
	Filter *dedupfilter.Options
	// Analyzer, when set, configures the features; nil:
	// analyzer.DefaultOptions. An index keeps the analysis it was made
	// with: features of another never match the stored ones.
	Analyzer *analyzer.Options

	// Mapping is used when Open creates the bleve index; an existing
	// index keeps its own. Default NewMapping().
	Mapping mapping.IndexMapping
	// BleveConfig is scorch's configuration (its "scorchPersisterOptions"
	// and "scorchMergePlanOptions") for the index Open creates, and
	// applied over the stored one when it opens one; nil: bleve's own.
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
	// ReadOnly opens the index for searching only, with the settings it
	// was made with: no pending writes are repaired, and every write
	// fails with ErrReadOnly. It works on a read-only file system, or on
	// a copy of an index; not on an index another process has open for
	// writing (see ErrLocked).
	ReadOnly bool
	// Reconfigure accepts decision options (Policy, Filter) other than
	// those the index was made with, and records them: they apply to the
	// documents indexed from then on. Without it Open and Wrap refuse
	// them (ErrSettings), as they always refuse another store or analysis.
	Reconfigure bool
	// MaxTextBytes caps the main text of a document that is analysed and
	// indexed (0: DefaultMaxTextBytes; negative: no cap); the rest is left
	// out, at a paragraph or character boundary, and the document counted
	// as Truncated. Indexing is linear in the text, but 8 MB of unbroken
	// Chinese costs bleve seconds and a GiB (its bigrams), and a stop
	// waits for the batch being committed; an article is rarely past 100
	// KB. Like Google's 15 MB cut of a page, a bound on one page's cost
	// whatever the page.
	MaxTextBytes int
}

// DefaultMaxTextBytes is Options.MaxTextBytes's default.
const DefaultMaxTextBytes = 256 << 10

// config is Options resolved: the defaults in place of zero values.
type config struct {
	Options
	filter   dedupfilter.Options
	analyzer analyzer.Options
	shared   string // the shared store's URL; "": embedded
	// payloadsInIndex: the bleve index written stores every field of
	// what it is given, so the store leaves its documents' payloads
	// there (Wrap); else notInIndex says why not.
	payloadsInIndex bool
	notInIndex      error
}

// resolve returns o with its defaults in place, checking what can be
// checked without an index.
func (o Options) resolve() (config, error) {
	c := config{Options: o, filter: dedupfilter.DefaultOptions(), analyzer: analyzer.DefaultOptions()}
	if o.Filter != nil {
		if o.Filter.Policy != dedupfilter.Suppress && o.Filter.Policy != o.Policy {
			return c, fmt.Errorf("indexer: Filter.Policy is %s, Policy %s: set the policy in Options.Policy: %w", o.Filter.Policy, o.Policy, ErrInvalidOptions)
		}
		c.filter = *o.Filter
	}
	c.filter.Policy = o.Policy
	if o.Analyzer != nil {
		c.analyzer = *o.Analyzer
	}
	if strings.HasPrefix(o.Store, "redis://") {
		if _, _, err := rediscluster.ParseURL(o.Store); err != nil {
			return c, fmt.Errorf("indexer: %w", err)
		}
		c.shared = o.Store
	}
	switch {
	case o.MaxTextBytes == 0:
		c.MaxTextBytes = DefaultMaxTextBytes
	case o.MaxTextBytes < 0:
		c.MaxTextBytes = 0
	}
	return c, nil
}

// mainText is the field a document's main text is written to: the first
// text field, or FieldText for an HTMLField's pages ("" when neither).
func (c config) mainText() string {
	switch {
	case len(c.TextFields) > 0:
		return c.TextFields[0]
	case c.HTMLField != "":
		return FieldText
	}
	return ""
}

// SearchFields are the fields a search term without a field name looks in
// (boolquery.Options.Fields): the title and the text fields.
func (ix *Index) SearchFields() []string {
	var fs []string
	if ix.opts.TitleField != "" {
		fs = append(fs, ix.opts.TitleField)
	}
	if ix.opts.HTMLField != "" {
		return append(fs, ix.opts.mainText())
	}
	return append(fs, ix.opts.TextFields...)
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

// engine decides and writes: a bleve index with the filter's store.
// Index is its front.
type engine struct {
	bleve    bleve.Index
	dir      string          // where the store's files are (Open: the index directory)
	local    *embedded.Local // the process' own keys: payloads, site tables, URL owners
	shared   string          // the shared store's URL, named in errors of decisions; "": embedded
	filter   *dedupfilter.Filter
	analyzer *analyzer.Analyzer
	decider  *dedupfilter.Decider // the filter's decisions, with each site's template text left out
	noDedup  bool
	readOnly bool
	maxText  int
	// text reads the paragraphs of a stored payload (Index.paragraphsOf),
	// and body makes a Document's bleve body (Index.documentBody).
	text func(payload []byte) ([]string, error)
	body func(d Document) (map[string]any, error)
	// html is the field of a page's raw HTML, stored but not indexed, and
	// mainText the field its extracted main text is written to; "" when
	// documents hold plain text.
	html, mainText string

	mu sync.Mutex // one batch of filter decisions at a time
	// applyMu orders bleve writes: it is taken before mu is let go, so
	// they happen in the order of the decisions, while the next batch is
	// decided (see commitThen).
	applyMu  sync.Mutex
	repaired int

	closeOnce sync.Once // the store's
	closeErr  error
}

// The parts of an index directory.
const (
	bleveDir     = "bleve"
	storeDir     = "store"
	postingsFile = "store.postings" // dedupfilter's posting table
	// journalDir holds the text of documents on their way to a bleve index
	// that keeps it (dedupfilter.Filter.KeepPayloadsIn).
	journalDir = "store.journal"
	// oldKeyFilterFile held a Bloom filter of posting keys, before the
	// posting table.
	oldKeyFilterFile = "store.keys"
	// oldStoreDir held the filter's state before the store took the sites'
	// template text too (and changed layout).
	oldStoreDir = "dedup"
)

// Open opens the index in dir, creating it when absent: a bleve index in
// DIR/bleve (made with Options.Mapping) and the filter's store in
// DIR/store, with Wrap's fields defaulting to the documents IndexPages
// writes (FieldTitle, FieldText, FieldURL). Like Wrap, it replays bleve
// writes that a crash left pending (see Repaired), and an index
// remembers the settings it was made with: Open refuses other ones
// (ErrSettings), but for Options.Reconfigure; opened ReadOnly, an index
// uses its own. A directory that is not a bleve-dedup index (a plain
// bleve index, or other files) is refused (ErrNotIndex) before anything
// is written in it.
func Open(dir string, opts Options) (*Index, error) {
	if len(opts.TextFields) == 0 && opts.HTMLField == "" {
		opts.TextFields = []string{FieldText}
		opts.TitleField = cmp.Or(opts.TitleField, FieldTitle)
		opts.URLField = cmp.Or(opts.URLField, FieldURL)
	}
	c, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if err := checkOurs(dir); err != nil {
		return nil, err
	}
	// Another process holding the index says so first, whatever the
	// settings.
	if holder, held := badgeropen.Held(filepath.Join(dir, storeDir)); held {
		return nil, openError(dir, fmt.Errorf("%s is open in %s: %w", filepath.Join(dir, storeDir), holder, embedded.ErrLocked))
	}
	return start(dir, c, "", true, func(e *engine) (bleve.Index, error) {
		return e.openBleve(filepath.Join(dir, bleveDir), c)
	})
}

// start opens the engine over the store in dir (an index directory, or
// the directory Wrap keeps a store in), checking and recording the
// settings, opens the bleve index with open, and repairs what a crash
// left. wraps names the index of a Wrap's store ("" for Open's); owned
// says whether the bleve index is closed on a failure (Open's is; the
// index given to Wrap stays its caller's).
func start(dir string, c config, wraps string, owned bool, open func(*engine) (bleve.Index, error)) (*Index, error) {
	had, known, err := readSettings(dir)
	if err != nil {
		return nil, err
	}
	record := settingsOf(c)
	record.Wraps = wraps
	switch {
	case known && c.ReadOnly:
		c = had.apply(c)
		record = had
	case known:
		if had.Wraps != "" && !sameIndex(had.Wraps, wraps) {
			return nil, fmt.Errorf("indexer: the store in %s was made for the index %q, not %q: %w", dir, had.Wraps, wraps, ErrSettings)
		}
		if had.PayloadsInIndex && !c.payloadsInIndex {
			return nil, fmt.Errorf("indexer: the store in %s leaves its documents' text to the bleve index, and this one cannot give it back (%v): open it over an index whose mapping stores every field: %w",
				dir, cmp.Or(c.notInIndex, errors.New("not a Wrap")), ErrSettings)
		}
		if record, err = checkSettings(dir, had, record, c.Reconfigure); err != nil {
			return nil, err
		}
		record.Wraps = wraps
		record.PayloadsInIndex = c.payloadsInIndex
	}
	an, err := analyzer.New(c.analyzer)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if !c.ReadOnly {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("indexer: %w", err)
		}
	}
	e := &engine{analyzer: an, noDedup: c.NoDedup, readOnly: c.ReadOnly, maxText: c.MaxTextBytes, dir: dir}
	if err := e.openStore(dir, c); err != nil {
		return nil, errors.Join(err, e.closeStore())
	}
	idx, err := open(e)
	if err != nil {
		return nil, errors.Join(err, e.closeStore())
	}
	ix, err := newIndex(idx, e, c)
	fail := func(err error) (*Index, error) {
		err = errors.Join(err, e.closeStore())
		if ix != nil && ix.batches != nil {
			err = errors.Join(err, ix.batches.Close())
		}
		if owned {
			err = errors.Join(err, idx.Close())
		}
		return nil, err
	}
	if err != nil {
		return fail(err)
	}
	if record.PayloadsInIndex {
		err := e.filter.KeepPayloadsIn(dedupfilter.IndexPayloads{Read: e.indexedPayload, Canonical: e.canonicalPayload, Journal: filepath.Join(dir, journalDir)})
		if err != nil {
			return fail(fmt.Errorf("indexer: %w", err))
		}
	}
	if c.ReadOnly {
		return ix, nil
	}
	if !known || had.upgraded || !settingsEqual(record, had) {
		if err := writeSettings(dir, record); err != nil {
			return fail(err)
		}
	}
	if err := e.replay(); err != nil {
		return fail(err)
	}
	if err := e.finishStale(); err != nil {
		return fail(err)
	}
	return ix, nil
}

// siteCacheSize is how many site-table values the index keeps in memory
// (a few MiB): enough for every site's template paragraphs and the
// paragraphs of the last pages, which copies show again.
const siteCacheSize = 1 << 16

// openStore opens the store in dir (its Badger store in dir/store, the
// posting table beside it) and the filter over it.
func (ix *engine) openStore(dir string, c config) error {
	eo := embedded.DefaultOptions(filepath.Join(dir, storeDir))
	eo.ReadOnly = c.ReadOnly
	eo.PostingTable = filepath.Join(dir, postingsFile)
	eo.SignatureKeys = c.filter.SignatureKeys
	if !c.ReadOnly {
		if err := os.Remove(filepath.Join(dir, oldKeyFilterFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("indexer: %w", err)
		}
	}
	var backend store.Backend
	if c.shared != "" {
		local, err := embedded.OpenLocal(eo)
		if err != nil {
			return openError(dir, err)
		}
		ix.local, ix.shared = local, c.shared
		if backend, err = rediscluster.Open(c.shared, local); err != nil {
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
	if ix.filter, err = dedupfilter.New(backend, c.filter); err != nil {
		return errors.Join(fmt.Errorf("indexer: %s: %w", eo.Dir, err), backend.Close())
	}
	do := dedupfilter.DeciderOptions{Local: ix.local, Analyzer: ix.analyzer, Text: ix.paragraphs}
	if !c.KeepSiteText && !c.NoDedup {
		do.Site, do.CacheSize = sitetext.New(), siteCacheSize
	}
	ix.decider = dedupfilter.NewDecider(ix.filter, do)
	return nil
}

// openBleve opens the bleve index at bpath, creating it when absent.
func (ix *engine) openBleve(bpath string, c config) (bleve.Index, error) {
	config := c.BleveConfig
	if c.ReadOnly {
		config = maps.Clone(config)
		if config == nil {
			config = map[string]any{}
		}
		config["read_only"] = true
	}
	b, err := bleve.OpenUsing(bpath, config)
	if err != nil && !c.ReadOnly && !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) && ix.filter.Empty() {
		// A crash while bleve made its first files leaves an index it
		// cannot open; nothing was indexed yet, so it is made again.
		if rerr := os.RemoveAll(bpath); rerr != nil {
			return nil, fmt.Errorf("indexer: open %s: %w", bpath, errors.Join(err, rerr))
		}
		err = bleve.ErrorIndexPathDoesNotExist
	}
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) && !c.ReadOnly {
		m := c.Mapping
		if m == nil {
			m = NewMapping()
		}
		b, err = bleve.NewUsing(bpath, m, scorch.Name, scorch.Name, c.BleveConfig)
	}
	if err != nil {
		return nil, fmt.Errorf("indexer: open %s: %w", bpath, err)
	}
	ix.bleve = b
	return b, nil
}

// openError explains a failure to open the store: another process
// holding it gets ErrLocked, naming that process.
func openError(dir string, err error) error {
	if errors.Is(err, embedded.ErrLocked) {
		return fmt.Errorf("indexer: %s: %w: reach it through that process' server (--server URL: search, dups, and index when it serves with --ingest), or stop it first: %w", dir, err, ErrLocked)
	}
	return fmt.Errorf("indexer: %w", err)
}

// closeStore closes the filter and the store, once: later calls return
// the first call's result.
func (ix *engine) closeStore() error {
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

// sameIndex reports whether two names of bleve indexes (their paths)
// name one: the same path, or the same directory reached otherwise.
func sameIndex(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// Exists reports whether dir holds an index made by Open.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, bleveDir, "index_meta.json"))
	return err == nil
}
