package dedupfilter

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Pending calls fn with every search-index operation not yet confirmed by
// Applied: for each document, the latest, in document id order. After a
// crash, apply them all (they are idempotent states) and then call
// Applied with them. An OpIndex carries the document's payload; one whose
// document is no longer stored comes as an OpDelete.
func (f *Filter) Pending(fn func(Op) error) error {
	latest := map[string]Op{}
	err := f.backend.Pending(func(seq uint64, b []byte) error {
		ops, err := decodePending(seq, b)
		if err != nil {
			return err
		}
		for _, op := range ops {
			latest[op.ID] = op // mutations come in seq order: later ones win
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dedupfilter: pending: %w", err)
	}
	ops := make([]Op, 0, len(latest))
	for _, op := range latest {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b Op) int { return strings.Compare(a.ID, b.ID) })
	return f.backend.Read(func(st store.Txn) error {
		for _, op := range ops {
			if op.Kind == OpIndex {
				var err error
				op.Payload, err = st.Payload(op.ID)
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
	var seqs []uint64
	for _, op := range ops {
		if !slices.Contains(seqs, op.Seq) {
			seqs = append(seqs, op.Seq)
		}
	}
	if err := f.backend.ClearPending(seqs); err != nil {
		return fmt.Errorf("dedupfilter: clear pending: %w", err)
	}
	return nil
}
