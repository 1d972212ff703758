package analyzer

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// ErrInvalidOptions is returned (wrapped) by New when an Options field is out
// of range. Test for it with errors.Is. The same value as every package's
// ErrInvalidOptions.
var ErrInvalidOptions = errs.InvalidOptions

// Options configures an Analyzer. Start from DefaultOptions and change what
// you need; the zero value is not valid.
//
// Changing any option changes the features computed for the same text, so
// features stored by one configuration must not be compared with features of
// another (re-index after a change).
type Options struct {
	// Delimiters are the characters that cut the text into "sentences" for
	// the feature-string paper's feature string and the sentence count kl. They are
	// normalised like the text (full-width "，" is the same as ","), so any
	// spelling works. Every row of the feature-string paper's table 3-1 is a value here:
	// "。", "，", "的", "。，", "。的".
	//
	// Default "。！？.!?，,": sentence ends and commas of Chinese and English.
	// The feature-string paper found "。" alone best on its Chinese test, but reprints
	// often swap "。" for "." and "，" for "," (both are here, so a swap
	// keeps the pieces), and on the labelled near-duplicate set commas
	// helped: pairs with piece Jaccard >= 0.5 gave F1 0.746 against 0.708
	// for sentence ends only and 0.50 for "。" alone. More delimiters mean
	// more pieces that an edit can disturb, and kl then counts clauses, so
	// it reaches its clamp of 100 on long texts (about 1,500 characters).
	Delimiters string

	// HanWindow is how many characters are taken on each side of a
	// delimiter when the nearest character is a Han ideograph or Hangul
	// syllable. Default 1 (the feature-string paper: one character is distinctive enough in
	// a set of thousands).
	HanWindow int

	// LatinWindow is how many characters are taken on each side of a
	// delimiter when the nearest character is anything else (letters of
	// small alphabets, digits, kana). Default 3 (the feature-string paper: "at least three
	// letters" to match the distinctiveness of one Han character). Larger
	// is more distinctive but more fragile to edits near sentence ends.
	LatinWindow int

	// BlockDelimiters cut the text into the blocks fingerprinted for seed
	// 002; paragraph breaks always cut blocks too, so "" makes blocks of
	// paragraphs. Default "。！？.!?，,；;：:", clauses: reprints change a few
	// percent of characters and any change spoils a block's SHA-1, so short
	// blocks survive better. On the labelled near-duplicate set the median
	// block Jaccard of duplicate pairs was 0.39 with clauses and m = 16
	// against 0.23 with sentences and m = 8, at equal or better precision.
	BlockDelimiters string

	// Blocks is m, the number of most important (longest) blocks whose
	// SHA-1 fingerprints are kept. Default 16: ST_m = m0/m gets steps of
	// 1/16, and recall of duplicates sharing a quarter of their blocks rose
	// from 0.83 (m = 8) to 0.87 (m = 16; 0.89 at m = 32) on the labelled set.
	// Cost is 20 bytes of storage per block. 0 disables fingerprints.
	Blocks int

	// Shingle is k, the number of consecutive tokens (Han characters or
	// words) in one MinHash shingle. Default 3: a changed token disturbs k
	// shingles, so smaller k keeps reprints' Jaccard similarity higher,
	// while three words (or three Han characters, about two Chinese words)
	// are still rare enough that unrelated texts share few shingles. On the
	// labelled near-duplicate set (32x4 bands) k = 2, 3, 4, 5 found 0.91,
	// 0.89, 0.89, 0.88 of duplicate pairs; with 16x8 bands 0.76, 0.72,
	// 0.68, 0.61.
	Shingle int

	// MinHashSize is the number of MinHash values per signature. Default
	// 128: the standard error of a Jaccard estimate is about
	// 1/sqrt(128) ≈ 0.09, and 128 splits into LSH bands as 32x4 (threshold
	// about 0.42, high recall) or 16x8 (about 0.71). Cost grows with it only
	// through densification and storage (one hash per shingle, see
	// Analyzer.MinHash). 0 disables MinHash.
	MinHashSize int
}

// DefaultOptions returns the recommended options for mixed English and
// Chinese web text. Each default and its trade-off is documented on the
// Options field.
func DefaultOptions() Options {
	return Options{
		Delimiters:      "。！？.!?，,",
		HanWindow:       1,
		LatinWindow:     3,
		BlockDelimiters: "。！？.!?，,；;：:",
		Blocks:          16,
		Shingle:         3,
		MinHashSize:     128,
	}
}

// validate reports the first invalid field, wrapping ErrInvalidOptions.
func (o Options) validate() error {
	switch {
	case o.Delimiters == "":
		return fmt.Errorf("analyzer: Delimiters is empty: %w", ErrInvalidOptions)
	case strings.IndexFunc(o.Delimiters+o.BlockDelimiters, unicode.IsSpace) >= 0:
		// Whitespace is collapsed by normalisation, so it cannot delimit.
		return fmt.Errorf("analyzer: delimiters contain whitespace: %w", ErrInvalidOptions)
	case o.HanWindow < 1:
		return fmt.Errorf("analyzer: HanWindow %d < 1: %w", o.HanWindow, ErrInvalidOptions)
	case o.LatinWindow < 1:
		return fmt.Errorf("analyzer: LatinWindow %d < 1: %w", o.LatinWindow, ErrInvalidOptions)
	case o.Blocks < 0:
		return fmt.Errorf("analyzer: Blocks %d < 0: %w", o.Blocks, ErrInvalidOptions)
	case o.Shingle < 1:
		return fmt.Errorf("analyzer: Shingle %d < 1: %w", o.Shingle, ErrInvalidOptions)
	case o.MinHashSize < 0:
		return fmt.Errorf("analyzer: MinHashSize %d < 0: %w", o.MinHashSize, ErrInvalidOptions)
	}
	return nil
}
