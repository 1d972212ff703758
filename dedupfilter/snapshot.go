package dedupfilter

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Snapshot reads the filter's state as of one moment (View): clusters,
// members, records and signatures, and the documents sharing block
// fingerprints. Batch passes over the whole store (package recluster)
// read through it.
type Snapshot struct{ st store.Txn }

// View calls fn with a snapshot of the filter's state, valid until fn
// returns.
func (f *Filter) View(fn func(*Snapshot) error) error {
	return f.backend.Read(func(st store.Txn) error {
		return fn(&Snapshot{st: st})
	})
}

// Clusters calls fn with every cluster id, in creation order.
func (s *Snapshot) Clusters(fn func(cluster string) error) error {
	return s.st.Clusters("", fn)
}

// Members returns the members of cluster, in id order.
func (s *Snapshot) Members(cluster string) ([]string, error) {
	ms, err := s.st.Members(cluster)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
	}
	return ms, nil
}

// Representative returns the representative of cluster.
func (s *Snapshot) Representative(cluster string) (string, error) {
	rep, err := s.st.Representative(cluster)
	if err != nil {
		return "", fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
	}
	return rep, nil
}

// Signature returns document id's record and signature.
func (s *Snapshot) Signature(id string) (*store.Record, similarity.Signature, error) {
	return docSignature(s.st, id)
}

// Docs calls fn with every stored document (see eachDoc).
func (s *Snapshot) Docs(fn func(id string, rec *store.Record, sig similarity.Signature) error) error {
	return eachDoc(s.st, fn)
}

// BlockPostings returns the posting lists of sig's distinct block
// fingerprints (the fingerprint paper's inverted index), in sig's order.
func (s *Snapshot) BlockPostings(sig similarity.Signature) ([]store.PostingList, error) {
	var keys [][]byte
	for _, h := range sig.Blocks() {
		if k := store.PostingKey(kindBlock, uint64(h)); !slices.ContainsFunc(keys, func(x []byte) bool { return bytes.Equal(x, k) }) {
			keys = append(keys, k)
		}
	}
	ls, err := s.st.Postings(keys)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	return ls, nil
}

// Posted returns the id, record and signature of the document posted as
// seq; ErrNotFound when it was replaced or removed since.
func (s *Snapshot) Posted(seq uint64) (string, *store.Record, similarity.Signature, error) {
	id, sig, err := readSignature(s.st, seq)
	if err != nil {
		return "", nil, sig, fmt.Errorf("dedupfilter: document %d: %w", seq, err)
	}
	rec, err := s.st.Record(id, false)
	if err == nil && rec.Seq != seq {
		err = ErrNotFound
	}
	if err != nil {
		return "", nil, sig, fmt.Errorf("dedupfilter: %q: %w", id, err)
	}
	return id, rec, sig, nil
}

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
