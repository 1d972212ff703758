package dedupfilter

import (
	"math"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// Score is one measure's result for a pair of documents.
type Score struct {
	Measure   Measure
	Value     float64 // similarity in [0, 1], or the shared-term count for Pugh
	Duplicate bool    // whether this measure alone calls the pair duplicates
}

// Verdict explains the comparison of two documents.
type Verdict struct {
	// Duplicate is the overall answer under Options.Measure.
	Duplicate bool
	// Measure is the measure that decided: Options.Measure when a single
	// one is selected; under Combined the first agreeing measure in
	// Measures() order (Combined itself when too few agreed).
	Measure Measure
	// Similarity is the deciding measure's Value; under Combined with too
	// few votes, the fraction of single measures that agreed.
	Similarity float64
	// Votes is how many single measures said duplicate.
	Votes int
	// Scores holds every single measure, in Measures() order.
	Scores []Score

	// Evidence.
	SharedPieces int      // length of the common subsequence of feature-string pieces
	SharedBlocks int      // block fingerprints present in both
	SharedTerms  int      // distinct terms present in both
	TermSample   []string // up to 10 shared terms, sorted
}

// Score returns the score of measure m, and false if m is not a single
// measure.
func (v Verdict) Score(m Measure) (Score, bool) {
	for _, s := range v.Scores {
		if s.Measure == m {
			return s, true
		}
	}
	return Score{}, false
}

const termSampleSize = 10

// Compare compares two documents' features with every measure and decides
// under opts (only the measure and threshold fields are used). It is pure
// and safe for concurrent use; Filter.Add verifies candidates with it.
// Nil features compare as empty.
func Compare(a, b *analyzer.Features, opts Options) Verdict {
	return compare(newSignature(a), newSignature(b), opts)
}

// signature is the form Compare works on: terms as a slice sorted by term
// (merged in linear time, no hashing) and piece hashes. Stored features
// decode straight into it.
type signature struct {
	f      *analyzer.Features // Terms is not used
	terms  []termFreq
	pieces []uint64
}

type termFreq struct {
	term string
	tf   int
}

func newSignature(f *analyzer.Features) signature {
	if f == nil {
		f = &analyzer.Features{}
	}
	p := signature{f: f, terms: make([]termFreq, 0, len(f.Terms)), pieces: hashStrings(f.Pieces)}
	for t, n := range f.Terms {
		p.terms = append(p.terms, termFreq{t, n})
	}
	slices.SortFunc(p.terms, func(x, y termFreq) int { return strings.Compare(x.term, y.term) })
	return p
}

func compare(pa, pb signature, opts Options) Verdict {
	a, b := pa.f, pb.f
	var v Verdict
	t := compareTerms(pa.terms, pb.terms, opts)
	v.SharedTerms, v.TermSample = t.shared, t.sample
	fs, lcs := pieceSimilarity(pa.pieces, pb.pieces)
	v.SharedPieces = lcs
	bs, m0 := blockSimilarity(a.Blocks, b.Blocks)
	v.SharedBlocks = m0
	mh := minhashSimilarity(a.MinHash, b.MinHash)
	conradLen := lengthWithin(a.Runes, b.Runes, opts.ConradLength)

	v.Scores = make([]Score, 0, numMeasures-1)
	for _, m := range Measures() {
		s := Score{Measure: m}
		switch m {
		case FeatureString:
			s.Value = fs
			s.Duplicate = len(a.Pieces) > 0 && len(b.Pieces) > 0 && fs >= opts.FeatureStringMin
		case MinHash:
			s.Value = mh
			s.Duplicate = len(a.MinHash) > 0 && mh >= opts.MinHashMin
		case Blocks:
			s.Value = bs
			s.Duplicate = len(a.Blocks) > 0 && len(b.Blocks) > 0 && bs >= opts.BlocksMin
		case Boolean:
			s.Value = t.booleanS
			s.Duplicate = t.booleanCompared && t.booleanS >= opts.BooleanMin
		case Jaccard:
			s.Value = t.jaccard
			s.Duplicate = t.union > 0 && t.jaccard >= opts.JaccardMin
		case Conrad:
			s.Value = t.conrad
			s.Duplicate = t.conrad > opts.ConradShared && conradLen
		case Pugh:
			s.Value = float64(t.shared)
			s.Duplicate = t.shared > opts.PughR
		}
		if s.Duplicate {
			v.Votes++
		}
		v.Scores = append(v.Scores, s)
	}

	if opts.Measure != Combined {
		s, _ := v.Score(opts.Measure)
		v.Duplicate, v.Measure, v.Similarity = s.Duplicate, s.Measure, s.Value
		return v
	}
	v.Measure = Combined
	v.Duplicate = v.Votes >= opts.Votes
	if v.Duplicate {
		for _, s := range v.Scores {
			if s.Duplicate {
				v.Measure, v.Similarity = s.Measure, s.Value
				break
			}
		}
	} else {
		v.Similarity = float64(v.Votes) / float64(len(v.Scores))
	}
	return v
}

// termStats are the boolean-model paper's quantities over two term-frequency maps.
type termStats struct {
	shared, union   int
	jaccard, conrad float64
	booleanCompared bool // counts within d and xor fraction at most k
	booleanS        float64
	sample          []string
}

// compareTerms merges two term lists sorted by term.
func compareTerms(a, b []termFreq, o Options) termStats {
	var t termStats
	var minSum, totA, totB, sumAll, diffNum int
	frequent := func(x, y int) bool { return o.BooleanFrequent > 0 && x >= o.BooleanFrequent && y >= o.BooleanFrequent }
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var x, y int
		switch {
		case j == len(b) || i < len(a) && a[i].term < b[j].term:
			x = a[i].tf
			i++
		case i == len(a) || b[j].term < a[i].term:
			y = b[j].tf
			j++
		default:
			x, y = a[i].tf, b[j].tf
			t.shared++
			minSum += min(x, y)
			if len(t.sample) < termSampleSize {
				t.sample = append(t.sample, a[i].term)
			}
			i++
			j++
		}
		totA += x
		totB += y
		sumAll += x + y
		if !frequent(x, y) {
			diffNum += absInt(x - y)
		}
	}
	t.union = len(a) + len(b) - t.shared
	if t.union > 0 {
		t.jaccard = float64(t.shared) / float64(t.union)
	}
	if maxTot := max(totA, totB); maxTot > 0 {
		t.conrad = float64(minSum) / float64(maxTot)
	}
	// Seed 001: compare only when the feature counts differ by at most d
	// and at most a fraction k of the features differ (the XOR); then
	// F = Σ|tf_i − tf_j| (without features frequent in both) over half of
	// Σ(tf_i + tf_j), which reproduces the paper's worked example F = 0.714.
	if t.union > 0 {
		countsClose := float64(absInt(len(a)-len(b))) <= o.BooleanD*float64(max(len(a), len(b)))
		xorFrac := float64(t.union-t.shared) / float64(t.union)
		t.booleanCompared = countsClose && xorFrac <= o.BooleanK
		f := 1.0
		if sumAll > 0 {
			f = math.Min(1, float64(diffNum)/(float64(sumAll)/2))
		}
		t.booleanS = 1 - f
	}
	return t
}

// pieceSimilarity is 2·LCS/(len(a)+len(b)) over the piece sequences: the
// feature strings compared in order, tolerant of inserted or dropped
// sentences. Pieces are hashed (by prepare) so the O(n·m) loop compares
// integers.
func pieceSimilarity(ha, hb []uint64) (float64, int) {
	if len(ha) == 0 || len(hb) == 0 {
		return 0, 0
	}
	n := len(ha) + len(hb)
	if len(ha) < len(hb) {
		ha, hb = hb, ha
	}
	prev := make([]int32, len(hb)+1)
	cur := make([]int32, len(hb)+1)
	for _, x := range ha {
		for j, y := range hb {
			switch {
			case x == y:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	lcs := int(prev[len(hb)])
	return 2 * float64(lcs) / float64(n), lcs
}

func hashStrings(s []string) []uint64 {
	out := make([]uint64, len(s))
	for i, x := range s {
		out[i] = hashString(x)
	}
	return out
}

// hashString is 64-bit FNV-1a, written out to hash a string without
// converting it to bytes. Stored posting keys depend on it: do not change.
func hashString(s string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// blockSimilarity is the fingerprint paper's ST_m = m0/m with m the larger block count.
func blockSimilarity(a, b [][20]byte) (float64, int) {
	m := max(len(a), len(b))
	if m == 0 {
		return 0, 0
	}
	set := make(map[[20]byte]struct{}, len(a))
	for _, x := range a {
		set[x] = struct{}{}
	}
	m0 := 0
	for _, y := range b {
		if _, ok := set[y]; ok {
			m0++
			delete(set, y) // a repeated block counts once
		}
	}
	return float64(m0) / float64(m), m0
}

// minhashSimilarity is the fraction of equal slots; signatures of different
// lengths were made with different hash families and do not compare.
func minhashSimilarity(a, b []uint64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

func lengthWithin(a, b int, frac float64) bool {
	return float64(absInt(a-b)) <= frac*float64(max(a, b))
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
