package similarity

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

func TestSignatureRoundTrip(t *testing.T) {
	tests := []*analyzer.Features{
		{},
		{
			Pieces:    []string{"abc.def", "。好", ""},
			Structure: analyzer.Structure{Paragraphs: 3, Length: 12, Sentences: 40},
			Terms:     map[string]int{"新闻": 2, "web": 7, "": 1},
			Blocks:    blocks("a", "b"),
			MinHash:   []uint64{0, 1<<64 - 1, 42},
			Runes:     1234,
		},
		{ // v3: the optional parts
			Pieces:   []string{"ab"},
			CharFreq: []analyzer.CharCount{{Index: 0, Count: 1}, {Index: 300, Count: 1 << 20}, {Index: analyzer.CharDims - 1, Count: 7}},
			Tags:     []byte{1, 29, 29, 29, 73, 0, 73},
		},
		{CharFreq: []analyzer.CharCount{{Index: 5, Count: 2}}},
		{Tags: []byte{13}},
		{ // sketched terms
			Pieces: []string{"a", "b", "a"},
			Terms:  manyTerms(200),
		},
		{ // the whole text's terms, exact and sketched
			Terms: map[string]int{"a": 1},
			Left:  map[string]int{"a": 2, "b": 1},
		},
		{Terms: manyTerms(10), Left: manyTerms(100)},
		{Numbers: []string{"1998", "3.5"}},
		{Numbers: manyNumbers(100)}, // more than a signature keeps
	}
	for i, f := range tests {
		want := newSignature(f, 16).WithPieceSample(2)
		want.names, want.pieces32 = nil, nil // not stored
		if i == 2 {
			want.url = 1<<63 | 9
		}
		id, got, err := Decode(want.Encode("doc"))
		if err != nil {
			t.Fatalf("%d: decode: %v", i, err)
		}
		if id != "doc" || !sameSignature(got, want) {
			t.Errorf("%d: got %q %+v, want %q %+v", i, id, got, "doc", want)
		}
	}
}

// sameSignature compares signatures, nil and empty slices alike.
func sameSignature(a, b Signature) bool {
	return slices.Equal(a.pieces, b.pieces) && slices.Equal(a.sample, b.sample) && a.structure == b.structure &&
		sameTerms(a.terms, b.terms) &&
		slices.Equal(a.blocks, b.blocks) && slices.Equal(a.minhash, b.minhash) && a.runes == b.runes &&
		slices.Equal(a.chars, b.chars) && slices.Equal(a.tags, b.tags) && a.url == b.url &&
		(a.whole == nil) == (b.whole == nil) && (a.whole == nil || sameTerms(*a.whole, *b.whole)) &&
		slices.Equal(a.numbers, b.numbers) && a.numberCount == b.numberCount
}

func sameTerms(a, b termSet) bool {
	return slices.Equal(a.exact, b.exact) && slices.Equal(a.bins, b.bins) && (a.bins == nil) == (b.bins == nil) &&
		a.distinct == b.distinct && a.total == b.total
}

// manyNumbers is n distinct numbers.
func manyNumbers(n int) []string {
	var ns []string
	for i := range n {
		ns = append(ns, fmt.Sprint(1000+i))
	}
	return ns
}

// manyTerms is n distinct terms, term i occurring i%5+1 times.
func manyTerms(n int) map[string]int {
	m := map[string]int{}
	for i := range n {
		m[fmt.Sprintf("w%d", i)] = i%5 + 1
	}
	return m
}

func TestDecodeCorrupt(t *testing.T) {
	good := New(&analyzer.Features{Pieces: []string{"abc"}, MinHash: []uint64{1}}).Encode("x")
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"version", append([]byte{99}, good[1:]...)},
		{"truncated", good[:len(good)-3]},
		{"trailing", append(append([]byte{}, good...), 0)},
		{"huge count", []byte{signatureV4, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"term order", Signature{terms: termSet{exact: []termFreq{{Hash: 2, N: 1}, {Hash: 1, N: 1}}, distinct: 2}}.Encode("x")},
		{"term count", Signature{terms: termSet{exact: []termFreq{{Hash: 1, N: 1}}, distinct: 9}}.Encode("x")},
		{"sketch size", Signature{terms: termSet{bins: make([]termFreq, 3)}}.Encode("x")},
		{"sketch bin", Signature{terms: termSet{bins: []termFreq{{Hash: 1<<binBits + 1, N: 1}}}}.Encode("x")},
		{"number order", Signature{numbers: []uint32{5, 3}, numberCount: 2}.Encode("x")},
		{"numbers beyond their count", Signature{numbers: []uint32{1, 2, 3}, numberCount: 2}.Encode("x")},
	}
	for _, tt := range tests {
		if _, _, err := Decode(tt.b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tt.name, err)
		}
	}
}

func FuzzDecodeSignature(f *testing.F) {
	f.Add(New(&analyzer.Features{Pieces: []string{"ab"}, Terms: map[string]int{"x": 2}, Blocks: blocks("q"), MinHash: []uint64{3}, Runes: 5}).Encode("id"))
	f.Add([]byte{signatureV4})
	f.Add(newSignature(&analyzer.Features{Terms: manyTerms(40)}, 8).Encode("s"))
	v3 := New(&analyzer.Features{Pieces: []string{"ab"}, CharFreq: []analyzer.CharCount{{Index: 3, Count: 2}, {Index: 9, Count: 1}}, Tags: []byte{1, 2, 2}})
	v3.url = 77
	f.Add(v3.Encode("id"))
	f.Add(New(&analyzer.Features{Terms: map[string]int{"x": 1}, Left: map[string]int{"y": 3}}).Encode("w"))
	f.Add(New(&analyzer.Features{Numbers: manyNumbers(40)}).Encode("n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, sig, err := Decode(b)
		if err != nil {
			return
		}
		id2, again, err := Decode(sig.Encode(id))
		if err != nil || id2 != id || !sameSignature(again, sig) {
			t.Errorf("re-encoding %q %+v: got %q %+v, %v", id, sig, id2, again, err)
		}
	})
}
