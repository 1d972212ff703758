package dedupfilter

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/sitetext"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// DeciderOptions configure NewDecider.
type DeciderOptions struct {
	// Local is the process' own part of the store, where the site tables
	// are (package embedded's Local).
	Local interface {
		View(fn func(store.KV) error) error
		Update(fn func(store.KV) error) error
	}
	// Analyzer computes the features of the paragraphs a site plan keeps
	// (the character frequencies only when the filter's measures read
	// them: see analyzer.Analyzer.WithoutCharFreq; the terms by hash
	// when the filter posts none: see WithTermHashes).
	Analyzer *analyzer.Analyzer
	// Site recognises the template text; nil analyses pages whole.
	Site *sitetext.Table
	// CacheSize is how many site-table values are kept in memory (see
	// sitetext.Cache); 0 with a nil Site.
	CacheSize int
	// Text reads the paragraphs of a stored payload, for analysing a
	// document again.
	Text func(payload []byte) ([]string, error)
}

// Decider makes the filter's decisions on batches of documents with each
// site's template text left out of their features (package sitetext),
// and re-decides the clusters of earlier pages that a later page showed
// to be partly template.
//
// Decide decides a batch as deciding its documents one at a time would:
// each document's site plan is made in order, over the plans before it;
// the features are computed on GOMAXPROCS goroutines while the filter
// decides, in order, on the documents already analysed; each document's
// site writes commit in the transaction of its decision. When a plan
// names earlier pages stale (their text turned out to be their site's
// template), their whole clusters are analysed again from the stored
// payloads and decided afresh before the next document. Stale pages are
// recorded in the store until they are redone, so FinishStale finishes,
// at the next open, what a crash cut short.
//
// A Decider is not safe for concurrent use: its caller serialises
// batches (the indexer's write lock), as the site tables' plans must be
// committed in the order they are made. A re-decided cluster gets a new
// id. With a shared store, a cluster with members another process added
// is not re-decided: their text is that process'. Nor, from then on, is
// one that another process' page joins while it is re-decided: its
// members not redone yet keep their places (with their features
// analysed again).
type Decider struct {
	o        DeciderOptions
	filter   *Filter
	siteVals *sitetext.Cache // the site tables' values lately read or written (nil without o.Site)
}

// NewDecider returns a Decider making f's decisions with o.
func NewDecider(f *Filter, o DeciderOptions) *Decider {
	if o.Analyzer != nil && !f.opts.Decides(similarity.CharFreq) {
		o.Analyzer = o.Analyzer.WithoutCharFreq()
	}
	// Posting terms needs their names (Options.TermsPerDoc); comparing
	// them, their hashes only.
	if o.Analyzer != nil && f.opts.TermsPerDoc == 0 {
		o.Analyzer = o.Analyzer.WithTermHashes()
	}
	dc := &Decider{o: o, filter: f}
	if o.Site != nil {
		dc.siteVals = sitetext.NewCache(o.CacheSize)
	}
	return dc
}

// Item is a document to decide: Doc without its features (Decide
// computes them), its paragraphs before its site's template text is
// known, and its tag sequence. Once decided, its features, paragraphs
// and plan are let go.
type Item struct {
	Doc   Doc
	Paras []string
	Tags  []byte // analyzer.Features.Tags

	plan *sitetext.Plan // the paragraphs analysed (plan.Kept) and the site writes
	fp   *prepared
	err  error
}

// Decide lets the filter decide docs in order and returns the decisions
// and search-index operations made before any error, those of the
// re-decided clusters included. also, when not nil, writes in the
// transaction of docs[i]'s decision.
func (dc *Decider) Decide(docs []*Item, also func(kv store.KV, i int) error) ([]Decision, []Op, error) {
	// A document's site plan depends on the documents before it, so the
	// plans are made in order, each over the plans before it; the features
	// are then computed in parallel while the filter decides, in order, on
	// the documents already analysed.
	if err := dc.planSites(docs); err != nil {
		return nil, nil, err
	}
	ready, stop := dc.analyze(docs)
	defer stop() // after an error, analysis of the documents left is dropped
	var decs []Decision
	var ops []Op
	// The batch's decisions are planned at once: their candidates found
	// and verified on every core (and on a shared store, posted and
	// numbered in a few round trips), leaving to each decision, one at a
	// time, only its cluster and its writes. Analysis then no longer
	// overlaps the decisions.
	err := dc.filter.exclusive(func() error {
		var fps []*prepared
		for i := range docs {
			if <-ready[i]; docs[i].err == nil {
				fps = append(fps, docs[i].fp)
			}
		}
		if err := dc.filter.prefetch(fps); err != nil {
			return err
		}
		var err error
		decs, ops, err = dc.decide(docs, ready, also)
		return err
	})
	return decs, ops, err
}

// planSites makes each document's site plan, in order, each over the
// uncommitted plans before it.
func (dc *Decider) planSites(docs []*Item) error {
	return dc.o.Local.View(func(kv store.KV) error {
		o := sitetext.NewOverlay(dc.siteReader(kv))
		for i := range docs {
			var err error
			if docs[i].plan, err = dc.sitePlan(o, docs[i].Doc, docs[i].Paras); err != nil {
				return err
			}
			o.Add(docs[i].plan)
		}
		return nil
	})
}

// siteReader reads the site tables in kv through the site cache.
func (dc *Decider) siteReader(kv store.KV) sitetext.Reader {
	return dc.siteVals.Reader(sitetext.KVReader{KV: kv})
}

// sitePlan plans d, paragraphs paras, against the site tables as r
// reads them.
func (dc *Decider) sitePlan(r sitetext.Reader, d Doc, paras []string) (*sitetext.Plan, error) {
	p, err := dc.o.Site.Plan(r, sitetext.Site(d.URL, d.ID), d.ID, paras)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	return p, nil
}

// decide lets the filter decide on docs in order, each once ready[i] is
// closed, committing each document's site writes with its decision, and
// re-decides the clusters of the stale pages each names. It returns the
// decisions and search-index operations made before any error.
//
// A plan made in planSites is the plan the document gets against the
// committed tables unless a re-decision changed them in between; then the
// document is planned again, and analysed again if that changes what it
// keeps. So the tables and the clusters after each document are those of
// deciding the documents one at a time.
func (dc *Decider) decide(docs []*Item, ready []chan struct{}, also func(kv store.KV, i int) error) ([]Decision, []Op, error) {
	decs := make([]Decision, 0, len(docs))
	var ops []Op
	// The sites whose tables a re-decision wrote since planSites: a plan
	// reads its own site's only.
	replanned := map[string]bool{}
	for i := range docs {
		<-ready[i]
		d := docs[i]
		if d.err == nil && len(replanned) > 0 && replanned[sitetext.Site(d.Doc.URL, d.Doc.ID)] {
			d.err = dc.replan(d)
		}
		var dec Decision
		err := d.err
		if err == nil {
			dec, err = dc.filter.addPrepared(d.fp, addOptions{also: func(kv store.KV) error {
				if err := d.plan.Apply(kv); err != nil || also == nil {
					return err
				}
				return also(kv, i)
			}})
			dc.committed(d.plan, err)
		}
		if err != nil {
			return decs, ops, fmt.Errorf("dedupfilter: %s: %w", d.Doc.ID, err)
		}
		decs = append(decs, dec)
		ops = append(ops, dec.Ops...)
		if len(d.plan.Stale) > 0 {
			reops, err := dc.redecide(d.plan.Stale, replanned)
			ops = append(ops, reops...)
			if err != nil {
				return decs, ops, fmt.Errorf("dedupfilter: re-deciding after %s: %w", d.Doc.ID, err)
			}
		}
		// Decided: its features (some tens of KB with its terms), paragraphs
		// and plan are garbage now rather than after the batch's search-index
		// write, while the live heap is at its largest.
		d.fp, d.Doc.Features, d.Paras, d.plan = nil, nil, nil, nil
	}
	return decs, ops, nil
}

// replan plans d against the committed tables, and analyses it again when
// it keeps other paragraphs than its plan from planSites did.
func (dc *Decider) replan(d *Item) error {
	var p *sitetext.Plan
	err := dc.o.Local.View(func(kv store.KV) error {
		var err error
		p, err = dc.sitePlan(dc.siteReader(kv), d.Doc, d.Paras)
		return err
	})
	if err != nil {
		return err
	}
	same := slices.Equal(p.Kept, d.plan.Kept)
	d.plan = p
	if same {
		return nil
	}
	d.Doc.Features = dc.features(p, d.Tags)
	d.fp, err = dc.filter.prepare(d.Doc)
	return err
}

// analyze computes the features of prep and prepares them for the filter
// on GOMAXPROCS goroutines, taking documents in order; ready[i] is closed
// when prep[i] is done. stop ends the work early and waits for it.
func (dc *Decider) analyze(prep []*Item) (ready []chan struct{}, stop func()) {
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
				p := prep[i]
				p.Doc.Features = dc.features(p.plan, p.Tags)
				p.fp, p.err = dc.filter.prepare(p.Doc)
				close(ready[i])
			}
		})
	}
	return ready, func() {
		halt.Store(true)
		wg.Wait()
	}
}

// features analyses the paragraphs plan p keeps, with the terms of those
// it leaves out (Features.Left) and the page's tags.
func (dc *Decider) features(p *sitetext.Plan, tags []byte) *analyzer.Features {
	f := dc.o.Analyzer.Analyze(p.Kept)
	if len(p.Left) > 0 {
		dc.o.Analyzer.SetLeft(f, p.Left)
	}
	f.Tags = tags
	return f
}

// readd analyses stored document d again from paras, without its site's
// template text, and lets the filter decide it afresh (o.fresh), with
// o.exclude not candidates; its site writes, and the end of the wait of
// the page done (when it is d), commit with the decision. more lists the
// further stale pages its plan names.
func (dc *Decider) readd(d Doc, paras []string, o addOptions, done string) (dec Decision, more []string, err error) {
	var p *sitetext.Plan
	err = dc.o.Local.View(func(kv store.KV) error {
		var err error
		p, err = dc.sitePlan(dc.siteReader(kv), d, paras)
		return err
	})
	if err != nil {
		return dec, nil, err
	}
	d.Features = dc.features(p, dc.filter.Tags(d.ID)) // the page is gone; its stored tags are not
	fp, err := dc.filter.prepare(d)
	if err != nil {
		return dec, nil, err
	}
	o.also = func(kv store.KV) error {
		if err := p.Apply(kv); err != nil || done == "" {
			return err
		}
		return sitetext.Done(kv, done)
	}
	dec, err = dc.filter.addPrepared(fp, o)
	dc.committed(p, err)
	return dec, p.Stale, err
}

// committed tells the site cache of the plan of an Add that returned err:
// its writes are in the store when err is nil, and may be when it is not.
func (dc *Decider) committed(p *sitetext.Plan, err error) {
	if err != nil {
		dc.siteVals.Reset()
		return
	}
	dc.siteVals.Committed(p)
}

// redecide analyses the stale pages again and re-decides their whole
// clusters: members may have joined through template text that a stale
// page has now lost, so every member is decided afresh, in the order they
// were added, with fresh features, each with the members not yet redone
// left out of its candidates (as if the cluster had been taken apart
// first; but no member is ever missing from the store, so a crash loses
// nothing). The earliest member, when it represents the cluster and
// finds no match outside it, keeps it, id and role, so a cluster that
// comes back whole keeps its id; parts split off get new ids. Pages
// analysed again may reveal more stale pages; each page is redone at
// most once per call. A stale page stays recorded as stale
// (sitetext.Stale) until the last member of its cluster is redone, so
// FinishStale finishes what a crash cut short. The sites of the pages
// redone, whose tables it wrote, are added to sites.
func (dc *Decider) redecide(stale []string, sites map[string]bool) ([]Op, error) {
	var ops []Op
	done := map[string]bool{}
	for len(stale) > 0 {
		id := stale[0]
		stale = stale[1:]
		if done[id] {
			continue
		}
		c, err := dc.filter.ClusterOf(id)
		if errors.Is(err, ErrNotFound) {
			// Deleted since: nothing to redo.
			if err := dc.o.Local.Update(func(kv store.KV) error { return sitetext.Done(kv, id) }); err != nil {
				return ops, fmt.Errorf("%s: %w", id, err)
			}
			continue
		}
		if err != nil {
			return ops, err
		}
		// With a shared store, a cluster with members another shard added
		// stays as it is: their text and search index are that shard's,
		// and re-deciding could promote or demote them where this process
		// cannot write.
		foreign, err := dc.hasForeign(c.Members)
		if err != nil {
			return ops, err
		}
		if foreign {
			if err := dc.o.Local.Update(func(kv store.KV) error { return sitetext.Done(kv, id) }); err != nil {
				return ops, fmt.Errorf("%s: %w", id, err)
			}
			continue
		}
		entries := make([]Entry, 0, len(c.Members))
		for _, m := range c.Members {
			e, err := dc.filter.Doc(m)
			if err != nil {
				return ops, err
			}
			entries = append(entries, e)
		}
		slices.SortFunc(entries, func(a, b Entry) int { return cmp.Compare(a.Seq, b.Seq) })
		for i, e := range entries {
			done[e.ID] = true
			paras, err := dc.o.Text(e.Payload)
			if err != nil {
				return ops, fmt.Errorf("%s: stored payload: %w", e.ID, err)
			}
			o := addOptions{fresh: true, first: i == 0 && e.ID == c.Representative}
			for _, later := range entries[i+1:] {
				o.exclude = append(o.exclude, later.ID)
			}
			doneID := ""
			if i == len(entries)-1 {
				doneID = id
			}
			dec, more, err := dc.readd(e.Doc, paras, o, doneID)
			if err != nil {
				return ops, fmt.Errorf("%s: %w", e.ID, err)
			}
			sites[sitetext.Site(e.Doc.URL, e.Doc.ID)] = true
			ops = append(ops, dec.Ops...)
			stale = append(stale, more...)
		}
	}
	return ops, nil
}

// FinishStale re-decides the stale pages a crash left (see Decider) and
// returns the search-index operations of their new decisions; nothing
// when pages are analysed whole.
func (dc *Decider) FinishStale() ([]Op, error) {
	if dc.o.Site == nil {
		return nil, nil
	}
	var stale []string
	if err := dc.o.Local.View(func(kv store.KV) error {
		var err error
		stale, err = sitetext.Stale(kv)
		return err
	}); err != nil || len(stale) == 0 {
		return nil, err
	}
	ops, err := dc.redecide(stale, map[string]bool{})
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	return ops, nil
}

// hasForeign reports whether a shared store holds any of ids for another
// process (see Entry.Local).
func (dc *Decider) hasForeign(ids []string) (bool, error) {
	if !dc.filter.backend.Shared() {
		return false, nil
	}
	for _, id := range ids {
		e, err := dc.filter.Meta(id)
		if errors.Is(err, ErrNotFound) {
			return true, nil // another process joined it and has not recorded it yet
		}
		if err != nil {
			return false, err
		}
		if !e.Local {
			return true, nil
		}
	}
	return false, nil
}
