package dedupfilter

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
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
	err := f.db.View(func(txn *badger.Txn) error {
		var err error
		if e, err = meta(txn, id); err != nil || !payload {
			return err
		}
		e.Payload, err = getPayload(txn, id)
		return err
	})
	return e, err
}

// meta reads the Meta of id.
func meta(txn *badger.Txn, id string) (Entry, error) {
	var e Entry
	err := getValue(txn, key(nsDoc, id), func(b []byte) error {
		rec, r := decodeRecordHead(b)
		if r.err != nil {
			return r.err
		}
		e = Entry{Doc: Doc{ID: id, URL: rec.URL, Title: rec.Title, Time: rec.Time, Hash: rec.Hash},
			Seq: rec.Seq, Cluster: rec.Cluster, Indexed: rec.Indexed}
		return nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("dedupfilter: document %q: %w", id, err)
	}
	return e, nil
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
// costs one transaction, not one per member.
func (f *Filter) Fold(hits, clusters []string, max int) ([]Folded, error) {
	out := make([]Folded, len(hits))
	err := f.db.View(func(txn *badger.Txn) error {
		for i, cl := range clusters {
			members, err := listMembers(txn, cl)
			if err != nil {
				return err
			}
			out[i].Size = len(members)
			for _, m := range members {
				if m == hits[i] || len(out[i].Members) >= max {
					continue
				}
				e, err := meta(txn, m)
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
	err := f.db.View(func(txn *badger.Txn) error {
		var err error
		c, err = readCluster(txn, cluster)
		return err
	})
	return c, err
}

// ClusterOf returns the cluster of stored document id, or ErrNotFound.
func (f *Filter) ClusterOf(id string) (Cluster, error) {
	var c Cluster
	err := f.db.View(func(txn *badger.Txn) error {
		rec, err := getRecord(txn, id)
		if err != nil {
			return err
		}
		c, err = readCluster(txn, rec.Cluster)
		return err
	})
	return c, err
}

func readCluster(txn *badger.Txn, cluster string) (Cluster, error) {
	rep, err := copyValue(txn, key(nsCluster, cluster))
	if err != nil {
		return Cluster{}, fmt.Errorf("dedupfilter: cluster %q: %w", cluster, err)
	}
	members, err := listMembers(txn, cluster)
	if err != nil {
		return Cluster{}, err
	}
	return Cluster{ID: cluster, Representative: string(rep), Members: members}, nil
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
	return f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsCluster)})
		defer it.Close()
		start := []byte(nsCluster)
		if after != "" {
			start = append(key(nsCluster, after), 0) // the smallest key after it
		}
		for it.Seek(start); it.Valid(); it.Next() {
			c, err := readCluster(txn, string(it.Item().Key()[len(nsCluster):]))
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// Empty reports whether the store holds no document (an error reading it
// counts as not empty).
func (f *Filter) Empty() bool {
	empty := false
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsDoc)})
		defer it.Close()
		it.Rewind()
		empty = !it.Valid()
		return nil
	})
	return err == nil && empty
}

// Stats are store counts for reports.
type Stats struct {
	Docs, Clusters int
	Lists          int // posting lists, stop lists included
	Pending        int // mutations whose ops are not yet Applied
}

// Stats counts the stored keys by kind (a full key scan).
func (f *Filter) Stats() (Stats, error) {
	var s Stats
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) < 2 {
				continue
			}
			switch string(k[:2]) {
			case nsDoc:
				s.Docs++
			case nsCluster:
				s.Clusters++
			case nsPosting:
				s.Lists++
			case nsPending:
				s.Pending++
			}
		}
		return nil
	})
	return s, err
}
