package similarity

import (
	"cmp"
	"crypto/sha1"
	"fmt"
	"hash/fnv"

	"math"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

func blocks(texts ...string) [][20]byte {
	out := make([][20]byte, len(texts))
	for i, t := range texts {
		out[i] = sha1.Sum([]byte(t))
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

// TestCompareBooleanSeedExample reproduces the boolean-model paper's table 2: F = 0.714,
// S = 0.286, and with 2 of 5 features differing (> k = 0.2) the documents
// are not compared at all.
func TestCompareBooleanSeedExample(t *testing.T) {
	d1 := &analyzer.Features{Terms: map[string]int{"T2": 1, "T3": 2, "T4": 5, "T5": 6}}
	d2 := &analyzer.Features{Terms: map[string]int{"T1": 2, "T2": 3, "T4": 7, "T5": 2}}
	opts := DefaultOptions()
	v := CompareFeatures(d1, d2, opts)
	s, _ := v.Score(Boolean)
	if !near(s.Value, 0.286) || s.Duplicate {
		t.Errorf("Boolean = %.3f dup=%v, want 0.286 dup=false", s.Value, s.Duplicate)
	}
	// With k and the threshold relaxed the comparison happens and decides.
	opts.BooleanK, opts.BooleanMin, opts.Measure = 0.5, 0.25, Boolean
	if v := CompareFeatures(d1, d2, opts); !v.Duplicate || v.Measure != Boolean || !near(v.Similarity, 0.286) {
		t.Errorf("relaxed: got dup=%v measure=%v sim=%.3f, want true boolean 0.286", v.Duplicate, v.Measure, v.Similarity)
	}
}

func TestCompareMeasures(t *testing.T) {
	terms := func(words ...string) map[string]int {
		m := map[string]int{}
		for _, w := range words {
			m[w]++
		}
		return m
	}
	many := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = prefix + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		return out
	}
	sig := func(fill uint64, same int) []uint64 {
		s := make([]uint64, 8)
		for i := range s {
			if i < same {
				s[i] = uint64(i)
			} else {
				s[i] = fill + uint64(i)
			}
		}
		return s
	}
	base := many("w", 60)
	tests := []struct {
		name    string
		a, b    analyzer.Features
		measure Measure
		want    float64
		dup     bool
	}{
		{"pieces identical", analyzer.Features{Pieces: []string{"ab", "cd", "ef"}}, analyzer.Features{Pieces: []string{"ab", "cd", "ef"}}, FeatureString, 1, true},
		{"pieces one dropped", analyzer.Features{Pieces: []string{"ab", "cd", "ef", "gh"}}, analyzer.Features{Pieces: []string{"ab", "cd", "gh"}}, FeatureString, 6.0 / 7, true},
		{"pieces reordered count once in order", analyzer.Features{Pieces: []string{"ab", "cd", "ef"}}, analyzer.Features{Pieces: []string{"ef", "cd", "ab"}}, FeatureString, 1.0 / 3, false},
		{"pieces empty", analyzer.Features{}, analyzer.Features{Pieces: []string{"ab"}}, FeatureString, 0, false},
		{"blocks half", analyzer.Features{Blocks: blocks("a", "b", "c", "d")}, analyzer.Features{Blocks: blocks("a", "b", "x", "y")}, Blocks, 0.5, true},
		{"blocks m is the larger count", analyzer.Features{Blocks: blocks("a", "b", "c", "d")}, analyzer.Features{Blocks: blocks("a")}, Blocks, 0.25, false},
		{"minhash 6 of 8", analyzer.Features{MinHash: sig(100, 6)}, analyzer.Features{MinHash: sig(200, 6)}, MinHash, 0.75, true},
		{"minhash lengths differ", analyzer.Features{MinHash: sig(100, 8)}, analyzer.Features{MinHash: sig(100, 8)[:4]}, MinHash, 0, false},
		{"jaccard 3 of 5", analyzer.Features{Terms: terms("a", "b", "c", "d")}, analyzer.Features{Terms: terms("a", "b", "c", "e")}, Jaccard, 0.6, true},
		{"conrad shares 90% same length", analyzer.Features{Terms: terms(base[:50]...), Runes: 1000}, analyzer.Features{Terms: terms(append(base[:45:45], many("x", 5)...)...), Runes: 1100}, Conrad, 0.9, true},
		{"conrad shares 90% length +30%", analyzer.Features{Terms: terms(base[:50]...), Runes: 1000}, analyzer.Features{Terms: terms(append(base[:45:45], many("x", 5)...)...), Runes: 1300}, Conrad, 0.9, false},
		{"conrad shares 80% is not over 80%", analyzer.Features{Terms: terms(base[:50]...), Runes: 1000}, analyzer.Features{Terms: terms(append(base[:40:40], many("x", 10)...)...), Runes: 1000}, Conrad, 0.8, false},
		{"pugh 51 shared", analyzer.Features{Terms: terms(base[:51]...)}, analyzer.Features{Terms: terms(base[:60]...)}, Pugh, 51, true},
		{"pugh 50 shared is not more than r", analyzer.Features{Terms: terms(base[:50]...)}, analyzer.Features{Terms: terms(base[:60]...)}, Pugh, 50, false},
		{"boolean near copy", analyzer.Features{Terms: terms(base[:50]...)}, analyzer.Features{Terms: terms(append(base[:48:48], many("x", 2)...)...)}, Boolean, 0.92, true},
		{"boolean counts differ beyond d", analyzer.Features{Terms: terms(base[:50]...)}, analyzer.Features{Terms: terms(base[:30]...)}, Boolean, 0.5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Measure = tt.measure
			v := CompareFeatures(&tt.a, &tt.b, opts)
			if !near(v.Similarity, tt.want) || v.Duplicate != tt.dup || v.Measure != tt.measure {
				t.Errorf("got %v %.4f dup=%v, want %v %.4f dup=%v", v.Measure, v.Similarity, v.Duplicate, tt.measure, tt.want, tt.dup)
			}
			// Symmetry: every measure gives the same answer both ways.
			w := CompareFeatures(&tt.b, &tt.a, opts)
			if !slices.Equal(v.Scores, w.Scores) {
				t.Errorf("not symmetric: %v vs %v", v.Scores, w.Scores)
			}
		})
	}
}

func TestCompareCombined(t *testing.T) {
	a := &analyzer.Features{Pieces: []string{"ab", "cd"}, Blocks: blocks("x", "y"), Terms: map[string]int{"p": 1, "q": 1}}
	b := &analyzer.Features{Pieces: []string{"ab", "cd"}, Blocks: blocks("z", "w"), Terms: map[string]int{"r": 1, "s": 1}}
	tests := []struct {
		votes       int
		dup         bool
		wantMeasure Measure
	}{
		{1, true, FeatureString},
		{2, false, Combined},
	}
	for _, tt := range tests {
		opts := DefaultOptions()
		opts.Votes, opts.HeldMin, opts.FeatureStringHeldMin, opts.WholeHeldMin = tt.votes, 0, 0, 0 // (the votes alone: no shared terms)
		v := CompareFeatures(a, b, opts)
		if v.Duplicate != tt.dup || v.Measure != tt.wantMeasure || v.Votes != 1 {
			t.Errorf("Votes=%d: got dup=%v measure=%v votes=%d, want dup=%v measure=%v votes=1",
				tt.votes, v.Duplicate, v.Measure, v.Votes, tt.dup, tt.wantMeasure)
		}
	}
}

func TestCompareEvidence(t *testing.T) {
	a := &analyzer.Features{Pieces: []string{"ab", "cd", "ef"}, Blocks: blocks("x", "y"),
		Terms: map[string]int{"k": 1, "b": 2, "a": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1, "j": 1, "z": 1}}
	b := &analyzer.Features{Pieces: []string{"ab", "ef"}, Blocks: blocks("y"),
		Terms: map[string]int{"k": 3, "j": 1, "i": 1, "h": 1, "g": 1, "f": 1, "e": 1, "d": 1, "c": 1, "b": 1, "a": 1}}
	v := CompareFeatures(a, b, DefaultOptions())
	wantSample := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	if v.SharedPieces != 2 || v.SharedBlocks != 1 || v.SharedTerms != 11 || !slices.Equal(v.TermSample, wantSample) {
		t.Errorf("evidence = pieces %d blocks %d terms %d sample %v, want 2 1 11 %v",
			v.SharedPieces, v.SharedBlocks, v.SharedTerms, v.TermSample, wantSample)
	}
}

func TestCompareNil(t *testing.T) {
	if v := CompareFeatures(nil, nil, DefaultOptions()); v.Duplicate || v.Votes != 0 {
		t.Errorf("CompareFeatures(nil, nil) = dup %v votes %d, want false 0", v.Duplicate, v.Votes)
	}
}

func TestHashStringIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "a", "新闻。"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := HashString(s), h.Sum64(); got != want {
			t.Errorf("HashString(%q) = %x, want %x", s, got, want)
		}
	}
}

// TestSignatureTermCollision: two terms of one document with the same
// 32-bit hash count as one term, and the evidence names the smaller.
func TestSignatureTermCollision(t *testing.T) {
	seen := map[uint32]string{}
	var x, y string
	for i := 0; x == ""; i++ {
		s := fmt.Sprintf("t%d", i)
		h := uint32(HashString(s))
		if prev, ok := seen[h]; ok {
			x, y = min(prev, s), max(prev, s)
		}
		seen[h] = s
	}
	sig := New(&analyzer.Features{Terms: map[string]int{x: 2, y: 3, "other": 1}})
	want := []termFreq{{Hash: uint32(HashString(x)), N: 5}, {Hash: uint32(HashString("other")), N: 1}}
	slices.SortFunc(want, func(a, b termFreq) int { return cmp.Compare(a.Hash, b.Hash) })
	if !slices.Equal(sig.terms.exact, want) {
		t.Errorf("terms %v, want %v", sig.terms, want)
	}
	other := New(&analyzer.Features{Terms: map[string]int{y: 1}})
	if got := TermSample(sig, other, DefaultOptions()); !slices.Equal(got, []string{x}) {
		t.Errorf("evidence %v, want [%s] (the smaller of %s and %s)", got, x, x, y)
	}
}

// TestTermSampleSmallest checks the evidence against its definition: the
// termSampleSize smallest names of the terms both documents have.
func TestTermSampleSmallest(t *testing.T) {
	terms := func(from, to int) map[string]int {
		m := map[string]int{}
		for i := from; i < to; i++ {
			m[fmt.Sprintf("t%03d", i*7%100)] = 1
		}
		return m
	}
	tests := []struct {
		name string
		a, b map[string]int
		want []string
	}{
		{"none shared", terms(0, 10), terms(10, 20), nil},
		{"a few", terms(0, 10), terms(7, 20), []string{"t049", "t056", "t063"}},
		{"more than the sample", terms(0, 100), terms(0, 100), []string{"t000", "t001", "t002", "t003", "t004", "t005", "t006", "t007", "t008", "t009"}},
	}
	for _, tt := range tests {
		a, b := New(&analyzer.Features{Terms: tt.a}), New(&analyzer.Features{Terms: tt.b})
		b.names = nil // as stored
		if got := TermSample(a, b, DefaultOptions()); !slices.Equal(got, tt.want) {
			t.Errorf("%s: TermSample = %v, want %v", tt.name, got, tt.want)
		}
		if got := TermSample(b, a, DefaultOptions()); !slices.Equal(got, tt.want) {
			t.Errorf("%s: TermSample (swapped) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// termRange returns the terms t<from>..t<to-1>, with frequencies 1 to 4.
func termRange(from, to int) map[string]int {
	m := map[string]int{}
	for i := from; i < to; i++ {
		m[fmt.Sprintf("t%d", i)] = i%4 + 1
	}
	return m
}

// TestSketchEstimates: on pages past the sketch size, the boolean-model
// quantities estimated from sketches are near the exact ones, and a
// sketch compares with an exact set of another page as with its sketch.
func TestSketchEstimates(t *testing.T) {
	tests := []struct {
		name string
		a, b map[string]int
	}{
		{"same", termRange(0, 600), termRange(0, 600)},
		{"most shared", termRange(0, 600), termRange(60, 660)},
		{"half shared", termRange(0, 600), termRange(200, 800)},
		{"disjoint", termRange(0, 600), termRange(600, 1200)},
		{"one short", termRange(0, 600), termRange(0, 40)},
		{"a part", termRange(0, 600), termRange(0, 400)},
	}
	o := DefaultOptions()
	o.TermSketch = 256
	for _, tt := range tests {
		fa, fb := &analyzer.Features{Terms: tt.a}, &analyzer.Features{Terms: tt.b}
		exact := compareTermSets(New(fa).terms, New(fb).terms, o)
		sa, sb := newSignature(fa, o.TermSketch), newSignature(fb, o.TermSketch)
		got := compareTermSets(sa.terms, sb.terms, o)
		if math.Abs(got.jaccard-exact.jaccard) > 0.1 || math.Abs(got.conrad-exact.conrad) > 0.1 || math.Abs(got.contained-exact.contained) > 0.1 ||
			math.Abs(got.booleanS-exact.booleanS) > 0.1 || math.Abs(float64(got.shared-exact.shared)) > 0.15*float64(exact.shared)+5 {
			t.Errorf("%s: sketched jaccard %.3f conrad %.3f contained %.3f boolean %.3f shared %d; exact %.3f %.3f %.3f %.3f %d",
				tt.name, got.jaccard, got.conrad, got.contained, got.booleanS, got.shared,
				exact.jaccard, exact.conrad, exact.contained, exact.booleanS, exact.shared)
		}
		// A page kept exactly against a sketched one: as against its sketch.
		mixed := compareTermSets(sa.terms, New(fb).terms, o)
		if mixed != got {
			t.Errorf("%s: exact against sketch %+v, want as sketches %+v", tt.name, mixed, got)
		}
	}
	other := newSignature(&analyzer.Features{Terms: termRange(0, 600)}, 128)
	if got := compareTermSets(newSignature(&analyzer.Features{Terms: termRange(0, 600)}, 256).terms, other.terms, o); got != (termStats{}) {
		t.Errorf("sketches of 256 and 128 bins compare: %+v, want nothing", got)
	}
}

// TestContainment: the shared distinct terms over the smaller page's,
// which a copy keeping part of its original does not lose, where Jaccard
// does.
func TestContainment(t *testing.T) {
	tests := []struct {
		name          string
		a, b          map[string]int
		want, jaccard float64
		duplicate     bool
	}{
		{"a part", termRange(0, 30), termRange(0, 20), 1, 0.667, true},
		{"a part, edited", termRange(0, 30), termRange(13, 33), 0.85, 0.515, true},
		{"8 of 10", termRange(0, 30), termRange(22, 32), 0.8, 0.25, true},
		{"7 of 10", termRange(0, 30), termRange(23, 33), 0.7, 0.212, false},
		{"disjoint", termRange(0, 30), termRange(30, 60), 0, 0, false},
		{"one empty", termRange(0, 30), nil, 0, 0, false},
	}
	o := DefaultOptions()
	for _, tt := range tests {
		v := CompareFeatures(&analyzer.Features{Terms: tt.a}, &analyzer.Features{Terms: tt.b}, o)
		c, _ := v.Score(Containment)
		j, _ := v.Score(Jaccard)
		if !near(c.Value, tt.want) || c.Duplicate != tt.duplicate || !near(j.Value, tt.jaccard) {
			t.Errorf("%s: containment %.3f (duplicate %v), jaccard %.3f; want %.3f (%v), %.3f",
				tt.name, c.Value, c.Duplicate, j.Value, tt.want, tt.duplicate, tt.jaccard)
		}
	}
}

func TestHeldWhole(t *testing.T) {
	article := map[string]int{"eel": 2, "species": 1, "found": 1, "river": 1}
	template := map[string]int{"home": 1, "news": 1, "sport": 1, "contact": 1, "about": 1, "login": 1}
	tests := []struct {
		name              string
		a, b              *analyzer.Features
		heldIn, wholeIn   float64 // the share of a's terms b holds: features, whole text
		heldOut, wholeOut float64 // of b's that a holds
	}{
		{"whole pages", &analyzer.Features{Terms: article}, &analyzer.Features{Terms: article}, 1, 1, 1, 1},
		{"a's template left out", &analyzer.Features{Terms: article, Left: template}, &analyzer.Features{Terms: article}, 1, 0.4, 1, 1},
		{"both sites' templates", &analyzer.Features{Terms: article, Left: template}, &analyzer.Features{Terms: article, Left: template}, 1, 1, 1, 1},
	}
	o := DefaultOptions()
	for _, tt := range tests {
		a, b := Of(tt.a, "", o), Of(tt.b, "", o)
		in, out := Held(a, b, o)
		win, wout, _, _ := HeldWhole(a, b, o)
		if in != tt.heldIn || out != tt.heldOut || win != tt.wholeIn || wout != tt.wholeOut {
			t.Errorf("%s: Held %.2f %.2f, HeldWhole %.2f %.2f; want %.2f %.2f, %.2f %.2f", tt.name, in, out, win, wout, tt.heldIn, tt.heldOut, tt.wholeIn, tt.wholeOut)
		}
		if v := Compare(a, b, o); v.WholeInB != win || v.WholeInA != wout {
			t.Errorf("%s: Verdict.WholeInB, WholeInA %.2f %.2f, want HeldWhole's %.2f %.2f", tt.name, v.WholeInB, v.WholeInA, win, wout)
		}
	}
}

func TestNumbers(t *testing.T) {
	many := func(from, n int) []string {
		var ns []string
		for i := range n {
			ns = append(ns, fmt.Sprint(from+i))
		}
		return ns
	}
	tests := []struct {
		name string
		a, b []string
		want float64
	}{
		{"no numbers", nil, []string{"1998"}, 1},
		{"the same facts", []string{"1998", "3.5"}, []string{"1998", "3.5", "7"}, 1},
		{"other facts", []string{"1998", "3.5"}, []string{"2001", "4.2"}, 0},
		{"half", []string{"1998", "3.5"}, []string{"1998", "4.2", "17"}, 0.5},
		// Past maxNumbers a share is estimated over the kept samples.
		{"many, the same", many(0, 200), many(0, 200), 1},
		{"many, none shared", many(0, 200), many(1000, 200), 0},
		{"many, half shared", many(0, 200), many(100, 200), 0.5},
	}
	for _, tt := range tests {
		got := numberShare(New(&analyzer.Features{Numbers: tt.a}), New(&analyzer.Features{Numbers: tt.b}))
		if math.Abs(got-tt.want) > 0.2 || (tt.want == 0 || tt.want == 1) && got != tt.want {
			t.Errorf("%s: numberShare = %.2f, want %.2f", tt.name, got, tt.want)
		}
	}
}

// TestFeatureStringsAlone: a pair whose only evidence of text in order is
// the feature strings needs each page to hold FeatureStringHeldMin of the
// other's terms and to keep its numbers.
func TestFeatureStringsAlone(t *testing.T) {
	terms := func(n, own int) map[string]int {
		m := map[string]int{}
		for i := range n {
			m[fmt.Sprint("shared", i)] = 1
		}
		for i := range own {
			m[fmt.Sprint("own", i)] = 1
		}
		return m
	}
	page := func(ts map[string]int, numbers ...string) *analyzer.Features {
		return &analyzer.Features{Pieces: []string{"ab", "cd", "ef"}, Terms: ts, Numbers: numbers}
	}
	tests := []struct {
		name string
		a, b *analyzer.Features
		bar  Bar // "": a duplicate
	}{
		{"a copy", page(terms(10, 0), "1998"), page(terms(10, 2), "1998"), ""},
		{"a page holding the other and as much again", page(terms(10, 0)), page(terms(10, 8)), ""},
		{"a page quoting the other inside more of its own", page(terms(10, 0)), page(terms(10, 14)), BarFeatureStringHeld},
		{"a page quoting the other inside twice as much", page(terms(10, 0)), page(terms(10, 20)), BarHeld},
		{"other numbers", page(terms(10, 0), "1998", "45"), page(terms(10, 0), "1904", "12"), BarNumbers},
	}
	for _, tt := range tests {
		v := CompareFeatures(tt.a, tt.b, DefaultOptions())
		if v.Duplicate != (tt.bar == "") || v.Bar != tt.bar {
			t.Errorf("%s: duplicate %v, bar %q; want bar %q (votes %d, held %.2f %.2f, numbers %.2f)", tt.name, v.Duplicate, v.Bar, tt.bar, v.Votes, v.InB, v.InA, v.Numbers)
		}
	}
}

// TestWholeHeld: a page is a duplicate only when the other holds
// WholeHeldMin of its whole text, the paragraphs left out of its features
// included.
func TestWholeHeld(t *testing.T) {
	terms := func(prefix string, n int) map[string]int {
		m := map[string]int{}
		for i := range n {
			m[fmt.Sprint(prefix, i)] = 1
		}
		return m
	}
	page := func(ts, left map[string]int) *analyzer.Features {
		return &analyzer.Features{Pieces: []string{"ab", "cd", "ef"}, Terms: ts, Left: left, Numbers: []string{"1998"}}
	}
	article := page(terms("shared", 10), nil)
	tests := []struct {
		name string
		a, b *analyzer.Features
		bar  Bar // "": a duplicate
	}{
		{"a copy", page(terms("shared", 10), nil), article, ""},
		{"a copy whose left-out paragraphs the other holds", page(terms("shared", 10), terms("tmpl", 6)), page(terms("shared", 10), terms("tmpl", 6)), ""},
		{"a copy with a few paragraphs left out of its own", page(terms("shared", 10), terms("own", 4)), article, ""},
		{"the article inside more text of the page's own", page(terms("shared", 10), terms("own", 16)), article, BarWholeHeld},
		{"the article held by a page with more of its own", article, page(terms("shared", 10), terms("own", 16)), ""},
	}
	for _, tt := range tests {
		v := CompareFeatures(tt.a, tt.b, DefaultOptions())
		if v.Duplicate != (tt.bar == "") || v.Bar != tt.bar {
			t.Errorf("%s: duplicate %v, bar %q; want bar %q (votes %d, held %.2f %.2f, whole %.2f %.2f)", tt.name, v.Duplicate, v.Bar, tt.bar, v.Votes, v.InB, v.InA, v.WholeInB, v.WholeInA)
		}
	}
	o := DefaultOptions()
	o.WholeHeldMin = 0
	if v := CompareFeatures(tests[3].a, tests[3].b, o); !v.Duplicate {
		t.Errorf("WholeHeldMin 0: bar %q, want the test off", v.Bar)
	}
}

// TestHeldSurely: where the terms are sketched, what a page may lose is
// judged on the share the other surely holds, under the estimate.
func TestHeldSurely(t *testing.T) {
	small, large := map[string]int{}, map[string]int{}
	for i := range 160 {
		small[fmt.Sprint("t", i)] = 1
		if i < 100 {
			large[fmt.Sprint("t", i)] = 1
		}
	}
	for i := range 300 {
		large[fmt.Sprint("u", i)] = 1
	}
	o := DefaultOptions()
	a, b := Of(&analyzer.Features{Terms: small}, "", o), Of(&analyzer.Features{Terms: large}, "", o)
	in, _ := Held(a, b, o)
	_, _, surely, _ := HeldWhole(a, b, o)
	if !(surely < in && in-surely < 0.25) {
		t.Errorf("held %.3f, surely %.3f: want a little less (the true share is %.3f)", in, surely, 100.0/160)
	}
}

// TestOfTermHashes checks that features carrying their terms by hash
// (analyzer.Analyzer.WithTermHashes) give the signature their names give,
// with and without terms left out of the analysis, exact and sketched.
func TestOfTermHashes(t *testing.T) {
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	h := a.WithTermHashes()
	long := make([]string, 0, 400)
	for i := range 400 {
		long = append(long, fmt.Sprintf("word%d", i))
	}
	for _, c := range []struct {
		name       string
		kept, left []string
	}{
		{"empty", nil, nil},
		{"kept", []string{"The quick brown fox jumps over the lazy dog. 2026 was a year."}, nil},
		{"left", []string{"正文：网页去重的关键技术。"}, []string{"Home | About | Contact", "版权所有 2026"}},
		{"sketched", []string{fmt.Sprint(long)}, []string{"menu item"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			named, hashed := a.Analyze(c.kept), h.Analyze(c.kept)
			if len(c.left) > 0 {
				a.SetLeft(named, c.left)
				h.SetLeft(hashed, c.left)
			}
			o := DefaultOptions()
			o.TermSketch = 64
			if got, want := Of(hashed, "http://x/", o).Encode("x"), Of(named, "http://x/", o).Encode("x"); !slices.Equal(got, want) {
				t.Errorf("signature from hashes differs from the one from names:\ngot  %x\nwant %x", got, want)
			}
		})
	}
}
