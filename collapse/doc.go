// Package collapse searches a bleve index written by package indexer and
// folds each duplicate cluster into one hit, like Elasticsearch's
// collapse: the hit is the cluster's best-scoring indexed member, with the
// number and ids of the other members read from the dedup store.
//
// # Basics
//
// Make one Searcher per index with New and reuse it: it keeps a table per
// bleve segment that maps documents to clusters (built on the first
// collapsed search that meets the segment, dropped when bleve merges the
// segment away). Search takes a Request (a bleve query, paging, whether to
// collapse) and returns a Result. Paging is exact: clusters are ranked by
// their best member's score, ties by id, so every cluster appears on
// exactly one page of an unchanged index.
//
// The files follow bleve's search/collector: search.go has the request,
// result and Searcher; collector.go the top-k of clusters that replaces
// bleve's top-n store (its heap of groups); cache.go the per-segment
// cluster tables.
//
// # Caveats
//
// Collapsing reaches into bleve: it installs its collector through
// search.MakeDocumentMatchHandlerKey and reads segments through
// *scorch.IndexSnapshot, so it works on scorch indexes only (bleve's
// default). Folded members are read from the store after the search, so
// a write running at the same time may show in them. Two clusters whose
// 64-bit hashes collide fold together (odds about n²/2⁶⁵ for n matching
// clusters).
package collapse
