package analyzer

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// hashesOf is Features.TermHashes computed from the names of terms.
func hashesOf(terms map[string]int) []TermHash {
	byHash := map[uint32]int{}
	for t, n := range terms {
		byHash[uint32(fnv1a([]byte(t)))] += n
	}
	out := make([]TermHash, 0, len(byHash))
	for h, n := range byHash {
		out = append(out, TermHash{h, n})
	}
	slices.SortFunc(out, func(a, b TermHash) int { return int(int64(a.Hash) - int64(b.Hash)) })
	return out
}

// checkTermHashes checks that an Analyzer from WithTermHashes gives the
// features a gives, with TermHashes in place of Terms.
func checkTermHashes(t *testing.T, a *Analyzer, paras []string) {
	t.Helper()
	h := a.WithTermHashes()
	got, want := h.Analyze(paras), a.Analyze(paras)
	if got.Terms != nil {
		t.Errorf("Terms = %d terms, want nil", len(got.Terms))
	}
	wantHashes := hashesOf(want.Terms)
	if !slices.Equal(got.TermHashes, wantHashes) {
		t.Errorf("TermHashes: got %d terms, want %d (%.5v, want %.5v)", len(got.TermHashes), len(wantHashes), got.TermHashes, wantHashes)
	}
	var left Features
	if h.SetLeft(&left, paras); left.Left != nil || !slices.Equal(left.LeftHashes, wantHashes) {
		t.Errorf("Analyzer.SetLeft: got Left %d terms, LeftHashes %d; want nil, %d", len(left.Left), len(left.LeftHashes), len(wantHashes))
	}
	got.TermHashes, want.Terms = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("other features differ:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestWithTermHashes(t *testing.T) {
	a, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		paras []string
	}{
		{"empty", nil},
		{"blank", []string{"", "  "}},
		{"repeats", []string{"the cat and the hat", "The CAT, the hat."}},
		{"numbers", []string{"On 12 May 2024 the 3 ministers met at 10:30 in room 4B to sign the 2nd accord, 17 pages."}},
		{"chinese", []string{"搜索引擎去重技术研究。", "网页去重是搜索引擎的关键技术之一，重复网页浪费存储。"}},
		{"mixed", []string{"Go 语言的 bleve 索引支持中文分词 and English words 2026"}},
	} {
		t.Run(c.name, func(t *testing.T) { checkTermHashes(t, a, c.paras) })
	}
}

func TestWithTermHashesRealPages(t *testing.T) {
	en, zh := realPages(t)
	a, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(en[:min(len(en), 40)], zh[:min(len(zh), 40)]...) {
		checkTermHashes(t, a, p)
	}
}

// TestWithTermHashesKeepsSettings checks that one setting does not undo
// another.
func TestWithTermHashesKeepsSettings(t *testing.T) {
	a, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := a.WithoutCharFreq().WithTermHashes().Analyze([]string{"a few words of text"})
	if f.CharFreq != nil || f.Terms != nil || f.TermHashes == nil {
		t.Errorf("got CharFreq %v, Terms %v, TermHashes %v; want nil, nil, set", f.CharFreq, f.Terms, f.TermHashes)
	}
}

func TestSortByHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int, mask uint32) []uint64 {
		seen := map[uint32]bool{}
		var out []uint64
		for len(out) < n {
			h := rng.Uint32() & mask
			if !seen[h] {
				seen[h] = true
				out = append(out, uint64(h)<<32|uint64(len(out)))
			}
		}
		return out
	}
	tests := []struct {
		name string
		used []uint64
	}{
		{"empty", nil},
		{"one", random(1, ^uint32(0))},
		{"below the radix sort", random(63, ^uint32(0))},
		{"radix sort", random(64, ^uint32(0))},
		{"a page's terms", random(700, ^uint32(0))},
		{"top bytes alike", random(500, 0x0000ffff)},
		{"low bytes alike", random(200, 0xff000000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := slices.Sorted(slices.Values(tt.used))
			got, _ := sortByHash(slices.Clone(tt.used), []uint64{7})
			if !slices.Equal(got, want) {
				t.Errorf("sortByHash(%d values): got %.6x..., want %.6x...", len(tt.used), got[:min(len(got), 4)], want[:min(len(want), 4)])
			}
		})
	}
}

// BenchmarkSortByHash compares sortByHash with a comparison sort on a
// page's worth of distinct term hashes.
func BenchmarkSortByHash(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	used := make([]uint64, 600)
	for i := range used {
		used[i] = uint64(rng.Uint32())<<32 | uint64(i)
	}
	work, spare := make([]uint64, len(used)), []uint64(nil)
	for _, c := range []struct {
		name string
		sort func()
	}{
		{"slices.Sort", func() { slices.Sort(work) }},
		{"sortByHash", func() { work, spare = sortByHash(work, spare) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				copy(work, used)
				c.sort()
			}
		})
	}
}
