package dedupfilter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/bleve-dedup/bleve-dedup/internal/enum"
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

// ParseKeep parses "newer" or "longer" (case-insensitive).
func ParseKeep(s string) (Keep, error) {
	k, err := keepNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("dedupfilter: %v: %w", err, ErrInvalidOptions)
	}
	return k, nil
}

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

	numMeasures = int(SameURL) + 1
)

var measureNames = enum.New[Measure]("measure",
	"combined", "featurestring", "boolean", "conrad", "pugh", "blocks", "minhash", "jaccard",
	"charfreq", "tagedit", "sameurl")

func (m Measure) String() string { return measureNames.String(m) }

// Measures lists the single measures (everything but Combined) in the
// order Combined consults them; the first agreeing one is reported as
// deciding.
func Measures() []Measure {
	return []Measure{FeatureString, MinHash, Blocks, Boolean, Jaccard, Conrad, Pugh, CharFreq, TagEdit, SameURL}
}

// DefaultVoters are the measures that vote under Combined by default: the
// seven that decide on the page's main text. CharFreq, TagEdit and SameURL
// measured worse on the development set (docs/methods.md) and vote only
// when listed in Options.Voters.
func DefaultVoters() []Measure {
	return []Measure{FeatureString, MinHash, Blocks, Boolean, Jaccard, Conrad, Pugh}
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

// ParseMeasure parses a measure name as printed by Measure.String
// (case-insensitive).
func ParseMeasure(s string) (Measure, error) {
	m, err := measureNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("dedupfilter: %v: %w", err, ErrInvalidOptions)
	}
	return m, nil
}

// Options configure a Filter. Start from DefaultOptions and change fields;
// Open rejects out-of-range values (ErrInvalidOptions) rather than
// replacing them. The thresholds were chosen on the labelled development
// set (see the package doc's Caveats).
//
// Fields marked "index-shaping" decide which posting keys a document gets;
// changing them on an existing store is safe (each document remembers the
// keys it wrote) but documents added before the change are found only
// through the keys they had.
type Options struct {
	// Dir is the Badger directory. Default: the argument of DefaultOptions.
	Dir string
	// InMemory keeps everything in memory (Dir must be ""). Default false.
	// Nothing survives Close; meant for tests and one-shot runs.
	InMemory bool
	// ReadOnly opens the store for reading only (Doc, Meta, Cluster...):
	// several processes may then read it, and it may live on a read-only
	// file system; writes fail with ErrReadOnly. A store a crash left with
	// writes to replay cannot be opened read-only. Default false.
	ReadOnly bool
	// SyncWrites fsyncs every Add/Delete before it returns. Default false:
	// a crash of the process loses nothing, a power loss may lose the last
	// writes (Badger's own trade-off); true costs a disk flush per document.
	SyncWrites bool
	// Logger receives Badger's log lines. Default nil: quiet.
	Logger badger.Logger
	// MemTableSize, BlockCacheSize and IndexCacheSize are passed to Badger
	// (see BadgerOptions). Defaults 16, 0 and 16 MiB, where Badger's own
	// are 64, 256 and 0 (0 keeps every table's index and bloom filter in
	// memory, which grows with the store): the filter's values are small,
	// its tables uncompressed and its reads point lookups, and a bounded
	// index cache keeps memory flat however many documents the store
	// holds. MemTableSize against 8, 32 and 64 MiB at 100,000 pages
	// (docs/scale.md, session 6): 32 and 64 cost about 6% less CPU, but the
	// saving is in the first pages, so per-page cost grows more with the
	// store (CPU a page, last tenth / first: 1.15-1.41 against 1.04-1.14);
	// 8 costs more.
	MemTableSize   int64
	BlockCacheSize int64
	IndexCacheSize int64
	// PostingTable is the file of the table that holds the posting lists
	// (see postingtable.go), mapped into memory: page cache, not heap,
	// 8 bytes a posting at a load of 0.35 to 0.7, so 0.6 to 1.3 KB a
	// document (1 GiB at a million). "" keeps it in anonymous memory,
	// rebuilt from the store at every open (a read of every document
	// record: fine for tests and small stores). Default "".
	PostingTable string

	// Policy: Suppress (default), Mark or Replace.
	Policy Policy
	// Keep: which copy Replace keeps. Default Newer.
	Keep Keep
	// Measure deciding duplicates. Default Combined.
	Measure Measure
	// Votes is how many of the Voters must agree under Combined.
	// Default 3: Pugh alone agrees on almost any pair of long texts, so two
	// votes let it plus one noisy measure merge; more votes trade recall
	// for precision.
	Votes int
	// Voters are the single measures that vote under Combined, each at
	// most once. Default DefaultVoters(). The store keeps what a measure
	// needs beyond the main text's features (the character frequencies
	// of CharFreq, the tag sequence of TagEdit, the URL of SameURL) only
	// when that measure votes or decides (Measure), so they cost no
	// storage otherwise; documents added before such a measure was turned
	// on lack it and score 0 on it.
	Voters []Measure

	// FeatureStringMin: the feature-string paper's similarity at or above which FeatureString
	// says duplicate. Default 0.6.
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
	// BooleanStopShare: a term found in more than this share of the
	// stored documents is left out of the boolean-model measures (Boolean,
	// Jaccard, Conrad, Pugh): the boolean-model paper's automatic stop
	// words. Default 0 (off: measured no better on the development set,
	// see docs/methods.md). The document frequencies are counted by the
	// Filter in memory (a fixed 2 MiB sketch), built from the store at
	// Open — a walk of every document, so opening a large store with it
	// on takes a while — and kept current by this process' Adds and
	// Deletes. The embedded store only: NewRedis refuses it.
	BooleanStopShare float64
	// BooleanStopMinDocs: stop words apply only once the store holds at
	// least this many documents, since shares over a few are noise.
	// Default 100.
	BooleanStopMinDocs int

	// Bands and Rows split the MinHash signature into LSH bands
	// (index-shaping). Bands*Rows must equal len(Features.MinHash) (or the
	// signature must be empty). Default 32×4 for a 128-value signature:
	// pairs with Jaccard 0.5 collide in some band with probability 0.88,
	// at 0.3 with 0.23. More rows: fewer, better candidates, lower recall.
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
	// PiecesPerDoc: the same consistent sample over the distinct
	// feature-string pieces (index-shaping). Default 8: pieces are
	// distinctive, and on the dev set they raised recall from 0.820 to
	// 0.835 (FeatureString) over bands and blocks alone.
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
	// least this many posting lists with the new one. Default 4: a list
	// or two in common is mostly chance (the structure cell, a sampled
	// piece, a byline block many sites print), while reprints share
	// several bands, blocks and pieces. Measured (eval, distbench
	// -decisions): recall on the development set is 0.9938 from 2 to 8
	// and drops at 10; on 20,000 synthetic pages it is 0.9597 from 2 to 6;
	// the candidates verified a decision fall from 12.1 (at 2, the
	// earlier default) to 4.2 (3), 1.1 (4) and 0.4 (5), and the embedded
	// store's decisions per second rise from 2,049 to 3,273 at 4. 1
	// verified almost three times the candidates of 2 on the dev set for
	// no extra duplicate.
	MinShared int
	// stopTerm, set by the Filter when BooleanStopShare is on, reports a
	// term hash as a stop word (see docfreq.go).
	stopTerm func(uint32) bool

	// MaxCandidates: at most this many candidates, those sharing the most
	// posting lists, are verified per Add; the first duplicate found wins.
	// Default 32.
	MaxCandidates int
}

// DefaultOptions returns the defaults documented on Options, storing in dir.
func DefaultOptions(dir string) Options {
	return Options{
		Dir:                dir,
		MemTableSize:       16 << 20,
		BlockCacheSize:     0,
		IndexCacheSize:     16 << 20,
		Policy:             Suppress,
		Keep:               Newer,
		Measure:            Combined,
		Votes:              3,
		FeatureStringMin:   0.6,
		BooleanK:           0.2,
		BooleanD:           0.2,
		BooleanFrequent:    3,
		BooleanMin:         0.8,
		ConradShared:       0.8,
		ConradLength:       0.2,
		PughR:              50,
		BlocksMin:          0.5,
		MinHashMin:         0.6,
		JaccardMin:         0.6,
		Voters:             DefaultVoters(),
		CharFreqMin:        0.95,
		TagEditMin:         0.8,
		BooleanStopShare:   0,
		BooleanStopMinDocs: 100,
		StructureGate:      -1,
		Sources:            AllSources(),
		Bands:              32,
		Rows:               4,
		TermsPerDoc:        0,
		PiecesPerDoc:       8,
		StructureRadius:    0,
		MaxPostings:        200,
		MinShared:          4,
		MaxCandidates:      32,
	}
}

// BadgerOptions are the Badger settings Open uses for a store in o.Dir,
// chosen for an ingest filter by measurement (docs/scale.md):
//   - values over 1 KiB (payloads, signatures) go to the value log, so
//     compactions move keys and small values only: at 100,000 pages the
//     CPU per page of the last tenth was 1.93 times the first's with every
//     value in the LSM tree, 1.23 with this threshold, and the whole run
//     took 29% less CPU. The value log is not garbage-collected: values
//     replaced or deleted (updates, Replace) keep their space;
//   - small memtables (two of 16 MiB, not five of 64);
//   - tables of one size (2 MiB) at every level, so a compaction's table
//     builders, which reserve twice a table's size, stay small;
//   - no block compression (the values are hashes and varints, and the
//     payloads are compressed once when written; uncompressed tables are
//     read straight from their mapping, so the block cache can be small or
//     none), a bounded index cache, two compactors;
//   - no conflict tracking (every read-write transaction runs under the
//     Filter's lock).
//
// Use them to open a store shared with other packages (see New).
func (o Options) BadgerOptions() badger.Options {
	bo := badger.DefaultOptions(o.Dir)
	bo.TableSizeMultiplier = 1 // no With method for it
	return bo.
		WithInMemory(o.InMemory).
		WithReadOnly(o.ReadOnly).
		WithSyncWrites(o.SyncWrites).
		WithLogger(o.Logger).
		WithDetectConflicts(false).
		WithValueThreshold(1 << 10).
		WithMemTableSize(o.MemTableSize).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithCompression(options.None).
		WithBlockCacheSize(o.BlockCacheSize).
		WithIndexCacheSize(o.IndexCacheSize).
		WithNumCompactors(2)
}

func (o Options) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("dedupfilter: "+format+": %w", append(args, ErrInvalidOptions)...)
	}
	switch {
	case o.InMemory && o.Dir != "":
		return bad("InMemory needs an empty Dir, got %q", o.Dir)
	case o.MemTableSize < 1<<20 || o.BlockCacheSize < 0 || o.IndexCacheSize < 0:
		return bad("MemTableSize %d must be at least 1 MiB, the cache sizes at least 0", o.MemTableSize)
	case !policyNames.Valid(o.Policy):
		return bad("unknown policy %d", int(o.Policy))
	case !keepNames.Valid(o.Keep):
		return bad("unknown keep rule %d", int(o.Keep))
	case !measureNames.Valid(o.Measure):
		return bad("unknown measure %d", int(o.Measure))
	case o.Measure == Combined && len(o.Voters) == 0:
		return bad("no Voters for the combined measure")
	case o.Measure == Combined && (o.Votes < 1 || o.Votes > len(o.Voters)):
		return bad("Votes %d outside 1..%d (the number of Voters)", o.Votes, len(o.Voters))
	case !validMeasures(o.Voters):
		return bad("Voters %v: each a single measure, at most once", o.Voters)
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
	case o.TermsPerDoc < 0 || o.PiecesPerDoc < 0:
		return bad("TermsPerDoc %d and PiecesPerDoc %d must not be negative", o.TermsPerDoc, o.PiecesPerDoc)
	}
	return nil
}

func validMeasures(ms []Measure) bool {
	for i, m := range ms {
		if m == Combined || !measureNames.Valid(m) || slices.Contains(ms[:i], m) {
			return false
		}
	}
	return true
}

func validSources(ss []Source) bool {
	for i, s := range ss {
		if !sourceNames.Valid(s) || slices.Contains(ss[:i], s) {
			return false
		}
	}
	return true
}

// decides reports whether measure m can decide under o: it is o.Measure,
// or o.Measure is Combined and m votes.
func (o Options) decides(m Measure) bool {
	return o.Measure == m || o.Measure == Combined && slices.Contains(o.Voters, m)
}
