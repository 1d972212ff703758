package dedupfilter

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Replay makes a search index agree with the store after a crash: apply
// gets, for every document a pending mark names, the op that puts it in
// the search index as the store holds it now (indexed under its record's
// cluster with its payload, or deleted when it is out of the index, gone,
// or a shared store's document of another process), in document id
// order; then every mark is cleared. It returns how many documents apply
// got.
//
// The marks' own ops will not do: a document may have several marks (its
// Add, then a merge or a re-decision that moves it, decided while the
// first was being written), and confirming the latest leaves the older
// ones to be replayed later over the newer state.
func (f *Filter) Replay(apply func([]Op) error) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return 0, fmt.Errorf("dedupfilter: replay: %w", err)
	}
	var seqs []uint64
	ids := map[string]bool{}
	err := f.backend.Pending(func(seq uint64, b []byte) error {
		ops, err := decodePending(seq, b)
		if err != nil {
			return err
		}
		seqs = append(seqs, seq)
		for _, op := range ops {
			ids[op.ID] = true
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("dedupfilter: pending: %w", err)
	}
	if len(seqs) == 0 {
		return 0, f.confirmAll() // (a journal's records of mutations never committed)
	}
	ops := make([]Op, 0, len(ids))
	err = f.backend.Read(func(st store.Txn) error {
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			op := Op{Kind: OpDelete, ID: id}
			rec, err := st.Record(id, false)
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				return fmt.Errorf("dedupfilter: %q: %w", id, err)
			case rec.Indexed:
				payload, err := f.payload(st, id)
				if err == nil {
					op = Op{Kind: OpIndex, ID: id, Cluster: rec.Cluster, Payload: payload}
				} else if !errors.Is(err, ErrNotFound) {
					return fmt.Errorf("dedupfilter: payload of %q: %w", id, err)
				}
			}
			ops = append(ops, op)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := apply(ops); err != nil {
		return 0, err
	}
	if err := f.backend.ClearPending(seqs); err != nil {
		return 0, fmt.Errorf("dedupfilter: clear pending: %w", err)
	}
	return len(ops), f.confirmAll()
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
	if f.inIndex != nil {
		return f.inIndex.j.confirm(seqs)
	}
	return nil
}

// confirmAll empties the journal of KeepPayloadsIn, if any: the search
// index holds what the store does.
func (f *Filter) confirmAll() error {
	if f.inIndex == nil {
		return nil
	}
	return f.inIndex.j.confirmAll()
}
