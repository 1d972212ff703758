package dedupfilter

import (
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
		rec, err := getRecord(txn, id)
		if err != nil {
			return err
		}
		e = Entry{Doc: Doc{ID: id, URL: rec.URL, Title: rec.Title, Time: rec.Time},
			Seq: rec.Seq, Cluster: rec.Cluster, Indexed: rec.Indexed}
		if payload {
			e.Payload, err = copyValue(txn, key(nsPayload, id))
		}
		return err
	})
	return e, err
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
// one consistent snapshot; an error from fn stops the walk and is returned.
func (f *Filter) Clusters(fn func(Cluster) error) error {
	return f.db.View(func(txn *badger.Txn) error {
		var ids []string
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsCluster)})
		for it.Rewind(); it.Valid(); it.Next() {
			ids = append(ids, string(it.Item().Key()[len(nsCluster):]))
		}
		it.Close()
		for _, id := range ids {
			c, err := readCluster(txn, id)
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
