package dedupfilter

import (
	"fmt"
	"iter"
	"maps"
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

// postingKeys returns the feature lists a document is posted to, from
// its signature: at most Bands + 1 + BlocksPerDoc + PiecesPerDoc keys, 37
// with the defaults — a bound that keeps the filter's write cost small
// next to the search index's, whatever the document's length. A store
// keeping no document's keys derives them again from its signature.
// terms, when not nil, adds TermsPerDoc keys of the boolean-model terms,
// which a signature does not keep (the embedded store records them).
func (o Options) postingKeys(sig similarity.Signature, terms map[string]int) [][]byte {
	var out [][]byte
	if mh := sig.MinHash(); len(mh) == o.Bands*o.Rows {
		// A band is its rows' bytes: the low 8 bits of each MinHash value,
		// which the signature keeps; two pages share a band with
		// probability (J + (1−J)/256)^Rows.
		for i := range o.Bands {
			band := append([]byte{byte(i)}, mh[i*o.Rows:(i+1)*o.Rows]...)
			out = append(out, store.PostingKey(kindBand, store.Hash(band)))
		}
	}
	out = append(out, store.PostingKey(kindStructure, structureHash(sig.Structure())))
	var blocks []uint32
	for _, b := range sig.Blocks() {
		if len(blocks) == o.BlocksPerDoc {
			break
		}
		if !slices.Contains(blocks, b) {
			blocks = append(blocks, b)
			out = append(out, store.PostingKey(kindBlock, uint64(b)))
		}
	}
	if o.TermsPerDoc > 0 && terms != nil {
		for _, h := range bottomK(maps.Keys(terms), o.TermsPerDoc) {
			out = append(out, store.PostingKey(kindTerm, h))
		}
	}
	for _, h := range sig.PieceSample() {
		out = append(out, store.PostingKey(kindPiece, uint64(h)))
	}
	return out
}

// SignatureKeys gives the posting keys of a document from its stored
// signature, as a store that keeps only the keys a signature does not
// give needs them to rebuild its lists (package embedded's
// Options.SignatureKeys): every key but the boolean-model terms'
// (TermsPerDoc), which the store's records keep.
func (o Options) SignatureKeys(stored []byte) ([][]byte, error) {
	s, err := decodeSignature(stored)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: stored signature: %w", err)
	}
	return o.postingKeys(s.sig, nil), nil
}

// keysOf are the lists the document of rec with signature sig is posted
// to: those its signature gives, with the term keys its record lists. A
// record may list others too (written by a store that kept every key):
// they are among the signature's.
func (o Options) keysOf(rec *store.Record, sig similarity.Signature) [][]byte {
	return append(o.postingKeys(sig, nil), termKeys(rec.Keys)...)
}

// termKeys are the keys of keys a signature does not give: the
// boolean-model terms'.
func termKeys(keys [][]byte) [][]byte {
	var out [][]byte
	for _, k := range keys {
		if store.PostingKind(k) == kindTerm {
			out = append(out, k)
		}
	}
	return out
}

// lookupKeys are the lists searched for candidates: the document's own
// lists, with the structure cell widened to its neighbourhood.
func (o Options) lookupKeys(s analyzer.Structure, own [][]byte) [][]byte {
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

// bottomK hashes the distinct strings and keeps the k smallest hashes,
// ascending: a consistent sample, so two texts sharing most strings share
// most of their samples, independent of corpus statistics. It selects
// rather than sorts: a page has hundreds of terms and k is a few.
func bottomK(s iter.Seq[string], k int) []uint64 {
	if k == 0 {
		return nil
	}
	hs := make([]uint64, 0, k)
	for x := range s {
		h := similarity.HashString(x)
		if len(hs) == k && h >= hs[k-1] {
			continue
		}
		i, found := slices.BinarySearch(hs, h)
		if found {
			continue
		}
		if len(hs) == k {
			hs = hs[:k-1]
		}
		hs = slices.Insert(hs, i, h)
	}
	return hs
}
