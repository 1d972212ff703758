package dedupfilter

import (
	"errors"
	"fmt"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Group is a cluster as Regroup leaves it: its members, and the id it
// keeps ("" for a new cluster).
type Group struct {
	Target  string
	Members []string
}

// Regroup rewrites a set of clusters in one mutation: before are their
// members as the caller read them (a Snapshot), groups what they become;
// every member of before must be in one group. Memberships, records'
// cluster ids and representatives are written, and the search-index
// operations that follow — under Mark every moved member is indexed
// again with its new cluster id; under Suppress and Replace each cluster
// keeps one indexed copy — are recorded as pending like an Add's and
// returned. ErrStale when a cluster's members changed since they were
// read: nothing is written.
func (f *Filter) Regroup(before map[string][]string, groups []Group) ([]Op, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return nil, fmt.Errorf("dedupfilter: regroup: %w", err)
	}
	w, err := f.begin()
	if err != nil {
		return nil, err
	}
	defer w.st.Discard()
	recs := map[string]*store.Record{}
	for c, want := range before {
		got, err := w.st.Members(c)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		if !slices.Equal(got, want) {
			return nil, fmt.Errorf("dedupfilter: cluster %s: %w", c, ErrStale)
		}
		for _, id := range got {
			if recs[id], err = w.record(id); err != nil {
				return nil, err
			}
		}
	}
	used := map[string]bool{}
	for _, g := range groups {
		if err := w.regroup(g, recs); err != nil {
			return nil, err
		}
		used[g.Target] = true
	}
	for c := range before {
		if used[c] {
			continue
		}
		if err := w.st.DeleteCluster(c); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
	}
	return w.commit()
}

// regroup makes g one cluster: its members' records and memberships point
// at its target (a new cluster when it has none), its representative is
// kept or chosen, and the search index is told.
func (w *mutation) regroup(g Group, recs map[string]*store.Record) error {
	target := g.Target
	if target == "" {
		n, err := w.st.NextCluster()
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		target = store.ClusterID(n)
	}
	// The representative: the target's own when it stays in the group;
	// else (a new cluster) the earliest member. Replace then lets its
	// Keep rule choose among all.
	rep := ""
	if g.Target != "" {
		var err error
		if rep, err = w.representative(target); err != nil {
			return err
		}
		if !slices.Contains(g.Members, rep) {
			rep = ""
		}
	}
	for _, id := range g.Members {
		r := recs[id]
		better := rep == ""
		if !better && w.f.opts.Policy == Replace {
			better = w.f.opts.prefer(r, recs[rep])
		} else if !better && g.Target == "" {
			better = r.Seq < recs[rep].Seq
		}
		if better {
			rep = id
		}
	}
	if err := w.st.SetRepresentative(target, rep); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	_, keep, err := readSignature(w.st, recs[rep].Seq)
	if err != nil {
		return fmt.Errorf("dedupfilter: representative %q: %w", rep, err)
	}
	held := w.holds(keep)
	for _, id := range g.Members {
		r := recs[id]
		moved := r.Cluster != target
		if moved {
			if err := errors.Join(w.st.RemoveMember(r.Cluster, id), w.st.AddMember(target, id)); err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			r.Cluster = target
			if err := w.putRecord(id, r); err != nil {
				return err
			}
		}
		indexed := w.f.opts.Policy == Mark || id == rep
		if !indexed {
			// A member whose text the representative does not hold stays
			// searchable.
			h, err := held(r.Seq)
			if err != nil {
				return err
			}
			indexed = !h
		}
		switch {
		case indexed != r.Indexed:
			if err := w.setIndexed(id, r, indexed); err != nil {
				return err
			}
		case indexed && moved:
			// Indexed before and after, under another cluster id: index it
			// again so the search index's cluster field follows.
			if err := w.indexOp(id, target); err != nil {
				return err
			}
		}
	}
	return nil
}

// holds returns the test of whether the page of signature keep holds
// CoverMin of another's whole text's distinct terms, surely
// (similarity.HeldWhole), the other's signature read from the store by
// its number.
func (w *mutation) holds(keep similarity.Signature) func(seq uint64) (bool, error) {
	return func(seq uint64) (bool, error) {
		_, sig, err := readSignature(w.st, seq)
		if err != nil {
			return false, fmt.Errorf("dedupfilter: %w", err)
		}
		_, _, in, _ := similarity.HeldWhole(sig, keep, w.f.opts.Options)
		return in >= w.f.opts.CoverMin, nil
	}
}

// setIndexed records whether id is in the search index and emits the op
// that makes it so.
func (w *mutation) setIndexed(id string, rec *store.Record, indexed bool) error {
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
	return w.indexOp(id, rec.Cluster)
}
