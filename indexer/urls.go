package indexer

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/canon"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// The store maps each document's canonical URL to its id, under keys
// store.NSURL + URL, written with the document's decision: a page of a
// URL the index holds is a new version of that document, whatever its id.
func urlKey(pageURL string) []byte {
	c, err := canon.URL(nil, pageURL, nil)
	if err != nil {
		return nil // not an http(s) URL: no rule
	}
	return append([]byte(store.NSURL), c...)
}

// urlOwner returns the id of the document with pageURL's canonical URL,
// or "".
func (ix *Index) urlOwner(pageURL string) string {
	k := urlKey(pageURL)
	if k == nil || ix.noDedup {
		return ""
	}
	var id string
	ix.local.View(func(kv store.KV) error {
		v, err := kv.Get(k)
		id = string(v)
		return err
	})
	return id
}

func setURLOwner(kv store.KV, pageURL, id string) error {
	if k := urlKey(pageURL); k != nil {
		return kv.Set(k, []byte(id))
	}
	return nil
}

// clearURLOwner forgets pageURL's owner if it is id.
func clearURLOwner(kv store.KV, pageURL, id string) error {
	k := urlKey(pageURL)
	if k == nil {
		return nil
	}
	owner, err := kv.Get(k)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil || string(owner) != id {
		return err
	}
	return kv.Delete(k)
}
