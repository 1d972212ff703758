// Package store is the contract between the near-duplicate filter
// (package dedupfilter) and the stores that keep its state: what a
// decision reads and writes (Backend, Txn, and the Record and PostingList
// they pass), the embedded store's key schema with every namespace and
// its owner, and the sentinel errors.
//
// # Basics
//
// A decision is one mutation: Backend.Begin, reads and writes on the Txn,
// Commit. The filter writes its mutations one at a time in a process (its
// own lock), having planned them (read and compared) outside it. A store
// several processes share implements Sequencer too (below); clusters
// change by Join and Leave, one step each.
//
// # Decisions in parallel: the argument
//
// A shared store needs only keys that are linearizable one at a time; it
// has no lock, lease or transaction that every decision passes through.
// A batch of pages is decided in three steps:
//
//  1. Post: the pages take fresh sequence numbers and their signatures
//     and postings are written under them; the step returns once the
//     writes are acknowledged.
//  2. Number: one atomic step on one key takes a contiguous block of
//     ranks and records which sequence numbers hold them.
//  3. Decide: each page reads its posting lists after its Number
//     returned and is decided against the candidates ranked below its
//     own rank, and only those.
//
// Visibility. If page A ranks below page B, every posting of A is in B's
// reads: A's Post completed before A's Number was sent; A's Number
// precedes B's in the rank key's total order; B reads after its Number
// returned; each posting list is one linearizable key, so a read that
// starts after a write completed returns it. A posting whose page is not
// numbered when B reads ranks above B (or never): B ignores it.
//
// Serial order. A page's decision is a function of its signature and
// the pages ranked below it (their signatures and, by induction, their
// decisions). By induction on rank, whoever computes the decision of
// rank r gets the one a single process deciding the pages one at a time
// in rank order would: the lowest page has no candidate; page r's
// candidates are exactly the lower-ranked postings of its keys
// (visibility), and the decisions of those it needs are either recorded
// or computed again by the same function from lower ranks.
//
// No two near-duplicates both representatives. Let X and Y be two pages
// the filter takes for duplicates (they share a candidate key and verify),
// indexed at the same moment by two processes, X ranked below Y. Y's
// candidates include X, so Y joins X's cluster instead of founding one;
// Y represents the cluster only when Replace demotes X. Either way one
// of the two is not a representative, as in the serial order.
//
// Dead, paused or throttled processes. A process can stop anywhere:
//   - after Post, before Number: its sequence numbers never rank, and
//     every reader ignores them;
//   - after Number, before its decisions are written: a page that
//     matches one of its pages does not wait for it; it computes that
//     page's decision itself from what was posted (serial order: the same
//     decision wherever it is made), going down the ranks, which ends.
//     The repair costs the reader one read and one verification per page
//     of the chain below, not a timeout: no process ever waits for
//     another, so nothing waits on a dead one and the bound is the
//     reader's own work. Run again, the dead process decides its pages
//     again, the same way, and writes them (writes are idempotent);
//   - while writing a decision: its cluster steps are one step each
//     (Join, Leave) and idempotent, and the record is written last.
//
// What still goes one at a time is what truly conflicts: the joins and
// leaves of one cluster, and within one process the filter's short
// section that places a page and writes it. Package rediscluster maps the
// steps onto Redis Cluster keys and makes each step durable across a
// failover.
//
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
//	d/<id>     the store    Record (see Caveats)
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
// Cluster ids are opaque: the embedded store numbers clusters in the
// order it makes them (!/cluster), the Redis store names a cluster after
// its founder's sequence number, so that two processes working out the
// same founding name the same cluster. The same pages indexed into each
// give the same clusters under different ids; compare clusters by their
// members.
//
// # Caveats
//
// Signatures, payloads and pending operations are opaque bytes to a
// store: their encodings belong to package dedupfilter. Records and
// posting lists are the stores' to encode: both write them, in the
// encodings of package store/internal/codec, and hand them to others
// decoded only (Record, PostingList). An embedded store opened with
// Options.SignatureKeys (layout 5, as the indexer opens it) keeps in a
// record only the posting keys a signature does not give, and derives the
// others through it when it rebuilds its posting table; the Redis store
// keeps none.
package store
