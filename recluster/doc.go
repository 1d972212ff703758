// Package recluster is a batch pass over a filter's whole store that
// refines the clusters incremental indexing built. Those never split (a
// deleted or re-decided page may have been the only link between two
// halves of its cluster) and, on a shared store, never merge (a page
// that links two clusters joins the first it matches; the embedded store
// merges them as it adds the page).
//
// # Basics
//
// Find reads the store from one snapshot (dedupfilter.Filter.View) and
// returns a Plan: the merges and splits, each with its evidence; it
// writes nothing. Plan.Apply carries the plan out, one set of clusters
// that change together at a time (dedupfilter.Filter.Regroup), and hands
// the search-index operations to its caller; a set that changed since
// the plan is skipped and counted.
//
// The pass follows the fingerprint paper: pages whose ST_m (shared block
// fingerprints over m) falls in the range t are one class, and the number
// of classes is the k of its k-means over shared fingerprints. Here every
// pair taken into a class must also be a duplicate under the filter's own
// verdict (dedupfilter.Options.Measure and thresholds), so a class never
// holds a pair the filter would not have joined, and precision cannot
// fall below the incremental clusters'. With that constraint the classes
// are a fixed point of the k-means assignment — a page is nearest the
// centre of the class it has verified links into, and it has none into
// another class — so k-means ends where it starts; the pass computes the
// classes and reports how they differ from the clusters.
//
// Memory stays bounded on large stores: the documents are walked one
// cluster at a time, the pairs of different clusters are found through
// the block-fingerprint posting lists the filter keeps anyway (the
// fingerprint paper's inverted index), and only the clusters that change
// are held, never all pairs.
//
// # Caveats
//
// Merges are found through shared block fingerprints only (MinST): two
// copies that share too few blocks but verify as duplicates by another
// measure stay apart. Clusters of more than MaxPairwise members are not
// checked for splits. Cluster ids change for the merged and split-off
// clusters, as the search index is told through the operations.
package recluster

import "github.com/bleve-dedup/bleve-dedup/internal/errs"

// ErrInvalidOptions: an Options field is out of range (the same value as
// every package's ErrInvalidOptions).
var ErrInvalidOptions = errs.InvalidOptions
