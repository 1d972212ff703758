package dedupfilter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// badgerStore keeps a filter's whole state in one Badger store (keys.go
// has the key schema) and its posting lists in a posting table beside it;
// each mutation is one transaction, run under the Filter's lock, so the
// counters can live in memory and be written with each commit.
type badgerStore struct {
	db      *badger.DB
	ownsDB  bool          // opened by Open, closed by close
	lists   *postingTable // nil in the Redis store's local view, and read-only until read
	seq     uint64
	cluster uint64
	// A read-only store opens its table at the first lookup: searches
	// never need it, and a table left open by a writer is rebuilt.
	listsOnce sync.Once
	listsPath string
	listsErr  error
}

// openBadger reads the store's layout version and counters, and opens the
// posting table. A store of layout 2, whose lists were Badger values, is
// moved to the table (unless read-only: the table is then built in memory
// at each open).
func openBadger(db *badger.DB, opts Options) (*badgerStore, error) {
	s := &badgerStore{db: db}
	ro := db.Opts().ReadOnly
	update := db.Update
	if ro {
		update = db.View // a new store cannot be read-only: nothing to mark
	}
	var format uint64
	err := update(func(txn *badger.Txn) error {
		var err error
		if format, err = checkFormat(txn, ro); err != nil {
			return err
		}
		if s.seq, err = getCounter(txn, keySeq); err != nil {
			return err
		}
		s.cluster, err = getCounter(txn, keyCluster)
		return err
	})
	s.listsPath = opts.PostingTable
	if err == nil && !ro {
		s.lists, err = openPostingTable(opts.PostingTable, db, false, s.seq)
	}
	if err == nil && format == formatListValues && !ro {
		// The table was built from the lists in Badger, which may go now.
		if err = dropListValues(db); err != nil {
			err = errors.Join(err, s.lists.close(false))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: open: %w", err)
	}
	return s, nil
}

// checkFormat marks a new store with the layout's version, and refuses a
// store of a layout it cannot read. It returns the layout found: layout 2
// (posting lists as Badger values) is read and then moved to the table.
func checkFormat(txn *badger.Txn, readOnly bool) (uint64, error) {
	v, err := getCounter(txn, keyFormat)
	if err != nil {
		return 0, err
	}
	if v == storeFormat || v == formatListValues {
		return v, nil
	}
	if v == 0 {
		// No format key: a new store, or one of layout 1, which had
		// documents under d/ too.
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsDoc)})
		defer it.Close()
		if it.Rewind(); !it.Valid() {
			if readOnly {
				return storeFormat, nil
			}
			return storeFormat, setFormat(txn)
		}
		v = 1
	}
	return v, fmt.Errorf("store layout %d, this version reads %d (index the pages again into a new directory): %w", v, storeFormat, ErrCorrupt)
}

func setFormat(txn *badger.Txn) error { return txn.Set([]byte(keyFormat), formatValue()) }

func formatValue() []byte { return binary.BigEndian.AppendUint64(nil, storeFormat) }

// dropListValues finishes moving a layout-2 store to the table, which
// holds its lists now: it deletes the lists from Badger, but for the
// full-list markers, and marks the store as of this layout.
func dropListValues(db *badger.DB) error {
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	err := db.View(func(txn *badger.Txn) error {
		return eachValue(txn, nsPosting, func(k, v []byte) error {
			if len(v) == 1 && v[0] == postingsFull {
				return nil
			}
			return wb.Delete(bytes.Clone(k))
		})
	})
	if err == nil {
		err = wb.Set([]byte(keyFormat), formatValue())
	}
	if err == nil {
		err = wb.Flush()
	}
	if err != nil {
		return fmt.Errorf("moving posting lists to the table: %w", err)
	}
	return nil
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

// close closes the store if Open opened it, and the posting table, which
// is marked clean only once the store holds every list it has.
func (s *badgerStore) close() error {
	var err error
	if s.ownsDB {
		err = s.db.Close()
	}
	if s.lists != nil {
		s.lists.seq = s.seq
		err = errors.Join(err, s.lists.close(err == nil))
	}
	return err
}

// badgerState is one transaction of a badgerStore.
type badgerState struct {
	s        *badgerStore
	txn      *badger.Txn
	counters bool            // a counter moved: write them at commit
	changes  []postingChange // applied to the table after the commit
	slots    int             // table slots the changes may take
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

// postings reads the lists from the table.
func (b *badgerState) postings(keys [][]byte) ([]postingList, error) {
	t, err := b.s.table()
	if err != nil {
		return nil, err
	}
	return t.getAll(keys), nil
}

// table returns the posting table, opening a read-only store's first.
func (s *badgerStore) table() (*postingTable, error) {
	if !s.readOnly() {
		return s.lists, nil
	}
	s.listsOnce.Do(func() {
		s.lists, s.listsErr = openPostingTable(s.listsPath, s.db, true, s.seq)
	})
	return s.lists, s.listsErr
}

// putPostings keeps the change for the table, which takes it once the
// transaction is committed; a full list's marker is written to Badger too,
// so that the table can be rebuilt from the store.
func (b *badgerState) putPostings(k []byte, l postingList, added, removed []uint64) error {
	c := postingChange{fp: fingerprint(k), full: l.full, added: added, removed: removed}
	if l.full {
		c.added, c.removed = nil, nil
		if err := b.set(k, []byte{postingsFull}); err != nil {
			return err
		}
	}
	b.changes = append(b.changes, c)
	b.slots += len(c.added) + 1
	return nil
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

// commit writes the counters with the mutation, then applies its list
// changes to the table, for which room is made first: a table that
// cannot grow fails the mutation before anything is written. On error
// the in-memory counters may run ahead of the store; gaps in sequence
// numbers are harmless.
func (b *badgerState) commit() error {
	if err := b.s.lists.reserve(b.slots); err != nil {
		return err
	}
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
	return b.s.lists.apply(b.changes)
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

// stats counts the stored keys by kind (a full key scan), and the
// table's lists.
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
			case nsPending:
				st.Pending++
			}
		}
		return nil
	})
	if s.lists != nil || s.readOnly() {
		t, terr := s.table()
		if terr != nil {
			return st, errors.Join(err, terr)
		}
		st.Lists = t.count()
	}
	return st, err
}
