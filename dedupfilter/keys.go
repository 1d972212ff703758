package dedupfilter

import (
	"encoding/binary"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// Store key schema. Every key starts with a one-letter namespace and "/";
// variable-length document ids always come last, after fixed-length parts,
// so any id (even one containing "/") is unambiguous. A document's number
// is the seq of the Add that stored its current version: posting lists
// hold numbers, not ids, so they stay small.
//
//	d/<id>                  record: seq, time, runes, cluster, indexed, url, title, posting keys
//	s/<seq:8>               the id and signature (compact features) of document seq
//	y/<id>                  payload, opaque bytes from the caller
//	p/<kind><hash:8>        a full posting list's marker (the lists are in postingtable.go's table)
//	c/<cluster id>          cluster record: representative's id
//	m/<cluster id><id>      membership (empty value)
//	w/<seq:8>               the search-index operations of mutation seq, until Applied
//	!/seq, !/cluster        counters
//	!/format                the store layout's version
//
// Other packages may keep keys of their own in the same Badger store (the
// indexer puts package sitetext's there) under namespaces these do not use.
//
// Cluster ids are 16 lowercase hex digits of a counter, so they sort in
// creation order and have a fixed length.
const (
	nsDoc       = "d/"
	nsSignature = "s/"
	nsPayload   = "y/"
	nsPosting   = "p/"
	nsCluster   = "c/"
	nsMember    = "m/"
	nsPending   = "w/"
	keySeq      = "!/seq"
	keyCluster  = "!/cluster"
	keyFormat   = "!/format"

	// storeFormat is the layout's version: 3 keeps posting lists in the
	// posting table, and only full-list markers under p/ (2 had every
	// list there, as document numbers; 1 had a key per posting and whole
	// features).
	storeFormat = 3
	// formatListValues is layout 2, whose lists open() moves to the table.
	formatListValues = 2

	clusterIDLen = 16
)

// Posting kinds: one byte after "p/".
const (
	kindBand      = 'b' // MinHash LSH band
	kindStructure = 's' // the feature-string paper's structure cell (gn, cn, kl)
	kindBlock     = 'k' // the fingerprint paper's block fingerprint
	kindTerm      = 't' // the boolean-model paper's term, bottom-k sample
	kindPiece     = 'f' // feature-string piece (the feature-string paper), bottom-k sample
)

func key(ns, id string) []byte { return append([]byte(ns), id...) }

// seqKey is ns followed by seq in 8 big-endian bytes, so keys sort by seq.
func seqKey(ns string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(ns), seq)
}

func memberKey(cluster, id string) []byte {
	return append(append([]byte(nsMember), cluster...), id...)
}

// postingKey is "p/" + kind + 8-byte hash.
func postingKey(kind byte, h uint64) []byte {
	b := make([]byte, 0, len(nsPosting)+9)
	b = append(b, nsPosting...)
	b = append(b, kind)
	return binary.BigEndian.AppendUint64(b, h)
}

func structureHash(s analyzer.Structure) uint64 {
	return uint64(uint16(s.Paragraphs))<<32 | uint64(uint16(s.Length))<<16 | uint64(uint16(s.Sentences))
}

// postingKeys returns the feature lists a document is posted to. Keys
// per document: at most Bands + 1 + len(Blocks) + TermsPerDoc +
// PiecesPerDoc, 57 with the defaults and the analyzer's 16 blocks — a bound
// that keeps the filter's write cost small next to the search index's,
// whatever the document's length.
func (o Options) postingKeys(f *analyzer.Features) [][]byte {
	var out [][]byte
	if len(f.MinHash) == o.Bands*o.Rows {
		// Add validated the length, so Bands cannot fail here.
		keys, _ := analyzer.Bands(f.MinHash, o.Bands)
		for _, k := range keys {
			out = append(out, postingKey(kindBand, k))
		}
	}
	out = append(out, postingKey(kindStructure, structureHash(f.Structure)))
	seen := make(map[[20]byte]bool, len(f.Blocks))
	for _, b := range f.Blocks {
		if !seen[b] {
			seen[b] = true
			out = append(out, postingKey(kindBlock, binary.BigEndian.Uint64(b[:8])))
		}
	}
	if o.TermsPerDoc > 0 {
		terms := make([]string, 0, len(f.Terms))
		for t := range f.Terms {
			terms = append(terms, t)
		}
		for _, h := range bottomK(terms, o.TermsPerDoc) {
			out = append(out, postingKey(kindTerm, h))
		}
	}
	for _, h := range bottomK(f.Pieces, o.PiecesPerDoc) {
		out = append(out, postingKey(kindPiece, h))
	}
	return out
}

// lookupKeys are the lists searched for candidates: the document's own
// lists, with the structure cell widened to its neighbourhood.
func (o Options) lookupKeys(f *analyzer.Features, own [][]byte) [][]byte {
	out := make([][]byte, 0, len(own)+27)
	for _, p := range own {
		if p[len(nsPosting)] != kindStructure {
			out = append(out, p)
		}
	}
	if o.StructureRadius < 0 {
		return out
	}
	r := o.StructureRadius
	s := f.Structure
	for dg := -r; dg <= r; dg++ {
		for dc := -r; dc <= r; dc++ {
			for dk := -r; dk <= r; dk++ {
				c := analyzer.Structure{Paragraphs: s.Paragraphs + dg, Length: s.Length + dc, Sentences: s.Sentences + dk}
				if c.Paragraphs >= 0 && c.Length >= 0 && c.Sentences >= 0 {
					out = append(out, postingKey(kindStructure, structureHash(c)))
				}
			}
		}
	}
	return out
}

// bottomK hashes the distinct strings and keeps the k smallest hashes: a
// consistent sample, so two texts sharing most strings share most of their
// samples, independent of corpus statistics.
func bottomK(s []string, k int) []uint64 {
	if k == 0 || len(s) == 0 {
		return nil
	}
	hs := make([]uint64, 0, len(s))
	for _, x := range s {
		hs = append(hs, hashString(x))
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	if len(hs) > k {
		hs = hs[:k]
	}
	return hs
}
