package dedupfilter

import (
	"errors"
	"fmt"
)

// eachDoc calls fn with every stored document's id, record (without its
// posting keys) and signature, cluster by cluster in creation order and
// each cluster's members in id order, holding one cluster's member list
// at a time.
func eachDoc(st state, fn func(id string, rec *record, sig signature) error) error {
	return st.clusters("", func(cluster string) error {
		members, err := st.members(cluster)
		if err != nil {
			return fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
		}
		for _, id := range members {
			rec, sig, err := docSignature(st, id)
			if errors.Is(err, ErrNotFound) {
				continue // a membership without its document: nothing to count
			}
			if err != nil {
				return err
			}
			if err := fn(id, rec, sig); err != nil {
				return err
			}
		}
		return nil
	})
}

// docSignature reads document id's record and signature.
func docSignature(st state, id string) (*record, signature, error) {
	rec, err := st.record(id, false)
	if err != nil {
		return nil, signature{}, fmt.Errorf("dedupfilter: %q: %w", id, err)
	}
	_, sig, err := st.signature(rec.Seq)
	if err != nil {
		return nil, signature{}, fmt.Errorf("dedupfilter: signature of %q: %w", id, err)
	}
	return rec, sig, nil
}

// Tags returns the tag sequence stored for document id (see
// Options.Voters), nil when none is stored: a caller re-adding a
// document whose page it no longer holds passes them on.
func (f *Filter) Tags(id string) []byte {
	var tags []byte
	f.store.view(func(st state) error {
		_, sig, err := docSignature(st, id)
		tags = sig.tags
		return err
	})
	return tags
}

// CompareStored compares two stored documents as the filter would verify
// them, from their stored signatures (the verdict of Add, or of
// recluster, for that pair).
func (f *Filter) CompareStored(a, b string) (Verdict, error) {
	var v Verdict
	err := f.store.view(func(st state) error {
		_, sa, err := docSignature(st, a)
		if err != nil {
			return err
		}
		_, sb, err := docSignature(st, b)
		if err != nil {
			return err
		}
		v = compare(sa, sb, f.opts)
		return nil
	})
	return v, err
}
