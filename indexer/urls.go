package indexer

import (
	"errors"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/canon"
)

// The store maps each document's canonical URL to its id, under keys
// "u/" + URL (a namespace dedupfilter's keys do not use), written with the
// document's decision: a page of a URL the index holds is a new version
// of that document, whatever its id.
const urlNS = "u/"

func urlKey(pageURL string) []byte {
	c, err := canon.URL(nil, pageURL, nil)
	if err != nil {
		return nil // not an http(s) URL: no rule
	}
	return append([]byte(urlNS), c...)
}

// urlOwner returns the id of the document with pageURL's canonical URL,
// or "".
func (ix *Index) urlOwner(pageURL string) string {
	k := urlKey(pageURL)
	if k == nil || ix.noDedup {
		return ""
	}
	var id string
	ix.store.View(func(txn *badger.Txn) error {
		item, err := txn.Get(k)
		if err == nil {
			err = item.Value(func(v []byte) error { id = string(v); return nil })
		}
		return err
	})
	return id
}

func setURLOwner(txn *badger.Txn, pageURL, id string) error {
	if k := urlKey(pageURL); k != nil {
		return txn.Set(k, []byte(id))
	}
	return nil
}

// clearURLOwner forgets pageURL's owner if it is id.
func clearURLOwner(txn *badger.Txn, pageURL, id string) error {
	k := urlKey(pageURL)
	if k == nil {
		return nil
	}
	item, err := txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	owner, err := item.ValueCopy(nil)
	if err != nil || string(owner) != id {
		return err
	}
	return txn.Delete(k)
}
