// Package indexer opens a bleve index and its dedup store together and
// writes documents through the near-duplicate filter.
//
// An index directory holds two stores: DIR/bleve (the bleve index) and
// DIR/dedup (the Badger store of package dedupfilter). Open opens or
// creates both and Close closes both.
//
// # Writes and crash repair
//
// Every Index, Batch or Delete first commits the filter's decision to the
// dedup store, together with the bleve operations it implies (pending
// marks), then writes bleve, then clears the marks. After a crash (kill -9)
// between the two writes, the next Open finds the marks and re-applies
// them to bleve before returning: the two stores agree again, and
// Repaired says how many operations were replayed. Operations carry whole
// document states, so replaying one that did reach bleve is harmless.
//
// # Site template text
//
// Before features are computed, paragraphs that another page of the same
// site (URL host, or the id's directory for pages without a URL) already
// showed are dropped as template text; a page that would keep less than
// 1% of its text is kept whole (a same-site copy). The site's paragraph
// table lives in DIR/site. When a later page reveals an earlier page's
// template, its cluster is decided again: every member is analysed again
// from its stored text and added back in its original order, and the
// re-decided clusters get new ids.
//
// # Collapsed search
//
// SearchCollapsed returns one hit per duplicate cluster with the folded
// members read from the store, inside bleve's collector (see collapse.go).
//
// # Concurrency
//
// An Index is safe for concurrent use. Feature computation runs in the
// callers' goroutines (and in IndexPages' workers); each filter decision
// and its bleve write form one critical section, so concurrent writers end
// in the same clusters as some serial order of their documents.
//
// # Caveats
//
// Writing the bleve index directly (through Bleve()) bypasses the filter
// and makes the two stores drift apart; use it for reads only.
package indexer
