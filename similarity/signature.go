package similarity

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/canon"
)

// Signature is the compact form of a document's features that
// verification needs, as a store keeps it (Encode) and as Compare works
// on it: 32-bit hashes instead of strings, sorted terms merged in
// linear time. Two different strings of one document collide with odds
// about n²/2³³ (n ≈ 300 terms: 1e-5), too rare to move a measure.
type Signature struct {
	pieces    []uint32 // feature-string pieces, in text order
	structure analyzer.Structure
	terms     []termFreq // sorted by hash
	blocks    []uint64   // the first 8 bytes of each block's SHA-1, most important first
	minhash   []uint32   // the low 32 bits of each MinHash value
	runes     int
	chars     []analyzer.CharCount // sorted by index
	tags      []byte               // htmltags codes
	url       uint64               // urlHash of the canonical URL
	// names are the terms of the Features the signature was made from,
	// for the evidence (TermSample); a stored signature has none.
	names map[string]int
}

type termFreq struct {
	hash uint32
	tf   int
}

// New computes the signature of f; nil features are empty.
func New(f *analyzer.Features) Signature {
	if f == nil {
		f = &analyzer.Features{}
	}
	sig := Signature{
		pieces:    make([]uint32, len(f.Pieces)),
		structure: f.Structure,
		terms:     make([]termFreq, 0, len(f.Terms)),
		blocks:    make([]uint64, len(f.Blocks)),
		minhash:   make([]uint32, len(f.MinHash)),
		runes:     f.Runes,
		chars:     f.CharFreq,
		tags:      f.Tags,
		names:     f.Terms,
	}
	for i, p := range f.Pieces {
		sig.pieces[i] = uint32(HashString(p))
	}
	// Sorted by hash as hash<<32|frequency, which sorts without a
	// comparison function: twice as fast as sorting the pairs.
	packed := make([]uint64, 0, len(f.Terms))
	for t, n := range f.Terms {
		packed = append(packed, HashString(t)<<32|uint64(min(n, math.MaxUint32)))
	}
	slices.Sort(packed)
	for _, p := range packed {
		t := termFreq{uint32(p >> 32), int(uint32(p))}
		if n := len(sig.terms); n > 0 && sig.terms[n-1].hash == t.hash {
			sig.terms[n-1].tf += t.tf // terms colliding inside one document count as one
		} else {
			sig.terms = append(sig.terms, t)
		}
	}
	for i, b := range f.Blocks {
		sig.blocks[i] = binary.BigEndian.Uint64(b[:8])
	}
	for i, v := range f.MinHash {
		sig.minhash[i] = uint32(v)
	}
	return sig
}

// Of is the signature of a page's features f, as a store under o keeps
// it: the parts only CharFreq, TagEdit and SameURL use (the character
// frequencies, the tag sequence, the URL) are kept only when that
// measure can decide.
func Of(f *analyzer.Features, pageURL string, o Options) Signature {
	sig := New(f)
	if o.Decides(SameURL) {
		sig.url = urlHash(pageURL)
	}
	if !o.Decides(CharFreq) {
		sig.chars = nil
	}
	if !o.Decides(TagEdit) {
		sig.tags = nil
	}
	return sig
}

// WithURL returns s with the canonical URL the SameURL measure compares.
func (s Signature) WithURL(pageURL string) Signature {
	s.url = urlHash(pageURL)
	return s
}

// urlHash identifies a canonical URL (0: none, or not an http(s) URL).
func urlHash(u string) uint64 {
	c, err := canon.URL(nil, u, nil)
	if err != nil || u == "" {
		return 0
	}
	return HashString(c) | 1 // never 0
}

// Structure is the feature-string paper's structure cell of the page.

// Blocks are the first 8 bytes of the SHA-1 of each of the page's top

// Tags is the page's HTML tag sequence, when kept (see Of).

// TermHashes are the 32-bit hashes of the page's distinct terms,
// ascending.
func (s Signature) TermHashes() []uint32 {
	out := make([]uint32, len(s.terms))
	for i, t := range s.terms {
		out[i] = t.hash
	}
	return out
}

// HashString is 64-bit FNV-1a, written out to hash a string without
// converting it to bytes. Stored signatures and posting keys depend on
// it: do not change.
func HashString(s string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}
