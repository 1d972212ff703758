// Package store is the contract between the near-duplicate filter
// (package dedupfilter) and the stores that keep its state: what a
// decision reads and writes (Backend, Txn), the record and posting-list
// formats both stores use, the embedded store's key schema with every
// namespace and its owner, and the sentinel errors.
//
// # Basics
//
// A decision is one mutation: Backend.Begin, reads and writes on the Txn,
// Commit. The filter writes its mutations one at a time in a process (its
// own lock), having planned them (read and compared) outside it. A store
// several processes share implements Sequencer too: pages are posted,
// then numbered, then each decided against the pages numbered before it,
// so that the processes' decisions end as the serial order of the numbers
// would, with no lock between them (package rediscluster argues it);
// clusters change by Join and Leave, one step each.
// Package embedded keeps everything in one Badger store and a posting
// table beside it; package rediscluster keeps the decisions in a Redis
// Cluster and the process' own part (payloads, pending search-index
// operations, other packages' keys) in an embedded store.
//
// A third store implements Backend and runs package storetest's
// conformance suite; package dedupfilter's tests run its behaviour tests
// against both stores.
//
// Other packages keep keys of their own beside a store's (package
// sitetext's site tables, package indexer's URL owners) through a KV,
// which commits with the decision it belongs to; the key schema lists them.
//
// # Key schema
//
// Every namespace of the embedded store, in one place. Each key starts
// with its namespace; variable-length ids come last, after fixed-length
// parts, so any id (even one holding "/") is unambiguous. A document's
// number is the seq of the mutation that stored its current version:
// posting lists hold numbers, not ids, so they stay small.
//
//	namespace  owner        layout
//	d/<id>     the store    Record (EncodeRecord)
//	s/<seq:8>  the store    the id and signature of document seq (package dedupfilter's encoding,
//	                        which starts with the id as a uvarint length and its bytes)
//	y/<id>     the store    payload (opaque to the store, S2-compressed)
//	p/<kind><hash:8>        a full posting list's marker (the lists live in the posting table)
//	c/<cluster id>          the cluster's representative's id
//	m/<cluster id><id>      membership (empty value)
//	w/<seq:8>  the store    the search-index operations of mutation seq until applied (package dedupfilter's encoding)
//	!/seq, !/cluster        counters
//	!/format                the layout's version
//	t/<site>...   package sitetext  each site's paragraph table (see sitetext)
//	t!stale/<id>  package sitetext  pages waiting to be analysed again
//	u/<canonical URL>  package indexer  the id of the document holding that URL
//
// The store writes its own namespaces; other packages write theirs
// through a KV (Txn.Local, embedded.Local), which refuses any other key
// (ErrNamespace). A shared store (package rediscluster) keeps the records,
// signatures, posting lists, clusters and counters in Redis under a
// layout of its own, and the rest (payloads, pending operations, the
// other packages' namespaces) in a process-local embedded store.
//
// # Caveats
//
// Signatures, payloads and pending operations are opaque bytes to a
// store: their encodings belong to package dedupfilter. Records and
// posting lists are encoded here, because both stores write them.
package store
