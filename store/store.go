package store

import (
	"cmp"
	"slices"
)

// Backend is where a near-duplicate filter keeps its state: documents'
// records, signatures and payloads, posting lists, clusters and their
// members, the counters, and the search-index operations not yet applied.
// Package dedupfilter's logic is written against it; package embedded
// (Badger and a posting table on local disk) and package rediscluster (a
// Redis Cluster shared by several processes) implement it, and package
// storetest checks an implementation against this contract.
//
// The filter calls Begin, and the Txn's methods, with its own lock held:
// a Backend need not serialise the mutations of one process. Several
// processes sharing one decide in the order of a Sequencer's numbers.
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
	// Exclusive runs fn, a batch of mutations: a shared store makes their
	// shared writes together when it ends (one round trip); an embedded
	// store just runs fn. fn must not call Exclusive.
	Exclusive(fn func() error) error
	// Close closes the store. The Filter over it closes it.
	Close() error
}

// Txn is one mutation's, or one read's, view of a Backend. Reads of what
// the store does not hold fail with ErrNotFound; writes to a read's Txn
// fail.
type Txn interface {
	// Record reads a document's record, its posting keys only when
	// withKeys (only removing the document needs them). A store may keep
	// only the keys a signature does not give (they are derived from the
	// signature again), or none: its records list those only.
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
	// Join makes m a member of cluster c under rule, creating c with
	// founder (m when nil) as its representative if it does not exist;
	// Leave removes id from c and repairs it. JoinTxn and LeaveTxn define
	// them. A shared store makes each in one step on the cluster, at once
	// rather than at Commit, and keeps whether a member is in the search
	// index with the cluster (its records' Indexed follows); an embedded
	// store writes the records of the members they move in or out of the
	// search index.
	Join(c string, m Member, founder *Member, rule Rule) (JoinResult, error)
	Leave(c, id string, rule Rule) (LeaveResult, error)

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

// LocalTxn is a transaction over the part of a store that belongs to one
// process (package embedded's Local): the payloads of the documents it
// added, its pending search-index operations, and other packages' keys,
// which it reads and writes as a KV. Its methods are the Txn's of the same
// names; a shared store (package rediscluster) serves them from one.
type LocalTxn interface {
	KV
	Payload(id string) ([]byte, error)
	HasPayload(id string) (bool, error)
	PutPayload(id string, p []byte) error
	DeletePayload(id string) error
	SetPending(seq uint64, ops []byte) error
	Commit() error
	Discard()
}

// Sequencer is a store several processes decide on at once, with no
// lock: a batch's pages are posted first, then numbered, and each is
// decided against the pages numbered before it (the package doc gives
// the argument). The filter's decisions follow the order of the
// numbers, whoever makes them.
type Sequencer interface {
	// Post stores a batch's pages before they are numbered, under new
	// sequence numbers, consecutive from the first it returns: their
	// signatures sigs[i] and their postings under keys[i]. A list takes
	// at most limit postings; past that, it is full (a stop list).
	Post(sigs [][]byte, keys [][][]byte, limit int) (first uint64, err error)
	// Number ranks the n pages posted from first, after every page
	// numbered before, in one step: it returns the first of their ranks,
	// consecutive in the order of their sequence numbers.
	Number(first uint64, n int) (rank uint64, err error)
	// RankedPostings reads the posting lists under keys: every page
	// posted to each, with its rank, 0 for a page not numbered (yet: it
	// will rank after every page numbered now; or never, its poster
	// gone). The page ranked r decides against those ranked below it.
	RankedPostings(keys [][]byte) ([]RankedList, error)
	// Withdraw deletes the signatures of posted pages that will not be
	// decided, so that no page takes them for candidates.
	Withdraw(seqs []uint64) error
}

// RankedList is a posting list with ranks: the sequence numbers of the
// pages posted to it, ascending, their ranks, and whether it is full.
type RankedList struct {
	Seqs, Ranks []uint64
	Full        bool
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
	// Parts are what the store holds by kind (PartName), largest first,
	// where the store measures it: the embedded store does, in the same
	// scan of every key; a shared store leaves them nil.
	Parts []Part
}

// Part is one kind of what a store holds: how many keys, and the bytes
// of their keys and values, before the storage engine's own overhead
// (indexes, filters, space not yet reclaimed).
type Part struct {
	Name  string
	Keys  int
	Bytes int64
}

// SortParts sorts ps as Stats.Parts are: the largest first, then by name.
func SortParts(ps []Part) {
	slices.SortFunc(ps, func(a, b Part) int { return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Name, b.Name)) })
}
