package dedupfilter

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/parallel"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Planning: the part of a decision that reads and compares, worked out
// for a batch of documents before their decisions are made, outside any
// section only one decision may enter and on every core: which stored
// document each one duplicates (candidates from the posting lists,
// verified). What is left to the decision itself — placing the document
// in its cluster and writing it — is short.
//
// On a store shared by several processes (store.Sequencer) the batch is
// first posted, then numbered, and each document is planned against the
// documents numbered before it, as the store's package doc argues; a
// match another process has not decided yet is worked out here from what
// it posted, the same way (decisions are a function of what was numbered
// before them), so no process waits for another. On an embedded store the
// batch is planned against what the store holds and the batch's earlier
// documents, as deciding them one at a time would see them; a decision
// made meanwhile by another path (a delete, a re-decision, a re-added
// document, which unposts its old version) invalidates the plans not yet
// used, and their documents are decided the serial way.

// plan is a document's decision as planning worked it out.
type plan struct {
	seq, rank uint64 // Sequencer: the numbers it was posted and ranked under
	gen       uint64 // embedded: the filter's generation it was made in
	old       *store.Record
	match     string // the id of the document it duplicates; "" for none
	links     []link
	verdict   similarity.Verdict
	cands     int
	// Sequencer: the match's cluster, and the cluster's founder (it has
	// no hash while its founder is alone in it).
	cluster string
	founder *store.Member
}

// page is a document being planned: its own, or, on a shared store,
// another process' that one of its own matches and that is not decided
// yet.
type page struct {
	id        string
	seq, rank uint64
	time      time.Time
	sig       similarity.Signature
	lookup    [][]byte
	skip      map[uint64]bool
	// Found: the candidates verified, and the match (its sequence number,
	// 0 for none).
	cands   int
	match   uint64
	verdict similarity.Verdict
	// links are further verified candidates, one for each other cluster
	// it duplicates (embedded store: see Filter.merge), by sequence
	// number.
	links []link
}

// link is a verified candidate in another cluster than the match's (see
// mutation.merge): its id (while planning, its sequence number), and
// whether it and the page are near-copies, each holding Options.CoverMin
// of the other's terms.
type link struct {
	id   string
	seq  uint64
	near bool
}

// planned holds what a planning read: stored signatures by sequence
// number, and ranks.
type planned struct {
	f     *Filter
	st    store.Txn
	sigs  map[uint64]*stored // nil: not stored (withdrawn, deleted)
	ranks map[uint64]uint64
	hits  map[uint64]int // ranked's scratch space; nil: a new one a call
	// clusterOf: the clusters of stored candidates, when pages link
	// every cluster they duplicate (embedded store); nil: a page's first
	// match ends its verification.
	clusterOf map[uint64]string
}

func newPlanned(f *Filter, st store.Txn) *planned {
	return &planned{f: f, st: st, sigs: map[uint64]*stored{}, ranks: map[uint64]uint64{}}
}

// locked is newPlanned for a caller holding f.mu: ranked's scratch map
// is the filter's.
func locked(f *Filter, st store.Txn) *planned {
	pl := newPlanned(f, st)
	if f.hits == nil {
		f.hits = map[uint64]int{}
	}
	pl.hits = f.hits
	return pl
}

// signatures reads the stored signatures of seqs not read yet, in one
// round trip.
func (pl *planned) signatures(seqs []uint64) error {
	var missing []uint64
	for _, s := range seqs {
		if _, ok := pl.sigs[s]; !ok {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := pl.st.Prefetch(store.Reads{Seqs: missing}); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	for _, s := range missing {
		st, err := readStored(pl.st, s)
		switch {
		case errors.Is(err, ErrNotFound):
			pl.sigs[s] = nil
		case err != nil:
			return fmt.Errorf("dedupfilter: %w", err)
		default:
			pl.sigs[s] = &st
		}
	}
	return nil
}

// verify verifies each page's candidates, in order, on every core; the
// first duplicate is its match: a candidate sharing more lists is the
// likelier copy. With pl.clusterOf, the candidates after a match are
// verified for links too (the first duplicate in each other cluster; see
// linker), reading their clusters first; a candidate in a cluster linked
// already is not verified, so a popular cluster does not cost
// MaxCandidates verifications per page. cands[i] are page i's
// candidates, whose signatures are read.
func (pl *planned) verify(pages []*page, cands [][]cand) error {
	o := pl.f.opts.Options
	after := make([]int, len(pages)) // where a page's candidates after its match start
	parallel.Each(len(pages), func(k int) {
		p := pages[k]
		p.cands = len(cands[k])
		for n, c := range cands[k] {
			cs := pl.sigs[c.seq]
			if cs == nil {
				continue // withdrawn or deleted since it was posted
			}
			if v := similarity.Verify(p.sig, cs.sig, o); v.Duplicate {
				v.TermSample = similarity.TermSample(p.sig, cs.sig, o)
				p.match, p.verdict, p.cands, after[k] = c.seq, v, n+1, n+1
				break
			}
		}
	})
	if pl.clusterOf == nil {
		return nil
	}
	var seqs []uint64
	for k, p := range pages {
		if p.match != 0 && after[k] < len(cands[k]) {
			seqs = append(seqs, p.match)
			for _, c := range cands[k][after[k]:] {
				seqs = append(seqs, c.seq)
			}
		}
	}
	if err := pl.readClusters(seqs); err != nil {
		return err
	}
	parallel.Each(len(pages), func(k int) {
		p := pages[k]
		if p.match == 0 {
			return
		}
		var l linker
		cluster, known := pl.clusterOf[p.match]
		l.link(cluster, known)
		for _, c := range cands[k][after[k]:] {
			cs := pl.sigs[c.seq]
			cluster, known := pl.clusterOf[c.seq]
			if cs == nil || l.linked(cluster, known) {
				continue
			}
			if v := similarity.Verify(p.sig, cs.sig, o); v.Duplicate {
				l.link(cluster, known)
				p.links = append(p.links, link{seq: c.seq, near: min(v.InB, v.InA) >= pl.f.opts.CoverMin})
			}
		}
	})
	return nil
}

// linker remembers the clusters of a document's verified candidates. A
// document verified against several clusters joins them (Filter.merge):
// without it a copy of copies that matches a copy split off its cluster
// and a copy inside it joins only the first, and the split stays. The
// cluster of a candidate decided in the same batch is not known while
// planning: it counts as a cluster of its own, and the decision reads it.
type linker struct{ clusters []string }

// linked reports whether a verified candidate is in cluster already.
func (l *linker) linked(cluster string, known bool) bool {
	return known && slices.Contains(l.clusters, cluster)
}

func (l *linker) link(cluster string, known bool) {
	if known {
		l.clusters = append(l.clusters, cluster)
	}
}

// planShared plans ps on a shared store: posts and numbers them, and
// works out each one's match and the match's cluster. exclude are ids
// that are no candidates of ps[0] (a re-decision's).
func (f *Filter) planShared(sq store.Sequencer, ps []*prepared, exclude []string) ([]*plan, error) {
	var plans []*plan
	err := f.backend.Read(func(st store.Txn) error {
		pl := locked(f, st)
		var err error
		plans, err = pl.batch(sq, ps, exclude)
		return err
	})
	return plans, err
}

func (pl *planned) batch(sq store.Sequencer, ps []*prepared, exclude []string) ([]*plan, error) {
	f, st := pl.f, pl.st
	ids := make([]string, 0, len(ps)+len(exclude))
	for _, p := range ps {
		ids = append(ids, p.doc.ID)
	}
	ids = append(ids, exclude...)
	if err := st.Prefetch(store.Reads{IDs: ids}); err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	olds := make([]*store.Record, len(ps))
	skip := map[uint64]bool{}
	for i, id := range ids {
		rec, err := st.Record(id, false)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		if i < len(ps) {
			olds[i] = rec
		} else {
			skip[rec.Seq] = true
		}
	}
	sigs, keys := make([][]byte, len(ps)), make([][][]byte, len(ps))
	for i, p := range ps {
		if p.doc.Time.IsZero() {
			p.doc.Time = time.Now()
		}
		sigs[i], keys[i] = encodeSignature(p.doc.ID, p.doc.Time, p.sig), p.own
	}
	// Posted before numbered: a page numbered after these sees their
	// postings (see package rediscluster).
	first, err := sq.Post(sigs, keys, 2*f.opts.MaxPostings)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	rank, err := sq.Number(first, len(ps))
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err) // (not numbered: not seen)
	}
	pages := make([]*page, len(ps))
	plans := make([]*plan, len(ps))
	for i, p := range ps {
		seq := first + uint64(i)
		pg := &page{id: p.doc.ID, seq: seq, rank: rank + uint64(i), time: p.doc.Time, sig: p.sig, lookup: p.lookup, skip: map[uint64]bool{seq: true}}
		if olds[i] != nil {
			pg.skip[olds[i].Seq] = true
		}
		if i == 0 {
			for s := range skip {
				pg.skip[s] = true
			}
		}
		pages[i] = pg
		plans[i] = &plan{seq: seq, rank: pg.rank, old: olds[i]}
		pl.sigs[seq] = &stored{id: p.doc.ID, time: p.doc.Time, sig: p.sig}
		pl.ranks[seq] = pg.rank
	}
	// Numbered, the pages stay even if planning fails: a repeated run
	// decides them (see exclusive).
	if err := pl.matches(sq, pages); err != nil {
		return nil, err
	}
	clusters, err := pl.clusters(sq, pages)
	if err != nil {
		return nil, err
	}
	for i, pg := range pages {
		p := plans[i]
		p.cands, p.verdict = pg.cands, pg.verdict
		if pg.match != 0 {
			p.match = pl.sigs[pg.match].id
			c := clusters[pg.match]
			p.cluster, p.founder = c.cluster, c.founder
		}
	}
	return plans, nil
}

// matches finds each page's match among the pages ranked below it.
func (pl *planned) matches(sq store.Sequencer, pages []*page) error {
	var keys [][]byte
	index := map[string]int{}
	for _, p := range pages {
		for _, k := range p.lookup {
			if _, ok := index[string(k)]; !ok {
				index[string(k)] = len(keys)
				keys = append(keys, k)
			}
		}
	}
	lists, err := sq.RankedPostings(keys)
	if err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	for _, l := range lists {
		for j, s := range l.Seqs {
			if l.Ranks[j] != 0 {
				pl.ranks[s] = l.Ranks[j]
			}
		}
	}
	return pl.candidatesAndVerify(pages, func(p *page) []store.PostingList {
		// The lists as p's rank sees them: the pages numbered before it.
		ls := make([]store.PostingList, len(p.lookup))
		for j, k := range p.lookup {
			l := lists[index[string(k)]]
			var seqs []uint64
			for n, s := range l.Seqs {
				if r := l.Ranks[n]; r != 0 && r < p.rank {
					seqs = append(seqs, s)
				}
			}
			ls[j] = store.PostingList{Seqs: seqs, Full: l.Full}
		}
		return ls
	})
}

// candidates ranks each page's candidates among the documents numbered
// below before (0: all) in the lists listsOf gives, reads their
// signatures and gates them (StructureGate).
func (pl *planned) candidates(pages []*page, before uint64, listsOf func(*page) []store.PostingList) ([][]cand, error) {
	o := pl.f.opts
	cands := make([][]cand, len(pages))
	var need []uint64
	hits := pl.hits
	if hits == nil {
		hits = map[uint64]int{}
	}
	for i, p := range pages {
		cands[i] = ranked(listsOf(p), p.skip, before, o, hits)
		for _, c := range cands[i] {
			need = append(need, c.seq)
		}
	}
	if err := pl.signatures(need); err != nil {
		return nil, err
	}
	if o.StructureGate >= 0 {
		for i, p := range pages {
			cands[i] = pl.gate(cands[i], p.sig)
		}
	}
	return cands, nil
}

// candidatesAndVerify finds each page's candidates and verifies them.
func (pl *planned) candidatesAndVerify(pages []*page, listsOf func(*page) []store.PostingList) error {
	cands, err := pl.candidates(pages, 0, listsOf)
	if err != nil {
		return err
	}
	return pl.verify(pages, cands)
}

// readClusters reads the clusters of the stored documents numbered seqs
// into pl.clusterOf (an embedded store's: no round trips to save).
func (pl *planned) readClusters(seqs []uint64) error {
	for _, s := range seqs {
		st := pl.sigs[s]
		if _, ok := pl.clusterOf[s]; ok || s >= batchBase || st == nil {
			continue
		}
		rec, err := pl.st.Record(st.id, false)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		if err == nil && rec.Seq == s {
			pl.clusterOf[s] = rec.Cluster
		}
	}
	return nil
}

// gate keeps the candidates whose structure cell lies within
// StructureGate of sig's in every coordinate (the feature-string paper,
// §3.2: a new feature string is compared only with those in its
// neighbourhood of the 3-D hash), at most MaxCandidates.
func (pl *planned) gate(cands []cand, sig similarity.Signature) []cand {
	r, most := pl.f.opts.StructureGate, pl.f.opts.MaxCandidates
	var kept []cand
	for _, c := range cands {
		if len(kept) == most {
			break
		}
		if cs := pl.sigs[c.seq]; cs != nil && sameCell(sig.Structure(), cs.sig.Structure(), r) {
			kept = append(kept, c)
		}
	}
	return kept
}

// resolved is the cluster a page is in, or will be in once decided, and
// that cluster's founder.
type resolved struct {
	cluster string
	founder *store.Member
}

// member is the page numbered seq as a cluster weighs it.
func (pl *planned) member(seq uint64) *store.Member {
	s := pl.sigs[seq]
	if s == nil {
		return nil
	}
	return &store.Member{ID: s.id, Seq: seq, Time: s.time, Runes: s.sig.Runes()}
}

// clusters resolves the cluster of each page's match: a page of the batch
// is in the cluster its plan puts it in; a page another process decided
// is in its record's; a page another process has not decided yet is
// planned here, and so on down (each step to a lower rank, so it ends).
func (pl *planned) clusters(sq store.Sequencer, pages []*page) (map[uint64]resolved, error) {
	res := map[uint64]resolved{}
	own := map[uint64]bool{}
	for _, p := range pages {
		own[p.seq] = true
	}
	var helped []*page
	var pending []uint64
	queued := map[uint64]bool{}
	queue := func(m uint64) {
		if m != 0 && !own[m] && !queued[m] {
			queued[m] = true
			pending = append(pending, m)
		}
	}
	for _, p := range pages {
		queue(p.match)
	}
	for len(pending) > 0 {
		ids := make([]string, len(pending))
		for i, m := range pending {
			ids[i] = pl.sigs[m].id
		}
		if err := pl.st.Prefetch(store.Reads{IDs: ids}); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		var undecided []*page
		for i, m := range pending {
			rec, err := pl.st.Record(ids[i], false)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return nil, fmt.Errorf("dedupfilter: %w", err)
			}
			if err == nil && rec.Seq >= m {
				// Decided (or replaced since by a later version, whose
				// cluster stands for it).
				res[m] = resolved{cluster: rec.Cluster}
				continue
			}
			s := pl.sigs[m]
			own := pl.f.opts.postingKeys(s.sig, nil)
			undecided = append(undecided, &page{id: s.id, seq: m, rank: pl.ranks[m], time: s.time, sig: s.sig,
				lookup: pl.f.opts.restrictLookup(pl.f.opts.lookupKeys(s.sig.Structure(), own)), skip: map[uint64]bool{m: true}})
		}
		pending = pending[:0]
		if len(undecided) == 0 {
			break
		}
		if err := pl.matches(sq, undecided); err != nil {
			return nil, err
		}
		for _, h := range undecided {
			queue(h.match)
		}
		helped = append(helped, undecided...)
	}
	// Down from the lowest rank: a page's match ranks below it.
	slices.SortFunc(helped, func(a, b *page) int { return cmp.Compare(a.rank, b.rank) })
	for _, p := range append(helped, pages...) {
		if p.match != 0 {
			res[p.seq] = res[p.match]
		} else {
			res[p.seq] = resolved{cluster: store.ClusterID(p.seq), founder: pl.member(p.seq)}
		}
	}
	// The founders of the clusters read from records: the page numbered
	// as the cluster.
	var founders []uint64
	for _, r := range res {
		if r.founder == nil {
			if n, err := store.ParseClusterID(r.cluster); err == nil {
				founders = append(founders, n)
			}
		}
	}
	if err := pl.signatures(founders); err != nil {
		return nil, err
	}
	for seq, r := range res {
		if r.founder == nil {
			if n, err := store.ParseClusterID(r.cluster); err == nil {
				r.founder = pl.member(n)
				res[seq] = r
			}
		}
	}
	return res, nil
}

// postingKey is a store.PostingKey as a map key.
type postingKey [store.PostingKeyLen]byte

func postingKeyOf(k []byte) (pk postingKey) {
	copy(pk[:], k)
	return pk
}

// batchKeys is planLocal's scratch space, kept between batches: a batch
// of 1,000 pages meets some 40,000 posting keys, whose maps cost as much
// to allocate and clear as to fill. Keys are arrays, not strings: a
// string key is an allocation each.
type batchKeys struct {
	own   map[postingKey][]uint64 // batch documents posting to a key
	index map[postingKey]int      // a key's place in keys
	keys  [][]byte
}

var batchKeysPool = sync.Pool{New: func() any {
	return &batchKeys{own: map[postingKey][]uint64{}, index: map[postingKey]int{}}
}}

// release empties b and returns it to the pool.
func (b *batchKeys) release() {
	clear(b.own)
	clear(b.index)
	clear(b.keys) // the keys are the documents': let them go
	b.keys = b.keys[:0]
	batchKeysPool.Put(b)
}

// batchBase numbers the documents of a batch planned on an embedded
// store, above every stored one.
const batchBase = 1 << 62

// planLocal plans ps on an embedded store: against what it holds and the
// batch's earlier documents, given numbers above every stored one in
// batch order. exclude are ids that are no candidates of ps[0] (a
// re-decision's).
func (f *Filter) planLocal(ps []*prepared, exclude []string) ([]*plan, error) {
	plans := make([]*plan, len(ps))
	err := f.backend.Read(func(st store.Txn) error {
		pl := locked(f, st)
		pl.clusterOf = map[uint64]string{}
		pages := make([]*page, len(ps))
		sc := batchKeysPool.Get().(*batchKeys)
		defer sc.release()
		own, index, keys := sc.own, sc.index, sc.keys
		for i, p := range ps {
			seq := batchBase + uint64(i)
			pg := &page{id: p.doc.ID, seq: seq, sig: p.sig, lookup: p.lookup, skip: map[uint64]bool{}}
			old, err := st.Record(p.doc.ID, false)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			if old != nil {
				pg.skip[old.Seq] = true
			}
			pages[i], plans[i] = pg, &plan{gen: f.gen, old: old}
			pl.sigs[seq] = &stored{id: p.doc.ID, sig: p.sig}
			for _, k := range p.own {
				pk := postingKeyOf(k)
				own[pk] = append(own[pk], seq)
			}
			for _, k := range p.lookup {
				pk := postingKeyOf(k)
				if _, ok := index[pk]; !ok {
					index[pk] = len(keys)
					keys = append(keys, k)
				}
			}
		}
		for _, x := range exclude {
			rec, err := st.Record(x, false)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			if rec != nil {
				pages[0].skip[rec.Seq] = true
			}
		}
		sc.keys = keys
		lists, err := st.Postings(keys)
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		err = pl.candidatesAndVerify(pages, func(p *page) []store.PostingList {
			ls := make([]store.PostingList, len(p.lookup))
			for j, k := range p.lookup {
				pk := postingKeyOf(k)
				l := lists[index[pk]]
				// The batch's earlier documents posting to k (own holds
				// them in batch order), added to a copy of the stored
				// list in one allocation: the list is shared by every
				// page of the batch meeting k.
				mates := own[pk]
				n, _ := slices.BinarySearch(mates, p.seq)
				if n > 0 && !l.Full {
					l.Seqs = append(append(make([]uint64, 0, len(l.Seqs)+n), l.Seqs...), mates[:n]...)
				}
				ls[j] = l
			}
			return ls
		})
		if err != nil {
			return err
		}
		for i, pg := range pages {
			p := plans[i]
			p.cands, p.verdict = pg.cands, pg.verdict
			if pg.match != 0 {
				p.match = pl.sigs[pg.match].id
			}
			for _, l := range pg.links {
				l.id = pl.sigs[l.seq].id
				p.links = append(p.links, l)
			}
		}
		return nil
	})
	return plans, err
}
