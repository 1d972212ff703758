package dedupfilter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Pending calls fn with every search-index operation not yet confirmed by
// Applied: for each document, the latest, in document id order. After a
// crash, apply them all (they are idempotent states) and then call
// Applied with them. An OpIndex carries the document's payload; one whose
// document is no longer stored comes as an OpDelete.
func (f *Filter) Pending(fn func(Op) error) error {
	return f.db.View(func(txn *badger.Txn) error {
		latest := map[string]Op{}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsPending), PrefetchValues: true})
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(nsPending)+8 {
				it.Close()
				return fmt.Errorf("dedupfilter: pending key %q: %w", k, ErrCorrupt)
			}
			seq := binary.BigEndian.Uint64(k[len(nsPending):])
			var ops []Op
			err := it.Item().Value(func(b []byte) error {
				var err error
				ops, err = decodePending(seq, b)
				return err
			})
			if err != nil {
				it.Close()
				return fmt.Errorf("dedupfilter: pending %d: %w", seq, err)
			}
			for _, op := range ops {
				latest[op.ID] = op // keys come in seq order: later ones win
			}
		}
		it.Close()
		ops := make([]Op, 0, len(latest))
		for _, op := range latest {
			ops = append(ops, op)
		}
		slices.SortFunc(ops, func(a, b Op) int { return strings.Compare(a.ID, b.ID) })
		for _, op := range ops {
			if op.Kind == OpIndex {
				var err error
				op.Payload, err = getPayload(txn, op.ID)
				if errors.Is(err, ErrNotFound) {
					op = Op{Kind: OpDelete, ID: op.ID, Seq: op.Seq}
				} else if err != nil {
					return fmt.Errorf("dedupfilter: payload of %q: %w", op.ID, err)
				}
			}
			if err := fn(op); err != nil {
				return err
			}
		}
		return nil
	})
}

// Applied clears the pending marks of the Adds and Deletes whose ops the
// search index has applied (all of their ops, as they came in Decision.Ops
// or DeleteResult.Ops). Each mutation has a mark of its own, so confirming
// an older one never hides a newer one.
func (f *Filter) Applied(ops ...Op) error {
	if len(ops) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return fmt.Errorf("dedupfilter: applied: %w", err)
	}
	wb := f.db.NewWriteBatch()
	defer wb.Cancel()
	done := map[uint64]bool{}
	for _, op := range ops {
		if done[op.Seq] {
			continue
		}
		done[op.Seq] = true
		if err := wb.Delete(seqKey(nsPending, op.Seq)); err != nil {
			return fmt.Errorf("dedupfilter: clear pending %d: %w", op.Seq, err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("dedupfilter: clear pending: %w", err)
	}
	return nil
}
