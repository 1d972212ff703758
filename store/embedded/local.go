package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/s2"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/internal/codec"
)

// Local is the part of an embedded store that belongs to one process: the
// payloads of the documents it added, the search-index operations it has
// not yet applied, and other packages' keys (the foreign namespaces of
// package store's key schema). A Store has one (Store.Local); OpenLocal
// opens one alone, to sit beside a shared store (package rediscluster).
type Local struct {
	db      *badger.DB
	path    string
	minFree int64 // Options.MinFree, 0 in memory
	// roomUntil is when room next asks the file system (Unix ns): a
	// statfs on every commit cost the filter a sixtieth of its CPU.
	roomUntil atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

// OpenLocal opens (creating if needed) a Badger store in opts.Dir for a
// process' own part of a shared store. opts.PostingTable is not used.
func OpenLocal(opts Options) (*Local, error) {
	db, err := openDB(opts)
	if err != nil {
		return nil, err
	}
	return &Local{db: db, path: opts.Dir, minFree: opts.MinFree}, nil
}

// A check that found roomSlack more free space than Options.MinFree
// holds for roomFor: no writes of the store fill that much so fast.
const (
	roomSlack = 256 << 20
	roomFor   = 100 * time.Millisecond
)

// room refuses a write while the disk under the store has less than
// Options.MinFree free (see there).
func (l *Local) room() error {
	if l.minFree <= 0 || l.path == "" {
		return nil
	}
	now := time.Now()
	if now.UnixNano() < l.roomUntil.Load() {
		return nil
	}
	free, err := freeBytes(l.path)
	if err != nil {
		return nil // unknown here: Badger's own errors stand
	}
	if free-l.minFree >= roomSlack {
		l.roomUntil.Store(now.Add(roomFor).UnixNano())
	}
	if free < l.minFree {
		return fmt.Errorf("embedded: %s: %d MiB free on its disk, under the %d MiB a write needs (Options.MinFree): free some space and run again: %w",
			l.path, free>>20, l.minFree>>20, store.ErrDiskFull)
	}
	return nil
}

// ReadOnly reports whether the store was opened read-only.
func (l *Local) ReadOnly() bool { return l.db.Opts().ReadOnly }

// Close closes the Badger store. Later calls return the first's result.
func (l *Local) Close() error {
	l.closeOnce.Do(func() {
		if err := l.db.Close(); err != nil {
			l.closeErr = fmt.Errorf("embedded: close %s: %w", l.path, err)
		}
	})
	return l.closeErr
}

// View calls fn with a read-only KV over one consistent view.
func (l *Local) View(fn func(store.KV) error) error {
	err := l.db.View(func(txn *badger.Txn) error { return fn(&localTxn{txn: txn}) })
	return closedError(err)
}

// closedError names Badger's error for a closed store as store.ErrClosed.
func closedError(err error) error {
	if errors.Is(err, badger.ErrDBClosed) {
		return fmt.Errorf("embedded: %w", store.ErrClosed)
	}
	return err
}

// Update calls fn with a KV whose writes commit together when fn returns
// nil.
func (l *Local) Update(fn func(store.KV) error) error {
	if l.ReadOnly() {
		return fmt.Errorf("embedded: update: %w", store.ErrReadOnly)
	}
	if err := l.room(); err != nil {
		return err
	}
	err := l.db.Update(func(txn *badger.Txn) error { return fn(&localTxn{txn: txn}) })
	return closedError(err)
}

// Begin starts a transaction over the local keys, for writing when
// update.
func (l *Local) Begin(update bool) store.LocalTxn { return l.begin(update) }

func (l *Local) begin(update bool) *localTxn {
	t := &localTxn{txn: l.db.NewTransaction(update && !l.ReadOnly())}
	if update {
		t.local = l
	}
	return t
}

// Pending calls fn with the encoded operations of each mutation not yet
// cleared, in seq order; ops is valid during the call only.
func (l *Local) Pending(fn func(seq uint64, ops []byte) error) error {
	return l.db.View(func(txn *badger.Txn) error {
		return eachValue(txn, store.NSPending, func(k, v []byte) error {
			if len(k) != len(store.NSPending)+8 {
				return fmt.Errorf("pending key %q: %w", k, store.ErrCorrupt)
			}
			seq := binary.BigEndian.Uint64(k[len(store.NSPending):])
			if err := fn(seq, v); err != nil {
				return fmt.Errorf("pending %d: %w", seq, err)
			}
			return nil
		})
	})
}

// ClearPending forgets the pending operations of mutations seqs.
func (l *Local) ClearPending(seqs []uint64) error {
	wb := l.db.NewWriteBatch()
	defer wb.Cancel()
	for _, seq := range seqs {
		if err := wb.Delete(codec.SeqKey(store.NSPending, seq)); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// PendingCount counts the mutations with pending operations.
func (l *Local) PendingCount() (int, error) {
	n := 0
	err := l.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(store.NSPending)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// localTxn is a transaction over a Local: payloads, pending operations,
// and the KV of other packages' keys (store.LocalTxn).
type localTxn struct {
	txn   *badger.Txn
	local *Local // a transaction of Begin(true), whose Commit checks room
}

// Payload reads and decompresses the payload of id. Payloads are stored
// compressed (S2, Snappy's successor): they are a page's text, the
// store's largest values, and the store runs without Badger's block
// compression, which would compress them again at every compaction along
// with values that do not compress.
func (t *localTxn) Payload(id string) ([]byte, error) {
	var out []byte
	err := getValue(t.txn, codec.Key(store.NSPayload, id), func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		var err error
		if out, err = s2.Decode(nil, b); err != nil {
			return fmt.Errorf("payload: %v: %w", err, store.ErrCorrupt)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("payload of %q: %w", id, err)
	}
	return out, nil
}

// HasPayload reports whether the store holds id's payload.
func (t *localTxn) HasPayload(id string) (bool, error) {
	_, err := t.txn.Get(codec.Key(store.NSPayload, id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

// PutPayload stores id's payload.
func (t *localTxn) PutPayload(id string, p []byte) error {
	var v []byte
	if len(p) > 0 {
		v = s2.Encode(nil, p)
	}
	return t.set(codec.Key(store.NSPayload, id), v)
}

// DeletePayload deletes id's payload.
func (t *localTxn) DeletePayload(id string) error {
	return t.del(codec.Key(store.NSPayload, id))
}

// SetPending records mutation seq's encoded operations.
func (t *localTxn) SetPending(seq uint64, ops []byte) error {
	return t.set(codec.SeqKey(store.NSPending, seq), ops)
}

// Local returns the transaction as a store.KV.
func (t *localTxn) Local() store.KV { return t }

// Get implements store.KV.
func (t *localTxn) Get(key []byte) ([]byte, error) {
	var out []byte
	err := getValue(t.txn, key, func(v []byte) error {
		out = append([]byte{}, v...)
		return nil
	})
	return out, err
}

// Set implements store.KV: foreign keys only.
func (t *localTxn) Set(key, value []byte) error {
	if !codec.ForeignKey(key) {
		return fmt.Errorf("embedded: set %q: %w", key, store.ErrNamespace)
	}
	return t.set(key, value)
}

// Delete implements store.KV: foreign keys only.
func (t *localTxn) Delete(key []byte) error {
	if !codec.ForeignKey(key) {
		return fmt.Errorf("embedded: delete %q: %w", key, store.ErrNamespace)
	}
	return t.del(key)
}

// Scan implements store.KV.
func (t *localTxn) Scan(prefix []byte, fn func(key, value []byte) error) error {
	return eachValue(t.txn, string(prefix), fn)
}

func (t *localTxn) set(k, v []byte) error {
	if err := t.txn.Set(k, v); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func (t *localTxn) del(k []byte) error {
	if err := t.txn.Delete(k); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

// Commit commits the transaction.
func (t *localTxn) Commit() error {
	if t.local != nil {
		if err := t.local.room(); err != nil {
			return err
		}
	}
	return t.txn.Commit()
}

// Discard drops the transaction's writes; harmless after Commit.
func (t *localTxn) Discard() { t.txn.Discard() }

// getValue calls fn with the value of k (valid only during fn), or
// returns store.ErrNotFound.
func getValue(txn *badger.Txn, k []byte, fn func([]byte) error) error {
	item, err := txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(fn)
}

// eachValue calls fn with each key under prefix and its value (both
// valid only during the call).
func eachValue(txn *badger.Txn, prefix string, fn func(k, v []byte) error) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix), PrefetchValues: true})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if err := it.Item().Value(func(v []byte) error { return fn(k, v) }); err != nil {
			return err
		}
	}
	return nil
}
