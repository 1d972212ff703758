package indexer

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/canon"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// The store maps each document's canonical URL to its id, under keys
// store.NSURL + URL, written with the document's decision: a page of a
// URL the index holds is a new version of that document, whatever its id.
// A page's key is made once (stage) and carried with it. A document whose
// id is its canonical URL (a WARC record's) has an empty value: the key
// names it already.

// urlKey is the key of pageURL's owner, canonical the URL's canonical
// form when known; nil for a URL that is not http(s).
func urlKey(pageURL, canonical string) []byte {
	if canonical == "" {
		c, err := canon.URL(nil, pageURL, nil)
		if err != nil {
			return nil // not an http(s) URL: no rule
		}
		canonical = c
	}
	return append([]byte(store.NSURL), canonical...)
}

// urlOwner returns the id of the document under key k, or "".
func (ix *engine) urlOwner(k []byte) string {
	if k == nil || ix.noDedup {
		return ""
	}
	var id string
	ix.local.View(func(kv store.KV) error {
		var err error
		id, err = getURLOwner(kv, k)
		return err
	})
	return id
}

// getURLOwner reads the id of the document under key k.
func getURLOwner(kv store.KV, k []byte) (string, error) {
	v, err := kv.Get(k)
	if err != nil {
		return "", err
	}
	if len(v) == 0 {
		return urlOf(k), nil
	}
	return string(v), nil
}

// urlOf is the canonical URL of owner key k.
func urlOf(k []byte) string { return string(k[len(store.NSURL):]) }

func setURLOwner(kv store.KV, k []byte, id string) error {
	switch {
	case k == nil:
		return nil
	case id == urlOf(k):
		return kv.Set(k, nil)
	}
	return kv.Set(k, []byte(id))
}

// clearURLOwner forgets the owner under k if it is id.
func clearURLOwner(kv store.KV, k []byte, id string) error {
	if k == nil {
		return nil
	}
	owner, err := getURLOwner(kv, k)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil || owner != id {
		return err
	}
	return kv.Delete(k)
}
