package dedupfilter

import (
	"errors"
	"fmt"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// mutation is one Add or Delete: a state to read and write, plus the
// search index operations it implies, at most one per document (the last
// wins).
type mutation struct {
	f     *Filter
	st    store.Txn
	seq   uint64
	rep   string // the cluster's representative, as joining it said
	ops   []Op
	lists map[postingKey]*cachedList // read or changed by this mutation
}

// cachedList is a posting list as the mutation sees it, and the document
// numbers the mutation added and removed; changed lists are written at
// commit.
type cachedList struct {
	store.PostingList
	added, removed []uint64
	dirty          bool
}

// begin starts a mutation; the caller holds the Filter's lock.
func (f *Filter) begin() (*mutation, error) {
	st := f.backend.Begin()
	seq, err := st.NextSeq()
	if err != nil {
		st.Discard()
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	return &mutation{f: f, st: st, seq: seq, lists: newLists()}, nil
}

// beginAt starts the mutation of a document posted as seq.
func (f *Filter) beginAt(seq uint64) *mutation {
	return &mutation{f: f, st: f.backend.Begin(), seq: seq, lists: newLists()}
}

// newLists returns a mutation's empty list cache, sized for a page's
// posting keys (some 40), so that it does not grow while a page is added.
func newLists() map[postingKey]*cachedList { return make(map[postingKey]*cachedList, 64) }

func (w *mutation) op(op Op) {
	op.Seq = w.seq
	for i := range w.ops {
		if w.ops[i].ID == op.ID {
			w.ops[i] = op
			return
		}
	}
	w.ops = append(w.ops, op)
}

// dropOp withdraws the mutation's op for id.
func (w *mutation) dropOp(id string) {
	w.ops = slices.DeleteFunc(w.ops, func(op Op) bool { return op.ID == id })
}

// commit writes the changed posting lists and records the ops as pending,
// then commits.
func (w *mutation) commit() ([]Op, error) {
	for k, l := range w.lists {
		if !l.dirty {
			continue
		}
		if err := w.st.PutPostings(k[:], l.PostingList, l.added, l.removed); err != nil {
			return nil, fmt.Errorf("dedupfilter: posting list: %w", err)
		}
	}
	if len(w.ops) > 0 {
		if err := w.st.SetPending(w.seq, encodePending(w.ops)); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
	}
	ip := w.f.inIndex
	if ip != nil {
		if err := w.handOver(ip); err != nil {
			return nil, err
		}
	}
	if err := w.st.Commit(); err != nil {
		if ip != nil {
			err = errors.Join(err, ip.j.confirm([]uint64{w.seq})) // (nothing to confirm: gone)
		}
		return nil, fmt.Errorf("dedupfilter: commit: %w", err)
	}
	return w.ops, nil
}

func (w *mutation) record(id string) (*store.Record, error) {
	rec, err := w.st.Record(id, true)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	return rec, nil
}

func (w *mutation) representative(cluster string) (string, error) {
	rep, err := w.st.Representative(cluster)
	if err != nil {
		return "", fmt.Errorf("dedupfilter: %w", err)
	}
	return rep, nil
}

func (w *mutation) putRecord(id string, rec *store.Record) error {
	if err := w.st.PutRecord(id, rec); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	return nil
}

// indexOp emits the op that puts stored document id into the search index
// in cluster, with its payload. A document whose payload this process
// does not hold is another process' (a shared store's), in that
// process' search index, which this one cannot write: no op.
func (w *mutation) indexOp(id, cluster string) error {
	payload, err := w.f.payload(w.st, id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dedupfilter: payload %q: %w", id, err)
	}
	w.op(Op{Kind: OpIndex, ID: id, Cluster: cluster, Payload: payload})
	return nil
}

// rule is the store's form of the policy and the Keep rule.
func (o Options) rule() store.Rule {
	return store.Rule{Mark: o.Policy == Mark, Replace: o.Policy == Replace, Longer: o.Keep == Longer}
}

// prefer reports whether a should represent a cluster rather than b under
// Replace's Keep rule.
func (o Options) prefer(a, b *store.Record) bool {
	return o.rule().Prefer(store.Member{Seq: a.Seq, Time: a.Time, Runes: a.Runes}, store.Member{Seq: b.Seq, Time: b.Time, Runes: b.Runes})
}

// place puts the document (rec, not yet written) in a cluster: its old
// one if it is re-added and stays (not when fresh, unless keep), else the
// match's cluster (created with founder as its representative if it does
// not exist yet, on a shared store) under rule, else a new one, numbered
// cluster when not 0.
func (w *mutation) place(id string, rec, old *store.Record, match string, founder *store.Member, rule store.Rule, cluster uint64, fresh, keep bool) error {
	if old != nil {
		// A re-added document keeps its cluster, and its role in it, when it
		// still matches inside it or has no match and is alone: re-indexing
		// unchanged content must not reshuffle clusters or their ids.
		stay, err := w.stays(id, old, match)
		if err != nil {
			return err
		}
		stay = keep || stay && !fresh
		if err := w.unpost(old); err != nil {
			return err
		}
		if err := w.st.DeleteSignature(old.Seq); err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		if stay {
			rec.Cluster, rec.Indexed = old.Cluster, old.Indexed
			return nil
		}
		if _, err := w.leave(id, old); err != nil {
			return err
		}
	}
	if match == "" {
		if cluster == 0 {
			var err error
			if cluster, err = w.st.NextCluster(); err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
		}
		match, founder = store.ClusterID(cluster), nil
	}
	return w.join(id, rec, match, founder, rule)
}

// join makes the document (rec, not yet written) a member of cluster
// under rule.
func (w *mutation) join(id string, rec *store.Record, cluster string, founder *store.Member, rule store.Rule) error {
	res, err := w.st.Join(cluster, store.Member{ID: id, Seq: rec.Seq, Time: rec.Time, Runes: rec.Runes}, founder, rule)
	if err != nil {
		return fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
	}
	rec.Cluster, rec.Indexed, w.rep = cluster, res.Indexed, res.Representative
	if res.Demoted != "" {
		w.op(Op{Kind: OpDelete, ID: res.Demoted})
	}
	return nil
}

// cover works out the rule under which a page with signature sig, a
// verified duplicate of match (verdict v, the page first), joins match's
// cluster, from how much of each other's whole text the page and the
// cluster's representative hold (Options.CoverMin; the text a site's
// template left out of the features counts): a page leaves the
// search index, or lets another take its place, only for a page that
// holds its text. A page holding the representative's text and more
// takes its place; a page that neither holds it nor is held by it
// stays in the index beside it.
func (w *mutation) cover(sig similarity.Signature, match string, v similarity.Verdict, cluster string, founder *store.Member) (store.Rule, error) {
	o := w.f.opts
	rule := o.rule()
	rep, err := w.st.Representative(cluster)
	if errors.Is(err, ErrNotFound) && founder != nil {
		rep, err = founder.ID, nil // (a shared store's cluster of its founder alone)
	}
	if errors.Is(err, ErrNotFound) && w.f.backend.Shared() {
		// A shared store's cluster gone since the page's batch read its
		// match in it (its last member left, and its founder is no longer
		// there to make it again from): the page joins it as its only
		// member (see store/rediscluster) and keeps its place in the index.
		rule.Mark = true
		return rule, nil
	}
	if err != nil {
		return rule, fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
	}
	in, holds, surely := v.WholeInB, v.WholeInA, v.SurelyInB
	if rep != match {
		var seq uint64
		if founder != nil && founder.ID == rep {
			seq = founder.Seq
		} else {
			rec, err := w.st.Record(rep, true)
			if errors.Is(err, ErrNotFound) {
				// On a shared store, a representative whose process joined it
				// to the cluster and has not written its record yet (it is
				// paused, or died): what it holds is not known here, so this
				// page keeps its place in the index (a lost page is worse than
				// a copy kept).
				rule.Mark = true
				return rule, nil
			}
			if err != nil {
				return rule, fmt.Errorf("dedupfilter: %w", err)
			}
			seq = rec.Seq
		}
		_, rs, err := readSignature(w.st, seq)
		if errors.Is(err, ErrNotFound) {
			// A shared store's representative being decided again by its
			// process (a new version posted, the old one's signature
			// withdrawn, its record not yet rewritten): as above.
			rule.Mark = true
			return rule, nil
		}
		if err != nil {
			return rule, fmt.Errorf("dedupfilter: representative %q: %w", rep, err)
		}
		in, holds, surely, _ = similarity.HeldWhole(sig, rs, o.Options)
	}
	covered, covers := in >= o.CoverMin, holds >= o.CoverMin
	switch {
	case covered && covers:
	case covered:
		rule.Replace = false // the representative has text of its own
	case covers:
		rule.Take = true
	default:
		rule.Mark = true
	}
	// The page leaves the search index only where the representative
	// surely holds its text: a small page's share in a large one is an
	// estimate from few of its terms.
	if covered && surely < o.CoverMin {
		rule.Mark = true
	}
	return rule, nil
}

// rehold puts back in the search index the members of cluster out of it
// whose text its new representative (id, signature sig) does not hold:
// they were left out for the one it took over from. Members another
// process indexed (a shared store's) are that process' to index.
func (w *mutation) rehold(cluster, id string, sig similarity.Signature) error {
	members, err := w.st.Members(cluster)
	if err != nil {
		return fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
	}
	held := w.holds(sig)
	for _, m := range members {
		if m == id {
			continue
		}
		r, err := w.st.Record(m, true)
		if errors.Is(err, ErrNotFound) {
			continue // a shared store's member not written yet: its process decides it
		}
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		if r.Indexed {
			continue
		}
		if _, err := w.st.Payload(m); errors.Is(err, ErrNotFound) {
			continue
		}
		h, err := held(r.Seq)
		if err != nil {
			return err
		}
		if !h {
			if err := w.setIndexed(m, r, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinedBeside reports whether cluster c, where id is, holds a member
// that is not this process' recorded page: on a shared store, another
// process' page (or one whose process has not recorded it yet) that
// joined it.
func (w *mutation) joinedBeside(id, c string) (bool, error) {
	members, err := w.st.Members(c)
	if err != nil {
		return false, fmt.Errorf("dedupfilter: cluster %s: %w", c, err)
	}
	if err := w.st.Prefetch(store.Reads{IDs: members}); err != nil {
		return false, fmt.Errorf("dedupfilter: %w", err)
	}
	for _, m := range members {
		if m == id {
			continue
		}
		if _, err := w.st.Record(m, false); errors.Is(err, ErrNotFound) {
			return true, nil
		} else if err != nil {
			return false, fmt.Errorf("dedupfilter: %w", err)
		}
		if local, err := w.st.HasPayload(m); err != nil {
			return false, fmt.Errorf("dedupfilter: %w", err)
		} else if !local {
			return true, nil
		}
	}
	return false, nil
}

// stays reports whether re-added id remains in its old cluster: its match
// is in it, or it has no match and is the only member.
func (w *mutation) stays(id string, old *store.Record, match string) (bool, error) {
	if match != "" {
		return match == old.Cluster, nil
	}
	members, err := w.st.Members(old.Cluster)
	return len(members) == 1 && members[0] == id, err
}

// leave removes id's membership and repairs its cluster. It returns the
// cluster's representative afterwards ("" when the cluster is gone). The
// document's postings, record, signature and payload are left to the
// caller.
func (w *mutation) leave(id string, rec *store.Record) (string, error) {
	res, err := w.st.Leave(rec.Cluster, id, w.f.opts.rule())
	if err != nil {
		return "", fmt.Errorf("dedupfilter: cluster %s: %w", rec.Cluster, err)
	}
	if rec.Indexed {
		w.op(Op{Kind: OpDelete, ID: id})
	}
	if res.Promoted != "" {
		if err := w.indexOp(res.Promoted, rec.Cluster); err != nil {
			return "", err
		}
		// The members left out for the one that left are left out for
		// the promoted one only if it holds their text. On a shared store
		// the promoted one may be another process' page that joined the
		// cluster and whose record (or, decided again, signature) that
		// process has not written yet: the members stay as they are.
		shared := w.f.backend.Shared()
		pr, err := w.st.Record(res.Promoted, true)
		if errors.Is(err, ErrNotFound) && shared {
			return res.Representative, nil
		}
		if err != nil {
			return "", fmt.Errorf("dedupfilter: %w", err)
		}
		_, sig, err := readSignature(w.st, pr.Seq)
		if errors.Is(err, ErrNotFound) && shared {
			return res.Representative, nil
		}
		if err != nil {
			return "", fmt.Errorf("dedupfilter: representative %q: %w", res.Promoted, err)
		}
		if err := w.rehold(rec.Cluster, res.Promoted, sig); err != nil {
			return "", err
		}
	}
	return res.Representative, nil
}

// cached returns the posting lists under keys, each read once per
// mutation (the ones not read yet in one call to the store).
func (w *mutation) cached(keys [][]byte) ([]*cachedList, error) {
	out := make([]*cachedList, len(keys))
	var missing [][]byte
	for i, k := range keys {
		if l, ok := w.lists[postingKeyOf(k)]; ok {
			out[i] = l
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		read, err := w.st.Postings(missing)
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		ls := make([]cachedList, len(missing)) // (one allocation, not one a list)
		for i, k := range missing {
			if pk := postingKeyOf(k); w.lists[pk] == nil { // a key may be listed twice
				ls[i].PostingList = read[i]
				w.lists[pk] = &ls[i]
			}
		}
		for i, k := range keys {
			out[i] = w.lists[postingKeyOf(k)]
		}
	}
	return out, nil
}

// post adds document seq to the lists under keys and returns the keys it
// was added under: a full list takes no more, and the document that would
// pass MaxPostings makes the list full (the boolean-model paper's
// automatic stop word: a feature most documents have tells none apart).
func (w *mutation) post(seq uint64, keys [][]byte) ([][]byte, error) {
	ls, err := w.cached(keys)
	if err != nil {
		return nil, err
	}
	posted := make([][]byte, 0, len(keys))
	added := make([]uint64, len(keys)) // the lists' added, mostly one seq each: one allocation
	for i, l := range ls {
		if l.Full || slices.Contains(l.Seqs, seq) {
			continue
		}
		l.dirty = true
		if len(l.Seqs) >= w.f.opts.MaxPostings {
			l.Full, l.Seqs = true, nil
			continue
		}
		l.Seqs = append(l.Seqs, seq) // the newest seq: the list stays sorted
		if l.added == nil {
			added[i] = seq
			l.added = added[i : i+1 : i+1]
		} else {
			l.added = append(l.added, seq)
		}
		posted = append(posted, keys[i])
	}
	return posted, nil
}

// unpost removes the document of rec from its posting lists: those its
// signature gives and the term lists its record names.
func (w *mutation) unpost(rec *store.Record) error {
	_, sig, err := readSignature(w.st, rec.Seq)
	if errors.Is(err, ErrNotFound) {
		return nil // withdrawn: in lists, but no candidate
	}
	if err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	ls, err := w.cached(w.f.opts.keysOf(rec, sig))
	if err != nil {
		return err
	}
	for _, l := range ls {
		if i, ok := slices.BinarySearch(l.Seqs, rec.Seq); ok && !l.Full {
			l.Seqs = slices.Delete(l.Seqs, i, i+1)
			l.removed = append(l.removed, rec.Seq)
			l.dirty = true
		}
	}
	return nil
}

// merge joins the clusters of links, stored documents that document id
// (verdict v against its match) duplicates, with id's
// own, where the clusters hold each other's text: a page that shares
// text with two articles does not join them. A cluster joins the one
// whose representative was added first when the two representatives
// hold Options.CoverMin of each other's terms (either way), or when id
// and a member of each hold CoverMin of each other's both ways: copies
// of copies, each edited a little, are one cluster, while a merge
// reaches at most one near-copy on either side of id and chains of pages
// sharing a block do not grow through it. regroup gives the members their
// states. It returns the clusters merged away (none: nil).
func (w *mutation) merge(id string, v similarity.Verdict, links []link) ([]string, error) {
	rec, err := w.record(id)
	if err != nil {
		return nil, err
	}
	o := w.f.opts
	clusters := []string{rec.Cluster}
	// near[i]: id and a member of clusters[i] are near-copies.
	near := []bool{min(v.InB, v.InA) >= o.CoverMin}
	for _, l := range links {
		lr, err := w.st.Record(l.id, false)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		if i := slices.Index(clusters, lr.Cluster); i >= 0 {
			near[i] = near[i] || l.near
		} else {
			clusters, near = append(clusters, lr.Cluster), append(near, l.near)
		}
	}
	if len(clusters) == 1 {
		return nil, nil
	}
	reps := make([]*store.Record, len(clusters))
	target := 0
	for i, c := range clusters {
		rep, err := w.representative(c)
		if err != nil {
			return nil, err
		}
		if reps[i], err = w.record(rep); err != nil {
			return nil, err
		}
		if reps[i].Seq < reps[target].Seq {
			target = i
		}
	}
	_, keep, err := readSignature(w.st, reps[target].Seq)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	joined := []string{clusters[target]}
	for i, c := range clusters {
		if i == target {
			continue
		}
		if near[i] && near[target] {
			joined = append(joined, c)
			continue
		}
		_, rs, err := readSignature(w.st, reps[i].Seq)
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		if in, holds := similarity.Held(rs, keep, o.Options); max(in, holds) >= o.CoverMin {
			joined = append(joined, c)
		}
	}
	if len(joined) == 1 {
		return nil, nil
	}
	recs := map[string]*store.Record{}
	var members []string
	for _, c := range joined {
		ms, err := w.st.Members(c)
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		for _, m := range ms {
			if recs[m], err = w.record(m); err != nil {
				return nil, err
			}
		}
		members = append(members, ms...)
	}
	if err := w.regroup(Group{Target: joined[0], Members: members}, recs); err != nil {
		return nil, err
	}
	for _, c := range joined[1:] {
		if err := w.st.DeleteCluster(c); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
	}
	return joined[1:], nil
}
