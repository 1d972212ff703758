package dedupfilter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/internal/enum"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// Policy says what happens in the search index to a document found to be a
// near-duplicate of one already stored (the choices of Solr's dedup
// processor).
type Policy int

const (
	// Suppress keeps only the cluster's representative in the search index;
	// duplicates are recorded as members and not indexed.
	Suppress Policy = iota
	// Mark indexes every document and tags it with its cluster id, leaving
	// the folding to query time (collapse on the cluster field).
	Mark
	// Replace keeps one copy per cluster like Suppress, but the copy kept is
	// chosen by Options.Keep (newer or longer, like Solr's overwriteDupes):
	// a better newcomer takes the representative's place and the old one is
	// removed from the search index and kept as a member.
	Replace
)

var policyNames = enum.New[Policy]("policy", "suppress", "mark", "replace")

func (p Policy) String() string { return policyNames.String(p) }

// MarshalText and UnmarshalText write and read the policy's name.
func (p Policy) MarshalText() ([]byte, error) { return policyNames.Text(p) }

func (p *Policy) UnmarshalText(b []byte) (err error) {
	*p, err = ParsePolicy(string(b))
	return err
}

// ParsePolicy parses "suppress", "mark" or "replace" (case-insensitive).
func ParsePolicy(s string) (Policy, error) {
	p, err := policyNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("dedupfilter: %v: %w", err, ErrInvalidOptions)
	}
	return p, nil
}

// Keep chooses which copy of a cluster the Replace policy keeps indexed.
type Keep int

const (
	// Newer keeps the copy with the latest Doc.Time (ties: the later Add).
	Newer Keep = iota
	// Longer keeps the copy with the most characters (ties: Newer).
	Longer
)

var keepNames = enum.New[Keep]("keep rule", "newer", "longer")

func (k Keep) String() string { return keepNames.String(k) }

// MarshalText and UnmarshalText write and read the rule's name.
func (k Keep) MarshalText() ([]byte, error) { return keepNames.Text(k) }

func (k *Keep) UnmarshalText(b []byte) (err error) {
	*k, err = ParseKeep(string(b))
	return err
}

// ParseKeep parses "newer" or "longer" (case-insensitive).
func ParseKeep(s string) (Keep, error) {
	k, err := keepNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("dedupfilter: %v: %w", err, ErrInvalidOptions)
	}
	return k, nil
}

// Source is a kind of posting list candidates are looked up in.
type Source int

const (
	// BandSource: the MinHash LSH bands.
	BandSource Source = iota
	// StructureSource: the feature-string paper's structure cells (with
	// StructureRadius).
	StructureSource
	// BlockSource: the fingerprint paper's block fingerprints.
	BlockSource
	// TermSource: the sample of boolean-model terms (TermsPerDoc).
	TermSource
	// PieceSource: the sample of feature-string pieces (PiecesPerDoc).
	PieceSource
)

var sourceNames = enum.New[Source]("candidate source", "bands", "structure", "blocks", "terms", "pieces")

func (s Source) String() string { return sourceNames.String(s) }

// MarshalText and UnmarshalText write and read the source's name.
func (s Source) MarshalText() ([]byte, error) { return sourceNames.Text(s) }

func (s *Source) UnmarshalText(b []byte) error {
	v, err := sourceNames.Parse(string(b))
	if err != nil {
		return fmt.Errorf("dedupfilter: %v: %w", err, ErrInvalidOptions)
	}
	*s = v
	return nil
}

// AllSources are every kind of posting list, the default of
// Options.Sources.
func AllSources() []Source {
	return []Source{BandSource, StructureSource, BlockSource, TermSource, PieceSource}
}

// ParseSources parses a comma-separated list of candidate sources
// ("bands", "structure", "blocks", "terms", "pieces").
func ParseSources(s string) ([]Source, error) {
	var out []Source
	for _, name := range strings.Split(s, ",") {
		src, err := sourceNames.Parse(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: %v: %w", err, ErrInvalidOptions)
		}
		out = append(out, src)
	}
	return out, nil
}

// Options configure a Filter's decisions; the store's own settings are
// its package's (embedded.Options). Start from DefaultOptions and change
// fields; New rejects out-of-range values (ErrInvalidOptions) rather than
// replacing them. The thresholds were chosen on the labelled development
// set (see the package doc's Caveats).
//
// Fields marked "index-shaping" decide which posting keys a document gets;
// changing them on an existing store is safe (each document remembers the
// keys it wrote) but documents added before the change are found only
// through the keys they had.
type Options struct {
	// Policy: Suppress (default), Mark or Replace.
	Policy Policy
	// Keep: which copy Replace keeps. Default Newer.
	Keep Keep
	// Options are the measures and their thresholds.
	similarity.Options

	// BooleanStopShare: a term found in more than this share of the
	// stored documents is left out of the boolean-model measures (Boolean,
	// Jaccard, Conrad, Pugh): the boolean-model paper's automatic stop
	// words. Default 0 (off: measured no better on the development set,
	// see docs/methods.md). The document frequencies are counted by the
	// Filter in memory (a fixed 2 MiB sketch), built from the store by
	// New — a walk of every document, so opening a large store with it
	// on takes a while — and kept current by this process' Adds and
	// Deletes. The embedded store only: New refuses it over a shared
	// one. The counts
	// need every term of every page: with it on, signatures keep their
	// terms exactly (TermSketch is not used).
	BooleanStopShare float64
	// BooleanStopMinDocs: stop words apply only once the store holds at
	// least this many documents, since shares over a few are noise.
	// Default 100.
	BooleanStopMinDocs int

	// Bands and Rows split the MinHash signature into LSH bands
	// (index-shaping). Bands*Rows must equal len(Features.MinHash) (or the
	// signature must be empty). Default 16×8 for a 128-value signature:
	// pairs with Jaccard 0.8 collide in some band with probability 0.95,
	// at 0.5 with 0.06; blocks and pieces find the copies edited more.
	// 32×4 (0.88 at 0.5), with 8 pieces, found the same duplicates on the
	// development set and R 0.9589 against 0.9588 on 100,000 synthetic
	// pages (F1 0.9790 both; docs/distributed.md, the frontier), at 20
	// postings more a page. More rows: fewer, better candidates, lower
	// recall.
	Bands, Rows int
	// TermsPerDoc is how many boolean-model terms each document posts
	// (index-shaping): the TermsPerDoc terms with the smallest hashes, a
	// consistent sample that near-duplicates mostly share. Default 0
	// (off): the sample keeps picking words common to many pages, so on
	// the dev set 8 terms per document tripled the verified candidates
	// (about 2 -> 6 per Add) and found no extra duplicate under any measure,
	// Boolean and Conrad included; the MinHash bands already cover the
	// vocabulary. Posting every term would cost one key per distinct word
	// per document, more than the search index's own write.
	TermsPerDoc int
	// BlocksPerDoc: how many of a document's block fingerprints, most
	// important first, it is posted under (index-shaping). Default 16
	// (the analyzer's blocks, all of them).
	BlocksPerDoc int
	// PiecesPerDoc: the same consistent sample over the distinct
	// feature-string pieces (index-shaping). Default 4: pieces are
	// distinctive, and on the dev set 8 of them raised recall from 0.820
	// to 0.835 (FeatureString) over bands and blocks alone; 4 found the
	// same duplicates as 8 with 16 bands of 8.
	PiecesPerDoc int
	// StructureRadius: the feature-string paper's structure cell (gn, cn, kl) is posted;
	// candidates come from cells within this distance in each coordinate.
	// Default 0 (own cell only: 1 scan); 1 scans 27 cells. Negative
	// disables the structure lookup.
	StructureRadius int
	// StructureGate: when not negative, the feature-string paper's
	// structure cells gate the candidates: a stored document is verified
	// only if its cell (gn, cn, kl) lies within StructureGate of the new
	// one's in every coordinate, however many lists they share. Default
	// -1 (off: on the development set the gate cost recall for little
	// saving, see docs/methods.md). Unlike StructureRadius, which adds the
	// neighbouring cells as one more source of candidates, the gate takes
	// candidates away.
	StructureGate int
	// Sources are the kinds of posting list candidates are looked up in.
	// Default AllSources(). Documents are still posted to every list, so
	// the choice can change on an existing store; ["pieces",
	// "structure"] is the feature-string paper's method on its own.
	Sources []Source
	// MaxPostings: a posting list longer than this is skipped when
	// gathering candidates (the boolean-model paper's automatic stop words). Default 200.
	// Each lookup reads up to MaxPostings+1 keys, so this bounds the cost of
	// crowded lists (a popular structure cell, a boilerplate block); raise
	// it for small corpora where every list is short anyway.
	MaxPostings int
	// MinShared: a stored document is a candidate only if it shares at
	// least this many posting lists with the new one. Default 3: a list
	// or two in common is mostly chance (the structure cell, a sampled
	// piece, a byline block many sites print), while reprints share
	// several bands, blocks and pieces. Measured with 16 bands of 8
	// (distbench, eval): at 4 a labelled pair of the development set
	// shares too few lists in some input orders, and the shared store,
	// which does not merge clusters, admits both pages (2 of 4 shuffled
	// single-process runs, 6 of 8 with 1 to 8 processes); at 3 none does, recall on 100,000 synthetic
	// pages is 0.9618 against 0.9616 at precision 1.0000, and a decision
	// verifies 3.3 candidates against 0.8, for 5% fewer decisions a
	// second. With 32 bands of 4 (the default before) recall on the
	// development set was 0.9938 from 2 to 8; 1 verified almost three
	// times the candidates of 2 for no extra duplicate.
	MinShared int
	// MaxCandidates: at most this many candidates, those sharing the most
	// posting lists, are verified per Add; the first duplicate found wins.
	// Default 32.
	MaxCandidates int
}

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options {
	return Options{
		Options:            similarity.DefaultOptions(),
		Policy:             Suppress,
		Keep:               Newer,
		BooleanStopShare:   0,
		BooleanStopMinDocs: 100,
		StructureGate:      -1,
		Sources:            AllSources(),
		Bands:              16,
		Rows:               8,
		TermsPerDoc:        0,
		PiecesPerDoc:       4,
		BlocksPerDoc:       16,
		StructureRadius:    0,
		MaxPostings:        200,
		MinShared:          3,
		MaxCandidates:      32,
	}
}

func (o Options) validate() error {
	if err := o.Options.Validate(); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("dedupfilter: "+format+": %w", append(args, ErrInvalidOptions)...)
	}
	switch {
	case !policyNames.Valid(o.Policy):
		return bad("unknown policy %d", int(o.Policy))
	case !keepNames.Valid(o.Keep):
		return bad("unknown keep rule %d", int(o.Keep))
	case len(o.Sources) == 0 || !validSources(o.Sources):
		return bad("Sources %v: at least one, each a known source at most once", o.Sources)
	case o.StructureGate < -1:
		return bad("StructureGate %d: -1 (off) or a radius", o.StructureGate)
	case o.BooleanStopShare < 0 || o.BooleanStopShare > 1 || o.BooleanStopMinDocs < 1:
		return bad("BooleanStopShare %v outside 0..1 or BooleanStopMinDocs %d not positive", o.BooleanStopShare, o.BooleanStopMinDocs)
	case o.Bands < 1 || o.Rows < 1:
		return bad("Bands %d and Rows %d must be positive", o.Bands, o.Rows)
	case o.MaxPostings < 1 || o.MaxCandidates < 1 || o.MinShared < 1:
		return bad("MaxPostings %d, MaxCandidates %d and MinShared %d must be positive", o.MaxPostings, o.MaxCandidates, o.MinShared)
	case o.TermsPerDoc < 0 || o.PiecesPerDoc < 0 || o.BlocksPerDoc < 0:
		return bad("TermsPerDoc %d, PiecesPerDoc %d and BlocksPerDoc %d must not be negative", o.TermsPerDoc, o.PiecesPerDoc, o.BlocksPerDoc)
	}
	return nil
}

func validSources(ss []Source) bool {
	for i, s := range ss {
		if !sourceNames.Valid(s) || slices.Contains(ss[:i], s) {
			return false
		}
	}
	return true
}
