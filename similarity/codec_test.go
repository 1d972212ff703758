package similarity

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
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
		{Terms: manyTerms(100), Left: otherTerms(20)}, // both sketched: the whole text's as its differences
		{Terms: manyTerms(100), Left: manyTerms(3)},   // the same terms, other frequencies
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

// otherTerms is n distinct terms, none of manyTerms'.
func otherTerms(n int) map[string]int {
	m := map[string]int{}
	for i := range n {
		m[fmt.Sprintf("o%d", i)] = 1
	}
	return m
}

// TestWholeDiffSmaller: a whole text's sketch that differs from the kept
// text's in a few bins is written as those bins.
func TestWholeDiffSmaller(t *testing.T) {
	sig := newSignature(&analyzer.Features{Terms: manyTerms(1000), Left: otherTerms(50)}, 64)
	plain := len(sig.whole.append(nil))
	kept := len(sig.terms.append(nil))
	got := len(sig.Encode("")) - len(Signature{terms: sig.terms}.Encode(""))
	if got <= 0 || got > plain/2 {
		t.Errorf("whole text's sketch takes %d bytes, want at most half of %d (kept text's: %d)", got, plain, kept)
	}
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
		{"sketch bin, version 4", signatureOf(signatureV4, 0, 0, 1, 0x81, 0x80, 0x04, 1, 0, 0, 0, 0)},               // a value past 1<<binBits
		{"sketch bin, no frequency", signatureOf(signatureV4, 0, 0, 1, 5, 0, 0, 0, 0, 0)},                           // a term that never occurs
		{"whole diff, version 4", signatureOf(signatureV4, 0, 0, 1, 5, 1, 0, 0, 0, sigWhole|sigWholeDiff, 0, 0, 0)}, // a flag version 5 added
		{"whole diff without whole", withFlags(Signature{terms: termSet{bins: make([]termFreq, 8)}}, sigWholeDiff)},
		{"whole diff without a sketch", withFlags(Signature{}, sigWhole|sigWholeDiff)},
		{"number order", Signature{numbers: []uint32{5, 3}, numberCount: 2}.Encode("x")},
		{"numbers beyond their count", Signature{numbers: []uint32{1, 2, 3}, numberCount: 2}.Encode("x")},
	}
	for _, tt := range tests {
		if _, _, err := Decode(tt.b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tt.name, err)
		}
	}
}

// signatureOf is a signature of version v with id "x", no pieces and
// no sample, a structure of zeros, then rest: from the term set on.
func signatureOf(v byte, rest ...byte) []byte {
	return append([]byte{v, 1, 'x', 0, 0, 0, 0, 0}, rest...)
}

// TestDecodeV4: signatures written by version 4 (its encoder's output,
// kept in testdata) are read as they were written.
func TestDecodeV4(t *testing.T) {
	b, err := os.ReadFile("testdata/signature-v4.hex")
	if err != nil {
		t.Fatal(err)
	}
	features := []*analyzer.Features{
		{Pieces: []string{"abc.def", "。好"}, Structure: analyzer.Structure{Paragraphs: 3, Length: 12, Sentences: 40}, Terms: manyTerms(100), Blocks: blocks("a", "b"), MinHash: []uint64{0, 1<<64 - 1, 42}, Runes: 1234, Numbers: []string{"1998", "3.5"}},
		{Terms: manyTerms(100), Left: manyTerms(3)},
		{Terms: manyTerms(10), Left: manyTerms(100)},
		{Terms: map[string]int{"a": 1}, Left: map[string]int{"a": 2, "b": 1}},
	}
	lines := strings.Fields(string(b))
	if len(lines) != len(features) {
		t.Fatalf("%d signatures in testdata, want %d", len(lines), len(features))
	}
	for i, line := range lines {
		enc, err := hex.DecodeString(line)
		if err != nil || enc[0] != signatureV4 {
			t.Fatalf("%d: not a version 4 signature: %v", i, err)
		}
		want := newSignature(features[i], 16)
		want.names, want.pieces32 = nil, nil
		id, got, err := Decode(enc)
		if err != nil || id != "doc" || !sameSignature(got, want) {
			t.Errorf("%d: got %q %+v, %v; want %q %+v", i, id, got, err, "doc", want)
		}
		if now := want.Encode("doc"); len(now) >= len(enc) && want.terms.bins != nil {
			t.Errorf("%d: version 5 takes %d bytes, version 4 %d", i, len(now), len(enc))
		}
	}
}

// withFlags is sig encoded with flags in place of its own flag byte,
// followed by the counts of an empty whole text.
func withFlags(sig Signature, flags byte) []byte {
	b := sig.Encode("x")
	b[len(b)-1] = flags
	return append(b, 0, 0)
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
	f.Add(newSignature(&analyzer.Features{Terms: manyTerms(40), Left: otherTerms(5)}, 8).Encode("d"))
	f.Add(signatureOf(signatureV4, 0, 0, 1, 0x81, 0x80, 0x04, 1, 0, 0, 0, 0))
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
