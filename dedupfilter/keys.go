package dedupfilter

import (
	"encoding/binary"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Posting kinds: the kind byte of a store.PostingKey.
const (
	kindBand      = 'b' // MinHash LSH band
	kindStructure = 's' // the feature-string paper's structure cell (gn, cn, kl)
	kindBlock     = 'k' // the fingerprint paper's block fingerprint
	kindTerm      = 't' // the boolean-model paper's term, bottom-k sample
	kindPiece     = 'f' // feature-string piece (the feature-string paper), bottom-k sample
)

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
			out = append(out, store.PostingKey(kindBand, k))
		}
	}
	out = append(out, store.PostingKey(kindStructure, structureHash(f.Structure)))
	seen := make(map[[20]byte]bool, len(f.Blocks))
	for _, b := range f.Blocks {
		if !seen[b] {
			seen[b] = true
			out = append(out, store.PostingKey(kindBlock, binary.BigEndian.Uint64(b[:8])))
		}
	}
	if o.TermsPerDoc > 0 {
		terms := make([]string, 0, len(f.Terms))
		for t := range f.Terms {
			terms = append(terms, t)
		}
		for _, h := range bottomK(terms, o.TermsPerDoc) {
			out = append(out, store.PostingKey(kindTerm, h))
		}
	}
	for _, h := range bottomK(f.Pieces, o.PiecesPerDoc) {
		out = append(out, store.PostingKey(kindPiece, h))
	}
	return out
}

// lookupKeys are the lists searched for candidates: the document's own
// lists, with the structure cell widened to its neighbourhood.
func (o Options) lookupKeys(f *analyzer.Features, own [][]byte) [][]byte {
	out := make([][]byte, 0, len(own)+27)
	for _, p := range own {
		if store.PostingKind(p) != kindStructure {
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
					out = append(out, store.PostingKey(kindStructure, structureHash(c)))
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
		hs = append(hs, similarity.HashString(x))
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	if len(hs) > k {
		hs = hs[:k]
	}
	return hs
}
