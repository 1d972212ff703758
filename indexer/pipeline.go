package indexer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/htmltags"
	"github.com/bleve-dedup/bleve-dedup/indexer/internal/pipeline"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/cespare/xxhash/v2"
)

// RunOptions configure IndexPages and Feed; their zero values mean the
// defaults (DefaultRunOptions), and a negative bound means none.
type RunOptions struct {
	// Workers extract pages and make their bleve bodies in parallel.
	// Decisions are made in input order whatever the number of workers,
	// so a run's clusters do not depend on it. Default GOMAXPROCS.
	Workers int
	// BatchSize is the most documents in one bleve batch. Larger
	// batches index faster (bleve writes, and later merges, one segment a
	// batch: on the development pages 1,000 take half the CPU of 200) and
	// hold more in memory. Default 1000.
	BatchSize int
	// BatchBytes ends a batch early once its documents' text reaches this
	// many bytes, so that long pages do not multiply a batch's memory:
	// bleve's analysis and the filter's features hold about 50 times the
	// text while a batch is built. Default 1 MiB: on
	// the development pages (3 KB of text each) peak RssAnon 276–306 MiB
	// against 391 without the bound.
	BatchBytes int
	// Ahead is how many pages workers may extract ahead of the batch being
	// committed (default 256; negative: none), holding their features
	// meanwhile.
	Ahead int
	// FlushAfter, when positive, commits a batch once its first page has
	// waited that long, full or not: pages arriving slowly (a crawler
	// feeding a server) become searchable within about FlushAfter plus a
	// commit. Zero (the default) commits full batches only, the fastest
	// for a bulk run.
	FlushAfter time.Duration
	// PageTimeout bounds the extraction of one page (default 10s): a page
	// that takes longer is skipped with an error wrapping
	// ErrPageTimeout. Extraction is linear in the page and a page is at
	// most page.Options.MaxBytes, so this is a safety net that only a
	// starved machine should meet; it makes a run's outcome depend on
	// the machine's load, so it is generous.
	PageTimeout time.Duration
	// Progress, when set, is called after each batch with running totals.
	Progress func(Stats)
	// OnError, when set, is called with each per-document error (an
	// unreadable page, a page with no main text). The run goes on.
	OnError func(error)

	// flushIdle commits a batch as soon as no page is waiting behind it
	// (Feed: its callers wait for their decisions).
	flushIdle bool
}

// DefaultRunOptions returns the defaults documented on RunOptions.
func DefaultRunOptions() RunOptions {
	return RunOptions{Workers: runtime.GOMAXPROCS(0), BatchSize: 1000, BatchBytes: 1 << 20, Ahead: 256, PageTimeout: 10 * time.Second}
}

// resolve returns o with the defaults in place of zero values and 0 in
// place of a negative bound (none).
func (o RunOptions) resolve() RunOptions {
	d := DefaultRunOptions()
	o.Workers = cmp.Or(max(o.Workers, 0), d.Workers)
	o.BatchSize = cmp.Or(max(o.BatchSize, 0), d.BatchSize)
	o.BatchBytes = max(cmp.Or(o.BatchBytes, d.BatchBytes), 0)
	o.Ahead = max(cmp.Or(o.Ahead, d.Ahead), 0)
	o.PageTimeout = max(cmp.Or(o.PageTimeout, d.PageTimeout), 0)
	o.FlushAfter = max(o.FlushAfter, 0)
	return o
}

// Stats summarise an IndexPages run.
type Stats struct {
	Read    int // documents read from the input
	Indexed int // documents written to bleve
	// Duplicates are documents whose cluster another document represents:
	// a re-indexed representative that keeps its place is not one.
	Duplicates int
	// KeptDuplicates are the Duplicates written to bleve all the same:
	// under mark every one; under suppress and replace those whose text
	// the page kept does not hold (Options.CoverMin), which a search
	// would otherwise lose.
	KeptDuplicates int
	Errors         int // documents skipped with an error
	// Unchanged are documents skipped because the index holds them with
	// the same content already (a run resumed after a crash or a stop).
	Unchanged int
	// Updated are pages that replaced the stored version of a document:
	// the same id, or the same canonical URL, with other content.
	Updated int
	// Truncated are documents indexed with their text cut at
	// Options.MaxTextBytes.
	Truncated int
	// NotHTML and BadStatus are archive records that hold no page to
	// index (page.ErrNotHTML, page.ErrHTTPStatus): skipped, not errors.
	NotHTML, BadStatus int
	Elapsed            time.Duration // since the run started
}

// DocsPerSecond is the rate of documents read.
func (s Stats) DocsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Read) / s.Elapsed.Seconds()
}

// FromPage extracts p's main content as a Document, with its tag
// sequence (Document.Tags).
func FromPage(p page.Page) (Document, error) {
	return fromPage(context.Background(), p, true)
}

// fromPage is FromPage giving up soon after ctx is done; the tag sequence,
// a second pass over the HTML, only when tags.
func fromPage(ctx context.Context, p page.Page, tags bool) (Document, error) {
	c, err := extract.FromPageContext(ctx, p)
	if err != nil {
		return Document{}, &page.Error{Source: p.Source, ID: p.ID, Err: err}
	}
	d := Document{ID: p.ID, URL: p.URL, Title: c.Title, Paragraphs: c.Paragraphs}
	if tags {
		d.Tags = htmltags.Sequence(p.HTML, htmltags.DefaultMax)
	}
	return d, nil
}

// fromPage is FromPage with the tag sequence only when the filter's
// measures use it (TagEdit): otherwise a page's HTML is parsed once.
func (ix *engine) fromPage(ctx context.Context, p page.Page) (Document, error) {
	return fromPage(ctx, p, !ix.noDedup && ix.filter.Options().Decides(similarity.TagEdit))
}

// pauseTries is how many times a page's extraction is started again when
// its timeout passed while the process got no CPU to run it.
const pauseTries = 3

// extract is fromPage within timeout (0: none). The timeout is wall time,
// which goes on while the process is stopped (SIGSTOP, a frozen VM) or
// starved: where the process used less than half the timeout's CPU
// meanwhile, the page was not what took the time, and its extraction is
// started again.
func (ix *engine) extract(ctx context.Context, p page.Page, timeout time.Duration) (Document, error) {
	if timeout <= 0 {
		return ix.fromPage(ctx, p)
	}
	for try := 1; ; try++ {
		cpu0 := processCPU()
		tctx, cancel := context.WithTimeoutCause(ctx, timeout, ErrPageTimeout)
		d, err := ix.fromPage(tctx, p)
		timedOut := err != nil && context.Cause(tctx) == ErrPageTimeout
		cancel()
		if !timedOut {
			return d, err
		}
		if try == pauseTries || processCPU()-cpu0 >= timeout/2 {
			return d, &page.Error{Source: p.Source, ID: p.ID, Err: fmt.Errorf("extraction took longer than %v: %w", timeout, ErrPageTimeout)}
		}
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// job is one page on its way through IndexPages: read in order, staged
// by a worker, committed in order.
type job struct {
	p   page.Page
	doc *Document // the page's content when its caller extracted it (Feed)
	// reply, when set, is told the page's decision once its batch is
	// decided, or why it has none (Feed).
	reply func(dedupfilter.Decision, error)
}

// IndexPages reads pages, extracts and stages them in parallel, and
// indexes them in input order. Per-document errors go to OnError and are
// counted; the run stops early only when ctx is done or the store fails,
// and everything indexed before that stays indexed. When ctx is done, the
// run waits for the commit under way and commits the first pages of the
// batch being gathered (64 KiB of text); the rest of it is left undecided
// and out of the Stats. Memory is bounded: at most a batch (BatchSize,
// BatchBytes) and Ahead + 2·Workers pages are held at once.
//
// A page that the index holds already with the same content (a hash of
// its URL, title and HTML or text) is skipped before extraction and
// counted as Unchanged: running the same command again after a crash or
// a stop redoes only what was not decided. The documents decided before
// the stop are decided exactly as in an uninterrupted run (each commits
// with its site writes), and so are those after it, given the same input
// order: the same clusters, representatives and cluster ids. Workers do
// not change that (decisions are made in input order). Several indexes
// writing one shared store (Options.Store) decide at once, each
// page in the order of the ranks the store hands out: their clusters are
// those of some serial order of all their pages, which two runs need not
// share.
func (ix *engine) indexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o RunOptions) (Stats, error) {
	o = o.resolve()
	if ix.readOnly {
		return Stats{}, fmt.Errorf("indexer: %w", ErrReadOnly)
	}
	return ix.run(ctx, pageJobs(pages), o)
}

// pageJobs are the jobs of pages.
func pageJobs(pages iter.Seq2[page.Page, error]) iter.Seq2[job, error] {
	return func(yield func(job, error) bool) {
		for p, err := range pages {
			if !yield(job{p: p}, err) {
				return
			}
		}
	}
}

// run stages the jobs on o.Workers goroutines and commits them in order
// (package pipeline), counting what happened to each.
func (ix *engine) run(ctx context.Context, jobs iter.Seq2[job, error], o RunOptions) (Stats, error) {
	c := ix.newCommitter(o)
	err := pipeline.Run(ctx, jobs, pipeline.Options{Workers: o.Workers, Ahead: o.Ahead, BatchSize: o.BatchSize, BatchBytes: o.BatchBytes,
		FlushAfter: o.FlushAfter, FlushIdle: o.flushIdle, StopBytes: stopBytes}, pipeline.Stages[job, staged]{
		Stage: func(ctx context.Context, j job) staged {
			s := ix.stagePage(ctx, j.p, j.doc, o.PageTimeout)
			s.reply = j.reply
			return s
		},
		Fail: func(j job, err error) staged { return staged{err: err, reply: j.reply} },
		Lost: func(j job, err error) {
			if j.reply != nil {
				j.reply(dedupfilter.Decision{}, err)
			}
		},
		Take:   c.take,
		Commit: c.commit,
		Leave: func(s staged) {
			c.st.Read--
			if s.update {
				c.st.Updated--
			}
			if s.truncated {
				c.st.Truncated--
			}
			s.answer(fmt.Errorf("indexer: not decided, the run stopped: %w", ctx.Err()))
		},
	})
	c.applying.Wait()
	err = cmp.Or(err, c.applyErr)
	if cerr := ctx.Err(); cerr != nil {
		err = errors.Join(fmt.Errorf("indexer: stopped after %d documents: %w", c.st.Read, cerr), err)
	}
	return c.st, err
}

// stagePage extracts p (unless its caller did: doc) and stages it; a
// failure is carried in err. A page whose canonical URL the index holds
// under another id is a new version of that document, and takes its id
// (the feature-string paper's cheapest test, same URL). A page the store
// holds with the same content hash is not extracted again.
func (ix *engine) stagePage(ctx context.Context, p page.Page, doc *Document, timeout time.Duration) staged {
	if err := validate(Document{ID: p.ID}); err != nil {
		return staged{err: &page.Error{Source: p.Source, Err: err}} // (the id itself may be too long to print)
	}
	k := urlKey(p.URL, p.CanonicalURL)
	if id := ix.urlOwner(k); id != "" {
		p.ID = id
	}
	h := pageHash(p, k)
	e, err := ix.filter.Meta(p.ID)
	known := err == nil
	// With a shared store, a document another shard added is not this
	// shard's to skip: it is a page of this run's input all the same.
	if known && e.Hash == h && e.Local {
		return staged{Item: dedupfilter.Item{Doc: dedupfilter.Doc{ID: p.ID}}, unchanged: true}
	}
	var d Document
	if doc != nil {
		d, err = *doc, nil
		d.ID, d.URL = p.ID, p.URL
	} else {
		d, err = ix.extract(ctx, p, timeout)
	}
	var s staged
	if err == nil {
		d.Hash = h
		s, err = ix.stage(d, k)
	}
	s.err, s.update = err, known
	return s
}

// pageHash identifies a page's content as read (before extraction): its
// URL key k (the URL when it has none), title and HTML or text.
func pageHash(p page.Page, k []byte) uint64 {
	u := p.URL
	if k != nil {
		u = string(k)
	}
	h := xxhash.New()
	for _, s := range []string{u, p.Title, p.HTML, p.Text} {
		h.WriteString(s)
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// committer takes the staged pages in input order, counting what
// happened to each, and commits them in batches (run).
type committer struct {
	ix    *engine
	o     RunOptions
	start time.Time
	st    Stats
	// Pages of one canonical URL in one batch: the store does not know
	// the earlier ones yet when the later ones are staged.
	urls map[string]version
	// Each batch's bleve write goes on while the next batch is decided;
	// the first error of one stops the run.
	applying sync.WaitGroup
	applyMu  sync.Mutex
	applyErr error
}

// version is a page of a canonical URL in the batch being gathered.
type version struct {
	id   string
	hash uint64
}

func (ix *engine) newCommitter(o RunOptions) *committer {
	return &committer{ix: ix, o: o, start: time.Now(), urls: map[string]version{}}
}

// take counts s and says whether it joins the batch, with its size in
// bytes of text; a page of a URL the index or the batch holds takes that
// document's id.
func (c *committer) take(s *staged) (int, bool) {
	st := &c.st
	st.Read++
	switch {
	case s.unchanged:
		st.Unchanged++
		s.answer(ErrUnchanged)
		return 0, false
	case errors.Is(s.err, page.ErrNotHTML):
		st.NotHTML++
		s.answer(s.err)
		return 0, false
	case errors.Is(s.err, page.ErrHTTPStatus):
		st.BadStatus++
		s.answer(s.err)
		return 0, false
	}
	if k := string(s.urlKey); s.err == nil && k != "" {
		if v, ok := c.urls[k]; ok {
			if v.hash == s.Doc.Hash {
				st.Unchanged++
				s.answer(ErrUnchanged)
				return 0, false
			}
			s.Doc.ID, s.update = v.id, true
		} else if id := c.ix.urlOwner(s.urlKey); id != "" && id != s.Doc.ID {
			// Staged ahead, before the batch that indexed id was decided.
			if e, err := c.ix.filter.Meta(id); err == nil && e.Hash == s.Doc.Hash {
				st.Unchanged++
				s.answer(ErrUnchanged)
				return 0, false
			}
			s.Doc.ID, s.update = id, true
		}
		c.urls[k] = version{s.Doc.ID, s.Doc.Hash}
	}
	if s.err == nil && s.update {
		st.Updated++
	}
	if s.err == nil && s.truncated {
		st.Truncated++
	}
	if s.err != nil {
		st.Errors++
		if c.o.OnError != nil {
			c.o.OnError(s.err)
		}
		s.answer(s.err)
		return 0, false
	}
	size := 0
	for _, p := range s.Paras {
		size += len(p)
	}
	return size, true
}

// commit decides batch and answers its pages; the bleve write goes on
// meanwhile.
func (c *committer) commit(batch []staged) error {
	c.applyMu.Lock()
	err := c.applyErr
	c.applyMu.Unlock()
	if err != nil {
		return err
	}
	c.applying.Add(1)
	decs, err := c.ix.commitThen(batch, c.applied)
	c.st.count(decs)
	for i, s := range batch {
		if s.reply == nil {
			continue
		}
		if i < len(decs) {
			s.reply(decs[i], nil)
		} else {
			s.reply(dedupfilter.Decision{}, cmp.Or(err, errNotDecided))
		}
	}
	clear(c.urls)
	c.st.Elapsed = time.Since(c.start)
	if c.o.Progress != nil {
		c.o.Progress(c.st)
	}
	return err
}

// applied ends a batch's bleve write.
func (c *committer) applied(err error) {
	c.applyMu.Lock()
	c.applyErr = cmp.Or(c.applyErr, err)
	c.applyMu.Unlock()
	c.applying.Done()
}

// stopBytes is the most text of the batch being gathered that a stop
// commits (see IndexPages): a few dozen pages, some tens of milliseconds
// of work.
const stopBytes = 64 << 10

// answer tells a Feed's caller that its page has no decision, and why.
func (s staged) answer(err error) {
	if s.reply != nil {
		s.reply(dedupfilter.Decision{ID: s.Doc.ID}, err)
	}
}

// errNotDecided: the batch failed before deciding the page.
var errNotDecided = errors.New("indexer: not decided: the batch stopped before it")

// count adds the outcome of decs to st.
func (st *Stats) count(decs []dedupfilter.Decision) {
	for _, d := range decs {
		dup := d.Duplicate && d.Representative != d.ID
		if dup {
			st.Duplicates++
		}
		for _, op := range d.Ops {
			if op.Kind == dedupfilter.OpIndex && op.ID == d.ID {
				st.Indexed++
				if dup {
					st.KeptDuplicates++
				}
			}
		}
	}
}
