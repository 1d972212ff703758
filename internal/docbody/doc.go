// Package docbody reads a user's bleve documents as JSON objects: the
// documents of a bleve.Batch with the data they were added with
// (Capture), each as a JSON object (Of, or FromFields for what a bleve
// document holds once its data is gone), and the values at bleve's field
// paths in that object (Strings, First); and writes them back as bleve
// documents analysed ahead of bleve's Batch (Analysed).
//
// # Basics
//
// A wrapped index's documents are its user's: structs, maps, JSON-tagged
// types. The indexer keeps each one as its JSON object (the store gives
// it back to index a promoted copy again) and reads the fields it was
// told of from that object by bleve's field paths ("a.b" for b inside
// a), which follow the same JSON names bleve maps.
//
// A bleve Batch is opaque: it maps each document as it is added (through
// its index's mapping) and hands its operations to that index's Batch
// only. So a Capture makes batches on a scratch index of its own, whose
// mapping remembers each document's data (in the order added) and maps
// nothing, and whose index type, registered here, takes the batch's
// operations and hands them back (Take): the documents with their data,
// the deletes, the internal key-values.
//
// # Caveats
//
// FromFields rebuilds only what a document stored: fields that were only
// indexed are not in it (Unstored lists them for a mapping). A Capture's scratch index holds nothing: every
// read or direct write of it fails.
package docbody
