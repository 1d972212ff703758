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
	ops   []Op
	lists map[string]*cachedList // read or changed by this mutation
	hits  map[uint64]int         // ranked's scratch space
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
	return &mutation{f: f, st: st, seq: seq, lists: map[string]*cachedList{}, hits: f.scratchHits()}, nil
}

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

// commit writes the changed posting lists and records the ops as pending,
// then commits.
func (w *mutation) commit() ([]Op, error) {
	for k, l := range w.lists {
		if !l.dirty {
			continue
		}
		if err := w.st.PutPostings([]byte(k), l.PostingList, l.added, l.removed); err != nil {
			return nil, fmt.Errorf("dedupfilter: posting list: %w", err)
		}
	}
	if len(w.ops) > 0 {
		if err := w.st.SetPending(w.seq, encodePending(w.ops)); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
	}
	if err := w.st.Commit(); err != nil {
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

// setIndexed records whether id is in the search index and emits the op
// that makes it so.
func (w *mutation) setIndexed(id string, rec *store.Record, indexed bool) error {
	if rec.Indexed == indexed {
		return nil
	}
	rec.Indexed = indexed
	if err := w.putRecord(id, rec); err != nil {
		return err
	}
	if !indexed {
		w.op(Op{Kind: OpDelete, ID: id})
		return nil
	}
	payload, err := w.st.Payload(id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("dedupfilter: payload %q: %w", id, err)
	}
	w.op(Op{Kind: OpIndex, ID: id, Cluster: rec.Cluster, Payload: payload})
	return nil
}

// prefer reports whether a should represent a cluster rather than b under
// Replace's Keep rule.
func (o Options) prefer(a, b *store.Record) bool {
	if o.Keep == Longer && a.Runes != b.Runes {
		return a.Runes > b.Runes
	}
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	return a.Seq > b.Seq
}

// place puts the document (rec, not yet written) in a cluster: its old
// one if it is re-added and stays (not when fresh), else the match's, else
// a new one.
func (w *mutation) place(id string, rec, old, match *store.Record, fresh bool) error {
	if old != nil {
		// A re-added document keeps its cluster, and its role in it, when it
		// still matches inside it or has no match and is alone: re-indexing
		// unchanged content must not reshuffle clusters or their ids.
		stay, err := w.stays(id, old, match)
		if err != nil {
			return err
		}
		stay = stay && !fresh
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
	if match != nil {
		return w.join(id, rec, match.Cluster)
	}
	n, err := w.st.NextCluster()
	if err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	rec.Cluster = store.ClusterID(n)
	rec.Indexed = true
	if err := w.st.SetRepresentative(rec.Cluster, id); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	return nil
}

// join makes the new document (rec, not yet written) a member of cluster
// and applies the policy to the representative.
func (w *mutation) join(id string, rec *store.Record, cluster string) error {
	rec.Cluster = cluster
	rep, err := w.representative(rec.Cluster)
	if err != nil {
		return err
	}
	switch w.f.opts.Policy {
	case Mark:
		rec.Indexed = true
	case Replace:
		repRec, err := w.record(rep)
		if err != nil {
			return err
		}
		if !w.f.opts.prefer(rec, repRec) {
			return nil
		}
		if err := w.setIndexed(rep, repRec, false); err != nil {
			return err
		}
		rec.Indexed = true
		if err := w.st.SetRepresentative(rec.Cluster, id); err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
	}
	return nil
}

// stays reports whether re-added id remains in its old cluster: its match
// is in it, or it has no match and is the only member.
func (w *mutation) stays(id string, old, match *store.Record) (bool, error) {
	if match != nil {
		return match.Cluster == old.Cluster, nil
	}
	members, err := w.st.Members(old.Cluster)
	return len(members) == 1 && members[0] == id, err
}

// leave removes id's membership and repairs its cluster. It returns the
// cluster's representative afterwards ("" when the cluster is gone). The
// document's postings, record, signature and payload are left to the
// caller.
func (w *mutation) leave(id string, rec *store.Record) (string, error) {
	if err := w.st.RemoveMember(rec.Cluster, id); err != nil {
		return "", fmt.Errorf("dedupfilter: %w", err)
	}
	if rec.Indexed {
		w.op(Op{Kind: OpDelete, ID: id})
	}
	rep, err := w.representative(rec.Cluster)
	if err != nil || rep != id {
		return rep, err
	}
	members, err := w.st.Members(rec.Cluster)
	if err != nil {
		return "", fmt.Errorf("dedupfilter: %w", err)
	}
	if len(members) == 0 {
		return "", w.st.DeleteCluster(rec.Cluster)
	}
	var best string
	var bestRec *store.Record
	for _, m := range members {
		mr, err := w.record(m)
		if err != nil {
			return "", err
		}
		better := bestRec == nil
		if !better && w.f.opts.Policy == Replace {
			better = w.f.opts.prefer(mr, bestRec)
		} else if !better {
			better = mr.Seq < bestRec.Seq
		}
		if better {
			best, bestRec = m, mr
		}
	}
	if err := w.st.SetRepresentative(rec.Cluster, best); err != nil {
		return "", fmt.Errorf("dedupfilter: %w", err)
	}
	return best, w.setIndexed(best, bestRec, true)
}

// cached returns the posting lists under keys, each read once per
// mutation (the ones not read yet in one call to the store).
func (w *mutation) cached(keys [][]byte) ([]*cachedList, error) {
	out := make([]*cachedList, len(keys))
	var missing [][]byte
	for i, k := range keys {
		if l, ok := w.lists[string(k)]; ok {
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
			if _, ok := w.lists[string(k)]; !ok { // a key may be listed twice
				ls[i].PostingList = read[i]
				w.lists[string(k)] = &ls[i]
			}
		}
		for i, k := range keys {
			out[i] = w.lists[string(k)]
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
	var posted [][]byte
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
		l.added = append(l.added, seq)
		posted = append(posted, keys[i])
	}
	return posted, nil
}

// unpost removes the document of rec from its posting lists.
func (w *mutation) unpost(rec *store.Record) error {
	ls, err := w.cached(rec.Keys)
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

// firstReads is how many candidates' signatures a decision reads first.
const firstReads = 4

// bestMatch verifies the candidates (see candidates) in order; the first
// verified duplicate is the match: a candidate sharing more lists is the
// likelier copy, and stopping there keeps a popular cluster from costing
// MaxCandidates verifications per Add. Documents numbered in skip are not
// candidates.
func (w *mutation) bestMatch(skip map[uint64]bool, sig similarity.Signature, lookup [][]byte) (string, similarity.Verdict, int, error) {
	o := w.f.opts
	cands, err := w.candidates(skip, sig, lookup)
	if err != nil {
		return "", similarity.Verdict{}, 0, err
	}
	for n, cd := range cands {
		// Signatures are read a few at once (the likely match is among
		// the first), then the rest at once.
		if n == 0 || n == firstReads {
			end := len(cands)
			if n == 0 {
				end = min(end, firstReads)
			}
			var seqs []uint64
			for _, c := range cands[n:end] {
				seqs = append(seqs, c.seq)
			}
			if err := w.st.Prefetch(store.Reads{Seqs: seqs}); err != nil {
				return "", similarity.Verdict{}, 0, fmt.Errorf("dedupfilter: %w", err)
			}
		}
		id, cs, err := readSignature(w.st, cd.seq)
		if err != nil {
			return "", similarity.Verdict{}, 0, fmt.Errorf("dedupfilter: %w", err)
		}
		if v := similarity.Verify(sig, cs, o.Options); v.Duplicate {
			v.TermSample = similarity.TermSample(sig, cs, o.Options)
			return id, v, n + 1, nil
		}
	}
	return "", similarity.Verdict{}, len(cands), nil
}
