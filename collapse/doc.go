// Package collapse searches a bleve index written by package indexer and
// folds each duplicate cluster into one hit, like Elasticsearch's
// collapse: the hit is the cluster's best-scoring indexed member, with the
// number and ids of the other members read from the dedup store. It
// groups by any other keyword field the same way, lists the best
// documents of each group (inner hits), and counts facet values by
// documents and by groups.
//
// # Basics
//
// Make one Searcher per index with New and reuse it: it keeps a table per
// bleve segment and field that maps documents to the field's values
// (built on the first search that needs it, dropped when bleve merges the
// segment away). Search takes a Request (a bleve query, paging, whether to
// collapse, by what, inner hits, facets) and returns a Result. Paging is
// exact: groups are ranked by their best member's score, ties by id, so
// every group appears on exactly one page of an unchanged index.
//
// # Groups of a field, copies folded
//
// Request.Field groups by a keyword field, say source, naming the page
// each passage of a chunked (retrieval) index was cut from: one hit per
// page, its best passage, with the page's matching passages counted
// (Hit.Size). Request.FoldCopies adds the duplicate clusters: first each
// cluster keeps only its best matching document, then those kept are
// grouped by the field. So a passage reprinted on several pages counts
// for the page where it scores best (ties: the smaller id) and for no
// other, a page is listed once, for its best passage no better passage
// copies, and a page whose every matching passage copies a better one
// elsewhere is not listed: the hits are distinct pages with distinct
// text, what a prompt built from them needs. Inner hits, group sizes and
// facets count the passages left after folding.
//
// # Shards on other machines
//
// Over a bleve IndexAlias, each shard runs its own collector and the
// shards' top groups, counts and facets are merged. A shard in another
// process (package remote/shard) cannot run a collector here: it finds a
// ShardCall in its search's context, sends the ShardRequest to its
// server, which answers with Searcher.SearchShard, and hands the answer
// back; the merge is the same, so results are exact over such shards
// too. A Request.Visit function, and facets whose values it sets, run
// in this process only: such a search fails over them (ErrNotSent). A
// shard that does not answer (ErrShardUnavailable) is left out of the
// result, which names it (Result.ShardErrors).
//
// The files follow bleve's search/collector: search.go has the request,
// result and Searcher; collector.go the top-k of groups that replaces
// bleve's top-n store (its heap of groups), the folding of copies and
// the inner-hit pass; cache.go the per-segment field tables; shard.go
// what shards in another process are asked and answer.
//
// # Caveats
//
// Collapsing reaches into bleve: it installs its collector through
// search.MakeDocumentMatchHandlerKey and reads segments through
// *scorch.IndexSnapshot, so it works on scorch indexes only (bleve's
// default). Folded members are read from the store after the search, so
// a write running at the same time may show in them, and inner hits in a
// second search, which may see a later snapshot. Two groups whose 64-bit
// hashes collide fold together (odds about n²/2⁶⁵ for n matching
// groups). A document with several values of a field is read as having
// its first (in byte order), so a field collapsed or counted by should
// hold one value a document.
package collapse
