// Package dedupfilter is the ingest-time near-duplicate filter: it keeps a
// compact signature of every document's features (see package analyzer)
// and its inverted feature lists in a store (package store's Backend: the
// embedded store of package embedded, or the Redis Cluster shared by
// several processes of package rediscluster), finds the few stored
// documents worth comparing with a new one, verifies them with the
// measures of package similarity (the source documents' feature strings,
// boolean model and block fingerprints, and MinHash), and groups
// duplicates into clusters with a representative. It tells the
// search indexer exactly what to write (Decision.Ops) under the chosen
// Policy: Suppress, Mark or Replace.
//
// # Candidates
//
// A document is posted to a bounded number of lists (a few dozen keys with
// the defaults; see Options.postingKeys): its MinHash LSH bands, its
// structure cell (the feature-string paper), its block fingerprints (the
// fingerprint paper), and a consistent bottom-k sample of its terms and
// feature-string pieces. A list that reaches Options.MaxPostings becomes a
// stop list (automatic stop words): it takes no more documents and is not
// scanned, and only candidates sharing at least Options.MinShared lists
// are verified (similarity.Verify), at most Options.MaxCandidates, most
// shared lists first.
//
// # Clusters
//
// A duplicate joins the cluster of the first verified candidate (most
// shared lists first). A document that duplicates members of several
// clusters joins them into one (Decision.Merged) only where the
// clusters' representatives hold Options.CoverMin of each other's terms,
// keeping the id of the cluster whose representative came first: copies
// of copies (a reprint of a reprint, each edited a little) end in one
// cluster even when a copy that came early matched none of the others,
// while a page that shares a block with several articles does not chain
// them (every merged cluster's representative is one verification from
// the one kept). Candidates after the first match are verified only while
// their cluster is not linked yet, so a popular cluster costs one
// verification. Cluster ids come from a counter; a cluster keeps its id
// when its representative changes, and loses it only to a merge (or to
// Recluster). A member that leaves (Delete or re-Add) does not split its
// cluster even if it was the only link between the others (Recluster
// splits it).
//
// A page leaves the search index (Suppress), or a representative gives
// its place up (Replace), only for a page that holds Options.CoverMin of
// the distinct terms of its whole text (similarity.HeldWhole: the
// paragraphs a site's template left out of its features count, see
// analyzer.Features.Left): a page with text of its own is never lost from
// search. A new page that holds its cluster's
// representative's terms while the representative does not hold as much
// of its own takes the representative's place under every policy (the
// fuller page represents; under Suppress the other leaves the index, its
// text held by the new one), and members whose text the new
// representative does not hold go back into the index; a page that
// neither holds the representative nor is held by it joins the cluster
// and stays in the index.
//
// Re-adding an id replaces its features, payload and postings. It keeps
// its cluster and its role there when it still matches inside that cluster
// (or matches nothing and is alone), so re-indexing unchanged content is a
// no-op for clusters; otherwise it leaves (the cluster is repaired as on
// Delete) and is placed like a new document.
//
// # Guarantees
//
// Concurrency: the Filter's methods are safe for concurrent use. Add and
// Delete write under one mutex and one store transaction, so concurrent
// Adds end in the clusters of some serial order. AddBatch adds documents
// in a fixed order with the rest done in parallel first: it prepares them
// (signature, encoding, key hashing) and plans the batch's decisions
// (candidates, verification) on every core, then only places each
// document and writes it, in order. A Decider does the same for a
// batch whose features it computes itself, with each site's template
// text left out (package sitetext); it re-decides the clusters of earlier
// pages that a later page shows to be partly template. On a store
// several processes share (package rediscluster), a batch is posted and
// numbered first and each document decided against those numbered before
// it, whichever process posted them: their Adds end in the clusters of
// the serial order of the numbers, with no lock between processes (see
// package rediscluster).
//
// Durability and crash safety: each Add/Delete commits its store changes
// and a pending mark (its search-index Ops) atomically. The indexer
// applies Decision.Ops to the search index and then calls Applied with
// them; after a crash it calls Replay once it has opened the filter
// again, which hands it, for every document a mark names, the Op that
// writes the document as the store holds it now, and clears the marks.
// Ops are states (index this payload / delete this id), so re-applying
// one is safe and order between ids does not matter. Each Add/Delete has
// a mark of its own, so a late confirmation of an older one cannot hide
// a newer one.
// What a crash of the machine may lose is the store's to say (package
// embedded's SyncWrites).
//
// Payloads: the store keeps each document's payload, unless the search
// index keeps what it is given (KeepPayloadsIn): then the payloads of the
// documents in it are read back from it, and wait in a journal between
// their decision and Applied, so that Replay can still write them.
//
// Ownership: slices in values returned by the Filter (Decision, Op,
// DeleteResult, Cluster, Entry) are owned by the caller. The Filter keeps
// no reference to a Doc's Features or Payload after Add (or AddBatch,
// or Decide) returns.
//
// # Caveats
//
// The thresholds in DefaultOptions were chosen on the labelled development
// set (../shared/data/neardup); other kinds of pages may want others.
// Policy and Keep apply to the Adds and Deletes made under them: reopening
// a store with another policy does not re-decide what is already indexed
// (rebuild for that). Features from different analyzer settings do not compare
// (MinHash signatures of different lengths never match). On a shared
// store (package rediscluster) a document joins its first match's cluster
// only: merging there would move members other processes are deciding
// against; Recluster merges what such documents link. The filter keeps
// whether it believes a document is in the search index; if the indexer
// writes the search index behind its back, the two drift apart.
package dedupfilter
