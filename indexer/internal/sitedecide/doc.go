// Package sitedecide makes the filter's decisions on batches of
// documents with each site's template text left out of their features
// (package sitetext), and re-decides the clusters of earlier pages that a
// later page showed to be partly template.
//
// # Basics
//
// A Decider decides a batch (Decide) as deciding its documents one at a
// time would: each document's site plan is made in order, over the plans
// before it; the features are computed on GOMAXPROCS goroutines while the
// filter decides, in order, on the documents already analysed; each
// document's site writes commit in the transaction of its decision. When
// a plan names earlier pages stale (their text turned out to be their
// site's template), their whole clusters are analysed again from the
// stored payloads and decided afresh before the next document. Stale
// pages are recorded in the store until they are redone, so FinishStale
// finishes, at the next open, what a crash cut short.
//
// # Caveats
//
// A Decider is not safe for concurrent use: its caller serialises batches
// (the indexer's write lock), as the site tables' plans must be committed
// in the order they are made. A re-decided cluster gets a new id. With a
// shared store, a cluster with members another process added is not
// re-decided: their text is that process'.
package sitedecide
