package dedupfilter

import "github.com/dgraph-io/badger/v4"

// state is the filter's stored state as one mutation, or one read, sees
// it: documents' records, signatures and payloads, posting lists,
// clusters and their members, and the counters. Writes are visible to the
// later reads of the same state and become durable together at commit;
// discard drops them. The filter's logic (mutation.go, read.go) is written
// against it, and each store implements it: an embedded Badger store
// (badgerstate.go), or a Redis Cluster shared by several processes beside
// a local Badger store (redisstate.go).
type state interface {
	// record reads a document's record, without its posting keys unless
	// withKeys (only removing the document needs them). ErrNotFound if the
	// store does not hold it.
	record(id string, withKeys bool) (*record, error)
	putRecord(id string, rec *record) error
	deleteRecord(id string) error

	// signature reads document seq's id and signature.
	signature(seq uint64) (string, signature, error)
	// prefetch announces what the mutation is about to read, so a remote
	// store can fetch it in one round trip; an embedded store ignores it.
	prefetch(r reads) error
	putSignature(seq uint64, encoded []byte) error
	deleteSignature(seq uint64) error

	// payload reads a document's payload (local to the process that added
	// it: search indexes are per process).
	payload(id string) ([]byte, error)
	// hasPayload reports whether this process' store holds id's payload.
	hasPayload(id string) (bool, error)
	putPayload(id string, p []byte) error
	deletePayload(id string) error

	// postings reads the lists under keys, in order; a missing list is
	// empty.
	postings(keys [][]byte) ([]postingList, error)
	// putPostings writes the list under key (an empty list is deleted):
	// l as it now is, which added and removed document numbers made (a
	// full list drops the others).
	putPostings(key []byte, l postingList, added, removed []uint64) error

	representative(cluster string) (string, error)
	setRepresentative(cluster, id string) error
	deleteCluster(cluster string) error
	members(cluster string) ([]string, error)
	addMember(cluster, id string) error
	removeMember(cluster, id string) error
	// clusters calls fn with the ids of the clusters after after (all for
	// ""), in creation order.
	clusters(after string, fn func(id string) error) error

	// nextSeq and nextCluster take the next numbers of the counters.
	nextSeq() (uint64, error)
	nextCluster() (uint64, error)

	// setPending records the search-index ops of mutation seq until the
	// search index has applied them (local, like payloads).
	setPending(seq uint64, ops []Op) error
	// local is the transaction of the process-local store the mutation's
	// local writes go to, for AddOptions.Also.
	local() *badger.Txn

	commit() error
	discard()
}

// reads are the keys of a prefetch.
type reads struct {
	ids      []string // documents' records
	keys     [][]byte // posting lists
	seqs     []uint64 // documents' signatures
	clusters []string // clusters' representatives
}

// postingList is a posting list: ascending document numbers, or full (a
// stop list, which takes no more).
type postingList struct {
	seqs []uint64
	full bool
}

// store is where a Filter keeps its state.
type store interface {
	// begin starts a mutation's state; the Filter's lock is held.
	begin() state
	// inSession reports whether an exclusive call is running, whose
	// mutations share what they read from a remote store.
	inSession() bool
	// view calls fn with a read-only state over one consistent snapshot.
	view(fn func(state) error) error
	// pending calls fn with the ops of each mutation not yet applied to
	// the search index, in seq order.
	pending(fn func(seq uint64, ops []Op) error) error
	// clearPending forgets the pending ops of mutations seqs.
	clearPending(seqs []uint64) error
	// empty reports whether the store holds no document.
	empty() bool
	stats() (Stats, error)
	readOnly() bool
	// exclusive runs fn with the right to decide held for all of its
	// mutations (a shared store's lease); an embedded store just runs it.
	exclusive(fn func() error) error
	close() error
}
