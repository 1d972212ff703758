package dedupfilter

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

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
	}
	for i, f := range tests {
		want := newSignature(f)
		want.names = nil // not stored
		if i == 2 {
			want.url = 1<<63 | 9
		}
		id, got, err := decodeSignature(encodeSignature("doc", want))
		if err != nil {
			t.Fatalf("%d: decode: %v", i, err)
		}
		if id != "doc" || !sameSignature(got, want) {
			t.Errorf("%d: got %q %+v, want %q %+v", i, id, got, "doc", want)
		}
	}
}

// sameSignature compares signatures, nil and empty slices alike.
func sameSignature(a, b signature) bool {
	return slices.Equal(a.pieces, b.pieces) && a.structure == b.structure && slices.Equal(a.terms, b.terms) &&
		slices.Equal(a.blocks, b.blocks) && slices.Equal(a.minhash, b.minhash) && a.runes == b.runes &&
		slices.Equal(a.chars, b.chars) && slices.Equal(a.tags, b.tags) && a.url == b.url
}

func TestPostingsRoundTrip(t *testing.T) {
	for _, seqs := range [][]uint64{nil, {1}, {3, 4, 900, 1 << 40}} {
		got, full, err := decodePostings(nil, encodePostings(seqs))
		if err != nil || full || !slices.Equal(got, seqs) {
			t.Errorf("%v: got %v, full %v, %v", seqs, got, full, err)
		}
	}
	if got, full, err := decodePostings(nil, []byte{postingsFull}); err != nil || !full || got != nil {
		t.Errorf("full list: got %v, full %v, %v", got, full, err)
	}
}

func TestPendingRoundTrip(t *testing.T) {
	want := []Op{{Kind: OpIndex, ID: "a", Cluster: "c", Seq: 7}, {Kind: OpDelete, ID: "b", Seq: 7}}
	got, err := decodePending(7, encodePending(want))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	want := &record{Seq: 9, Time: time.Unix(1700000000, 5).UTC(), Runes: 77, Cluster: "000000000000000a",
		Indexed: true, URL: "https://x/", Title: "标题", Hash: 1<<63 | 5, Keys: [][]byte{[]byte("p/b12345678id"), {}}}
	got, err := decodeRecord(encodeRecord(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	good := encodeSignature("x", newSignature(&analyzer.Features{Pieces: []string{"abc"}, MinHash: []uint64{1}}))
	tests := []struct {
		name   string
		decode func([]byte) error
		b      []byte
	}{
		{"signature empty", decodeSig, nil},
		{"signature version", decodeSig, append([]byte{99}, good[1:]...)},
		{"signature truncated", decodeSig, good[:len(good)-3]},
		{"signature trailing", decodeSig, append(append([]byte{}, good...), 0)},
		{"signature huge count", decodeSig, []byte{signatureV2, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"signature term order", decodeSig, encodeSignature("x", signature{terms: []termFreq{{2, 1}, {1, 1}}})},
		{"pending bad kind", func(b []byte) error { _, err := decodePending(1, b); return err }, []byte{pendingV3, 1, 9, 0, 0}},
		{"postings empty", decodeLists, nil},
		{"postings version", decodeLists, []byte{7, 1}},
		{"postings repeated", decodeLists, []byte{postingsOpen, 3, 0}},
		{"postings full with data", decodeLists, []byte{postingsFull, 1}},
		{"postings truncated", decodeLists, []byte{postingsOpen, 0x80}},
	}
	for _, tt := range tests {
		if err := tt.decode(tt.b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tt.name, err)
		}
	}
}

func decodeSig(b []byte) error   { _, _, err := decodeSignature(b); return err }
func decodeLists(b []byte) error { _, _, err := decodePostings(nil, b); return err }

func FuzzDecodeSignature(f *testing.F) {
	f.Add(encodeSignature("id", newSignature(&analyzer.Features{Pieces: []string{"ab"}, Terms: map[string]int{"x": 2}, Blocks: blocks("q"), MinHash: []uint64{3}, Runes: 5})))
	f.Add([]byte{signatureV2})
	v3 := newSignature(&analyzer.Features{Pieces: []string{"ab"}, CharFreq: []analyzer.CharCount{{Index: 3, Count: 2}, {Index: 9, Count: 1}}, Tags: []byte{1, 2, 2}})
	v3.url = 77
	f.Add(encodeSignature("id", v3))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, sig, err := decodeSignature(b)
		if err != nil {
			return
		}
		id2, again, err := decodeSignature(encodeSignature(id, sig))
		if err != nil || id2 != id || !sameSignature(again, sig) {
			t.Errorf("re-encoding %q %+v: got %q %+v, %v", id, sig, id2, again, err)
		}
	})
}

func FuzzDecodePostings(f *testing.F) {
	f.Add(encodePostings([]uint64{1, 5, 1 << 33}))
	f.Add([]byte{postingsFull})
	f.Fuzz(func(t *testing.T, b []byte) {
		seqs, full, err := decodePostings(nil, b)
		if err != nil || full {
			return
		}
		if !slices.IsSorted(seqs) {
			t.Fatalf("decoded %v, not ascending", seqs)
		}
		if again, _, err := decodePostings(nil, encodePostings(seqs)); err != nil || !slices.Equal(again, seqs) {
			t.Errorf("re-encoding %v: got %v, %v", seqs, again, err)
		}
	})
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(&record{Seq: 1, Cluster: "c", Keys: [][]byte{[]byte("k")}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := decodeRecord(b)
		if err != nil {
			return
		}
		if _, err := decodeRecord(encodeRecord(rec)); err != nil {
			t.Errorf("re-encoding %+v: %v", rec, err)
		}
	})
}

func FuzzDecodePending(f *testing.F) {
	f.Add(encodePending([]Op{{Kind: OpIndex, ID: "a", Cluster: "c"}, {Kind: OpDelete, ID: "b"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := decodePending(300, b)
		if err != nil {
			return
		}
		if again, err := decodePending(300, encodePending(ops)); err != nil || !reflect.DeepEqual(again, ops) {
			t.Errorf("re-encoding %+v: got %+v, %v", ops, again, err)
		}
	})
}
