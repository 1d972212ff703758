package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/internal/codec"
)

// txn is one mutation (or read) of a Store: reads go to Redis through
// the mutation's own writes and, in an Exclusive call, the writes of its
// mutations before; writes wait in w until commit, but for Join and
// Leave, made at once. Local reads and writes go to the local
// transaction.
type txn struct {
	s    *Store
	ctx  context.Context
	err  error
	loc  store.LocalTxn
	view bool // a read

	w     *writes
	cache map[ref][]byte // values read from Redis (nil: none there)
}

// ref is where a value lives: a string key, or a field of a hash
// (signatures, which share a hash by 64, see sigRef).
type ref struct{ key, field string }

// writes are shared writes not yet made: values (nil: deleted),
// low-level cluster writes in order, and postings added and removed by
// family (entries as the scripts take them; a sequence number 0 makes a
// list full).
type writes struct {
	strs          map[ref]*[]byte
	records       map[string]*store.Record // the records among strs, by id
	clusters      []clusterOp
	adds, removes map[uint64][]any
}

func newWrites() *writes {
	return &writes{strs: map[ref]*[]byte{}, records: map[string]*store.Record{}, adds: map[uint64][]any{}, removes: map[uint64][]any{}}
}

// merge adds w2's writes after w's.
func (w *writes) merge(w2 *writes) {
	for k, v := range w2.strs {
		w.strs[k] = v
	}
	for id, r := range w2.records {
		w.records[id] = r
	}
	w.clusters = append(w.clusters, w2.clusters...)
	for f, es := range w2.adds {
		w.adds[f] = append(w.adds[f], es...)
	}
	for f, es := range w2.removes {
		w.removes[f] = append(w.removes[f], es...)
	}
}

func (w *writes) empty() bool {
	return len(w.strs) == 0 && len(w.clusters) == 0 && len(w.adds) == 0 && len(w.removes) == 0
}

// flush makes w's writes, durably, in one pipeline a master. They are
// idempotent, and a mutation is its record: one cut off half way is made
// again when its page is indexed again (see the package doc).
func (s *Store) flush(ctx context.Context, w *writes) error {
	if w.empty() {
		return nil
	}
	st := s.step(ctx)
	for r, v := range w.strs {
		node, err := st.on(r.key)
		if err != nil {
			return err
		}
		switch {
		case v == nil && r.field == "":
			node.pipe.Unlink(ctx, r.key)
		case v == nil:
			node.pipe.HDel(ctx, r.key, r.field)
		case r.field == "":
			node.pipe.Set(ctx, r.key, *v, 0)
		default:
			node.pipe.HSet(ctx, r.key, r.field, *v)
		}
	}
	if err := s.applyClusterOps(st, w.clusters, w.records); err != nil {
		return err
	}
	// Lists the caller made full are full; those it did not, never are.
	if err := s.addPostings(st, w.adds, maxSeq); err != nil {
		return err
	}
	for f, es := range w.removes {
		if _, err := st.script(removeScript, []string{s.familyKey(f)}, es...); err != nil {
			return err
		}
	}
	return st.exec()
}

// pendingStr returns the value at r written but not yet in Redis: by
// this mutation, or by the session's mutations before it.
func (t *txn) pendingStr(r ref) (v *[]byte, ok bool) {
	if v, ok := t.w.strs[r]; ok {
		return v, true
	}
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if t.s.session != nil {
		v, ok := t.s.session.strs[r]
		return v, ok
	}
	return nil, false
}

// pendingClusterOps returns the low-level writes to cluster c not yet
// made, the session's first.
func (t *txn) pendingClusterOps(c string) []clusterOp {
	var out []clusterOp
	t.s.mu.Lock()
	if t.s.session != nil {
		for _, op := range t.s.session.clusters {
			if op.cluster == c {
				out = append(out, op)
			}
		}
	}
	t.s.mu.Unlock()
	for _, op := range t.w.clusters {
		if op.cluster == c {
			out = append(out, op)
		}
	}
	return out
}

// get reads a value, through the writes not yet made.
func (t *txn) get(r ref) ([]byte, error) {
	if t.err != nil {
		return nil, t.err
	}
	if v, ok := t.pendingStr(r); ok {
		if v == nil {
			return nil, store.ErrNotFound
		}
		return *v, nil
	}
	v, ok := t.cache[r]
	if !ok {
		b, err := r.read(t.ctx, t.s.rdb).Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		v, t.cache[r] = b, b
	}
	if v == nil {
		return nil, store.ErrNotFound
	}
	return v, nil
}

// read queues the read of the value at r on c.
func (r ref) read(ctx context.Context, c redis.Cmdable) *redis.StringCmd {
	if r.field == "" {
		return c.Get(ctx, r.key)
	}
	return c.HGet(ctx, r.key, r.field)
}

// fetch reads the values not written and not read yet, in one pipeline.
func (t *txn) fetch(refs []ref) error {
	if t.err != nil {
		return t.err
	}
	pipe := t.s.rdb.Pipeline()
	cmds := map[ref]*redis.StringCmd{}
	for _, r := range refs {
		_, written := t.pendingStr(r)
		if _, read := t.cache[r]; written || read || cmds[r] != nil {
			continue
		}
		cmds[r] = r.read(t.ctx, pipe)
	}
	if len(cmds) == 0 {
		return nil
	}
	if _, err := pipe.Exec(t.ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for k, c := range cmds {
		b, err := c.Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		t.cache[k] = b
	}
	return nil
}

func (t *txn) set(r ref, v []byte) error {
	if t.err != nil {
		return t.err
	}
	t.w.strs[r] = &v
	return nil
}

func (t *txn) del(r ref) error {
	if t.err != nil {
		return t.err
	}
	t.w.strs[r] = nil
	return nil
}

// Prefetch implements store.Txn: records and signatures in one pipeline;
// posting lists and clusters are read on demand.
func (t *txn) Prefetch(rd store.Reads) error {
	refs := make([]ref, 0, len(rd.IDs)+len(rd.Seqs))
	for _, id := range rd.IDs {
		refs = append(refs, t.s.recordRef(id))
	}
	for _, seq := range rd.Seqs {
		refs = append(refs, t.s.sigRef(seq))
	}
	return t.fetch(refs)
}

// fetchRecords reads the records of ids in one pipeline.
func (t *txn) fetchRecords(ids []string) error {
	refs := make([]ref, len(ids))
	for i, id := range ids {
		refs[i] = t.s.recordRef(id)
	}
	return t.fetch(refs)
}

// recordHead reads id's record as stored: its Indexed is not set.
func (t *txn) recordHead(id string) (*store.Record, error) {
	b, err := t.get(t.s.recordRef(id))
	if err != nil {
		return nil, err
	}
	return codec.DecodeRecordHead(b)
}

// record is recordHead with Indexed, from its cluster.
func (t *txn) record(id string) (*store.Record, error) {
	rec, err := t.recordHead(id)
	if err != nil || rec.Cluster == "" {
		return rec, err
	}
	if rec.Indexed, err = t.indexed(rec.Cluster, id); err != nil {
		return nil, err
	}
	return rec, nil
}

// Record implements store.Txn. A record keeps no posting keys (they are
// derived from the signature) and whether the document is indexed is
// its cluster's to say (see Join).
func (t *txn) Record(id string, _ bool) (*store.Record, error) {
	rec, err := t.record(id)
	if err != nil {
		return nil, fmt.Errorf("document %q: %w", id, err)
	}
	return rec, nil
}

// PutRecord implements store.Txn. Whether the document is indexed is
// kept with its cluster by Join and Leave; a mutation that changes the
// cluster with the low-level operations (regrouping) also sets it, and
// the member's weights, from the records it writes.
func (t *txn) PutRecord(id string, rec *store.Record) error {
	r := *rec
	r.Keys = nil
	t.w.records[id] = &r
	r.Indexed = false
	return t.set(t.s.recordRef(id), codec.EncodeRecord(&r, false))
}

// DeleteRecord implements store.Txn.
func (t *txn) DeleteRecord(id string) error {
	delete(t.w.records, id)
	return t.del(t.s.recordRef(id))
}

// Signature implements store.Txn.
func (t *txn) Signature(seq uint64) ([]byte, error) {
	b, err := t.get(t.s.sigRef(seq))
	if err != nil {
		return nil, fmt.Errorf("signature of document %d: %w", seq, err)
	}
	return b, nil
}

// PutSignature implements store.Txn.
func (t *txn) PutSignature(seq uint64, sig []byte) error {
	return t.set(t.s.sigRef(seq), sig)
}

// DeleteSignature implements store.Txn.
func (t *txn) DeleteSignature(seq uint64) error { return t.del(t.s.sigRef(seq)) }

// Postings implements store.Txn: every page posted to the lists,
// numbered or not.
func (t *txn) Postings(keys [][]byte) ([]store.PostingList, error) {
	if t.err != nil {
		return nil, t.err
	}
	seqs, full, err := t.s.readLists(t.ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]store.PostingList, len(keys))
	for i := range keys {
		out[i] = store.PostingList{Seqs: sortedSet(seqs[i]), Full: full[i]}
	}
	return out, nil
}

// sortedSet returns the distinct numbers of s, ascending.
func sortedSet(s []uint64) []uint64 {
	slices.Sort(s)
	return slices.Compact(s)
}

// PutPostings implements store.Txn: the numbers added and removed, made
// at commit; a full list becomes full.
func (t *txn) PutPostings(k []byte, l store.PostingList, added, removed []uint64) error {
	if t.err != nil {
		return t.err
	}
	p := placeOf(k)
	if l.Full {
		added = []uint64{0}
	}
	for _, seq := range added {
		if seq > maxSeq {
			return fmt.Errorf("sequence number %d past %d: %w", seq, maxSeq, store.ErrFull)
		}
		t.w.adds[p.family] = append(t.w.adds[p.family], entry(p.fp, seq))
	}
	for _, seq := range removed {
		t.w.removes[p.family] = append(t.w.removes[p.family], entry(p.fp, seq))
	}
	return nil
}

// Payload implements store.Txn: from the local store.
func (t *txn) Payload(id string) ([]byte, error) {
	if t.err != nil {
		return nil, t.err
	}
	return t.loc.Payload(id)
}

// HasPayload implements store.Txn.
func (t *txn) HasPayload(id string) (bool, error) {
	if t.err != nil {
		return false, t.err
	}
	return t.loc.HasPayload(id)
}

// PutPayload implements store.Txn.
func (t *txn) PutPayload(id string, p []byte) error {
	if t.err != nil {
		return t.err
	}
	return t.loc.PutPayload(id, p)
}

// DeletePayload implements store.Txn.
func (t *txn) DeletePayload(id string) error {
	if t.err != nil {
		return t.err
	}
	return t.loc.DeletePayload(id)
}

// next takes the next sequence number: cluster numbers are taken from it
// too, so that a cluster's number can be its founder's.
func (t *txn) next() (uint64, error) {
	if t.err != nil {
		return 0, t.err
	}
	return t.s.incr(t.ctx, t.s.tagged("seq"), 1)
}

// NextSeq implements store.Txn.
func (t *txn) NextSeq() (uint64, error) { return t.next() }

// NextCluster implements store.Txn.
func (t *txn) NextCluster() (uint64, error) { return t.next() }

// SetPending implements store.Txn: in the local store.
func (t *txn) SetPending(seq uint64, ops []byte) error {
	if t.err != nil {
		return t.err
	}
	return t.loc.SetPending(seq, ops)
}

// Local implements store.Txn: the local store's keys.
func (t *txn) Local() store.KV { return t.loc }

// Commit implements store.Txn: the local writes, then the shared ones
// (in an Exclusive call, into the session's writes, made when it ends).
// A crash between the two leaves the local pending operations to be
// replayed into the search index at the next open, and the page unknown
// to the shared store, to be decided again when it is indexed again.
func (t *txn) Commit() error {
	if t.err != nil {
		return t.err
	}
	if t.view {
		return store.ErrReadOnly
	}
	if err := t.loc.Commit(); err != nil {
		return err
	}
	t.s.mu.Lock()
	if t.s.session != nil {
		t.s.session.merge(t.w)
		t.s.mu.Unlock()
		return nil
	}
	t.s.mu.Unlock()
	return t.s.flush(t.ctx, t.w)
}

// Discard implements store.Txn.
func (t *txn) Discard() {
	if t.loc != nil {
		t.loc.Discard()
	}
}
