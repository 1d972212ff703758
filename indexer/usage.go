package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/internal/du"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Usage is what an index holds and what it takes on disk (Index.Usage).
type Usage struct {
	// Indexed are the documents in the bleve index; Docs those the
	// filter holds (the indexed and the copies kept out), in Clusters.
	Indexed        uint64
	Docs, Clusters int
	// BleveBytes and StoreBytes are what the bleve index's files and the
	// store's take on disk (with a shared store, this process' own part:
	// payloads, site tables, URL owners); 0 where unknown (a bleve index
	// in memory).
	BleveBytes, StoreBytes int64
	// Parts are the store's contents by kind, largest first (see
	// store.Stats; nil for a shared store).
	Parts []store.Part
}

// Usage reads what the index holds: its counts, and its bytes on disk by
// part. It reads every key of the store, not the values. Over an Alias,
// the shards' figures are added up (a shared store's counts once).
func (w *Index) Usage() (Usage, error) {
	if w.shards != nil {
		var u Usage
		for i, s := range w.shards {
			su, err := s.Usage()
			if err != nil {
				return Usage{}, err
			}
			if i > 0 && s.ix.shared != "" {
				su.Docs, su.Clusters = 0, 0 // the first shard's read counted the shared store
			}
			u.add(su)
		}
		return u, nil
	}
	if err := w.settle(); err != nil {
		return Usage{}, err
	}
	st, err := w.ix.filter.Stats()
	if err != nil {
		return Usage{}, fmt.Errorf("indexer: %w", err)
	}
	n, err := w.wrapped.DocCount()
	if err != nil {
		return Usage{}, fmt.Errorf("indexer: %w", err)
	}
	u := Usage{Indexed: n, Docs: st.Docs, Clusters: st.Clusters, Parts: st.Parts,
		StoreBytes: du.Bytes(filepath.Join(w.ix.dir, storeDir)) + du.Bytes(filepath.Join(w.ix.dir, postingsFile))}
	// A bleve index on disk is named by its path (bleve.New, bleve.Open).
	if name := w.wrapped.Name(); name != "" {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			u.BleveBytes = du.Bytes(name)
		}
	}
	return u, nil
}

// add adds v's figures to u's, their parts by name.
func (u *Usage) add(v Usage) {
	u.Indexed += v.Indexed
	u.Docs += v.Docs
	u.Clusters += v.Clusters
	u.BleveBytes += v.BleveBytes
	u.StoreBytes += v.StoreBytes
	for _, p := range v.Parts {
		if i := slices.IndexFunc(u.Parts, func(q store.Part) bool { return q.Name == p.Name }); i >= 0 {
			u.Parts[i].Keys += p.Keys
			u.Parts[i].Bytes += p.Bytes
		} else {
			u.Parts = append(u.Parts, p)
		}
	}
	store.SortParts(u.Parts)
}
