package similarity

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/internal/enum"
)

// Measure names a similarity measure. Combined lets several measures vote;
// any other value makes that single measure decide alone, which is how the
// measures are compared with each other on a labelled set.
type Measure int

const (
	// Combined: duplicate when at least Options.Votes measures say so.
	Combined Measure = iota
	// FeatureString (the feature-string paper): 2·LCS/(n_a+n_b) over the feature-string
	// pieces, in text order.
	FeatureString
	// Boolean (the boolean-model paper): feature counts within D, XOR differ fraction at
	// most K, then S = 1 − F at least BooleanMin.
	Boolean
	// Conrad (the boolean-model paper): more than ConradShared of the words shared and
	// lengths within ±ConradLength.
	Conrad
	// Pugh (the boolean-model paper): more than PughR distinct terms in common.
	Pugh
	// Blocks (the fingerprint paper): ST_m = m0/m over the top-m block fingerprints.
	Blocks
	// MinHash: fraction of equal MinHash slots (a Jaccard estimate over the
	// analyzer's shingles).
	MinHash
	// Jaccard: exact Jaccard over the distinct terms.
	Jaccard
	// CharFreq (the feature-string paper, §2.1): cosine of the character
	// frequency vectors over the 6,763 GB2312 characters and, for text in
	// Latin script, the 26 letters (analyzer.CharFreq), at least
	// CharFreqMin.
	CharFreq
	// TagEdit (the feature-string paper, §2.3): one minus the Levenshtein
	// distance of the pages' HTML tag sequences over the longer one's
	// length (htmltags), at least TagEditMin.
	TagEdit
	// SameURL (the feature-string paper, §2.2): the canonical URLs (package
	// canon) are equal.
	SameURL
	// Containment: the distinct terms shared over the smaller page's
	// distinct terms, at least ContainmentMin. Unlike Jaccard and Conrad
	// it does not count against a copy that kept only part of its
	// original.
	Containment

	numMeasures = int(Containment) + 1
)

var measureNames = enum.New[Measure]("measure",
	"combined", "featurestring", "boolean", "conrad", "pugh", "blocks", "minhash", "jaccard",
	"charfreq", "tagedit", "sameurl", "containment")

func (m Measure) String() string { return measureNames.String(m) }

// MarshalText and UnmarshalText write and read the measure's name.
func (m Measure) MarshalText() ([]byte, error) { return measureNames.Text(m) }

func (m *Measure) UnmarshalText(b []byte) (err error) {
	*m, err = ParseMeasure(string(b))
	return err
}

// Measures lists the single measures (everything but Combined) in the
// order Combined consults them; the first agreeing one is reported as
// deciding.
func Measures() []Measure {
	return []Measure{FeatureString, MinHash, Blocks, Boolean, Jaccard, Conrad, Pugh, Containment, CharFreq, TagEdit, SameURL}
}

// DefaultVoters are the measures that vote under Combined by default:
// those that decide on the page's main text but Pugh, whose count of
// shared terms ignores length and so agrees on any two long pages of one
// language (docs/methods.md). CharFreq, TagEdit and SameURL measured
// worse on the development set and vote only when listed in
// Options.Voters.
func DefaultVoters() []Measure {
	return []Measure{FeatureString, MinHash, Blocks, Boolean, Jaccard, Conrad, Containment}
}

// ParseMeasures parses a comma-separated list of single measures.
func ParseMeasures(s string) ([]Measure, error) {
	var out []Measure
	for _, name := range strings.Split(s, ",") {
		m, err := ParseMeasure(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseMeasure parses a measure name as printed by Measure.String
// (case-insensitive).
func ParseMeasure(s string) (Measure, error) {
	m, err := measureNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("similarity: %v: %w", err, ErrInvalidOptions)
	}
	return m, nil
}

// Options choose the measure that decides and the measures' thresholds.
// Start from DefaultOptions and change fields; Validate rejects
// out-of-range values (ErrInvalidOptions). The thresholds were chosen on
// the labelled development set (docs/methods.md); other kinds of pages may
// want others.
type Options struct {
	// Measure deciding duplicates. Default Combined.
	Measure Measure
	// Votes is how many kinds of evidence among the Voters must agree
	// under Combined. Each measure of text in order (FeatureString,
	// MinHash, Blocks) is a kind of its own; the measures of term sets
	// (Boolean, Jaccard, Conrad, Pugh, Containment) read the same sets and
	// are one kind together; CharFreq, TagEdit and SameURL are one each.
	// When a measure of text in order votes, one of them must agree:
	// pages written from one template (species, products, results)
	// share most of their words and little of their text in order.
	// Default 2 (docs/methods.md).
	Votes int
	// Voters are the single measures that vote under Combined, each at
	// most once. Default DefaultVoters(). A signature keeps what a measure
	// needs beyond the main text's features (the character frequencies
	// of CharFreq, the tag sequence of TagEdit, the URL of SameURL) only
	// when that measure votes or decides (Measure, Signature.For), so
	// they cost no storage otherwise; documents stored before such a
	// measure was turned on lack it and score 0 on it.
	Voters []Measure

	// FeatureStringMin: the feature-string paper's similarity at or above
	// which FeatureString says duplicate. Default 0.45
	// (docs/bench/2026-12-06-numbers.md: with FeatureStringHeldMin and
	// NumbersMin guarding the pairs it alone finds in order, 0.45 finds
	// more copies of copies than 0.6, joins no page of one template, and
	// costs a little precision on pages quoting each other: 0.9991 at a
	// million, none of them lost from a suppress index). Deciding alone,
	// 0.6 is the more precise (docs/methods.md).
	FeatureStringMin float64
	// BooleanK: the boolean-model paper's k, the largest fraction of differing features
	// (|A xor B| / |A or B|) still compared. Default 0.2 as in the seed.
	BooleanK float64
	// BooleanD: the boolean-model paper's d, the largest difference in feature counts, as a
	// fraction of the larger count (the paper's absolute d does not scale
	// with length). Default 0.2.
	BooleanD float64
	// BooleanFrequent: a feature with at least this tf in both documents is
	// left out of F's numerator (the paper's "frequent in both"). Default 3.
	BooleanFrequent int
	// BooleanMin: S = 1 − F at or above which Boolean says duplicate.
	// Default 0.8.
	BooleanMin float64
	// ConradShared: fraction of word occurrences shared (Σmin tf / max total)
	// above which Conrad says duplicate. Default 0.8 (Conrad's definition).
	ConradShared float64
	// ConradLength: largest length difference as a fraction of the longer
	// text. Default 0.2 (Conrad's ±20%).
	ConradLength float64
	// PughR: Pugh says duplicate with more than PughR distinct terms in
	// common. Default 50; it ignores length, so alone it over-merges long
	// texts and is best used as one vote.
	PughR int
	// BlocksMin: ST_m at or above which Blocks says duplicate. Default 0.5.
	BlocksMin float64
	// MinHashMin: estimated Jaccard at or above which MinHash says
	// duplicate. Default 0.6.
	MinHashMin float64
	// JaccardMin: exact term Jaccard at or above which Jaccard says
	// duplicate. Default 0.6.
	JaccardMin float64
	// CharFreqMin: cosine of the character-frequency vectors at or above
	// which CharFreq says duplicate. Default 0.95 (see docs/methods.md:
	// unrelated texts of one language already score 0.8–0.9).
	CharFreqMin float64
	// TagEditMin: tag-sequence similarity at or above which TagEdit says
	// duplicate. Default 0.8.
	TagEditMin float64
	// ContainmentMin: share of the smaller page's distinct terms found in
	// the other at or above which Containment says duplicate. Default 0.8
	// (docs/methods.md: 0.6 to 0.9 find the same pairs on the development
	// set, 0.7 a few more reprints of reprints).
	ContainmentMin float64
	// HeldMin: under Combined, a pair is a duplicate only when each page
	// holds at least this share of the other's distinct terms
	// (Verdict.InB, InA). A reprint keeps most of its original's terms
	// even when one of them dropped a paragraph or added a source line;
	// a page quoting a short article whole inside twice as much text of
	// its own holds a third of its own terms in the article. Default 0.4
	// (docs/methods.md: the development set labels copies whose fuller
	// page holds 0.43 of its terms in the other; at 0.5 two such pairs
	// are missed).
	HeldMin float64
	// MinHashFloor: under Combined with MinHash among the Voters, a pair
	// whose MinHash estimate is under this is no duplicate, whatever the
	// votes: the pages share too few
	// of their word sequences. Feature strings, windows around
	// punctuation, agree on pages written from one template whose
	// punctuation falls alike; MinHash reads every shingle. Default 0.3
	// (docs/methods.md: on templated stubs made from real articles it
	// turns down 3 of 7 false pairs, and no labelled copy).
	MinHashFloor float64
	// NumbersMin: under Combined, a pair that neither MinHash nor blocks
	// call duplicates (its text in order agrees only in the feature
	// strings) needs the page with fewer numbers to share this share of
	// them with the other (Verdict.Numbers): a reprint keeps its dates,
	// counts and sizes, a page written from another's template swaps in
	// its own. 0 turns the test off. Default 0.5 (docs/methods.md: it
	// keeps apart templated stubs whose feature strings agree; labelled
	// reprints share 0.5 of their numbers and more but for 3 pairs of
	// 1,300).
	NumbersMin float64
	// FeatureStringHeldMin: under Combined, a pair that neither MinHash
	// nor blocks call duplicates needs each page to hold this share of the
	// other's distinct terms (above HeldMin, to count): a page quoting a
	// whole short article inside its own text agrees with it in feature
	// strings and holds all of its terms, while the article holds under
	// half of the page's. Default 0.45 (docs/methods.md).
	FeatureStringHeldMin float64
	// WholeHeldMin: under Combined, a page is a duplicate of another only
	// when the other holds at least this share of the page's whole
	// text's distinct terms (Verdict.WholeInB; the page being decided is
	// the first given to Verify). A page holding a whole short article
	// inside as much text of its own agrees with it in every measure of
	// text in order, and the article holds all of it but its own half. A
	// copy that drops part of its original is held whole, and what a
	// reprint adds (a source line, a site's leftovers) is a small share.
	// 0 turns the test off. Default 0.45
	// (docs/bench/2026-12-06-whole-held.md: the false pairs it turns down
	// on pages quoting whole short articles are held 0.37–0.38; the
	// development set labels a reprint held 0.50, which 0.5 would miss).
	WholeHeldMin float64
	// CoverMin: package dedupfilter leaves a page out of the search
	// index, or lets another take its place, only for a page that holds
	// this share of its distinct terms, so that no text of its own is
	// lost from search. Default 0.7 (docs/methods.md: reprints with
	// edits keep 0.8 and more of each other's terms; shares of sketched
	// terms are estimates, within about 0.05).
	CoverMin float64
	// TermSketch: a page with more distinct terms than this keeps them as
	// a one-permutation sketch of TermSketch bins (see Signature), which
	// the boolean-model measures (Boolean, Jaccard, Conrad, Pugh) compare
	// by estimates; a page with fewer keeps them all. 0 keeps every
	// term. A power of two, at most 4096. Default 64 (docs/distributed.md:
	// the frontier of stored bytes against F1). Signatures of different
	// sketch sizes do not compare on terms.
	TermSketch int
	// Stop, when set, reports a term (the low 32 bits of its HashString)
	// as a stop word, left out of the boolean-model measures (Boolean,
	// Jaccard, Conrad, Pugh): the boolean-model paper's automatic stop
	// words. Package dedupfilter sets it from the document frequencies of
	// its store (its BooleanStopShare). Default nil.
	Stop func(term uint32) bool `json:"-"`
}

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options {
	return Options{
		Measure:              Combined,
		Votes:                2,
		Voters:               DefaultVoters(),
		FeatureStringMin:     0.45,
		BooleanK:             0.2,
		BooleanD:             0.2,
		BooleanFrequent:      3,
		BooleanMin:           0.8,
		ConradShared:         0.8,
		ConradLength:         0.2,
		PughR:                50,
		BlocksMin:            0.5,
		MinHashMin:           0.6,
		JaccardMin:           0.6,
		CharFreqMin:          0.95,
		TagEditMin:           0.8,
		ContainmentMin:       0.8,
		HeldMin:              0.4,
		MinHashFloor:         0.3,
		NumbersMin:           0.5,
		FeatureStringHeldMin: 0.45,
		WholeHeldMin:         0.45,
		CoverMin:             0.7,
		TermSketch:           64,
	}
}

// Validate reports an unknown measure or a voting rule that cannot be
// met, as ErrInvalidOptions.
func (o Options) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("similarity: "+format+": %w", append(args, ErrInvalidOptions)...)
	}
	switch {
	case !measureNames.Valid(o.Measure):
		return bad("unknown measure %d", int(o.Measure))
	case o.Measure == Combined && len(o.Voters) == 0:
		return bad("no Voters for the combined measure")
	case o.Measure == Combined && (o.Votes < 1 || o.Votes > o.VoterKinds()):
		return bad("Votes %d outside 1..%d (the kinds of evidence among the Voters)", o.Votes, o.VoterKinds())
	case !validMeasures(o.Voters):
		return bad("Voters %v: each a single measure, at most once", o.Voters)
	case o.Decides(Containment) && (o.ContainmentMin <= 0 || o.ContainmentMin > 1):
		return bad("ContainmentMin %v outside (0, 1]", o.ContainmentMin)
	case o.CoverMin < 0 || o.CoverMin > 1 || o.HeldMin < 0 || o.HeldMin > 1 || o.MinHashFloor < 0 || o.MinHashFloor > 1 || o.NumbersMin < 0 || o.NumbersMin > 1 || o.FeatureStringHeldMin < 0 || o.FeatureStringHeldMin > 1 || o.WholeHeldMin < 0 || o.WholeHeldMin > 1:
		return bad("CoverMin %v, HeldMin %v, MinHashFloor %v, NumbersMin %v, FeatureStringHeldMin %v or WholeHeldMin %v outside 0..1", o.CoverMin, o.HeldMin, o.MinHashFloor, o.NumbersMin, o.FeatureStringHeldMin, o.WholeHeldMin)
	case o.TermSketch < 0 || o.TermSketch > maxSketch || o.TermSketch > 0 && bits.OnesCount(uint(o.TermSketch)) != 1:
		return bad("TermSketch %d: 0 or a power of two up to %d", o.TermSketch, maxSketch)
	}
	return nil
}

// voters is the evidence the Voters can give.
func (o Options) voters() evidence {
	var e evidence
	for _, m := range o.Voters {
		e = e.with(m)
	}
	return e
}

// VoterKinds is how many kinds of evidence the Voters cover (see Votes):
// the most Votes can be.
func (o Options) VoterKinds() int { return o.voters().kinds() }

// needsOrder reports whether a measure of text in order votes, so that
// one of them must agree.
func (o Options) needsOrder() bool { return o.voters().inOrder() }

func validMeasures(ms []Measure) bool {
	for i, m := range ms {
		if m == Combined || !measureNames.Valid(m) || slices.Contains(ms[:i], m) {
			return false
		}
	}
	return true
}

// Decides reports whether measure m can decide under o: it is o.Measure,
// or o.Measure is Combined and m votes.
func (o Options) Decides(m Measure) bool {
	return o.Measure == m || o.Measure == Combined && slices.Contains(o.Voters, m)
}
