package dedupfilter

import (
	"errors"
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Doc returns the stored document id with its payload. The store keeps
// a compact signature of the features, not the Features themselves, so
// Entry.Features is nil. The Entry is the caller's.
func (f *Filter) Doc(id string) (Entry, error) {
	return f.entry(id, true)
}

// Meta is Doc without the payload: what a result list shows of a document
// (url, title, cluster, whether it is indexed), read without copying its
// text.
func (f *Filter) Meta(id string) (Entry, error) {
	return f.entry(id, false)
}

func (f *Filter) entry(id string, payload bool) (Entry, error) {
	var e Entry
	err := f.backend.Read(func(st store.Txn) error {
		var err error
		if e, err = meta(st, id); err != nil || !payload {
			return err
		}
		if e.Payload, err = f.payload(st, id); err != nil {
			return fmt.Errorf("dedupfilter: payload of %q: %w", id, err)
		}
		return nil
	})
	return e, err
}

// Stats reads the store's counts and what it holds by kind (see
// store.Stats): a scan of every key.
func (f *Filter) Stats() (store.Stats, error) {
	st, err := f.backend.Stats()
	if err != nil {
		return store.Stats{}, fmt.Errorf("dedupfilter: stats: %w", err)
	}
	return st, nil
}

// meta reads the Meta of id.
func meta(st store.Txn, id string) (Entry, error) {
	rec, err := st.Record(id, false)
	if err != nil {
		return Entry{}, fmt.Errorf("dedupfilter: %w", err)
	}
	local, err := st.HasPayload(id)
	if err != nil {
		return Entry{}, fmt.Errorf("dedupfilter: payload of %q: %w", id, err)
	}
	return Entry{Doc: Doc{ID: id, URL: rec.URL, Title: rec.Title, Time: rec.Time, Hash: rec.Hash},
		Seq: rec.Seq, Cluster: rec.Cluster, Indexed: rec.Indexed, Local: local}, nil
}

// Folded is a cluster as a search hit shows it: how many documents it
// holds besides the hit, and some of them.
type Folded struct {
	Size    int     // members, the hit's document included
	Members []Entry // Meta of up to max members other than the hit, in id order
}

// Fold reads, from one snapshot, the cluster of each hit: hits[i] is a
// document id and clusters[i] its cluster id. A cluster the store does not
// know yields a zero Folded. Reading a search page's clusters at once
// costs one snapshot, not one per member.
func (f *Filter) Fold(hits, clusters []string, max int) ([]Folded, error) {
	out := make([]Folded, len(hits))
	err := f.backend.Read(func(st store.Txn) error {
		for i, cl := range clusters {
			members, err := st.Members(cl)
			if err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			out[i].Size = len(members)
			for _, m := range members {
				if m == hits[i] || len(out[i].Members) >= max {
					continue
				}
				e, err := meta(st, m)
				if err != nil && !errors.Is(err, ErrNotFound) {
					return err
				}
				if err != nil {
					e = Entry{Doc: Doc{ID: m}}
				}
				out[i].Members = append(out[i].Members, e)
			}
		}
		return nil
	})
	return out, err
}

// Cluster returns the cluster with id cluster, or ErrNotFound.
func (f *Filter) Cluster(cluster string) (Cluster, error) {
	var c Cluster
	err := f.backend.Read(func(st store.Txn) error {
		var err error
		c, err = readCluster(st, cluster)
		return err
	})
	return c, err
}

// ClusterOf returns the cluster of stored document id, or ErrNotFound.
func (f *Filter) ClusterOf(id string) (Cluster, error) {
	var c Cluster
	err := f.backend.Read(func(st store.Txn) error {
		rec, err := st.Record(id, false)
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		c, err = readCluster(st, rec.Cluster)
		return err
	})
	return c, err
}

func readCluster(st store.Txn, cluster string) (Cluster, error) {
	rep, err := st.Representative(cluster)
	if err != nil {
		return Cluster{}, fmt.Errorf("dedupfilter: %w", err)
	}
	members, err := st.Members(cluster)
	if err != nil {
		return Cluster{}, fmt.Errorf("dedupfilter: %w", err)
	}
	return Cluster{ID: cluster, Representative: rep, Members: members}, nil
}

// Clusters calls fn for every cluster in creation order (ascending id) over
// one consistent snapshot, holding one cluster in memory at a time; an
// error from fn stops the walk and is returned.
func (f *Filter) Clusters(fn func(Cluster) error) error {
	return f.ClustersAfter("", fn)
}

// ClustersAfter is Clusters from the first cluster whose id sorts after
// after: a walk resumed where an earlier one stopped costs nothing for
// the clusters before.
func (f *Filter) ClustersAfter(after string, fn func(Cluster) error) error {
	return f.backend.Read(func(st store.Txn) error {
		return st.Clusters(after, func(id string) error {
			c, err := readCluster(st, id)
			if err != nil {
				return err
			}
			return fn(c)
		})
	})
}

// Empty reports whether the store holds no document (an error reading it
// counts as not empty).
func (f *Filter) Empty() bool { return f.backend.Empty() }
