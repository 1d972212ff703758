package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/internal/codec"
)

// Store keeps a filter's whole state in one Badger store (package store's
// key schema) and its posting lists in a posting table beside it. Each
// mutation is one transaction, run under the filter's lock, so the
// counters live in memory and are written with each commit. It implements
// store.Backend.
type Store struct {
	local   *Local
	lists   *postingTable // read-only stores: nil until read
	seq     uint64
	cluster uint64
	// A read-only store opens its table at the first lookup: searches
	// never need it, and a table left open by a writer is rebuilt.
	listsOnce sync.Once
	listsPath string
	listsErr  error
	// signatureKeys is Options.SignatureKeys: records list only the keys
	// it does not give.
	signatureKeys func([]byte) ([][]byte, error)

	closeOnce sync.Once
	closeErr  error
}

var _ store.Backend = (*Store)(nil)

// format is the store's layout: 5 is 4 with records that list only the
// posting keys their signature does not give (Options.SignatureKeys),
// and is read through SignatureKeys only; 4 keeps the compact signatures
// of package similarity (signature v4) and posting keys derived from
// them; 3 had whole 32-bit hashes in signatures and bands of whole
// MinHash values, 2 every posting list as a Badger value, 1 a key per
// posting. A store of layout 4 opened for writing with SignatureKeys
// becomes one of layout 5.
const (
	format        = 5
	formatAllKeys = 4
)

// Open opens (creating if needed) the store in opts.Dir, with its posting
// table in opts.PostingTable.
func Open(opts Options) (*Store, error) {
	local, err := OpenLocal(opts)
	if err != nil {
		return nil, err
	}
	s, err := open(local, opts)
	if err != nil {
		return nil, errors.Join(err, local.Close())
	}
	return s, nil
}

func open(local *Local, opts Options) (*Store, error) {
	db := local.db
	s := &Store{local: local, listsPath: opts.PostingTable}
	ro := local.ReadOnly()
	update := db.Update
	if ro {
		update = db.View // a new store cannot be read-only: nothing to mark
	}
	s.signatureKeys = opts.SignatureKeys
	err := update(func(txn *badger.Txn) error {
		err := checkFormat(txn, ro, opts.SignatureKeys != nil)
		if err != nil {
			return err
		}
		if s.seq, err = getCounter(txn, store.KeySeq); err != nil {
			return err
		}
		s.cluster, err = getCounter(txn, store.KeyCluster)
		return err
	})
	if err == nil && !ro {
		s.lists, err = openPostingTable(opts.PostingTable, db, false, s.seq, s.signatureKeys)
	}
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", opts.Dir, err)
	}
	return s, nil
}

// checkFormat marks a new store with its layout's version (format with
// signature keys, else formatAllKeys), moves a store of layout 4 opened
// for writing with signature keys to 5, and refuses a store of another
// layout, or of layout 5 without signature keys.
func checkFormat(txn *badger.Txn, readOnly, signatureKeys bool) error {
	v, err := getCounter(txn, store.KeyFormat)
	if err != nil {
		return err
	}
	want := uint64(formatAllKeys)
	if signatureKeys {
		want = format
	}
	switch {
	case v == format && !signatureKeys:
		return fmt.Errorf("store layout %d derives posting keys from signatures: open it with Options.SignatureKeys: %w", v, ErrInvalidOptions)
	case v == want || v == formatAllKeys && readOnly:
		return nil
	case v == formatAllKeys:
		return txn.Set([]byte(store.KeyFormat), formatValue(want))
	case v == 0:
		// No format key: a new store, or one of layout 1, which had
		// documents under d/ too.
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(store.NSDoc)})
		defer it.Close()
		if it.Rewind(); !it.Valid() {
			if readOnly {
				return nil
			}
			return txn.Set([]byte(store.KeyFormat), formatValue(want))
		}
		v = 1
	}
	return fmt.Errorf("store layout %d, this version reads %d and %d (index the pages again into a new directory): %w", v, formatAllKeys, format, store.ErrCorrupt)
}

func formatValue(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func getCounter(txn *badger.Txn, k string) (uint64, error) {
	var v uint64
	err := getValue(txn, []byte(k), func(b []byte) error {
		if len(b) != 8 {
			return fmt.Errorf("counter %s: %w", k, store.ErrCorrupt)
		}
		v = binary.BigEndian.Uint64(b)
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	return v, err
}

// Local is the store's process-local part, for other packages' keys.
func (s *Store) Local() *Local { return s.local }

// ReadOnly implements store.Backend.
func (s *Store) ReadOnly() bool { return s.local.ReadOnly() }

// DerivesKeys reports whether the store was opened with
// Options.SignatureKeys: a record's posting keys need then list only those
// its signature does not give.
func (s *Store) DerivesKeys() bool { return s.signatureKeys != nil }

// Shared implements store.Backend: no other process opens the store.
func (s *Store) Shared() bool { return false }

// Exclusive implements store.Backend: it just runs fn, since the filter's
// lock serialises the mutations of the one process that can open the
// store.
func (s *Store) Exclusive(fn func() error) error { return fn() }

// Begin implements store.Backend.
func (s *Store) Begin() store.Txn {
	return &txn{localTxn: s.local.begin(true), s: s}
}

// Read implements store.Backend.
func (s *Store) Read(fn func(store.Txn) error) error {
	return s.local.db.View(func(bt *badger.Txn) error {
		return fn(&txn{localTxn: &localTxn{txn: bt}, s: s})
	})
}

// Pending implements store.Backend.
func (s *Store) Pending(fn func(seq uint64, ops []byte) error) error { return s.local.Pending(fn) }

// ClearPending implements store.Backend.
func (s *Store) ClearPending(seqs []uint64) error { return s.local.ClearPending(seqs) }

// Close closes the store and the posting table, which is marked clean
// only once the store holds every list it has. Later calls return the
// first's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.local.Close()
		if s.lists != nil {
			s.lists.seq = s.seq
			s.closeErr = errors.Join(s.closeErr, s.lists.close(s.closeErr == nil))
		}
	})
	return s.closeErr
}

// Empty implements store.Backend.
func (s *Store) Empty() bool {
	empty := false
	err := s.local.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(store.NSDoc)})
		defer it.Close()
		it.Rewind()
		empty = !it.Valid()
		return nil
	})
	return err == nil && empty
}

// Stats counts the stored keys by kind and adds up their bytes (a full
// key scan, values not read), and counts the table's lists.
func (s *Store) Stats() (store.Stats, error) {
	var st store.Stats
	parts := map[string]*store.Part{}
	err := s.local.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			name := store.PartName(k)
			p := parts[name]
			if p == nil {
				p = &store.Part{Name: name}
				parts[name] = p
			}
			p.Keys++
			p.Bytes += int64(len(k)) + item.ValueSize()
		}
		return nil
	})
	count := func(name string) int {
		if p := parts[name]; p != nil {
			return p.Keys
		}
		return 0
	}
	st.Docs, st.Clusters, st.Pending = count(store.PartRecords), count(store.PartClusters), count(store.PartPending)
	t, terr := s.table()
	if terr != nil {
		return st, errors.Join(err, terr)
	}
	st.Lists = t.count()
	if b := t.bytes(); b > 0 {
		parts[store.PartPostingTable] = &store.Part{Name: store.PartPostingTable, Keys: st.Lists, Bytes: b}
	}
	for _, p := range parts {
		st.Parts = append(st.Parts, *p)
	}
	store.SortParts(st.Parts)
	return st, err
}

// table returns the posting table, opening a read-only store's first.
func (s *Store) table() (*postingTable, error) {
	if !s.ReadOnly() {
		return s.lists, nil
	}
	s.listsOnce.Do(func() {
		s.lists, s.listsErr = openPostingTable(s.listsPath, s.local.db, true, s.seq, s.signatureKeys)
	})
	return s.lists, s.listsErr
}

// txn is one transaction of a Store.
type txn struct {
	*localTxn
	s        *Store
	counters bool            // a counter moved: write them at commit
	changes  []postingChange // applied to the table after the commit
	slots    int             // table slots the changes may take
}

func (t *txn) Record(id string, withKeys bool) (*store.Record, error) {
	var rec *store.Record
	err := getValue(t.txn, codec.Key(store.NSDoc, id), func(v []byte) error {
		var err error
		if withKeys {
			rec, err = codec.DecodeRecord(v)
		} else {
			rec, err = codec.DecodeRecordHead(v)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("document %q: %w", id, err)
	}
	return rec, nil
}

// PutRecord writes rec. With Options.SignatureKeys, rec.Keys need only
// be the keys the signature does not give (DerivesKeys): the record says
// that its other keys are derived.
func (t *txn) PutRecord(id string, rec *store.Record) error {
	return t.set(codec.Key(store.NSDoc, id), codec.EncodeRecord(rec, t.s.signatureKeys != nil))
}

func (t *txn) DeleteRecord(id string) error { return t.del(codec.Key(store.NSDoc, id)) }

func (t *txn) Signature(seq uint64) ([]byte, error) {
	var sig []byte
	err := getValue(t.txn, codec.SeqKey(store.NSSignature, seq), func(v []byte) error {
		sig = append([]byte{}, v...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("signature of document %d: %w", seq, err)
	}
	return sig, nil
}

func (t *txn) Prefetch(store.Reads) error { return nil }

func (t *txn) PutSignature(seq uint64, sig []byte) error {
	return t.set(codec.SeqKey(store.NSSignature, seq), sig)
}

func (t *txn) DeleteSignature(seq uint64) error {
	return t.del(codec.SeqKey(store.NSSignature, seq))
}

// Postings reads the lists from the table.
func (t *txn) Postings(keys [][]byte) ([]store.PostingList, error) {
	tab, err := t.s.table()
	if err != nil {
		return nil, err
	}
	return tab.getAll(keys), nil
}

// PutPostings keeps the change for the table, which takes it once the
// transaction is committed; a full list's marker is written to Badger
// too, so that the table can be rebuilt from the store.
func (t *txn) PutPostings(k []byte, l store.PostingList, added, removed []uint64) error {
	c := postingChange{fp: fingerprint(k), full: l.Full, added: added, removed: removed}
	if l.Full {
		c.added, c.removed = nil, nil
		if err := t.set(k, codec.FullPostings()); err != nil {
			return err
		}
	}
	if t.changes == nil {
		t.changes = make([]postingChange, 0, 64) // a page's lists, at once
	}
	t.changes = append(t.changes, c)
	t.slots += len(c.added) + 1
	return nil
}

func (t *txn) Representative(cluster string) (string, error) {
	var rep string
	err := getValue(t.txn, codec.Key(store.NSCluster, cluster), func(v []byte) error {
		rep = string(v)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", cluster, err)
	}
	return rep, nil
}

func (t *txn) SetRepresentative(cluster, id string) error {
	return t.set(codec.Key(store.NSCluster, cluster), []byte(id))
}

func (t *txn) DeleteCluster(cluster string) error {
	return t.del(codec.Key(store.NSCluster, cluster))
}

func (t *txn) Members(cluster string) ([]string, error) {
	prefix := codec.MemberKey(cluster, "")
	it := t.txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	var out []string
	for it.Rewind(); it.Valid(); it.Next() {
		out = append(out, string(it.Item().Key()[len(prefix):]))
	}
	return out, nil
}

func (t *txn) AddMember(cluster, id string) error {
	return t.set(codec.MemberKey(cluster, id), nil)
}

func (t *txn) RemoveMember(cluster, id string) error {
	return t.del(codec.MemberKey(cluster, id))
}

func (t *txn) Clusters(after string, fn func(string) error) error {
	it := t.txn.NewIterator(badger.IteratorOptions{Prefix: []byte(store.NSCluster), PrefetchValues: false})
	defer it.Close()
	start := []byte(store.NSCluster)
	if after != "" {
		start = append(codec.Key(store.NSCluster, after), 0) // the smallest key after it
	}
	for it.Seek(start); it.Valid(); it.Next() {
		if err := fn(string(it.Item().Key()[len(store.NSCluster):])); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) Join(c string, m store.Member, founder *store.Member, rule store.Rule) (store.JoinResult, error) {
	return store.JoinTxn(t, c, m, founder, rule)
}

func (t *txn) Leave(c, id string, rule store.Rule) (store.LeaveResult, error) {
	return store.LeaveTxn(t, c, id, rule)
}

func (t *txn) NextSeq() (uint64, error) {
	t.s.seq++
	t.counters = true
	return t.s.seq, nil
}

func (t *txn) NextCluster() (uint64, error) {
	t.s.cluster++
	t.counters = true
	return t.s.cluster, nil
}

// Commit writes the counters with the mutation, then applies its list
// changes to the table, for which room is made first: a table that cannot
// grow fails the mutation before anything is written. On error the
// in-memory counters may run ahead of the store; gaps in sequence numbers
// are harmless.
func (t *txn) Commit() error {
	if t.s.ReadOnly() {
		return store.ErrReadOnly
	}
	if err := t.s.local.room(); err != nil {
		return err
	}
	if err := t.s.lists.reserve(t.slots); err != nil {
		return err
	}
	if t.counters {
		for k, v := range map[string]uint64{store.KeySeq: t.s.seq, store.KeyCluster: t.s.cluster} {
			if err := t.set([]byte(k), binary.BigEndian.AppendUint64(nil, v)); err != nil {
				return err
			}
		}
	}
	if err := t.txn.Commit(); err != nil {
		return err
	}
	return t.s.lists.apply(t.changes)
}
