// Package indexer opens a bleve index and its dedup store together and
// writes documents through the near-duplicate filter.
//
// # Basics
//
// Open creates or opens an index directory. It holds two stores:
// DIR/bleve, the bleve index, and DIR/store, one Badger store with the
// state of package dedupfilter (signatures, posting lists, clusters,
// payloads and pending writes) and each site's paragraph table (package
// sitetext) under keys of its own. Close closes both.
//
// Index and Batch take Documents (a page's main text as paragraphs);
// IndexPages takes pages as package page reads them, extracts their main
// text on RunOptions.Workers goroutines and indexes them in input order,
// in bleve batches of RunOptions.BatchSize, holding a bounded number of
// pages at a time. Delete removes a document and repairs its cluster.
// Package collapse searches the result one hit per cluster.
//
// # Writes and crash repair
//
// Every Index, Batch or Delete first commits the filter's decision to the
// dedup store, together with the bleve operations it implies (pending
// marks), then writes bleve, then clears the marks. After a crash (kill -9)
// between the two writes, the next Open finds the marks and writes each
// document they name to bleve as the store holds it then (its cluster id,
// its payload, or its absence), and clears them all before returning: the
// two stores agree again, and Repaired says how many documents were
// written. Whole document states are written, so writing one that did
// reach bleve is harmless, and a document several marks name (its Add,
// then a merge that moved it) gets its latest state whichever marks are
// left.
//
// # Site template text
//
// Before features are computed, paragraphs that another page of the same
// site already showed are dropped as template text (package sitetext).
// When a later page reveals an earlier page's template, its cluster is
// decided again: every member is analysed again from its stored text and
// added back in its original order, and the re-decided clusters get new
// ids (package internal/sitedecide).
//
// # Concurrency
//
// An Index is safe for concurrent use. Batch makes each document's bleve
// body and store payload in the caller's goroutine; then, under the
// Index's write lock, it finds site template text in order, computes
// features and prepares them for the filter on GOMAXPROCS goroutines
// while the filter decides, in order, on those already done
// (sitedecide.Decider.Decide); it then maps and analyses the documents to
// index for bleve, again on GOMAXPROCS goroutines, and writes bleve. So concurrent writers end in
// the same clusters as some serial order of their documents. IndexPages
// decides and analyses each batch while bleve writes the batch before: a
// bleve batch is then only its segment (the analysis bleve's Batch would
// do finds nothing left to do), which keeps both cores busy.
//
// # Caveats
//
// Writing the bleve index directly (through Bleve()) bypasses the filter
// and makes the two stores drift apart; use it for reads only. A
// re-decided cluster gets a new id, so cluster ids seen before a site's
// template was known can change.
package indexer
