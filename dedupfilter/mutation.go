package dedupfilter

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// mutation is one Add or Delete: a read-write transaction plus the search
// index operations it implies, at most one per document (the last wins).
type mutation struct {
	f     *Filter
	txn   *badger.Txn
	seq   uint64
	ops   []Op
	lists map[string]*postingList // read or changed by this mutation
}

// postingList is a posting list as the mutation sees it; changed lists
// are written at commit.
type postingList struct {
	seqs  []uint64 // ascending document numbers
	full  bool     // a stop list
	dirty bool
}

func (f *Filter) begin() *mutation {
	f.seq++
	return &mutation{f: f, txn: f.db.NewTransaction(true), seq: f.seq, lists: map[string]*postingList{}}
}

func (w *mutation) set(k, v []byte) error {
	if err := w.txn.Set(k, v); err != nil {
		return fmt.Errorf("dedupfilter: write: %w", err)
	}
	return nil
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

// commit writes the changed posting lists, records the ops as pending and
// the counters, then commits. On error the in-memory counters may run
// ahead of the store; gaps in sequence numbers are harmless.
func (w *mutation) commit() ([]Op, error) {
	if err := w.writeLists(); err != nil {
		return nil, err
	}
	if len(w.ops) > 0 {
		if err := w.set(seqKey(nsPending, w.seq), encodePending(w.ops)); err != nil {
			return nil, err
		}
	}
	for k, v := range map[string]uint64{keySeq: w.f.seq, keyCluster: w.f.cluster} {
		if err := w.set([]byte(k), binary.BigEndian.AppendUint64(nil, v)); err != nil {
			return nil, err
		}
	}
	if err := w.txn.Commit(); err != nil {
		return nil, fmt.Errorf("dedupfilter: commit: %w", err)
	}
	return w.ops, nil
}

func (w *mutation) record(id string) (*record, error) {
	return getRecord(w.txn, id)
}

func getRecord(txn *badger.Txn, id string) (*record, error) {
	var rec *record
	err := getValue(txn, key(nsDoc, id), func(b []byte) error {
		var err error
		rec, err = decodeRecord(b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: document %q: %w", id, err)
	}
	return rec, nil
}

// getValue calls fn with the value of k (valid only during fn), or returns
// ErrNotFound.
func getValue(txn *badger.Txn, k []byte, fn func([]byte) error) error {
	item, err := txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(fn)
}

func copyValue(txn *badger.Txn, k []byte) ([]byte, error) {
	var out []byte
	err := getValue(txn, k, func(b []byte) error {
		if len(b) > 0 {
			out = append([]byte(nil), b...)
		}
		return nil
	})
	return out, err
}

func (w *mutation) representative(cluster string) (string, error) {
	b, err := copyValue(w.txn, key(nsCluster, cluster))
	if err != nil {
		return "", fmt.Errorf("dedupfilter: cluster %q: %w", cluster, err)
	}
	return string(b), nil
}

func (w *mutation) putRecord(id string, rec *record) error {
	return w.set(key(nsDoc, id), encodeRecord(rec))
}

// setIndexed records whether id is in the search index and emits the op
// that makes it so.
func (w *mutation) setIndexed(id string, rec *record, indexed bool) error {
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
	payload, err := getPayload(w.txn, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("dedupfilter: payload %q: %w", id, err)
	}
	w.op(Op{Kind: OpIndex, ID: id, Cluster: rec.Cluster, Payload: payload})
	return nil
}

// prefer reports whether a should represent a cluster rather than b under
// Replace's Keep rule.
func (o Options) prefer(a, b *record) bool {
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
func (w *mutation) place(id string, rec, old, match *record, fresh bool) error {
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
		if err := w.txn.Delete(seqKey(nsSignature, old.Seq)); err != nil {
			return fmt.Errorf("dedupfilter: delete signature: %w", err)
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
	w.f.cluster++
	rec.Cluster = fmt.Sprintf("%0*x", clusterIDLen, w.f.cluster)
	rec.Indexed = true
	return w.set(key(nsCluster, rec.Cluster), []byte(id))
}

// join makes the new document (rec, not yet written) a member of cluster
// and applies the policy to the representative.
func (w *mutation) join(id string, rec *record, cluster string) error {
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
		return w.set(key(nsCluster, rec.Cluster), []byte(id))
	}
	return nil
}

// stays reports whether re-added id remains in its old cluster: its match
// is in it, or it has no match and is the only member.
func (w *mutation) stays(id string, old, match *record) (bool, error) {
	if match != nil {
		return match.Cluster == old.Cluster, nil
	}
	members, err := w.members(old.Cluster)
	return len(members) == 1 && members[0] == id, err
}

// leave removes id's membership and repairs its cluster. It returns the
// cluster's representative afterwards ("" when the cluster is gone). The
// document's postings, record, features and payload are left to the
// caller.
func (w *mutation) leave(id string, rec *record) (string, error) {
	if err := w.txn.Delete(memberKey(rec.Cluster, id)); err != nil {
		return "", fmt.Errorf("dedupfilter: delete membership: %w", err)
	}
	if rec.Indexed {
		w.op(Op{Kind: OpDelete, ID: id})
	}
	rep, err := w.representative(rec.Cluster)
	if err != nil || rep != id {
		return rep, err
	}
	members, err := w.members(rec.Cluster)
	if err != nil {
		return "", err
	}
	if len(members) == 0 {
		return "", w.txn.Delete(key(nsCluster, rec.Cluster))
	}
	var best string
	var bestRec *record
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
	if err := w.set(key(nsCluster, rec.Cluster), []byte(best)); err != nil {
		return "", err
	}
	return best, w.setIndexed(best, bestRec, true)
}

func (w *mutation) members(cluster string) ([]string, error) {
	return listMembers(w.txn, cluster)
}

func listMembers(txn *badger.Txn, cluster string) ([]string, error) {
	prefix := memberKey(cluster, "")
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	var out []string
	for it.Rewind(); it.Valid(); it.Next() {
		out = append(out, string(it.Item().Key()[len(prefix):]))
	}
	return out, nil
}

// list returns the posting list under k, read once per mutation.
func (w *mutation) list(k []byte) (*postingList, error) {
	if l, ok := w.lists[string(k)]; ok {
		return l, nil
	}
	l := &postingList{}
	w.lists[string(k)] = l
	if w.f.keys != nil && !w.f.keys.mayHave(k) {
		return l, nil
	}
	err := getValue(w.txn, k, func(b []byte) error {
		var err error
		l.seqs, l.full, err = decodePostings(nil, b)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("dedupfilter: posting list %x: %w", k, err)
	}
	return l, nil
}

// post adds document seq to the lists under keys and returns the keys it
// was added under: a full list takes no more, and the document that would
// pass MaxPostings makes the list full (the boolean-model paper's
// automatic stop word: a feature most documents have tells none apart).
func (w *mutation) post(seq uint64, keys [][]byte) ([][]byte, error) {
	var posted [][]byte
	for _, k := range keys {
		l, err := w.list(k)
		if err != nil {
			return nil, err
		}
		if l.full {
			continue
		}
		l.dirty = true
		if len(l.seqs) >= w.f.opts.MaxPostings {
			l.full, l.seqs = true, nil
			continue
		}
		l.seqs = append(l.seqs, seq) // the newest seq: the list stays sorted
		posted = append(posted, k)
		w.f.keys.add(k) // before the commit: a stored key always has its bits
	}
	return posted, nil
}

// unpost removes the document of rec from its posting lists.
func (w *mutation) unpost(rec *record) error {
	for _, k := range rec.Keys {
		l, err := w.list(k)
		if err != nil {
			return err
		}
		if i, ok := slices.BinarySearch(l.seqs, rec.Seq); ok && !l.full {
			l.seqs = slices.Delete(l.seqs, i, i+1)
			l.dirty = true
		}
	}
	return nil
}

// writeLists writes the changed posting lists; an emptied list goes.
func (w *mutation) writeLists() error {
	for k, l := range w.lists {
		var err error
		switch {
		case !l.dirty:
			continue
		case l.full:
			err = w.txn.Set([]byte(k), []byte{postingsFull})
		case len(l.seqs) == 0:
			err = w.txn.Delete([]byte(k))
		default:
			err = w.txn.Set([]byte(k), encodePostings(l.seqs))
		}
		if err != nil {
			return fmt.Errorf("dedupfilter: write posting list: %w", err)
		}
	}
	return nil
}

// bestMatch gathers candidates from the posting lists under lookup
// (skipping stop lists), keeps those sharing at least MinShared lists, and
// verifies up to MaxCandidates of them, most shared lists first, then the
// oldest. The first verified duplicate is the match: a candidate sharing
// more lists is the likelier copy, and stopping there keeps a popular
// cluster from costing MaxCandidates verifications per Add. Documents
// numbered in skip are not candidates.
func (w *mutation) bestMatch(skip map[uint64]bool, sig signature, lookup [][]byte) (string, Verdict, int, error) {
	o := w.f.opts
	hits := map[uint64]int{}
	for _, k := range lookup {
		l, err := w.list(k)
		if err != nil {
			return "", Verdict{}, 0, err
		}
		if l.full || len(l.seqs) > o.MaxPostings { // (MaxPostings may have been lowered)
			continue
		}
		for _, c := range l.seqs {
			if !skip[c] {
				hits[c]++
			}
		}
	}
	type cand struct {
		seq  uint64
		hits int
	}
	cands := make([]cand, 0, len(hits))
	for c, n := range hits {
		if n >= o.MinShared {
			cands = append(cands, cand{c, n})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.hits != b.hits {
			return b.hits - a.hits
		}
		return cmp.Compare(a.seq, b.seq)
	})
	if len(cands) > o.MaxCandidates {
		cands = cands[:o.MaxCandidates]
	}
	for n, cd := range cands {
		var id string
		var cs signature
		err := getValue(w.txn, seqKey(nsSignature, cd.seq), func(b []byte) error {
			var err error
			id, cs, err = decodeSignature(b)
			return err
		})
		if err != nil {
			return "", Verdict{}, 0, fmt.Errorf("dedupfilter: signature of document %d: %w", cd.seq, err)
		}
		if v := compare(sig, cs, o); v.Duplicate {
			return id, v, n + 1, nil
		}
	}
	return "", Verdict{}, len(cands), nil
}
