package store

// Backend is where a near-duplicate filter keeps its state: documents'
// records, signatures and payloads, posting lists, clusters and their
// members, the counters, and the search-index operations not yet applied.
// Package dedupfilter's logic is written against it; package embedded
// (Badger and a posting table on local disk) and package rediscluster (a
// Redis Cluster shared by several processes) implement it, and package
// storetest checks an implementation against this contract.
//
// The filter calls Begin, and the Txn's methods, with its own lock held:
// a Backend need not serialise the mutations of one process, only those
// of several processes sharing it (see Exclusive).
type Backend interface {
	// Begin starts a mutation. Its writes are visible to its own later
	// reads, and become visible to others and durable together at Commit;
	// Discard drops them. A Begin that fails returns a Txn whose every
	// method fails with that error.
	Begin() Txn
	// Read calls fn with a read-only Txn over one consistent view.
	Read(fn func(Txn) error) error
	// Pending calls fn with the encoded search-index operations of each
	// mutation not yet cleared, in seq order.
	Pending(fn func(seq uint64, ops []byte) error) error
	// ClearPending forgets the pending operations of mutations seqs.
	ClearPending(seqs []uint64) error
	// Empty reports whether the store holds no document (an error
	// reading it counts as not empty).
	Empty() bool
	// Stats counts what the store holds.
	Stats() (Stats, error)
	// ReadOnly reports whether writes fail with ErrReadOnly.
	ReadOnly() bool
	// Shared reports whether other processes decide against the same
	// state: counts kept in one process' memory (document frequencies)
	// are then wrong.
	Shared() bool
	// Exclusive runs fn, whose mutations then hold the right to decide
	// together (a shared store's lease, taken once for all of them); an
	// embedded store just runs fn. fn must not call Exclusive.
	Exclusive(fn func() error) error
	// InSession reports whether an Exclusive call is running, whose
	// mutations share what they read from a remote store.
	InSession() bool
	// Close closes the store. The Filter over it closes it.
	Close() error
}

// Txn is one mutation's, or one read's, view of a Backend. Reads of what
// the store does not hold fail with ErrNotFound; writes to a read's Txn
// fail.
type Txn interface {
	// Record reads a document's record, its posting keys only when
	// withKeys (only removing the document needs them).
	Record(id string, withKeys bool) (*Record, error)
	PutRecord(id string, rec *Record) error
	DeleteRecord(id string) error

	// Signature reads document seq's encoded id and signature (the
	// caller's encoding, as PutSignature was given it); the slice is the
	// caller's.
	Signature(seq uint64) ([]byte, error)
	PutSignature(seq uint64, sig []byte) error
	DeleteSignature(seq uint64) error

	// Prefetch announces what the mutation is about to read, so that a
	// remote store fetches it in one round trip; an embedded store
	// ignores it.
	Prefetch(Reads) error

	// Payload reads a document's payload, kept by the process that added
	// it (search indexes are per process); the slice is the caller's.
	Payload(id string) ([]byte, error)
	// HasPayload reports whether this process holds id's payload.
	HasPayload(id string) (bool, error)
	PutPayload(id string, p []byte) error
	DeletePayload(id string) error

	// Postings reads the lists under keys (PostingKey), in order; a
	// missing list is empty.
	Postings(keys [][]byte) ([]PostingList, error)
	// PutPostings writes the list under key as it now is (an empty list
	// is deleted), with the numbers this mutation added to it and removed
	// from it (a full list drops the others).
	PutPostings(key []byte, l PostingList, added, removed []uint64) error

	Representative(cluster string) (string, error)
	SetRepresentative(cluster, id string) error
	DeleteCluster(cluster string) error
	// Members returns a cluster's members in id order.
	Members(cluster string) ([]string, error)
	AddMember(cluster, id string) error
	RemoveMember(cluster, id string) error
	// Clusters calls fn with the ids of the clusters after after (all
	// for ""), in creation order.
	Clusters(after string, fn func(id string) error) error

	// NextSeq and NextCluster take the next numbers of the counters:
	// increasing, possibly with gaps.
	NextSeq() (uint64, error)
	NextCluster() (uint64, error)

	// SetPending records mutation seq's encoded search-index operations
	// until ClearPending (local, like payloads).
	SetPending(seq uint64, ops []byte) error
	// Local is the process-local keys of other packages (the foreign
	// namespaces of the key schema), written in this transaction: they
	// commit with it or not at all.
	Local() KV

	Commit() error
	Discard()
}

// KV reads and writes keys of the namespaces other packages own (see the
// key schema) in one of a store's transactions. Writes of any other key
// fail with ErrNamespace.
type KV interface {
	// Get returns a copy of key's value, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	Set(key, value []byte) error
	Delete(key []byte) error
	// Scan calls fn with every key under prefix and its value, in key
	// order; both are valid during the call only.
	Scan(prefix []byte, fn func(key, value []byte) error) error
}

// Reads are what a mutation announces it will read (Txn.Prefetch).
type Reads struct {
	IDs      []string // documents' records
	Keys     [][]byte // posting lists
	Seqs     []uint64 // documents' signatures
	Clusters []string // clusters' representatives
}

// PostingList is a posting list: ascending document numbers, or full (a
// stop list, which takes no more).
type PostingList struct {
	Seqs []uint64
	Full bool
}

// Stats are a store's counts, for reports.
type Stats struct {
	Docs, Clusters int
	Lists          int // posting lists, stop lists included
	Pending        int // mutations whose operations are not yet cleared
}
