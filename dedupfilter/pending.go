package dedupfilter

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Pending calls fn with every search-index operation not yet confirmed by
// Applied, in document id order. After a crash, apply them all (they are
// idempotent states) and then call Applied.
func (f *Filter) Pending(fn func(Op) error) error {
	return f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsPending), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var op Op
			err := it.Item().Value(func(b []byte) error {
				var err error
				op, err = decodeOp(b)
				return err
			})
			if err == nil && op.Kind == OpIndex {
				op.Payload, err = copyValue(txn, key(nsPayload, op.ID))
			}
			if err != nil {
				return fmt.Errorf("dedupfilter: pending %q: %w", it.Item().Key(), err)
			}
			if err := fn(op); err != nil {
				return err
			}
		}
		return nil
	})
}

// Applied clears the pending marks of ops the search index has applied. A
// mark is cleared only if no later Add or Delete has replaced it (its Seq
// still matches), so confirming a stale op never hides a newer one.
func (f *Filter) Applied(ops ...Op) error {
	if len(ops) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("dedupfilter: applied: %w", ErrClosed)
	}
	return f.db.Update(func(txn *badger.Txn) error {
		for _, op := range ops {
			k := key(nsPending, op.ID)
			var cur Op
			err := getValue(txn, k, func(b []byte) error {
				var err error
				cur, err = decodeOp(b)
				return err
			})
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("dedupfilter: pending %q: %w", op.ID, err)
			}
			if cur.Seq == op.Seq {
				if err := txn.Delete(k); err != nil {
					return fmt.Errorf("dedupfilter: clear pending %q: %w", op.ID, err)
				}
			}
		}
		return nil
	})
}
