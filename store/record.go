package store

import "time"

// Record is what a store keeps about a document besides its signature and
// payload.
type Record struct {
	Seq     uint64 // the mutation that wrote this version
	Time    time.Time
	Runes   int
	Cluster string
	Indexed bool // whether the search index holds it (as the filter decided)
	URL     string
	Title   string
	Hash    uint64   // the caller's hash of the content
	Keys    [][]byte // posting keys written that the signature does not give (some stores: all of them)
}
