package similarity

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/htmltags"
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
	// Votes is how many kinds of evidence said duplicate (see
	// Options.Votes): of Options.Voters under Combined, else 1 or 0 for
	// the one deciding measure.
	Votes int
	// Scores holds every single measure, in Measures() order.
	Scores []Score

	// Evidence.
	SharedPieces int      // length of the common subsequence of feature-string pieces
	SharedBlocks int      // block fingerprints present in both
	SharedTerms  int      // distinct terms present in both
	TermSample   []string // up to 10 shared terms, sorted
	// Bar names the bar of Options a pair the votes call duplicates
	// failed, under Combined (empty when none did, or the votes did not).
	Bar Bar
	// Numbers is the share of the numbers (distinct terms holding a
	// digit) of the page with fewer that the other holds: a reprint
	// keeps its facts, a page written from another's template changes
	// them. 1 when either page has none.
	Numbers float64
	// InB is the share of a's distinct terms that b holds, InA the share
	// of b's that a holds (estimates where the terms are sketched): how
	// much of each page's own text the other keeps. A page whose text is
	// left out of a search index in favour of the other's loses the rest.
	InB, InA float64
	// WholeInB and WholeInA are InB and InA over the pages' whole text,
	// the paragraphs left out of their features included
	// (analyzer.Features.Left): what a search keeps of a page left out in
	// favour of the other.
	WholeInB, WholeInA float64
	// SurelyInB and SurelyInA are WholeInB and WholeInA less a standard
	// error of the estimate where the terms are sketched: a small page's
	// share in a large one is estimated from few of its terms.
	SurelyInB, SurelyInA float64
}

// A Bar is one of the tests past the votes that a pair must pass under
// Combined (see Options).
type Bar string

// The bars, as Verdict.Bar names them.
const (
	BarHeld              Bar = "held"               // Options.HeldMin
	BarMinHash           Bar = "minhash_floor"      // Options.MinHashFloor
	BarNumbers           Bar = "numbers"            // Options.NumbersMin
	BarFeatureStringHeld Bar = "featurestring_held" // Options.FeatureStringHeldMin
	BarWholeHeld         Bar = "whole_held"         // Options.WholeHeldMin
)

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

// CompareFeatures compares two documents' features with every measure
// and decides under opts. It is pure and safe for concurrent use. Nil
// features compare as empty. SameURL needs the documents' URLs: compare
// their signatures WithURL.
func CompareFeatures(a, b *analyzer.Features, opts Options) Verdict {
	return Compare(newSignature(a, opts.TermSketch), newSignature(b, opts.TermSketch), opts)
}

func (s Signature) Structure() analyzer.Structure { return s.structure }

// Blocks are the first 4 bytes of the SHA-1 of each of the page's top
// blocks, most important first.
func (s Signature) Blocks() []uint32 { return s.blocks }

func (s Signature) Tags() []byte { return s.tags }

// Compare compares two signatures with every measure and decides under
// opts, with a sample of the shared terms as evidence. It is pure and
// safe for concurrent use.
func Compare(a, b Signature, opts Options) Verdict {
	v := Verify(a, b, opts)
	v.TermSample = TermSample(a, b, opts)
	return v
}

// Verify is Compare without Verdict.TermSample: the candidates a filter
// verifies are mostly not duplicates, and looking up term names for them
// cost a fifth of a verification.
func Verify(a, b Signature, opts Options) Verdict {
	var v Verdict
	t := compareTermSets(a.terms, b.terms, opts)
	v.SharedTerms, v.InB, v.InA = t.shared, t.inB, t.inA
	w := t // (the terms are the whole text, unless a page left some out)
	if a.whole != nil || b.whole != nil {
		w = compareTermSets(a.wholeTerms(), b.wholeTerms(), opts)
	}
	v.WholeInB, v.WholeInA, v.SurelyInB, v.SurelyInA = w.inB, w.inA, w.surelyInB, w.surelyInA
	v.Numbers = numberShare(a, b)
	fs, lcs := pieceSimilarity(a.pieces, b.pieces)
	v.SharedPieces = lcs
	bs, m0 := blockSimilarity(a.blocks, b.blocks)
	v.SharedBlocks = m0
	mh := minhashSimilarity(a.minhash, b.minhash)
	conradLen := lengthWithin(a.runes, b.runes, opts.ConradLength)

	v.Scores = make([]Score, 0, numMeasures-1)
	for _, m := range Measures() {
		if m == TagEdit && opts.Measure != Combined && opts.Measure != TagEdit {
			// The one costly measure: under another single measure, not
			// worth computing for the evidence.
			v.Scores = append(v.Scores, Score{Measure: m})
			continue
		}
		s := Score{Measure: m}
		switch m {
		case FeatureString:
			s.Value = fs
			s.Duplicate = len(a.pieces) > 0 && len(b.pieces) > 0 && fs >= opts.FeatureStringMin
		case MinHash:
			s.Value = mh
			s.Duplicate = len(a.minhash) > 0 && mh >= opts.MinHashMin
		case Blocks:
			s.Value = bs
			s.Duplicate = len(a.blocks) > 0 && len(b.blocks) > 0 && bs >= opts.BlocksMin
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
		case Containment:
			s.Value = t.contained
			s.Duplicate = t.contained > 0 && t.contained >= opts.ContainmentMin
		case CharFreq:
			s.Value = cosine(a.chars, b.chars)
			s.Duplicate = s.Value > 0 && s.Value >= opts.CharFreqMin
		case TagEdit:
			s.Value = htmltags.Similarity(a.tags, b.tags)
			s.Duplicate = s.Value > 0 && s.Value >= opts.TagEditMin
		case SameURL:
			if a.url != 0 && a.url == b.url {
				s.Value = 1
			}
			s.Duplicate = s.Value == 1
		}
		v.Scores = append(v.Scores, s)
	}

	if opts.Measure != Combined {
		s, _ := v.Score(opts.Measure)
		v.Duplicate, v.Measure, v.Similarity = s.Duplicate, s.Measure, s.Value
		if s.Duplicate {
			v.Votes = 1
		}
		return v
	}
	v.Measure = Combined
	var agree evidence
	for _, s := range v.Scores {
		if s.Duplicate && slices.Contains(opts.Voters, s.Measure) {
			agree = agree.with(s.Measure)
		}
	}
	v.Votes = agree.kinds()
	if v.Votes >= opts.Votes && (agree.inOrder() || !opts.needsOrder()) {
		fsAlone := agree&(kindMinHash|kindBlocks) == 0
		switch held := min(v.InB, v.InA); {
		case held < opts.HeldMin:
			v.Bar = BarHeld
		case len(a.minhash) > 0 && mh < opts.MinHashFloor && slices.Contains(opts.Voters, MinHash):
			v.Bar = BarMinHash
		case fsAlone && v.Numbers < opts.NumbersMin:
			v.Bar = BarNumbers
		case fsAlone && held < opts.FeatureStringHeldMin:
			v.Bar = BarFeatureStringHeld
		case v.WholeInB < opts.WholeHeldMin:
			v.Bar = BarWholeHeld
		}
		v.Duplicate = v.Bar == ""
	}
	if v.Duplicate {
		for _, s := range v.Scores {
			if s.Duplicate && slices.Contains(opts.Voters, s.Measure) {
				v.Measure, v.Similarity = s.Measure, s.Value
				break
			}
		}
	} else {
		v.Similarity = float64(v.Votes) / float64(opts.VoterKinds())
	}
	return v
}

// evidence is the set of kinds of evidence that agree (a bit each).
type evidence uint16

// Kinds of evidence: each measure of text in order is one; the measures
// of term sets (Boolean, Jaccard, Conrad, Pugh, Containment) read the same
// sets and together are one; CharFreq, TagEdit and SameURL are one each.
const (
	kindFeatureString evidence = 1 << iota
	kindMinHash
	kindBlocks
	kindTerms
	kindCharFreq
	kindTagEdit
	kindSameURL

	inOrder = kindFeatureString | kindMinHash | kindBlocks
)

func kindOf(m Measure) evidence {
	switch m {
	case FeatureString:
		return kindFeatureString
	case MinHash:
		return kindMinHash
	case Blocks:
		return kindBlocks
	case CharFreq:
		return kindCharFreq
	case TagEdit:
		return kindTagEdit
	case SameURL:
		return kindSameURL
	}
	return kindTerms
}

func (e evidence) with(m Measure) evidence { return e | kindOf(m) }
func (e evidence) kinds() int              { return bits.OnesCount16(uint16(e)) }
func (e evidence) inOrder() bool           { return e&inOrder != 0 }

// Held returns Verdict.InB and Verdict.InA alone: the share of a's
// distinct terms that b holds, and of b's that a holds.
func Held(a, b Signature, opts Options) (inB, inA float64) {
	t := compareTermSets(a.terms, b.terms, opts)
	return t.inB, t.inA
}

// numberShare is Verdict.Numbers: exact when both pages keep all their
// numbers, else over the hashes below the larger of the two samples'
// greatest, where both samples are whole.
func numberShare(a, b Signature) float64 {
	if a.numberCount == 0 || b.numberCount == 0 {
		return 1
	}
	limit := uint32(math.MaxUint32)
	if len(a.numbers) < a.numberCount {
		limit = a.numbers[len(a.numbers)-1]
	}
	if len(b.numbers) < b.numberCount {
		limit = min(limit, b.numbers[len(b.numbers)-1])
	}
	var na, nb, shared int
	for i, j := 0, 0; i < len(a.numbers) || j < len(b.numbers); {
		switch {
		case j == len(b.numbers) || i < len(a.numbers) && a.numbers[i] < b.numbers[j]:
			if a.numbers[i] <= limit {
				na++
			}
			i++
		case i == len(a.numbers) || b.numbers[j] < a.numbers[i]:
			if b.numbers[j] <= limit {
				nb++
			}
			j++
		default:
			if a.numbers[i] <= limit {
				na, nb, shared = na+1, nb+1, shared+1
			}
			i++
			j++
		}
	}
	if min(na, nb) == 0 {
		return 0
	}
	return float64(shared) / float64(min(na, nb))
}

// HeldWhole returns Verdict.WholeInB, WholeInA, SurelyInB and SurelyInA
// alone: Held over the pages' whole text, and its lower bounds.
func HeldWhole(a, b Signature, opts Options) (inB, inA, surelyInB, surelyInA float64) {
	t := compareTermSets(a.wholeTerms(), b.wholeTerms(), opts)
	return t.inB, t.inA, t.surelyInB, t.surelyInA
}

// cosine is the cosine of two sparse vectors sorted by index.
func cosine(a, b []analyzer.CharCount) float64 {
	var dot, na, nb float64
	for _, x := range a {
		na += float64(x.Count) * float64(x.Count)
	}
	for _, y := range b {
		nb += float64(y.Count) * float64(y.Count)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].Index < b[j].Index:
			i++
		case a[i].Index > b[j].Index:
			j++
		default:
			dot += float64(a[i].Count) * float64(b[j].Count)
			i++
			j++
		}
	}
	return min(1, dot/math.Sqrt(na*nb))
}

// termStats are the boolean-model paper's quantities over two term-frequency maps.
type termStats struct {
	shared, union   int
	jaccard, conrad float64
	contained       float64 // shared over the smaller page's distinct terms
	inB, inA        float64 // shared over a's, over b's distinct terms
	// surelyInB, surelyInA are inB and inA less a standard error of the
	// sketch's estimate (inB and inA when the terms are exact).
	surelyInB, surelyInA float64
	booleanCompared      bool // counts within d and xor fraction at most k
	booleanS             float64
}

// compareTermSets compares two pages' terms: exactly when both are kept
// exactly, else on their sketches (terms of different sketch sizes do
// not compare).
func compareTermSets(a, b termSet, o Options) termStats {
	if a.bins == nil && b.bins == nil {
		return compareTerms(a.exact, b.exact, o)
	}
	k := len(a.bins)
	if k == 0 {
		k = len(b.bins)
	}
	sa, sb := a.sketched(k), b.sketched(k)
	if sa == nil || sb == nil {
		return termStats{}
	}
	return compareSketches(sa, sb, a, b, o)
}

// compareTerms merges two exact term lists, sorted by hash.
func compareTerms(a, b []termFreq, o Options) termStats {
	var t termStats
	var minSum, totA, totB, sumAll, diffNum int
	frequent := func(x, y int) bool { return o.BooleanFrequent > 0 && x >= o.BooleanFrequent && y >= o.BooleanFrequent }
	stop := o.Stop
	na, nb := len(a), len(b) // distinct terms, stop words not counted
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var x, y int
		switch {
		case j == len(b) || i < len(a) && a[i].Hash < b[j].Hash:
			if stop != nil && stop(a[i].Hash) {
				na--
				i++
				continue
			}
			x = a[i].N
			i++
		case i == len(a) || b[j].Hash < a[i].Hash:
			if stop != nil && stop(b[j].Hash) {
				nb--
				j++
				continue
			}
			y = b[j].N
			j++
		case stop != nil && stop(a[i].Hash):
			na--
			nb--
			i++
			j++
			continue
		default:
			x, y = a[i].N, b[j].N
			t.shared++
			minSum += min(x, y)
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
	t.union = na + nb - t.shared
	if t.union > 0 {
		t.jaccard = float64(t.shared) / float64(t.union)
	}
	t.inB, t.inA = share(t.shared, na), share(t.shared, nb)
	t.surelyInB, t.surelyInA = t.inB, t.inA
	t.contained = max(t.inB, t.inA)
	if maxTot := max(totA, totB); maxTot > 0 {
		t.conrad = float64(minSum) / float64(maxTot)
	}
	// The boolean-model paper: compare only when the feature counts differ by at most d
	// and at most a fraction k of the features differ (the XOR); then
	// F = Σ|tf_i − tf_j| (without features frequent in both) over half of
	// Σ(tf_i + tf_j), which reproduces the paper's worked example F = 0.714.
	if t.union > 0 {
		countsClose := float64(absInt(na-nb)) <= o.BooleanD*float64(max(na, nb))
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

// compareSketches estimates compareTerms' quantities from two sketches
// of the same size (see termSet): each non-empty bin is a term of the
// union, drawn uniformly, with its frequencies x and y on both sides
// (0 where it is absent). The share of bins whose term both pages have
// estimates Jaccard; the shared count follows from it and the exact
// distinct counts; Conrad's and the boolean-model paper's sums are ratios
// over the union's terms, estimated by the same ratios over the sampled
// terms, scaled by the exact totals where they need them. Stop words are
// not applied (the sketch keeps no term's hash).
func compareSketches(a, b []termFreq, ta, tb termSet, o Options) termStats {
	var t termStats
	var bins, shared, minSum, sumAll, diffNum int
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x.Hash == 0 && y.Hash == 0:
			continue
		case x.Hash == y.Hash:
			shared++
			minSum += min(x.N, y.N)
		case y.Hash == 0 || x.Hash != 0 && x.Hash < y.Hash:
			y.N = 0
		default:
			x.N = 0
		}
		bins++
		sumAll += x.N + y.N
		if o.BooleanFrequent <= 0 || x.N < o.BooleanFrequent || y.N < o.BooleanFrequent {
			diffNum += absInt(x.N - y.N)
		}
	}
	if bins == 0 {
		return t
	}
	j := float64(shared) / float64(bins)
	union := float64(ta.distinct+tb.distinct) / (1 + j)
	t.jaccard = j
	t.union = int(math.Round(union))
	t.shared = int(math.Round(j * union))
	held := func(j float64) (inB, inA float64) {
		union := float64(ta.distinct+tb.distinct) / (1 + j)
		return min(1, j*union/float64(max(1, ta.distinct))), min(1, j*union/float64(max(1, tb.distinct)))
	}
	t.inB, t.inA = held(j)
	// A small page against a large one samples few of its own terms: the
	// share it keeps is far less certain than the Jaccard estimate. One
	// standard error of that estimate (binomial, over the bins).
	t.surelyInB, t.surelyInA = held(max(0, j-math.Sqrt(max(j*(1-j), 1/float64(bins))/float64(bins))))
	t.contained = max(t.inB, t.inA)
	if maxTot := max(ta.total, tb.total); maxTot > 0 && sumAll > 0 {
		t.conrad = float64(minSum) / float64(sumAll) * float64(ta.total+tb.total) / float64(maxTot)
	}
	na, nb := ta.distinct, tb.distinct
	countsClose := float64(absInt(na-nb)) <= o.BooleanD*float64(max(na, nb))
	t.booleanCompared = countsClose && 1-j <= o.BooleanK
	f := 1.0
	if sumAll > 0 {
		f = math.Min(1, float64(diffNum)/(float64(sumAll)/2))
	}
	t.booleanS = 1 - f
	return t
}

// TermSample is the termSampleSize smallest of the terms a and b share,
// by name, stop terms left out: empty unless one of them was made from
// Features (a stored signature keeps only hashes).
func TermSample(sa, sb Signature, o Options) []string {
	names := sa.names
	if names == nil {
		names = sb.names
	}
	if names == nil {
		return nil
	}
	isShared := sharedTerms(sa.terms, sb.terms, o)
	// Of terms colliding on a hash, the smaller name stands for them, so
	// that the sample does not depend on map order.
	var sample []named
	for t := range names {
		h := uint32(HashString(t))
		if !isShared(h) {
			continue
		}
		if k := slices.IndexFunc(sample, func(x named) bool { return x.Hash == h }); k >= 0 {
			if t > sample[k].name {
				continue
			}
			sample = slices.Delete(sample, k, k+1)
		}
		k, _ := slices.BinarySearchFunc(sample, t, func(x named, t string) int { return strings.Compare(x.name, t) })
		if k < termSampleSize {
			sample = slices.Insert(sample, k, named{t, h})
			sample = sample[:min(len(sample), termSampleSize)]
		}
	}
	var out []string
	for _, x := range sample {
		out = append(out, x.name)
	}
	return out
}

// sharedTerms returns the test of a term's hash being one both term sets
// have, as far as they show it: in both exact sets, or the minimum of its
// bin on both sketches; stop terms left out.
func sharedTerms(ta, tb termSet, o Options) func(uint32) bool {
	if ta.bins != nil || tb.bins != nil {
		k := max(len(ta.bins), len(tb.bins))
		a, b := ta.sketched(k), tb.sketched(k)
		if a == nil || b == nil {
			return func(uint32) bool { return false }
		}
		return func(h uint32) bool {
			bin, v := binOf(h, k)
			return a[bin].Hash == v && b[bin].Hash == v
		}
	}
	a, b := ta.exact, tb.exact
	shared := make([]uint32, 0, min(len(a), len(b))) // ascending
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].Hash < b[j].Hash:
			i++
		case b[j].Hash < a[i].Hash:
			j++
		default:
			if o.Stop == nil || !o.Stop(a[i].Hash) {
				shared = append(shared, a[i].Hash)
			}
			i++
			j++
		}
	}
	return func(h uint32) bool {
		_, ok := slices.BinarySearch(shared, h)
		return ok
	}
}

// named is a term of the sample and its hash.
type named struct {
	name string
	Hash uint32
}

// pieceSimilarity is 2·LCS/(len(a)+len(b)) over the piece sequences: the
// feature strings compared in order, tolerant of inserted or dropped
// sentences. Pieces are hashed (by New) so the O(n·m) loop
// compares integers.
func pieceSimilarity(ha, hb []uint16) (float64, int) {
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

// BlockST is the fingerprint paper's ST_m of two pages: the share of
// block fingerprints they have in common.
func BlockST(a, b Signature) float64 {
	st, _ := blockSimilarity(a.blocks, b.blocks)
	return st
}

// blockSimilarity is the fingerprint paper's ST_m = m0/m with m the
// larger block count.
func blockSimilarity(a, b []uint32) (float64, int) {
	m := max(len(a), len(b))
	if m == 0 {
		return 0, 0
	}
	set := make(map[uint32]struct{}, len(a))
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

// minhashSimilarity estimates Jaccard from the fraction r of equal slots
// of b-bit MinHash values (b = 8): two slots are equal with probability
// J + (1−J)/256, so J = (r − 1/256)/(1 − 1/256). Signatures of different
// lengths were made with different hash families and do not compare.
func minhashSimilarity(a, b []byte) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	const chance = 1.0 / 256
	return max(0, (float64(eq)/float64(len(a))-chance)/(1-chance))
}

// share is n over of, 0 when of is 0.
func share(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
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
