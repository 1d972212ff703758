// Package dedupfilter is the ingest-time near-duplicate filter: it keeps
// every document's features (see package analyzer) in an embedded Badger
// store, its inverted feature lists in a posting table beside it (a hash
// table in a memory-mapped file, Options.PostingTable), finds the few
// stored documents worth comparing with a new one, verifies them with the
// measures of the seed papers (feature strings, the boolean model with
// Conrad's and Pugh's definitions, block fingerprints) and MinHash, and
// groups duplicates into clusters with a representative. It tells the
// search indexer exactly what to write (Decision.Ops) under the chosen
// Policy: Suppress, Mark or Replace.
//
// # Candidates
//
// A document is posted to a bounded number of lists (a few dozen keys with
// the defaults; see Options.postingKeys): its MinHash LSH bands, its
// structure cell (the feature-string paper), its block fingerprints (the
// fingerprint paper), and a consistent bottom-k sample of its terms and
// feature-string pieces. Lists
// longer than Options.MaxPostings are skipped (automatic stop words), and
// only candidates sharing at least Options.MinShared lists are verified
// with Compare, at most Options.MaxCandidates, most shared lists first. A
// list found over the limit is remembered for the life of the Filter and
// neither scanned nor written again.
//
// # Clusters
//
// A duplicate joins the cluster of the first verified candidate (most
// shared lists first). Cluster ids come from a counter and never change,
// even when the representative does. Clusters never merge: a document
// matching members of two clusters joins one. A member that leaves (Delete
// or re-Add) does not split its cluster even if it was the only link
// between the others.
//
// Re-adding an id replaces its features, payload and postings. It keeps
// its cluster and its role there when it still matches inside that cluster
// (or matches nothing and is alone), so re-indexing unchanged content is a
// no-op for clusters; otherwise it leaves (the cluster is repaired as on
// Delete) and is placed like a new document.
//
// # Guarantees
//
// Concurrency: all methods are safe for concurrent use; one process at a
// time opens a store (Badger locks the directory). Add and Delete run
// their decide-and-write section under one mutex and one Badger
// transaction, so concurrent Adds end in the clusters of some serial order.
// Callers that add in a fixed order do the rest in parallel first: compute
// features, then Prepare (sorting, encoding, key hashing), then AddPrepared
// in order.
//
// Durability and crash safety: each Add/Delete commits its store changes
// and pending marks (one per search-index Op) atomically. The indexer
// applies Decision.Ops to the search index and then calls Applied with
// them; after a crash it calls Pending on Open and re-applies what is
// listed (a mark names the document; Pending reads its payload back from
// the store). Ops are states (index this payload / delete this id), one
// pending mark per document id holding the latest, so re-applying is safe and
// order between ids does not matter. Applied clears a mark only if it
// still holds the Op's Seq, so a late confirmation of an older Op cannot
// hide a newer one.
// With Options.SyncWrites false a process crash loses nothing committed,
// but an OS crash or power loss may lose the latest commits (Badger's write
// buffer): the store is then behind the search index for those documents.
// With SyncWrites true every commit is fsynced first. The posting table
// is changed after each commit and trusted at Open only if it was closed
// cleanly; otherwise it is rebuilt from the store (every document record's
// posting keys), which takes about as long as reading the records.
//
// Ownership: slices in values returned by the Filter (Decision, Op,
// DeleteResult, Cluster, Entry) are owned by the caller. The Filter keeps
// no reference to a Doc's Features or Payload after Add (or AddPrepared)
// returns.
//
// # Caveats
//
// The thresholds in DefaultOptions were chosen on the labelled development
// set (../shared/data/neardup); other kinds of pages may want others.
// Policy and Keep apply to the Adds and Deletes made under them: reopening
// a store with another policy does not re-decide what is already indexed
// (rebuild for that). Features from different analyzer settings do not compare
// (MinHash signatures of different lengths never match). The filter keeps
// whether it believes a document is in the search index; if the indexer
// writes the search index behind its back, the two drift apart. The
// posting table knows keys by a 32-bit fingerprint: keys that share one
// share a list (about one in a hundred at a million documents), which only
// adds candidates for verification to turn down.
package dedupfilter
