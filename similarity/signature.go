package similarity

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/canon"
)

// Signature is the compact form of a document's features that
// verification needs, as a store keeps it (Encode) and as Compare works
// on it. Every measure compares what the store keeps, so a signature read
// back decides exactly as the one it was made from:
//
//   - feature-string pieces as 16-bit hashes, in text order (the LCS
//     counts a chance match of two different pieces with odds 2⁻¹⁶ a
//     pair, a few hundredths of a piece a comparison);
//   - the MinHash values' low 8 bits (b-bit MinHash: equal with
//     probability J + (1−J)/256, which Compare corrects for);
//   - block fingerprints' first 32 bits;
//   - the terms: every distinct term (32-bit hash and frequency) when a
//     page has at most Options.TermSketch of them, else a one-permutation
//     sketch of Options.TermSketch bins (see termSet), with the exact
//     counts of distinct terms and of occurrences;
//   - the numbers (analyzer.Features.Numbers): the smallest of their
//     mixed 32-bit hashes (at most maxNumbers), with their count.
//
// Two different strings of one document collide on a 32-bit hash with
// odds about n²/2³³ (n ≈ 300 terms: 1e-5), too rare to move a measure.
type Signature struct {
	pieces    []uint16 // feature-string pieces, in text order
	sample    []uint32 // the smallest distinct 32-bit piece hashes, ascending (WithPieceSample)
	structure analyzer.Structure
	terms     termSet
	// whole is the terms of the page's whole text, with the paragraphs
	// left out of its features (analyzer.Features.Left); nil when those
	// are the whole text.
	whole *termSet
	// numbers are the smallest hashes of the page's numbers
	// (analyzer.Features.Numbers), ascending, and numberCount how many
	// numbers it has.
	numbers     []uint32
	numberCount int
	blocks      []uint32 // the first 4 bytes of each block's SHA-1, most important first
	minhash     []byte   // the low 8 bits of each MinHash value
	runes       int
	chars       []analyzer.CharCount // sorted by index
	tags        []byte               // htmltags codes
	url         uint64               // urlHash of the canonical URL
	// names are the terms of the Features the signature was made from,
	// for the evidence (TermSample); pieces32 their pieces' 32-bit hashes,
	// for WithPieceSample. A stored signature has neither.
	names    map[string]int
	pieces32 []uint32
}

type termFreq = analyzer.TermHash

// termSet is a page's boolean-model terms. Exact holds every distinct
// term, sorted by hash. Past the sketch size, bins holds a one-permutation
// sketch instead (Li, Owen and Zhang, 2012): the 32-bit hash space is cut
// into len(bins) equal ranges, and each bin keeps the smallest hash of the
// page's terms in its range, as 1 + the top 16 bits of its offset in the
// range (0: no term), with that term's frequency. Two pages' bins then
// sample the union of their terms: in a bin, the smaller minimum is a term
// of the union, in both pages when the minima are equal and in one page
// only otherwise; so each bin gives one term of the union with its exact
// frequencies on both sides (see compareSketches).
type termSet struct {
	exact    []termFreq
	bins     []termFreq
	distinct int // distinct terms
	total    int // occurrences
}

// binBits is how many bits of a bin minimum's offset a sketch keeps.
const binBits = 16

// sketchOf returns the sketch of k bins (a power of two) of an exact set.
func sketchOf(exact []termFreq, k int) []termFreq {
	bins := make([]termFreq, k)
	for _, t := range exact {
		b, v := binOf(t.Hash, k)
		if bins[b].Hash == 0 || v < bins[b].Hash {
			bins[b] = termFreq{Hash: v, N: t.N}
		}
	}
	return bins
}

// binOf places a term's hash in a sketch of k bins: its bin, and its
// value there (1 + the top binBits bits of its offset in the bin's range).
// The hash is mixed first (murmur3's finaliser, a bijection): the low 32
// bits of FNV-1a of words that differ in their last letters are far from
// uniform, and a sketch needs them to be.
func binOf(h uint32, k int) (bin int, v uint32) {
	h = mix32(h)
	shift := 32 - bits.TrailingZeros(uint(k))
	return int(h >> shift), 1 + (h&(1<<shift-1))>>(shift-binBits)
}

// mix32 is murmur3's 32-bit finaliser.
func mix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// sketched returns the sketch of t in k bins, nil when t is a sketch of
// another size.
func (t termSet) sketched(k int) []termFreq {
	if t.exact == nil && t.bins != nil {
		if len(t.bins) != k {
			return nil
		}
		return t.bins
	}
	return sketchOf(t.exact, k)
}

// New computes the signature of f with every term kept exactly; nil
// features are empty.
func New(f *analyzer.Features) Signature {
	return newSignature(f, 0)
}

func newSignature(f *analyzer.Features, sketch int) Signature {
	if f == nil {
		f = &analyzer.Features{}
	}
	sig := Signature{
		pieces:    make([]uint16, len(f.Pieces)),
		pieces32:  make([]uint32, len(f.Pieces)),
		structure: f.Structure,
		blocks:    make([]uint32, len(f.Blocks)),
		minhash:   make([]byte, len(f.MinHash)),
		runes:     f.Runes,
		chars:     f.CharFreq,
		tags:      f.Tags,
		names:     f.Terms,
	}
	for i, p := range f.Pieces {
		h := uint32(HashString(p))
		sig.pieces32[i], sig.pieces[i] = h, uint16(h)
	}
	exact := exactTerms(f.Terms, f.TermHashes)
	sig.terms = termSetOf(exact, sketch)
	sig.numbers, sig.numberCount = numbersOf(f.Numbers)
	if len(f.Left) > 0 || len(f.LeftHashes) > 0 {
		w := termSetOf(mergeTerms(exact, exactTerms(f.Left, f.LeftHashes)), sketch)
		sig.whole = &w
	}
	for i, b := range f.Blocks {
		sig.blocks[i] = binary.BigEndian.Uint32(b[:4])
	}
	for i, v := range f.MinHash {
		sig.minhash[i] = byte(v)
	}
	return sig
}

// exactTerms returns the distinct terms of terms, or of hashed when
// terms is nil, with their frequencies, sorted by hash.
func exactTerms(terms map[string]int, hashed []analyzer.TermHash) []termFreq {
	if terms == nil {
		return hashed
	}
	packed := make([]uint64, 0, len(terms))
	for t, n := range terms {
		packed = append(packed, HashString(t)<<32|uint64(min(n, math.MaxUint32)))
	}
	slices.Sort(packed) // by hash: hash<<32|frequency sorts without a comparison function
	exact := make([]termFreq, 0, len(packed))
	for _, p := range packed {
		t := termFreq{Hash: uint32(p >> 32), N: int(uint32(p))}
		if n := len(exact); n > 0 && exact[n-1].Hash == t.Hash {
			exact[n-1].N += t.N // two terms colliding count as one
		} else {
			exact = append(exact, t)
		}
	}
	return exact
}

// mergeTerms returns the union of two exact term lists, a term in both
// counted with both frequencies.
func mergeTerms(a, b []termFreq) []termFreq {
	out := make([]termFreq, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].Hash < b[0].Hash:
			out, a = append(out, a[0]), a[1:]
		case a[0].Hash > b[0].Hash:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, termFreq{Hash: a[0].Hash, N: a[0].N + b[0].N})
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// termSetOf returns the term set of exact, kept as a sketch of sketch
// bins past that many distinct terms (0: exact).
func termSetOf(exact []termFreq, sketch int) termSet {
	set := termSet{distinct: len(exact)}
	for _, t := range exact {
		set.total += t.N
	}
	if sketch > 0 && len(exact) > sketch {
		set.bins = sketchOf(exact, sketch)
	} else {
		set.exact = exact
	}
	return set
}

// maxNumbers is how many of a page's numbers a signature keeps.
const maxNumbers = 32

// numbersOf returns the smallest maxNumbers hashes of numbers,
// ascending, and how many they are. The hashes are mixed: the smallest
// FNV-1a hashes of numbers are numbers alike, not a sample.
func numbersOf(numbers []string) ([]uint32, int) {
	hs := make([]uint32, len(numbers))
	for i, n := range numbers {
		hs[i] = mix32(uint32(HashString(n)))
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	return slices.Clip(hs[:min(len(hs), maxNumbers)]), len(hs)
}

// wholeTerms are the terms of the page's whole text.
func (s Signature) wholeTerms() termSet {
	if s.whole != nil {
		return *s.whole
	}
	return s.terms
}

// Of is the signature of a page's features f, as a store under o keeps
// it: terms sketched past o.TermSketch, and the parts only CharFreq,
// TagEdit and SameURL use (the character frequencies, the tag sequence,
// the URL) kept only when that measure can decide.
func Of(f *analyzer.Features, pageURL string, o Options) Signature {
	sig := newSignature(f, o.TermSketch)
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

// WithPieceSample returns s keeping the k smallest distinct 32-bit hashes
// of its pieces (PieceSample): a consistent sample, which two texts
// sharing most pieces mostly share, for a store's posting keys. Only a
// signature made from Features has them to sample.
func (s Signature) WithPieceSample(k int) Signature {
	hs := slices.Clone(s.pieces32)
	slices.Sort(hs)
	hs = slices.Compact(hs)
	s.sample = hs[:min(len(hs), k)]
	return s
}

// PieceSample is the sample of WithPieceSample, ascending.
func (s Signature) PieceSample() []uint32 { return s.sample }

// urlHash identifies a canonical URL (0: none, or not an http(s) URL).
func urlHash(u string) uint64 {
	c, err := canon.URL(nil, u, nil)
	if err != nil || u == "" {
		return 0
	}
	return HashString(c) | 1 // never 0
}

// TermHashes are the 32-bit hashes of the page's distinct terms,
// ascending; nil when they are sketched.
func (s Signature) TermHashes() []uint32 {
	out := make([]uint32, len(s.terms.exact))
	for i, t := range s.terms.exact {
		out[i] = t.Hash
	}
	return out
}

// Sketched reports whether the terms are kept as a sketch.
func (s Signature) Sketched() bool { return s.terms.bins != nil }

// MinHash is the low byte of each MinHash value, in order.
func (s Signature) MinHash() []byte { return s.minhash }

// Runes is the length of the page's text in content characters.
func (s Signature) Runes() int { return s.runes }

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
