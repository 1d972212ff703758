package dedupfilter

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

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
	// Cluster is the document's cluster id; stable once assigned.
	Cluster string
	// Representative is the cluster's representative after the Add.
	Representative string
	// Measure and Similarity: the measure that decided and its value.
	Measure    similarity.Measure
	Similarity float64
	// Verdict is the full comparison with Of (zero when not a duplicate).
	Verdict similarity.Verdict
	// Candidates is how many stored documents were verified.
	Candidates int
	// Action for this document. Ops are everything the search index must
	// do, this document included: under Replace the old representative is
	// deleted; re-adding a representative may promote another document.
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
// Backend): the embedded store (Open, or New over package embedded's
// Store) or a shared one (New over package rediscluster's Store). Its
// methods are safe for concurrent use.
type Filter struct {
	backend store.Backend
	opts    Options
	df      *docFreq // Options.BooleanStopShare's document frequencies, or nil

	mu     sync.Mutex // serialises decide+write sections
	closed bool
	// readAhead are the documents whose posting lists Prefetch read in the
	// running Exclusive call: their adds need not look for them again.
	readAhead map[*Prepared]bool
	hits      map[uint64]int // ranked's scratch space (scratchHits)
}

// scratchHits returns ranked's scratch map, made on first use; the caller
// holds the Filter's lock.
func (f *Filter) scratchHits() map[uint64]int {
	if f.hits == nil {
		f.hits = map[uint64]int{}
	}
	return f.hits
}

// Open opens (creating if needed) an embedded store in dir, with its
// posting table in memory (package embedded's defaults; "" keeps the
// whole store in memory), and returns a filter over it.
func Open(dir string, opts Options) (*Filter, error) {
	b, err := embedded.Open(embedded.DefaultOptions(dir))
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	f, err := New(b, opts)
	if err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return f, nil
}

// New returns a filter keeping its state in b, which Close closes.
func New(b store.Backend, opts Options) (*Filter, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.BooleanStopShare > 0 && b.Shared() {
		return nil, fmt.Errorf("dedupfilter: BooleanStopShare %v: document frequencies are counted in one process, and this store is shared: %w", opts.BooleanStopShare, ErrInvalidOptions)
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
	return &Filter{backend: b, opts: opts, df: df}, nil
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

// Exclusive runs fn, which adds or deletes several documents, holding the
// right to decide for all of them: with a store shared by several
// processes (NewRedis), other processes wait until fn returns, and the
// documents cost one lease instead of one each. With an embedded store it
// just runs fn. fn must not call Exclusive.
func (f *Filter) Exclusive(fn func() error) error {
	defer func() {
		f.mu.Lock()
		f.readAhead = nil
		f.mu.Unlock()
	}()
	return f.backend.Exclusive(fn)
}

// Prefetch reads ahead, in four round trips, what adding ps in this order
// will read from a store shared by several processes: their records and
// posting lists; the signatures of their candidates; the records of the
// likeliest ones and their clusters' representatives. Call it inside
// Exclusive, before the adds: the lease keeps what it read current until
// fn returns, and the adds see each other's writes over it. Elsewhere,
// and with an embedded store, it does nothing.
func (f *Filter) Prefetch(ps []*Prepared) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.backend.InSession() {
		return nil
	}
	st := f.backend.Begin()
	defer st.Discard()
	var rd store.Reads
	for _, p := range ps {
		rd.IDs = append(rd.IDs, p.doc.ID)
		rd.Keys = append(rd.Keys, p.lookup...)
	}
	if err := st.Prefetch(rd); err != nil {
		return fmt.Errorf("dedupfilter: prefetch: %w", err)
	}
	if f.readAhead == nil {
		f.readAhead = make(map[*Prepared]bool, len(ps))
	}
	for _, p := range ps {
		f.readAhead[p] = true
	}
	// Each document's candidates, as its decision will rank them.
	cands := make([][]cand, len(ps))
	rd = store.Reads{}
	for i, p := range ps {
		skip := map[uint64]bool{}
		if old, err := st.Record(p.doc.ID, false); err == nil {
			skip[old.Seq] = true
		}
		lists, err := st.Postings(p.lookup)
		if err != nil {
			return fmt.Errorf("dedupfilter: prefetch: %w", err)
		}
		cands[i] = ranked(lists, skip, 0, f.opts, f.scratchHits()) // (ungated: the gate reads its own)
		for n, c := range cands[i] {
			if n == f.opts.MaxCandidates {
				break
			}
			rd.Seqs = append(rd.Seqs, c.seq)
		}
	}
	if err := st.Prefetch(rd); err != nil {
		return fmt.Errorf("dedupfilter: prefetch: %w", err)
	}
	// A duplicate's decision reads its match's record and cluster: the
	// match is most often among the first candidates.
	rd = store.Reads{}
	for _, cs := range cands {
		for _, c := range cs[:min(len(cs), firstReads)] {
			if id, _, err := readSignature(st, c.seq); err == nil {
				rd.IDs = append(rd.IDs, id)
			}
		}
	}
	if err := st.Prefetch(rd); err != nil {
		return fmt.Errorf("dedupfilter: prefetch: %w", err)
	}
	clusters := map[string]bool{}
	for _, id := range rd.IDs {
		if rec, err := st.Record(id, false); err == nil && !clusters[rec.Cluster] {
			clusters[rec.Cluster] = true
		}
	}
	rd = store.Reads{Clusters: slices.Collect(maps.Keys(clusters))}
	if err := st.Prefetch(rd); err != nil {
		return fmt.Errorf("dedupfilter: prefetch: %w", err)
	}
	return nil
}

// Options returns the options the filter was opened with.
func (f *Filter) Options() Options { return f.opts }

// Close closes the filter, and the store if Open opened it. Later calls
// return ErrClosed.
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("dedupfilter: close: %w", ErrClosed)
	}
	f.closed = true
	if err := f.backend.Close(); err != nil {
		return fmt.Errorf("dedupfilter: close: %w", err)
	}
	return nil
}

func (d *Doc) validate(o Options) error {
	switch {
	case d.ID == "":
		return fmt.Errorf("dedupfilter: empty id: %w", ErrInvalidDocument)
	case d.Features == nil:
		return fmt.Errorf("dedupfilter: %q: nil features: %w", d.ID, ErrInvalidDocument)
	case len(d.Features.MinHash) != 0 && len(d.Features.MinHash) != o.Bands*o.Rows:
		return fmt.Errorf("dedupfilter: %q: MinHash has %d values, Bands*Rows is %d: %w",
			d.ID, len(d.Features.MinHash), o.Bands*o.Rows, ErrInvalidDocument)
	}
	return nil
}

// Prepared is a document ready for AddPrepared: validated, its signature
// computed and encoded, its posting keys hashed.
type Prepared struct {
	doc    Doc
	sig    similarity.Signature
	own    [][]byte
	lookup [][]byte
}

// Prepare does the part of Add that needs no lock. It is safe for
// concurrent use, so a caller that must add documents in a fixed order
// can prepare them in parallel and then add them in order. The Prepared
// keeps references to d's Features and Payload until it is added.
func (f *Filter) Prepare(d Doc) (*Prepared, error) {
	if err := d.validate(f.opts); err != nil {
		return nil, err
	}
	p := &Prepared{doc: d, sig: similarity.Of(d.Features, d.URL, f.opts.Options).WithPieceSample(f.opts.PiecesPerDoc)}
	p.own = f.opts.postingKeys(p.sig, d.Features.Terms)
	p.lookup = f.opts.restrictLookup(f.opts.lookupKeys(d.Features.Structure, p.own))
	return p, nil
}

// Add decides whether d duplicates a stored document, records it and its
// cluster, and returns what the search index must do. Candidate search,
// verification and the write run under one lock and one transaction, so
// concurrent Adds cluster as some serial order would. The Ops are also
// recorded as pending (see Pending). Add is Prepare then AddPrepared.
func (f *Filter) Add(d Doc) (Decision, error) {
	p, err := f.Prepare(d)
	if err != nil {
		return Decision{}, err
	}
	return f.AddPrepared(p)
}

// AddPrepared is Add for a document from Prepare. A zero Doc.Time becomes
// the time of this call.
func (f *Filter) AddPrepared(p *Prepared) (Decision, error) {
	return f.AddPreparedWith(p, AddOptions{})
}

// AddOptions adjust one AddPreparedWith.
type AddOptions struct {
	// Also runs in the transaction that records the decision, so that
	// writes of the caller's own (under the namespaces package store's
	// key schema gives it) commit with it or not at all. An error from it
	// fails the Add.
	Also func(store.KV) error
	// Fresh decides a stored document as if it were new: it leaves its
	// cluster (which is repaired as on Delete) before it is placed, even
	// when it still matches inside it.
	Fresh bool
	// Exclude are stored documents that are not candidates for this one.
	// Re-deciding a cluster member by member, fresh, with the members not
	// yet redone excluded, decides each as if the cluster had been taken
	// apart first, without a moment where a member is not stored.
	Exclude []string
}

// AddPreparedWith is AddPrepared with options.
func (f *Filter) AddPreparedWith(p *Prepared, ao AddOptions) (Decision, error) {
	d := p.doc
	if d.Time.IsZero() {
		d.Time = time.Now()
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return Decision{}, fmt.Errorf("dedupfilter: add %q: %w", d.ID, err)
	}
	w, err := f.begin()
	if err != nil {
		return Decision{}, err
	}
	defer w.st.Discard()

	dec := Decision{ID: d.ID, Seq: w.seq}
	rd := store.Reads{IDs: append([]string{d.ID}, ao.Exclude...), Keys: p.lookup}
	if f.readAhead[p] {
		rd.Keys = nil // (read: looking for them again cost a fifth of a decision on Redis)
	}
	if err := w.st.Prefetch(rd); err != nil {
		return Decision{}, fmt.Errorf("dedupfilter: %w", err)
	}
	old, err := w.record(d.ID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Decision{}, err
	}
	// Not candidates: the stored version of d, and the excluded.
	skip := make(map[uint64]bool, 1+len(ao.Exclude))
	if old != nil {
		skip[old.Seq] = true
	}
	for _, x := range ao.Exclude {
		xr, err := w.record(x)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Decision{}, err
		}
		if xr != nil {
			skip[xr.Seq] = true
		}
	}
	if err := f.df.stage(w.st, old, &p.sig); err != nil {
		return Decision{}, err
	}
	match, v, n, err := w.bestMatch(skip, p.sig, p.lookup)
	if err != nil {
		return Decision{}, err
	}
	dec.Candidates = n
	var matchRec *store.Record
	if match != "" {
		if matchRec, err = w.record(match); err != nil {
			return Decision{}, err
		}
		dec.Duplicate, dec.Of, dec.Verdict = true, match, v
		dec.Measure, dec.Similarity = v.Measure, v.Similarity
	} else {
		dec.Measure = f.opts.Measure
	}
	rec := &store.Record{Seq: w.seq, Time: d.Time.UTC(), Runes: d.Features.Runes, URL: d.URL, Title: d.Title, Hash: d.Hash}
	if err := w.place(d.ID, rec, old, matchRec, ao.Fresh); err != nil {
		return Decision{}, err
	}
	dec.Cluster = rec.Cluster
	if dec.Representative, err = w.representative(rec.Cluster); err != nil {
		return Decision{}, err
	}
	if rec.Keys, err = w.post(w.seq, p.own); err != nil {
		return Decision{}, err
	}
	err = errors.Join(
		w.st.PutRecord(d.ID, rec),
		w.st.PutSignature(w.seq, p.sig.Encode(d.ID)),
		w.st.PutPayload(d.ID, d.Payload),
		w.st.AddMember(rec.Cluster, d.ID))
	if err != nil {
		return Decision{}, fmt.Errorf("dedupfilter: %w", err)
	}
	dec.Action = Skip
	if rec.Indexed {
		dec.Action = Index
		w.op(Op{Kind: OpIndex, ID: d.ID, Cluster: rec.Cluster, Payload: d.Payload})
	}
	if ao.Also != nil {
		if err := ao.Also(w.st.Local()); err != nil {
			return Decision{}, err
		}
	}
	if dec.Ops, err = w.commit(); err != nil {
		return Decision{}, err
	}
	f.df.commit()
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
	return res, nil
}
