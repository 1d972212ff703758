package indexer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/sitetext"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/blevesearch/bleve/v2/document"
)

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
	prep := make([]staged, len(docs))
	for i, d := range docs {
		var err error
		if prep[i], err = ix.stage(d, urlKey(d.URL, "")); err != nil {
			return nil, err
		}
	}
	return ix.commit(prep)
}

func validate(d Document) error {
	if d.ID == "" {
		return fmt.Errorf("indexer: empty id: %w", ErrInvalidDocument)
	}
	return nil
}

// staged is a document on its way into the index: its bleve body and
// store payload made, its site plan and features filled in by commit.
type staged struct {
	doc   dedupfilter.Doc
	body  map[string]any // doc.Payload decoded, for bleve
	paras []string       // the document's paragraphs, before its site's template text is known
	tags  []byte         // the page's tag sequence, for Features.Tags
	// urlKey is the key of the URL's owner (urlKey), made once.
	urlKey []byte
	plan   *sitetext.Plan // the paragraphs analysed (plan.Kept) and the site writes
	fp     *dedupfilter.Prepared
	err    error
	// unchanged: the store holds the document with the same content hash
	// already (IndexPages skips it); update: it holds another version.
	unchanged, update bool
	truncated         bool // text past Options.MaxTextBytes left out
	// reply, when set, is told the decision (see job).
	reply func(dedupfilter.Decision, error)
}

// stage makes d's bleve body and store payload; k is the key of its URL's
// owner (urlKey).
func (ix *Index) stage(d Document, k []byte) (staged, error) {
	if err := validate(d); err != nil {
		return staged{}, err
	}
	paras, truncated := capText(d.Paragraphs, ix.maxText)
	d.Paragraphs = paras
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
		return staged{}, fmt.Errorf("indexer: %s: fields: %w", d.ID, err)
	}
	return staged{doc: dedupfilter.Doc{ID: d.ID, URL: d.URL, Title: d.Title, Payload: payload, Time: d.Time, Hash: d.Hash},
		body: body, paras: d.Paragraphs, tags: d.Tags, truncated: truncated, urlKey: k}, nil
}

// capText returns the paragraphs within max bytes in all (max <= 0: no
// cap), the last one cut at a character boundary, and whether any text
// was left out.
func capText(ps []string, max int) ([]string, bool) {
	if max <= 0 {
		return ps, false
	}
	n := 0
	for i, p := range ps {
		if n+len(p) <= max {
			n += len(p)
			continue
		}
		kept := ps[:i:i]
		if cut := strings.ToValidUTF8(p[:max-n], ""); cut != "" {
			kept = append(kept, cut)
		}
		return kept, true
	}
	return ps, false
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

// commit decides docs, in order, and writes bleve accordingly, returning
// once bleve has them.
func (ix *Index) commit(docs []staged) ([]dedupfilter.Decision, error) {
	return ix.commitThen(docs, nil)
}

// commitThen is commit, but when applied is not nil it returns once the
// decisions are made and leaves the bleve write to a goroutine, which
// calls applied with its error: the next batch is decided while bleve
// indexes this one. Bleve writes still happen in the order of the
// decisions (applyMu is taken before the decision lock is let go), and the
// store holds them as pending until they are done, so a crash in between
// is repaired at Open as before. applied is called exactly once; docs
// must not be reused until it is.
func (ix *Index) commitThen(docs []staged, applied func(error)) ([]dedupfilter.Decision, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.readOnly {
		if applied != nil {
			applied(nil)
		}
		return nil, fmt.Errorf("indexer: %w", ErrReadOnly)
	}
	decs, ops, decideErr := ix.decideBatch(docs)
	// Ops of decisions already committed must reach bleve even when a later
	// Add failed, or the stores would disagree until the next Open.
	if applied == nil {
		if err := ix.apply(ops, docs); err != nil {
			return decs, errors.Join(decideErr, err)
		}
		return decs, decideErr
	}
	// This batch's documents are analysed while bleve writes the one
	// before.
	bdocs, err := ix.bleveDocs(ops, docs)
	ix.applyMu.Lock()
	go func() {
		if err == nil {
			err = ix.write(ops, bdocs)
		}
		ix.applyMu.Unlock()
		applied(err)
	}()
	return decs, decideErr
}

// decideBatch makes the decisions on docs (all indexed, without the
// filter) and returns them with the bleve operations they call for.
func (ix *Index) decideBatch(docs []staged) ([]dedupfilter.Decision, []dedupfilter.Op, error) {
	if ix.noDedup {
		decs := make([]dedupfilter.Decision, 0, len(docs))
		ops := make([]dedupfilter.Op, 0, len(docs))
		for _, d := range docs {
			op := dedupfilter.Op{Kind: dedupfilter.OpIndex, ID: d.doc.ID, Cluster: d.doc.ID, Payload: d.doc.Payload}
			decs = append(decs, dedupfilter.Decision{ID: d.doc.ID, Cluster: d.doc.ID, Representative: d.doc.ID, Ops: []dedupfilter.Op{op}})
			ops = append(ops, op)
		}
		return decs, ops, nil
	}
	// A document's site plan depends on the documents before it, so the
	// plans are made in order, each over the plans before it; the features
	// are then computed in parallel while the filter decides, in order, on
	// the documents already analysed.
	if err := ix.planSites(docs); err != nil {
		return nil, nil, err
	}
	ready, stop := ix.analyze(docs)
	defer stop() // after an error, analysis of the documents left is dropped
	var decs []dedupfilter.Decision
	var ops []dedupfilter.Op
	// The batch's decisions are planned at once: their candidates found
	// and verified on every core (and on a shared store, posted and
	// numbered in a few round trips), leaving to each decision, one at a
	// time, only its cluster and its writes. Analysis then no longer
	// overlaps the decisions.
	err := ix.filter.Exclusive(func() error {
		var fps []*dedupfilter.Prepared
		for i := range docs {
			if <-ready[i]; docs[i].err == nil {
				fps = append(fps, docs[i].fp)
			}
		}
		if err := ix.filter.Prefetch(fps); err != nil {
			return err
		}
		var err error
		decs, ops, err = ix.decide(docs, ready)
		return err
	})
	return decs, ops, err
}

// planSites makes each document's site plan, in order, each over the
// uncommitted plans before it.
func (ix *Index) planSites(docs []staged) error {
	return ix.local.View(func(kv store.KV) error {
		o := sitetext.NewOverlay(ix.siteReader(kv))
		for i := range docs {
			var err error
			if docs[i].plan, err = ix.sitePlan(o, docs[i]); err != nil {
				return err
			}
			o.Add(docs[i].plan)
		}
		return nil
	})
}

// siteReader reads the site tables in kv through the site cache.
func (ix *Index) siteReader(kv store.KV) sitetext.Reader {
	return ix.siteVals.Reader(sitetext.KVReader{KV: kv})
}

// sitePlan plans d against the site tables as r reads them.
func (ix *Index) sitePlan(r sitetext.Reader, d staged) (*sitetext.Plan, error) {
	p, err := ix.site.Plan(r, sitetext.Site(d.doc.URL, d.doc.ID), d.doc.ID, d.paras)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	return p, nil
}

// decide lets the filter decide on docs in order, each once ready[i] is
// closed, committing each document's site writes with its decision, and
// re-decides the clusters of the stale pages each names. It returns the
// decisions and bleve operations made before any error.
//
// A plan made in planSites is the plan the document gets against the
// committed tables unless a re-decision changed them in between; then the
// document is planned again, and analysed again if that changes what it
// keeps. So the tables and the clusters after each document are those of
// deciding the documents one at a time.
func (ix *Index) decide(docs []staged, ready []chan struct{}) ([]dedupfilter.Decision, []dedupfilter.Op, error) {
	decs := make([]dedupfilter.Decision, 0, len(docs))
	var ops []dedupfilter.Op
	// The sites whose tables a re-decision wrote since planSites: a plan
	// reads its own site's only.
	replanned := map[string]bool{}
	for i := range docs {
		<-ready[i]
		d := &docs[i]
		if d.err == nil && len(replanned) > 0 && replanned[sitetext.Site(d.doc.URL, d.doc.ID)] {
			d.err = ix.replan(d)
		}
		var dec dedupfilter.Decision
		err := d.err
		if err == nil {
			dec, err = ix.filter.AddPreparedWith(d.fp, dedupfilter.AddOptions{Also: func(kv store.KV) error {
				if err := d.plan.Apply(kv); err != nil {
					return err
				}
				return setURLOwner(kv, d.urlKey, d.doc.ID)
			}})
			ix.committed(d.plan, err)
		}
		if err != nil {
			return decs, ops, fmt.Errorf("indexer: %s: %w", d.doc.ID, err)
		}
		decs = append(decs, dec)
		ops = append(ops, dec.Ops...)
		if len(d.plan.Stale) > 0 {
			reops, err := ix.redecide(d.plan.Stale, replanned)
			ops = append(ops, reops...)
			if err != nil {
				return decs, ops, fmt.Errorf("indexer: re-deciding after %s: %w", d.doc.ID, err)
			}
		}
		// Decided: its features (maps of terms, some tens of KB), paragraphs
		// and plan are garbage now rather than after the batch's bleve
		// write, while the live heap is at its largest.
		d.fp, d.doc.Features, d.paras, d.plan = nil, nil, nil, nil
	}
	return decs, ops, nil
}

// replan plans d against the committed tables, and analyses it again when
// it keeps other paragraphs than its plan from planSites did.
func (ix *Index) replan(d *staged) error {
	var p *sitetext.Plan
	err := ix.local.View(func(kv store.KV) error {
		var err error
		p, err = ix.sitePlan(ix.siteReader(kv), *d)
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
	d.doc.Features = ix.analyzer.Analyze(p.Kept)
	d.doc.Features.Tags = d.tags
	d.fp, err = ix.filter.Prepare(d.doc)
	return err
}

// analyze computes the features of prep and prepares them for the filter
// on GOMAXPROCS goroutines, taking documents in order; ready[i] is closed
// when prep[i] is done. stop ends the work early and waits for it.
func (ix *Index) analyze(prep []staged) (ready []chan struct{}, stop func()) {
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
				p.doc.Features = ix.analyzer.Analyze(p.plan.Kept)
				p.doc.Features.Tags = p.tags
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

// readd analyses stored document d again from paras, without its site's
// template text, and lets the filter decide it afresh (o.Fresh), with
// o.Exclude not candidates; its site writes, and the end of the wait of
// the page done (when it is d), commit with the decision. more lists the
// further stale pages its plan names.
func (ix *Index) readd(d dedupfilter.Doc, paras []string, o dedupfilter.AddOptions, done string) (dec dedupfilter.Decision, more []string, err error) {
	var p *sitetext.Plan
	err = ix.local.View(func(kv store.KV) error {
		var err error
		p, err = ix.sitePlan(ix.siteReader(kv), staged{doc: d, paras: paras})
		return err
	})
	if err != nil {
		return dec, nil, err
	}
	d.Features = ix.analyzer.Analyze(p.Kept)
	d.Features.Tags = ix.filter.Tags(d.ID) // the page is gone; its stored tags are not
	fp, err := ix.filter.Prepare(d)
	if err != nil {
		return dec, nil, err
	}
	o.Also = func(kv store.KV) error {
		if err := p.Apply(kv); err != nil || done == "" {
			return err
		}
		return sitetext.Done(kv, done)
	}
	dec, err = ix.filter.AddPreparedWith(fp, o)
	ix.committed(p, err)
	return dec, p.Stale, err
}

// committed tells the site cache of the plan of an Add that returned err:
// its writes are in the store when err is nil, and may be when it is not.
func (ix *Index) committed(p *sitetext.Plan, err error) {
	if err != nil {
		ix.siteVals.Reset()
		return
	}
	ix.siteVals.Committed(p)
}

// redecide analyses the stale pages again and re-decides their whole
// clusters: members may have joined through template text that a stale
// page has now lost, so every member is decided afresh, in the order they
// were added, with fresh features, each with the members not yet redone
// left out of its candidates (as if the cluster had been taken apart
// first; but no member is ever missing from the store, so a crash loses
// nothing). Re-decided clusters get new ids. Pages analysed again may
// reveal more stale pages; each page is redone at most once per call. A
// stale page stays recorded as stale (sitetext.Stale) until the last
// member of its cluster is redone, so Open finishes what a crash cut
// short. The sites of the pages redone, whose tables it wrote, are added
// to sites.
func (ix *Index) redecide(stale []string, sites map[string]bool) ([]dedupfilter.Op, error) {
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
			// Deleted since: nothing to redo.
			if err := ix.local.Update(func(kv store.KV) error { return sitetext.Done(kv, id) }); err != nil {
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
		foreign, err := ix.hasForeign(c.Members)
		if err != nil {
			return ops, err
		}
		if foreign {
			if err := ix.local.Update(func(kv store.KV) error { return sitetext.Done(kv, id) }); err != nil {
				return ops, fmt.Errorf("%s: %w", id, err)
			}
			continue
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
		for i, e := range entries {
			done[e.ID] = true
			paras, err := ix.paragraphs(e.Payload)
			if err != nil {
				return ops, fmt.Errorf("%s: stored payload: %w", e.ID, err)
			}
			o := dedupfilter.AddOptions{Fresh: true}
			for _, later := range entries[i+1:] {
				o.Exclude = append(o.Exclude, later.ID)
			}
			doneID := ""
			if i == len(entries)-1 {
				doneID = id
			}
			dec, more, err := ix.readd(e.Doc, paras, o, doneID)
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

// paragraphs returns the main text a stored payload holds, as paragraphs:
// the payload's text field, or what a wrapped index reads from its
// user's fields (Wrapper).
func (ix *Index) paragraphs(payload []byte) ([]string, error) {
	if ix.text != nil {
		return ix.text(payload)
	}
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		return nil, err
	}
	text, _ := body[FieldText].(string)
	return strings.Split(text, "\n"), nil
}

// finishStale re-decides the stale pages a crash left (see redecide).
func (ix *Index) finishStale() error {
	var stale []string
	if err := ix.local.View(func(kv store.KV) error {
		var err error
		stale, err = sitetext.Stale(kv)
		return err
	}); err != nil || len(stale) == 0 {
		return err
	}
	ops, err := ix.redecide(stale, map[string]bool{})
	if err == nil {
		err = ix.apply(ops, nil)
	}
	if err != nil {
		return fmt.Errorf("indexer: re-deciding pages a crash left stale: %w", err)
	}
	return nil
}

// hasForeign reports whether a shared store holds any of ids for another
// process (see dedupfilter.Entry.Local).
func (ix *Index) hasForeign(ids []string) (bool, error) {
	if !ix.shared {
		return false, nil
	}
	for _, id := range ids {
		e, err := ix.filter.Meta(id)
		if errors.Is(err, dedupfilter.ErrNotFound) {
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

// apply writes ops to bleve in one batch and clears their pending marks.
// The bodies of prep stand in for payloads they encode, sparing a decode.
func (ix *Index) apply(ops []dedupfilter.Op, prep []staged) error {
	docs, err := ix.bleveDocs(ops, prep)
	if err != nil {
		return err
	}
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	return ix.write(ops, docs)
}

// write is apply with the documents from bleveDocs, and applyMu held.
func (ix *Index) write(ops []dedupfilter.Op, docs []*document.Document) error {
	if len(ops) == 0 {
		return nil
	}
	b := ix.bleve.NewBatch()
	for i, op := range ops {
		switch {
		case docs[i] != nil:
			if err := b.IndexAdvanced(docs[i]); err != nil {
				return fmt.Errorf("indexer: %s: %w", op.ID, err)
			}
		case op.Kind == dedupfilter.OpDelete:
			b.Delete(op.ID)
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
	if ix.readOnly {
		return fmt.Errorf("indexer: delete %s: %w", id, ErrReadOnly)
	}
	e, _ := ix.filter.Meta(id)
	res, err := ix.filter.Delete(id)
	if err != nil {
		return fmt.Errorf("indexer: delete %s: %w", id, err)
	}
	// A crash before this leaves the URL naming a deleted document, which
	// a later page of that URL simply takes over.
	if err := ix.local.Update(func(kv store.KV) error { return clearURLOwner(kv, urlKey(e.URL, ""), id) }); err != nil {
		return fmt.Errorf("indexer: delete %s: %w", id, err)
	}
	return ix.apply(res.Ops, nil)
}
