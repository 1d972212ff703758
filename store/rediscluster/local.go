package rediscluster

import (
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Local is the part of a store that belongs to one process: the payloads
// of the documents it added, the search-index operations it has not yet
// applied, and other packages' keys, which concern its own search index
// (package embedded's Local).
type Local interface {
	// Begin starts a transaction over the local part, for writing when
	// update.
	Begin(update bool) store.LocalTxn
	// Pending and ClearPending are store.Backend's.
	Pending(fn func(seq uint64, ops []byte) error) error
	ClearPending(seqs []uint64) error
	// PendingCount counts the mutations with pending operations.
	PendingCount() (int, error)
	// ReadOnly reports whether writes fail.
	ReadOnly() bool
}

// noLocal is the local part of a store given none (New): it holds
// nothing and takes no write, so the store is read-only. It is its own
// transaction.
type noLocal struct{}

// errNoLocal is a write to a store given no local part.
var errNoLocal = fmt.Errorf("rediscluster: no local store: %w", store.ErrReadOnly)

func (noLocal) Begin(bool) store.LocalTxn                        { return noLocal{} }
func (noLocal) Pending(func(uint64, []byte) error) error         { return nil }
func (noLocal) ClearPending([]uint64) error                      { return nil }
func (noLocal) PendingCount() (int, error)                       { return 0, nil }
func (noLocal) ReadOnly() bool                                   { return true }
func (noLocal) Get([]byte) ([]byte, error)                       { return nil, store.ErrNotFound }
func (noLocal) Set(_, _ []byte) error                            { return errNoLocal }
func (noLocal) Delete([]byte) error                              { return errNoLocal }
func (noLocal) Scan([]byte, func(key, value []byte) error) error { return nil }
func (noLocal) Payload(string) ([]byte, error)                   { return nil, store.ErrNotFound }
func (noLocal) HasPayload(string) (bool, error)                  { return false, nil }
func (noLocal) PutPayload(string, []byte) error                  { return errNoLocal }
func (noLocal) DeletePayload(string) error                       { return errNoLocal }
func (noLocal) SetPending(uint64, []byte) error                  { return errNoLocal }
func (noLocal) Commit() error                                    { return errNoLocal }
func (noLocal) Discard()                                         {}
