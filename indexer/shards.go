package indexer

import (
	"errors"
	"fmt"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// Shards are indexes that share one store (Options.SharedStore), each
// written by its own process, opened together for searching: their bleve
// indexes behind one alias, the shared store's clusters and documents.
type Shards struct {
	ix    []*Index
	alias bleve.IndexAlias
}

// OpenShards opens the indexes in dirs with opts. Several indexes need a
// shared store: their clusters must be one.
func OpenShards(dirs []string, opts Options) (*Shards, error) {
	if len(dirs) > 1 && opts.SharedStore == "" {
		return nil, fmt.Errorf("indexer: %d indexes without a shared store: each has clusters of its own: %w", len(dirs), ErrInvalidOptions)
	}
	s := &Shards{}
	for _, d := range dirs {
		ix, err := Open(d, opts)
		if err != nil {
			return nil, errors.Join(err, s.Close())
		}
		s.ix = append(s.ix, ix)
	}
	bs := make([]bleve.Index, len(s.ix))
	for i, ix := range s.ix {
		bs[i] = ix.Bleve()
	}
	s.alias = bleve.NewIndexAlias(bs...)
	return s, nil
}

// Bleve returns the shards' bleve indexes behind one alias, for reading.
func (s *Shards) Bleve() bleve.Index {
	if len(s.ix) == 1 {
		return s.ix[0].Bleve() // collapsing is cheaper on an index than on an alias
	}
	return s.alias
}

// Filter returns the store's filter, for reading clusters and documents'
// metadata (every shard's filter reads the same shared state).
func (s *Shards) Filter() *dedupfilter.Filter { return s.ix[0].Filter() }

// Doc returns document id with its payload, from the shard that added it.
func (s *Shards) Doc(id string) (dedupfilter.Entry, error) {
	var err error
	for _, ix := range s.ix {
		var e dedupfilter.Entry
		if e, err = ix.Doc(id); err == nil && (e.Local || len(s.ix) == 1) {
			return e, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("indexer: %s: no shard holds its text: %w", id, dedupfilter.ErrNotFound)
	}
	return dedupfilter.Entry{}, err
}

// Close closes every shard.
func (s *Shards) Close() error {
	var errs []error
	for _, ix := range s.ix {
		errs = append(errs, ix.Close())
	}
	return errors.Join(errs...)
}
