package dedupfilter

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// badgerStore keeps a filter's whole state in one Badger store (keys.go
// has the key schema); each mutation is one transaction, run under the
// Filter's lock, so the counters can live in memory and be written with
// each commit.
type badgerStore struct {
	db      *badger.DB
	ownsDB  bool       // opened by Open, closed by close
	keys    *keyFilter // nil when read-only
	seq     uint64
	cluster uint64
}

// openBadger reads the store's layout version and counters, and opens the
// key filter unless db is read-only.
func openBadger(db *badger.DB, opts Options) (*badgerStore, error) {
	s := &badgerStore{db: db}
	update := db.Update
	if db.Opts().ReadOnly {
		update = db.View // a new store cannot be read-only: nothing to mark
	}
	err := update(func(txn *badger.Txn) error {
		if err := checkFormat(txn, db.Opts().ReadOnly); err != nil {
			return err
		}
		var err error
		if s.seq, err = getCounter(txn, keySeq); err != nil {
			return err
		}
		s.cluster, err = getCounter(txn, keyCluster)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: open: %w", err)
	}
	if !db.Opts().ReadOnly {
		if s.keys, err = openKeyFilter(opts.KeyFilter, opts.KeyFilterBits, db); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// checkFormat marks a new store with the layout's version, and refuses a
// store of another layout.
func checkFormat(txn *badger.Txn, readOnly bool) error {
	v, err := getCounter(txn, keyFormat)
	if err != nil {
		return err
	}
	if v == storeFormat {
		return nil
	}
	if v == 0 {
		// No format key: a new store, or one of layout 1, which had
		// documents under d/ too.
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsDoc)})
		defer it.Close()
		if it.Rewind(); !it.Valid() {
			if readOnly {
				return nil
			}
			return txn.Set([]byte(keyFormat), binary.BigEndian.AppendUint64(nil, storeFormat))
		}
		v = 1
	}
	return fmt.Errorf("store layout %d, this version reads %d (index the pages again into a new directory): %w", v, storeFormat, ErrCorrupt)
}

func getCounter(txn *badger.Txn, k string) (uint64, error) {
	var v uint64
	err := getValue(txn, []byte(k), func(b []byte) error {
		if len(b) != 8 {
			return fmt.Errorf("counter %s: %w", k, ErrCorrupt)
		}
		v = binary.BigEndian.Uint64(b)
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return v, err
}

func (s *badgerStore) readOnly() bool { return s.db.Opts().ReadOnly }

// exclusive just runs fn: the Filter's lock serialises the mutations of
// the one process that can open the store.
func (s *badgerStore) exclusive(fn func() error) error { return fn() }

func (s *badgerStore) begin() state {
	return &badgerState{s: s, txn: s.db.NewTransaction(true)}
}

func (s *badgerStore) view(fn func(state) error) error {
	return s.db.View(func(txn *badger.Txn) error {
		return fn(&badgerState{s: s, txn: txn})
	})
}

// close closes the store if Open opened it, and the key filter, which is
// marked clean only once the store holds every key it has bits for.
func (s *badgerStore) close() error {
	var err error
	if s.ownsDB {
		err = s.db.Close()
	}
	if s.keys != nil {
		err = errors.Join(err, s.keys.close(err == nil))
	}
	return err
}

// badgerState is one transaction of a badgerStore.
type badgerState struct {
	s        *badgerStore
	txn      *badger.Txn
	counters bool // a counter moved: write them at commit
}

func (b *badgerState) set(k, v []byte) error {
	if err := b.txn.Set(k, v); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func (b *badgerState) del(k []byte) error {
	if err := b.txn.Delete(k); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

func (b *badgerState) record(id string, withKeys bool) (*record, error) {
	var rec *record
	err := getValue(b.txn, key(nsDoc, id), func(v []byte) error {
		var err error
		if withKeys {
			rec, err = decodeRecord(v)
			return err
		}
		var r *reader
		rec, r = decodeRecordHead(v)
		return r.err
	})
	if err != nil {
		return nil, fmt.Errorf("document %q: %w", id, err)
	}
	return rec, nil
}

func (b *badgerState) putRecord(id string, rec *record) error {
	return b.set(key(nsDoc, id), encodeRecord(rec))
}

func (b *badgerState) deleteRecord(id string) error { return b.del(key(nsDoc, id)) }

func (b *badgerState) signature(seq uint64) (string, signature, error) {
	var id string
	var sig signature
	err := getValue(b.txn, seqKey(nsSignature, seq), func(v []byte) error {
		var err error
		id, sig, err = decodeSignature(v)
		return err
	})
	if err != nil {
		return "", signature{}, fmt.Errorf("signature of document %d: %w", seq, err)
	}
	return id, sig, nil
}

func (b *badgerState) prefetch(reads) error { return nil }

// inSession is false: the embedded store has nothing to read ahead.
func (s *badgerStore) inSession() bool { return false }

func (b *badgerState) putSignature(seq uint64, enc []byte) error {
	return b.set(seqKey(nsSignature, seq), enc)
}

func (b *badgerState) deleteSignature(seq uint64) error { return b.del(seqKey(nsSignature, seq)) }

func (b *badgerState) payload(id string) ([]byte, error) { return getPayload(b.txn, id) }

func (b *badgerState) hasPayload(id string) (bool, error) { return hasKey(b.txn, key(nsPayload, id)) }

// hasKey reports whether txn sees k.
func hasKey(txn *badger.Txn, k []byte) (bool, error) {
	_, err := txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (b *badgerState) putPayload(id string, p []byte) error {
	return b.set(key(nsPayload, id), encodePayload(p))
}

func (b *badgerState) deletePayload(id string) error { return b.del(key(nsPayload, id)) }

// postings reads the lists; the key filter answers for most lists that
// do not exist without a Badger lookup.
func (b *badgerState) postings(keys [][]byte) ([]postingList, error) {
	out := make([]postingList, len(keys))
	for i, k := range keys {
		if b.s.keys != nil && !b.s.keys.mayHave(k) {
			continue
		}
		err := getValue(b.txn, k, func(v []byte) error {
			var err error
			out[i].seqs, out[i].full, err = decodePostings(nil, v)
			return err
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("posting list %x: %w", k, err)
		}
	}
	return out, nil
}

func (b *badgerState) putPostings(k []byte, l postingList) error {
	switch {
	case l.full:
		return b.set(k, []byte{postingsFull})
	case len(l.seqs) == 0:
		return b.del(k)
	}
	if b.s.keys != nil {
		b.s.keys.add(k) // before the commit: a stored key always has its bits
	}
	return b.set(k, encodePostings(l.seqs))
}

func (b *badgerState) representative(cluster string) (string, error) {
	v, err := copyValue(b.txn, key(nsCluster, cluster))
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", cluster, err)
	}
	return string(v), nil
}

func (b *badgerState) setRepresentative(cluster, id string) error {
	return b.set(key(nsCluster, cluster), []byte(id))
}

func (b *badgerState) deleteCluster(cluster string) error { return b.del(key(nsCluster, cluster)) }

func (b *badgerState) members(cluster string) ([]string, error) {
	prefix := memberKey(cluster, "")
	it := b.txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	var out []string
	for it.Rewind(); it.Valid(); it.Next() {
		out = append(out, string(it.Item().Key()[len(prefix):]))
	}
	return out, nil
}

func (b *badgerState) addMember(cluster, id string) error {
	return b.set(memberKey(cluster, id), nil)
}

func (b *badgerState) removeMember(cluster, id string) error {
	return b.del(memberKey(cluster, id))
}

func (b *badgerState) clusters(after string, fn func(string) error) error {
	it := b.txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsCluster), PrefetchValues: false})
	defer it.Close()
	start := []byte(nsCluster)
	if after != "" {
		start = append(key(nsCluster, after), 0) // the smallest key after it
	}
	for it.Seek(start); it.Valid(); it.Next() {
		if err := fn(string(it.Item().Key()[len(nsCluster):])); err != nil {
			return err
		}
	}
	return nil
}

func (b *badgerState) nextSeq() (uint64, error) {
	b.s.seq++
	b.counters = true
	return b.s.seq, nil
}

func (b *badgerState) nextCluster() (uint64, error) {
	b.s.cluster++
	b.counters = true
	return b.s.cluster, nil
}

func (b *badgerState) setPending(seq uint64, ops []Op) error {
	return b.set(seqKey(nsPending, seq), encodePending(ops))
}

func (b *badgerState) local() *badger.Txn { return b.txn }

// commit writes the counters with the mutation. On error the in-memory
// counters may run ahead of the store; gaps in sequence numbers are
// harmless.
func (b *badgerState) commit() error {
	if b.counters {
		for k, v := range map[string]uint64{keySeq: b.s.seq, keyCluster: b.s.cluster} {
			if err := b.set([]byte(k), binary.BigEndian.AppendUint64(nil, v)); err != nil {
				return err
			}
		}
	}
	if err := b.txn.Commit(); err != nil {
		return err
	}
	if b.s.keys != nil {
		b.s.keys.growIfFull(b.s.db)
	}
	return nil
}

func (b *badgerState) discard() { b.txn.Discard() }

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

func (s *badgerStore) pending(fn func(seq uint64, ops []Op) error) error {
	return s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsPending), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(nsPending)+8 {
				return fmt.Errorf("pending key %q: %w", k, ErrCorrupt)
			}
			seq := binary.BigEndian.Uint64(k[len(nsPending):])
			var ops []Op
			err := it.Item().Value(func(b []byte) error {
				var err error
				ops, err = decodePending(seq, b)
				return err
			})
			if err == nil {
				err = fn(seq, ops)
			}
			if err != nil {
				return fmt.Errorf("pending %d: %w", seq, err)
			}
		}
		return nil
	})
}

func (s *badgerStore) clearPending(seqs []uint64) error {
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, seq := range seqs {
		if err := wb.Delete(seqKey(nsPending, seq)); err != nil {
			return err
		}
	}
	return wb.Flush()
}

func (s *badgerStore) empty() bool {
	empty := false
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsDoc)})
		defer it.Close()
		it.Rewind()
		empty = !it.Valid()
		return nil
	})
	return err == nil && empty
}

// stats counts the stored keys by kind (a full key scan).
func (s *badgerStore) stats() (Stats, error) {
	var st Stats
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) < 2 {
				continue
			}
			switch string(k[:2]) {
			case nsDoc:
				st.Docs++
			case nsCluster:
				st.Clusters++
			case nsPosting:
				st.Lists++
			case nsPending:
				st.Pending++
			}
		}
		return nil
	})
	return st, err
}
