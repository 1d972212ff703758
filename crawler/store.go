package crawler

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/internal/badgeropen"
)

// Keys of the crawl store. Every page's effects (its frontier entry
// removed, its new links queued and seen, its content hash, the counters
// and the learnt weights) are written in one transaction, so a crash
// leaves the store at a page boundary.
const (
	keyVersion  = "v"
	keyCounters = "c"
	keyWeights  = "w"
	nsFrontier  = "f/" // + url -> item JSON
	nsSeen      = "s/" // + url -> ""
	nsContent   = "h/" // + content hash -> url of the first page with it
	storeFormat = "1"
)

// counters are the cumulative Summary fields and the discovery sequence.
type counters struct {
	Fetched    int    `json:"fetched"`
	Relevant   int    `json:"relevant"`
	Duplicates int    `json:"duplicates"`
	Errors     int    `json:"errors"`
	Disallowed int    `json:"disallowed"`
	Indexed    int    `json:"indexed"`
	Dropped    int    `json:"dropped"`
	Seq        uint64 `json:"seq"`
}

// loaded is the state read back from a store.
type loaded struct {
	fresh    bool
	counters counters
	weights  []byte // LinkScorer state, nil if none
	frontier []*item
	seen     map[string]struct{}
	content  map[string]string
}

func openStore(dir string, sync bool) (*badger.DB, error) {
	bo := badger.DefaultOptions(dir).
		WithSyncWrites(sync).
		WithLogger(nil).
		WithMemTableSize(8 << 20).
		WithBlockCacheSize(16 << 20).
		WithNumVersionsToKeep(1)
	db, err := badgeropen.Open(bo)
	if err != nil {
		return nil, fmt.Errorf("crawler: open state %q: %w", dir, err)
	}
	return db, nil
}

func loadState(db *badger.DB) (*loaded, error) {
	st := &loaded{seen: make(map[string]struct{}), content: make(map[string]string)}
	err := db.View(func(txn *badger.Txn) error {
		v, err := txn.Get([]byte(keyVersion))
		if errors.Is(err, badger.ErrKeyNotFound) {
			st.fresh = true
			return nil
		}
		if err != nil {
			return err
		}
		if err := v.Value(func(b []byte) error {
			if string(b) != storeFormat {
				return fmt.Errorf("crawler: format %q, want %q: %w", b, storeFormat, ErrStoreVersion)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := getJSON(txn, keyCounters, &st.counters); err != nil {
			return err
		}
		if w, err := txn.Get([]byte(keyWeights)); err == nil {
			if st.weights, err = w.ValueCopy(nil); err != nil {
				return err
			}
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 100})
		defer it.Close()
		for it.Seek([]byte("f/")); it.Valid(); it.Next() {
			k := string(it.Item().Key())
			switch {
			case len(k) > 2 && k[:2] == nsFrontier:
				var x item
				if err := it.Item().Value(func(b []byte) error { return json.Unmarshal(b, &x) }); err != nil {
					return fmt.Errorf("frontier entry %q: %w", k, err)
				}
				st.frontier = append(st.frontier, &x)
			case len(k) > 2 && k[:2] == nsSeen:
				st.seen[k[2:]] = struct{}{}
			case len(k) > 2 && k[:2] == nsContent:
				if err := it.Item().Value(func(b []byte) error { st.content[k[2:]] = string(b); return nil }); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("crawler: load state: %w", err)
	}
	return st, nil
}

func getJSON(txn *badger.Txn, key string, v any) error {
	it, err := txn.Get([]byte(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return it.Value(func(b []byte) error { return json.Unmarshal(b, v) })
}

// change is one page's (or the seeds') writes.
type change struct {
	done    string  // fetched URL to remove from the frontier ("" for none)
	queued  []*item // new or raised frontier entries
	seen    []string
	content [2]string // hash, url ("" for none)
	weights []byte    // nil: unchanged
	counts  counters
}

// commit writes c in one transaction.
func commit(db *badger.DB, c change) error {
	err := db.Update(func(txn *badger.Txn) error {
		set := func(k string, v []byte) error { return txn.Set([]byte(k), v) }
		if err := set(keyVersion, []byte(storeFormat)); err != nil {
			return err
		}
		if c.done != "" {
			if err := txn.Delete([]byte(nsFrontier + c.done)); err != nil {
				return err
			}
		}
		for _, it := range c.queued {
			b, err := json.Marshal(it)
			if err != nil {
				return err
			}
			if err := set(nsFrontier+it.URL, b); err != nil {
				return err
			}
		}
		for _, u := range c.seen {
			if err := set(nsSeen+u, nil); err != nil {
				return err
			}
		}
		if c.content[0] != "" {
			if err := set(nsContent+c.content[0], []byte(c.content[1])); err != nil {
				return err
			}
		}
		if c.weights != nil {
			if err := set(keyWeights, c.weights); err != nil {
				return err
			}
		}
		b, err := json.Marshal(c.counts)
		if err != nil {
			return err
		}
		return set(keyCounters, b)
	})
	if err != nil {
		return fmt.Errorf("crawler: save state: %w", err)
	}
	return nil
}
