package dedupfilter

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/internal/parallel"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// MaxIDBytes is the longest document id, in bytes: the store's keys hold
// ids (Badger's at most 65,000 bytes), and a page's canonical URL, the
// longest id a crawl makes, stays far under it.
const MaxIDBytes = 8 << 10

// Doc is a document offered to Add.
type Doc struct {
	ID       string // required, unique; adding an existing ID replaces it
	URL      string
	Title    string
	Features *analyzer.Features // required
	// Payload is stored as is and handed back when the search index must
	// (re)index this document, e.g. when it is promoted to representative.
	Payload []byte
	// Time orders copies for Keep == Newer; zero means the time of the Add.
	Time time.Time
	// Hash identifies the content the document was made from (the
	// caller's choice of hash); it is stored and returned by Meta, so a
	// caller can tell unchanged input from changed and skip it.
	Hash uint64
}

// Action says what the search index does with the added document.
type Action int

const (
	// Index: put the document in the search index (with its cluster id).
	Index Action = iota
	// Skip: keep it out of the search index (a suppressed duplicate).
	Skip
)

func (a Action) String() string {
	if a == Skip {
		return "skip"
	}
	return "index"
}

// OpKind is a search-index operation.
type OpKind byte

const (
	OpIndex  OpKind = 1 // index ID with Cluster and Payload (overwriting)
	OpDelete OpKind = 2 // delete ID (no error if absent)
)

func (k OpKind) String() string {
	switch k {
	case OpIndex:
		return "index"
	case OpDelete:
		return "delete"
	}
	return "OpKind(" + strconv.Itoa(int(k)) + ")"
}

// Op is one operation the search index must apply. Ops are states, not
// deltas: applying an Op twice, or applying an older Op of the same ID
// before it, ends in the same index.
type Op struct {
	Kind    OpKind
	ID      string
	Cluster string // OpIndex: the cluster id to store with the document
	Payload []byte // OpIndex: the payload given to Add
	Seq     uint64 // the Add/Delete that produced it; Applied checks it
}

// Decision is the outcome of Add.
type Decision struct {
	ID        string
	Duplicate bool
	// Of is the stored document the new one matched (empty if none).
	Of string
	// Cluster is the document's cluster id; it changes only when a later
	// document joins its cluster with another (Merged) or Recluster
	// regroups it.
	Cluster string
	// Representative is the cluster's representative after the Add.
	Representative string
	// Measure and Similarity: the measure that decided and its value.
	Measure    similarity.Measure
	Similarity float64
	// Verdict is the full comparison with Of (zero when not a duplicate).
	Verdict similarity.Verdict
	// Candidates is how many stored documents were verified up to Of.
	Candidates int
	// Merged are the clusters this document joined into Cluster: it
	// duplicates a member of each, and their representatives verify
	// against each other (embedded store; see the package doc).
	Merged []string
	// Action for this document. Ops are everything the search index must
	// do, this document included: under Replace the old representative is
	// deleted; re-adding a representative may promote another document. A
	// document re-added with the payload it had, that stays in the search
	// index under the same cluster, has no op: the index holds it already.
	Action Action
	Ops    []Op
	Seq    uint64
}

// DeleteResult is the outcome of Delete.
type DeleteResult struct {
	ID      string
	Cluster string
	// Representative of the cluster after the delete; empty when the
	// cluster is gone with its last member.
	Representative string
	// Ops to apply to the search index: delete ID (always, indexed or not;
	// deleting an absent document is harmless), and under Suppress and
	// Replace index the promoted representative with its payload.
	Ops []Op
	Seq uint64
}

// Cluster is a group of near-duplicates.
type Cluster struct {
	ID             string
	Representative string
	Members        []string // sorted, representative included
}

// String renders a cluster for logs.
func (c Cluster) String() string {
	return c.ID + " rep=" + c.Representative + " n=" + strconv.Itoa(len(c.Members))
}

// Entry is a stored document.
type Entry struct {
	Doc
	Seq     uint64
	Cluster string
	Indexed bool // whether the filter has it in the search index
	// Local: this process' store holds the document's payload, so its
	// search index is the one the document went to. Always, with an
	// embedded store; with a shared one, only for the documents this
	// process added.
	Local bool
}

// Filter is a near-duplicate filter over a store (package store's
// Backend): the embedded store (New over package embedded's Store) or a
// shared one (New over package rediscluster's Store). Its methods are
// safe for concurrent use.
type Filter struct {
	backend store.Backend
	opts    Options
	df      *docFreq // Options.BooleanStopShare's document frequencies, or nil
	// derivesKeys: the store's records need list only the posting keys a
	// signature does not give (package embedded's Options.SignatureKeys).
	derivesKeys bool

	// mu serialises the decisions' sections that write, and the filter's
	// state below. Planning (prefetch) reads and compares outside it.
	mu     sync.Mutex
	closed bool
	// plans are the decisions prefetch worked out for the documents of
	// the running exclusive call, until they are made; adds are the ids
	// added in it (a plan made before another version of its id was added
	// reads the stored version again).
	plans map[*prepared]*plan
	adds  map[string]bool
	// batch are the documents of the running exclusive call that an
	// embedded store plans a window at a time (planWindow), in order;
	// nil once added.
	batch []*prepared
	// gen counts the decisions that were not planned, or changed what a
	// plan saw (an embedded store's plans hold only within their
	// generation).
	gen  uint64
	hits map[uint64]int // ranked's scratch space for plans made under mu
	// inIndex: the payloads of documents in the search index are kept
	// there (KeepPayloadsIn), or nil.
	inIndex *indexPayloads
}

// New returns a filter keeping its state in b, which Close closes.
func New(b store.Backend, opts Options) (*Filter, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.BooleanStopShare > 0 && b.Shared() {
		return nil, fmt.Errorf("dedupfilter: BooleanStopShare %v: document frequencies are counted in one process, and this store is shared: %w", opts.BooleanStopShare, ErrInvalidOptions)
	}
	if opts.TermsPerDoc > 0 && b.Shared() {
		// Its keys come from the terms, which a signature does not keep:
		// a process planning another's document could not find them.
		return nil, fmt.Errorf("dedupfilter: TermsPerDoc %d on a store shared by several processes: %w", opts.TermsPerDoc, ErrInvalidOptions)
	}
	if opts.BooleanStopShare > 0 {
		opts.TermSketch = 0 // (see BooleanStopShare)
	}
	df, err := newDocFreq(b, opts)
	if err != nil {
		return nil, err
	}
	if df != nil {
		opts.Stop = df.stopper(opts.BooleanStopShare, opts.BooleanStopMinDocs)
	}
	d, ok := b.(interface{ DerivesKeys() bool })
	return &Filter{backend: b, opts: opts, df: df, derivesKeys: ok && d.DerivesKeys()}, nil
}

// writable returns ErrClosed or ErrReadOnly when the filter cannot write.
func (f *Filter) writable() error {
	switch {
	case f.closed:
		return ErrClosed
	case f.backend.ReadOnly():
		return ErrReadOnly
	}
	return nil
}

// exclusive runs fn, which adds or deletes several documents, as one
// batch: prefetch plans the documents fn then adds. With a store shared
// by several processes, the shared writes of its decisions are made
// together when it ends (one round trip); it takes no lock other
// processes wait for. Documents prefetch posted and fn, returning no
// error, did not add (a document planned again) are withdrawn; after an
// error they stay, numbered, and are decided again when the run is
// repeated (other processes may have decided against them meanwhile).
// fn must not call exclusive.
func (f *Filter) exclusive(fn func() error) error {
	err := f.backend.Exclusive(fn)
	f.mu.Lock()
	defer f.mu.Unlock()
	if sq, ok := f.backend.(store.Sequencer); ok && err == nil {
		var left []uint64
		for _, pl := range f.plans {
			left = append(left, pl.seq)
		}
		if werr := sq.Withdraw(left); werr != nil {
			err = errors.Join(err, fmt.Errorf("dedupfilter: %w", werr))
		}
	}
	f.plans, f.adds, f.batch = nil, nil, nil
	return err
}

// prefetch plans the decisions on ps, to be added in this order inside
// the running exclusive call: it finds each one's candidates among the
// documents before it and verifies them, on every core, leaving to each
// add only what must be done one at a time (its cluster and its writes).
// On a store shared by several processes it also posts and numbers them
// (see package rediscluster), in a few round trips for the batch; an
// embedded store plans planAhead documents at a time. With
// BooleanStopShare, whose counts each add changes, it does nothing.
func (f *Filter) prefetch(ps []*prepared) error {
	if len(ps) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return fmt.Errorf("dedupfilter: prefetch: %w", err)
	}
	if f.plans == nil {
		f.plans, f.adds = make(map[*prepared]*plan, len(ps)), map[string]bool{}
	}
	sq, ok := f.backend.(store.Sequencer)
	switch {
	case ok:
		plans, err := f.planShared(sq, ps, nil)
		if err != nil {
			return err
		}
		for i, pl := range plans {
			f.plans[ps[i]] = pl
		}
	case f.df == nil:
		for i, p := range ps {
			p.pos = len(f.batch) + i + 1
		}
		f.batch = append(f.batch, ps...)
		return f.planWindow(ps[0])
	}
	return nil
}

// planAhead is how many documents of a batch an embedded store plans
// together. A decision that changes what the plans saw (a document
// re-added, a cluster re-decided for its site's template) leaves the
// plans after it stale; in bench-scale's synthetic crawl one decision in
// thirty did. Planned a whole batch at once, 16,508 of its 20,000 pages
// were planned again one at a time (37,195 plans); in windows, 27,296
// plans, every page's with its window.
const planAhead = 32

// planWindow plans p, a document of the batch, with the documents after
// it, up to planAhead of them, on an embedded store.
func (f *Filter) planWindow(p *prepared) error {
	var ps []*prepared
	for _, q := range f.batch[p.pos-1 : min(p.pos-1+planAhead, len(f.batch))] {
		if q != nil {
			ps = append(ps, q)
		}
	}
	plans, err := f.planLocal(ps, nil)
	if err != nil {
		return err
	}
	for i, pl := range plans {
		f.plans[ps[i]] = pl
	}
	return nil
}

// Options returns the options the filter was opened with.
func (f *Filter) Options() Options { return f.opts }

// Close closes the filter and its store (New's b). Later calls return
// ErrClosed.
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("dedupfilter: close: %w", ErrClosed)
	}
	f.closed = true
	var err error
	if f.inIndex != nil {
		err = f.inIndex.j.close()
	}
	if berr := f.backend.Close(); berr != nil {
		err = errors.Join(err, fmt.Errorf("dedupfilter: close: %w", berr))
	}
	return err
}

func (d *Doc) validate(o Options) error {
	switch {
	case d.ID == "":
		return fmt.Errorf("dedupfilter: empty id: %w", ErrInvalidDocument)
	case len(d.ID) > MaxIDBytes:
		return fmt.Errorf("dedupfilter: id of %d bytes (%.40q…), at most %d: %w", len(d.ID), d.ID, MaxIDBytes, ErrInvalidDocument)
	case d.Features == nil:
		return fmt.Errorf("dedupfilter: %q: nil features: %w", d.ID, ErrInvalidDocument)
	case len(d.Features.MinHash) != 0 && len(d.Features.MinHash) != o.Bands*o.Rows:
		return fmt.Errorf("dedupfilter: %q: MinHash has %d values, Bands*Rows is %d: %w",
			d.ID, len(d.Features.MinHash), o.Bands*o.Rows, ErrInvalidDocument)
	}
	return nil
}

// prepared is a document ready for addPrepared: validated, its signature
// computed and encoded, its posting keys hashed.
type prepared struct {
	doc    Doc
	sig    similarity.Signature
	own    [][]byte
	lookup [][]byte
	pos    int // 1 + its place in Filter.batch; 0 outside it
}

// prepare does the part of Add that needs no lock. It is safe for
// concurrent use, so a caller that must add documents in a fixed order
// can prepare them in parallel and then add them in order. The prepared
// keeps references to d's Features and Payload until it is added.
func (f *Filter) prepare(d Doc) (*prepared, error) {
	if err := d.validate(f.opts); err != nil {
		return nil, err
	}
	p := &prepared{doc: d, sig: similarity.Of(d.Features, d.URL, f.opts.Options).WithPieceSample(f.opts.PiecesPerDoc)}
	p.own = f.opts.postingKeys(p.sig, d.Features.Terms)
	p.lookup = f.opts.restrictLookup(f.opts.lookupKeys(d.Features.Structure, p.own))
	return p, nil
}

// Add decides whether d duplicates a stored document, records it and its
// cluster, and returns what the search index must do. Candidate search,
// verification and the write run under one lock and one transaction, so
// concurrent Adds cluster as some serial order would. The Ops are also
// recorded as pending until Applied (see Replay). A zero Doc.Time
// becomes the time of the call.
func (f *Filter) Add(d Doc) (Decision, error) {
	p, err := f.prepare(d)
	if err != nil {
		return Decision{}, err
	}
	return f.addPrepared(p, addOptions{})
}

// AddBatch adds docs in order and returns their decisions: those Add
// would make adding them one after another. The batch is decided as one:
// the documents are prepared, and their candidates found and verified,
// on every core (on a store shared by several processes they are also
// posted and numbered in a few round trips, and the decisions' shared
// writes made together at the end), leaving to each add only its cluster
// and its writes. A document Add would refuse fails the batch before
// anything is decided. After another error it returns the decisions made
// before it; adding the rest again decides them.
func (f *Filter) AddBatch(docs []Doc) ([]Decision, error) {
	ps := make([]*prepared, len(docs))
	errs := make([]error, len(docs))
	parallel.Each(len(docs), func(i int) { ps[i], errs[i] = f.prepare(docs[i]) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	decs := make([]Decision, 0, len(docs))
	err := f.exclusive(func() error {
		if err := f.prefetch(ps); err != nil {
			return err
		}
		for _, p := range ps {
			dec, err := f.addPrepared(p, addOptions{})
			if err != nil {
				return err
			}
			decs = append(decs, dec)
		}
		return nil
	})
	return decs, err
}

// addOptions adjust one addPrepared.
type addOptions struct {
	// also runs in the transaction that records the decision, so that
	// writes of the caller's own (under the namespaces package store's
	// key schema gives it) commit with it or not at all. An error from it
	// fails the add.
	also func(store.KV) error
	// fresh decides a stored document as if it were new: it leaves its
	// cluster (which is repaired as on Delete) before it is placed, even
	// when it still matches inside it.
	fresh bool
	// exclude are stored documents that are not candidates for this one.
	// Re-deciding a cluster member by member, fresh, with the members not
	// yet redone excluded, decides each as if the cluster had been taken
	// apart first, without a moment where a member is not stored.
	exclude []string
	// first marks the earliest member of a cluster decided afresh, its
	// representative: with no match outside the members not yet redone
	// it keeps the cluster, id and role, as founding it again would
	// (the members that still match it come back to it).
	first bool
}

// addPrepared is Add for a document from prepare, with options. A
// document prefetch planned in the running exclusive call is decided as
// planned; any other is planned alone first, the same way.
func (f *Filter) addPrepared(p *prepared, ao addOptions) (Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return Decision{}, fmt.Errorf("dedupfilter: add %q: %w", p.doc.ID, err)
	}
	sq, shared := f.backend.(store.Sequencer)
	pl := f.plans[p]
	inBatch := p.pos > 0 && p.pos <= len(f.batch) && f.batch[p.pos-1] == p
	if inBatch && len(ao.exclude) == 0 && (pl == nil || pl.gen != f.gen) {
		// Past its window, or its plan stale: planned again with the
		// documents after it.
		if err := f.planWindow(p); err != nil {
			return Decision{}, err
		}
		pl = f.plans[p]
	}
	delete(f.plans, p)
	if inBatch {
		f.batch[p.pos-1] = nil // its features are let go once it is decided
	}
	if pl != nil && len(ao.exclude) > 0 || pl != nil && !shared && pl.gen != f.gen {
		// Planned without the exclusions, or before a decision that
		// changed what it saw.
		if shared {
			if err := sq.Withdraw([]uint64{pl.seq}); err != nil {
				return Decision{}, fmt.Errorf("dedupfilter: %w", err)
			}
		}
		pl = nil
	}
	// Not planned with its batch: planned alone now, the same way. An
	// embedded store's plans of the batch are then stale (f.gen).
	batch := pl != nil
	if !batch {
		var pls []*plan
		var err error
		if shared {
			pls, err = f.planShared(sq, []*prepared{p}, ao.exclude)
		} else {
			pls, err = f.planLocal([]*prepared{p}, ao.exclude)
		}
		if err != nil {
			return Decision{}, err
		}
		pl = pls[0]
	}
	// Posted and numbered, a document not decided for an error stays:
	// others may have decided against it, and a repeated run decides it
	// again.
	return f.add(p, pl, batch, ao)
}

// add decides p as pl planned it, with its batch or alone, and writes the
// decision; the caller holds the lock.
func (f *Filter) add(p *prepared, pl *plan, batch bool, ao addOptions) (Decision, error) {
	d := p.doc
	if d.Time.IsZero() {
		d.Time = time.Now()
	}
	posted := pl.seq != 0
	var w *mutation
	if posted {
		w = f.beginAt(pl.seq)
	} else {
		var err error
		if w, err = f.begin(); err != nil {
			return Decision{}, err
		}
	}
	defer w.st.Discard()
	dec := Decision{ID: d.ID, Seq: w.seq}
	old, match, v := pl.old, pl.match, pl.verdict
	cluster, founder := pl.cluster, pl.founder
	dec.Candidates = pl.cands
	var err error
	if f.adds[d.ID] {
		// Another version of d was added in this batch since.
		if old, err = w.record(d.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return Decision{}, err
		}
	}
	// before is d as the store holds it now (the plan may have read it
	// before this batch's earlier decisions moved it).
	var before *store.Record
	if old != nil {
		if before, err = w.st.Record(d.ID, false); err != nil && !errors.Is(err, ErrNotFound) {
			return Decision{}, fmt.Errorf("dedupfilter: %w", err)
		}
	}
	if err := f.df.stage(w.st, old, &p.sig); err != nil {
		return Decision{}, err
	}
	rule := f.opts.rule()
	if match != "" {
		if cluster == "" {
			matchRec, err := w.record(match)
			if err != nil {
				return Decision{}, err
			}
			cluster = matchRec.Cluster
		}
		if rule, err = w.cover(p.sig, match, v, cluster, founder); err != nil {
			return Decision{}, err
		}
		dec.Duplicate, dec.Of, dec.Verdict = true, match, v
		dec.Measure, dec.Similarity = v.Measure, v.Similarity
	} else {
		dec.Measure = f.opts.Measure
	}
	rec := &store.Record{Seq: w.seq, Time: d.Time.UTC(), Runes: d.Features.Runes, URL: d.URL, Title: d.Title, Hash: d.Hash}
	var own uint64 // a shared store's new cluster: numbered as its founder
	if posted {
		own = w.seq
	}
	// Decided afresh (its cluster re-decided, which held only this
	// process' pages when that began), a page whose cluster another
	// process' page has joined since keeps its cluster and its role
	// there: that page's process decided it against them, and a
	// representative leaving would promote it where it is not indexed.
	keep := ao.first && match == "" && old != nil
	if !keep && ao.fresh && old != nil && f.backend.Shared() {
		if keep, err = w.joinedBeside(d.ID, old.Cluster); err != nil {
			return Decision{}, err
		}
	}
	if err := w.place(d.ID, rec, old, cluster, founder, rule, own, ao.fresh, keep); err != nil {
		return Decision{}, err
	}
	if rule.Take && !rule.Mark && !keep {
		if err := w.rehold(rec.Cluster, d.ID, p.sig); err != nil {
			return Decision{}, err
		}
	}
	dec.Cluster, dec.Representative = rec.Cluster, w.rep
	if dec.Representative == "" {
		if dec.Representative, err = w.representative(rec.Cluster); err != nil {
			return Decision{}, err
		}
	}
	if !posted {
		if rec.Keys, err = w.post(w.seq, p.own); err != nil {
			return Decision{}, err
		}
		if f.derivesKeys {
			rec.Keys = termKeys(rec.Keys)
		}
		err = w.st.PutSignature(w.seq, encodeSignature(d.ID, d.Time, p.sig))
	}
	// A page decided again with its content as it was (its cluster
	// re-decided for its site's template, say) that ends where it was is
	// not written to the search index again: bleve's copy is already
	// this one, and a rewrite would leave a deleted copy behind that
	// every later merge of its segment filters out.
	same := false
	if before != nil && before.Indexed && err == nil {
		if same, err = f.unchanged(w.st, d.ID, d.Payload); err != nil {
			return Decision{}, fmt.Errorf("dedupfilter: payload %q: %w", d.ID, err)
		}
	}
	if err = errors.Join(err, w.st.PutRecord(d.ID, rec), w.st.PutPayload(d.ID, d.Payload)); err != nil {
		return Decision{}, fmt.Errorf("dedupfilter: %w", err)
	}
	if len(pl.links) > 0 {
		if dec.Merged, err = w.merge(d.ID, v, pl.links); err != nil {
			return Decision{}, err
		}
		if dec.Merged != nil {
			if rec, err = w.record(d.ID); err != nil {
				return Decision{}, err
			}
			dec.Cluster = rec.Cluster
			if dec.Representative, err = w.representative(rec.Cluster); err != nil {
				return Decision{}, err
			}
		}
	}
	dec.Action = Skip
	if rec.Indexed {
		dec.Action = Index
		w.op(Op{Kind: OpIndex, ID: d.ID, Cluster: rec.Cluster, Payload: d.Payload})
		if same && rec.Cluster == before.Cluster {
			w.dropOp(d.ID) // and the delete of its leaving, if it left and came back
			if err := w.inIndexAlready(d.ID); err != nil {
				return Decision{}, err
			}
		}
	}
	if ao.also != nil {
		if err := ao.also(w.st.Local()); err != nil {
			return Decision{}, err
		}
	}
	if dec.Ops, err = w.commit(); err != nil {
		return Decision{}, err
	}
	f.df.commit()
	if !batch || old != nil {
		f.gen++ // (a re-added document unposted its old version)
	}
	if f.adds != nil {
		f.adds[d.ID] = true
	}
	return dec, nil
}

// Delete removes a document and repairs its cluster: when it was the
// representative, the earliest remaining member (Replace: the one Keep
// prefers) takes its place and, unless the policy is Mark, is returned in
// Ops for indexing with its payload. ErrNotFound if id is not stored.
func (f *Filter) Delete(id string) (DeleteResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return DeleteResult{}, fmt.Errorf("dedupfilter: delete %q: %w", id, err)
	}
	w, err := f.begin()
	if err != nil {
		return DeleteResult{}, err
	}
	defer w.st.Discard()
	rec, err := w.record(id)
	if err != nil {
		return DeleteResult{}, err
	}
	res := DeleteResult{ID: id, Cluster: rec.Cluster, Seq: w.seq}
	if err := f.df.stage(w.st, rec, nil); err != nil {
		return DeleteResult{}, err
	}
	if err := w.unpost(rec); err != nil {
		return DeleteResult{}, err
	}
	if res.Representative, err = w.leave(id, rec); err != nil {
		return DeleteResult{}, err
	}
	if err := errors.Join(w.st.DeleteRecord(id), w.st.DeleteSignature(rec.Seq), w.st.DeletePayload(id)); err != nil {
		return DeleteResult{}, fmt.Errorf("dedupfilter: delete %q: %w", id, err)
	}
	w.op(Op{Kind: OpDelete, ID: id})
	if res.Ops, err = w.commit(); err != nil {
		return DeleteResult{}, err
	}
	f.df.commit()
	f.gen++
	return res, nil
}
