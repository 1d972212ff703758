// Package indexer puts the near-duplicate filter in front of a bleve
// index. Its one type, Index, is a bleve.Index: every write is decided by
// the filter, every search is collapsed to one hit per duplicate cluster.
//
// # Basics
//
// Wrap puts the filter in front of a bleve index a program has, with the
// filter's state in a store beside it (Options.Store); Options name the
// fields that hold a page's text (or raw HTML), title and URL. Open
// creates or opens an index directory of this package's own: DIR/bleve,
// a bleve index with this package's mapping (NewMapping: title, text,
// url, cluster), and DIR/store, one Badger store with the filter's state
// (signatures, posting lists, clusters, payloads and pending writes) and
// each site's paragraph table (package sitetext). Both return an *Index;
// Close closes the index and its store. The zero Options are the
// defaults.
//
// Writes are bleve's: Index(id, data), Batch of a batch from NewBatch,
// Delete. A document is read through the fields Options name; a field
// that a document lacks is an error naming it and the fields the
// document has. A Document (a page's main text as paragraphs, with its
// title, URL, time, content hash and tag sequence) can be given as data
// too. IndexDecision and BatchDecisions return the filter's decisions.
//
// # Pages
//
// IndexPages takes pages as package page reads them (HTML files, WARC
// archives, JSON lines), extracts their main text on RunOptions.Workers
// goroutines and indexes them in input order, in bleve batches of
// RunOptions.BatchSize, holding a bounded number of pages at a time.
// Feed takes them one at a time from any number of goroutines (a
// crawler). Adopt brings documents a bleve index held before it was
// wrapped under the filter.
//
// # Search
//
// Search and SearchInContext return one hit per cluster with exact totals
// and paging (see Index); a context made with Uncollapsed searches every
// document. Shards written by several processes into one shared store
// are searched as one by Alias, or by Wrap over a bleve IndexAlias;
// AliasWith adds shards served on other machines (package remote/shard).
// SearchGroups groups by any keyword field instead (one hit per source
// page of a chunked index, with its best passages), its facets counting
// documents and groups; Similar returns the documents nearest a page by
// the filter's own evidence, from its posting lists.
//
// # Writes and crash repair
//
// Every write first commits the filter's decision to the store, together
// with the bleve operations it implies (pending marks), then writes
// bleve, then clears the marks. After a crash (kill -9) between the two
// writes, the next Open or Wrap finds the marks and writes each document
// they name to bleve as the store holds it then (its cluster id, its
// payload, or its absence), and clears them all before returning: the
// two agree again, and Repaired says how many documents were written.
// Whole document states are written, so writing one that did reach bleve
// is harmless, and a document several marks name (its Add, then a merge
// that moved it) gets its latest state whichever marks are left.
//
// # Site template text
//
// Before features are computed, paragraphs that another page of the same
// site already showed are dropped as template text (package sitetext).
// When a later page reveals an earlier page's template, its cluster is
// decided again: every member is analysed again from its stored text and
// added back in its original order. A cluster whose earliest member
// represents it and still finds no match outside it keeps its id, and a
// page that ends where it was, in the same cluster, in or out of bleve
// as before, is not written to bleve again: re-decisions mostly leave
// clusters as they were, and each rewrite would leave a deleted copy
// that bleve's merges then filter out. Parts split off get new ids.
//
// # Concurrency
//
// An Index is safe for concurrent use. A batch's documents are read on
// GOMAXPROCS goroutines; then, under the index's write lock, site
// template text is found in order, features are computed and prepared on
// GOMAXPROCS goroutines while the filter decides, in order, on those
// already done; the documents to index are mapped and analysed for bleve
// on GOMAXPROCS goroutines, and bleve writes the batch while the next one
// is decided. So concurrent writers end in the same clusters as some
// serial order of their documents, and both cores stay busy.
//
// # Caveats
//
// Writing the bleve index directly (through Unwrap) bypasses the filter
// and makes the two drift apart; use it for reads only. A re-decided
// cluster can get a new id (see Site template text), so cluster ids seen
// before a site's template was known can change.
//
// A document's body is kept once. It is needed to write the document to
// bleve again (a cluster change, a copy promoted, a crash repaired) and
// to show it (Doc). NewMapping does not store the text in bleve, so the
// store keeps each body, S2-compressed. Wrap over a mapping that stores
// every field it maps, as bleve's default mapping does, leaves the body
// of each document in bleve to bleve, and the store keeps only the
// bodies of the documents kept out of it (copies suppressed): Doc then
// gives a document in bleve back as its stored fields rebuild it — the
// same fields and values, dates in the layout they were given in, numbers
// as JSON numbers, an array of one as an array. Between a decision and
// bleve's write the body waits in a journal beside the store
// (store.journal), read by the crash repair. The store records this, and
// refuses to be opened over an index whose mapping does not store every
// field; which mappings qualify is in docs/architecture.md.
package indexer
