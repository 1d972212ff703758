package analyzer

import (
	"crypto/sha1"
	"strings"
)

// Structure is the feature-string paper's structure signature of a text, used as the
// coordinates of its cell in the 3-D candidate hash.
type Structure struct {
	Paragraphs int // gn, clamped to 1..50
	Length     int // cn, length in units of 120 characters, clamped to 1..200
	Sentences  int // kl, clamped to 1..100
}

// Features are everything the dedup filter knows about one page's main text.
// A Features value is immutable once returned; callers may share it between
// goroutines.
type Features struct {
	// Pieces is the feature-string paper's feature string, one piece per delimiter, in text
	// order: the window of characters before and after the delimiter. A
	// run of delimiters ("?!") counts once; see Options for the windows.
	// FeatureString joins them.
	Pieces []string
	// Structure is the page's (gn, cn, kl).
	Structure Structure
	// Terms maps each boolean-model feature (the boolean-model paper) to its frequency:
	// segmented words, lowercased and width-folded, Han runs as bigrams.
	// An Analyzer from WithTermHashes leaves it nil and sets TermHashes.
	Terms map[string]int
	// TermHashes are the terms of Terms by hash (TermHash), sorted by
	// hash, terms whose hashes collide counted as one, from an Analyzer
	// from WithTermHashes; nil otherwise.
	TermHashes []TermHash
	// Numbers are the page's facts: the distinct terms holding a digit
	// in its paragraphs of at least MinFactTerms terms, sorted. A line
	// with a date, a byline or a copyright, which reprints change, is
	// shorter.
	Numbers []string
	// Left maps the terms of the paragraphs a caller left out of the
	// analysis (a site's template text) to their frequencies: with Terms,
	// the page's whole text, which a search loses with the page. Analyze
	// leaves it nil (see Analyzer.SetLeft).
	Left map[string]int
	// LeftHashes are Left's terms as TermHashes are Terms', set in its
	// place by Analyzer.SetLeft of an Analyzer from WithTermHashes.
	LeftHashes []TermHash
	// Blocks are the SHA-1 fingerprints of the top m text blocks (the fingerprint paper),
	// most important first.
	Blocks [][sha1.Size]byte
	// MinHash is the MinHash signature over shingles, computed with
	// fixed-seed hashes so stored signatures stay valid across runs.
	MinHash []uint64
	// Runes is the length of the normalised text in content characters
	// (letters, digits and marks; spaces and punctuation do not count, so
	// reprints that change them keep the length). Length derives from it.
	Runes int
	// CharFreq is the feature-string paper's character-frequency vector
	// (§2.1), sparse and sorted by index: how often each GB2312 character,
	// and each Latin letter, occurs in the text (see CharIndex).
	CharFreq []CharCount
	// Tags is the page's HTML tag sequence (package htmltags), for the
	// feature-string paper's tag edit distance (§2.3). Analyze sees only
	// the text and leaves it nil; a caller holding the page sets it.
	Tags []byte
}

// MinFactTerms is how many terms a paragraph needs for its numbers to
// be among Features.Numbers.
const MinFactTerms = 16

// Bounds of the structure signature (the feature-string paper, §3.2): 50x200x100 cells.
const (
	MaxParagraphs = 50
	MaxLength     = 200
	MaxSentences  = 100
	// LengthUnit is the number of content characters per unit of Length.
	LengthUnit = 120
)

// FeatureString returns the feature-string paper's feature string: the pieces concatenated
// in text order.
func (f *Features) FeatureString() string {
	return strings.Join(f.Pieces, "")
}

// Cell returns a dense index of s's cell in the 3-D structure hash, in
// [0, MaxParagraphs*MaxLength*MaxSentences). Out-of-range coordinates are
// clamped first.
func (s Structure) Cell() uint32 {
	p := clamp(s.Paragraphs, 1, MaxParagraphs) - 1
	l := clamp(s.Length, 1, MaxLength) - 1
	k := clamp(s.Sentences, 1, MaxSentences) - 1
	return uint32((p*MaxLength+l)*MaxSentences + k)
}
