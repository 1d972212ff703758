package dedupfilter

import (
	"errors"
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// eachDoc calls fn with every stored document's id, record (without its
// posting keys) and signature, cluster by cluster in creation order and
// each cluster's members in id order, holding one cluster's member list
// at a time.
func eachDoc(st store.Txn, fn func(id string, rec *store.Record, sig similarity.Signature) error) error {
	return st.Clusters("", func(cluster string) error {
		members, err := st.Members(cluster)
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
func docSignature(st store.Txn, id string) (*store.Record, similarity.Signature, error) {
	rec, err := st.Record(id, false)
	if err != nil {
		return nil, similarity.Signature{}, fmt.Errorf("dedupfilter: %q: %w", id, err)
	}
	_, sig, err := readSignature(st, rec.Seq)
	if err != nil {
		return nil, similarity.Signature{}, fmt.Errorf("dedupfilter: similarity.Signature of %q: %w", id, err)
	}
	return rec, sig, nil
}

// Tags returns the tag sequence stored for document id (see
// Options.Voters), nil when none is stored: a caller re-adding a
// document whose page it no longer holds passes them on.
func (f *Filter) Tags(id string) []byte {
	var tags []byte
	f.backend.Read(func(st store.Txn) error {
		_, sig, err := docSignature(st, id)
		tags = sig.Tags()
		return err
	})
	return tags
}

// CompareStored compares two stored documents as the filter would verify
// them, from their stored signatures (the verdict of Add, or of
// recluster, for that pair).
func (f *Filter) CompareStored(a, b string) (similarity.Verdict, error) {
	var v similarity.Verdict
	err := f.backend.Read(func(st store.Txn) error {
		_, sa, err := docSignature(st, a)
		if err != nil {
			return err
		}
		_, sb, err := docSignature(st, b)
		if err != nil {
			return err
		}
		v = similarity.Compare(sa, sb, f.opts.Options)
		return nil
	})
	return v, err
}
