package codec

import (
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// encodePostings encodes an open posting list of ascending numbers (the
// stores write full lists only; the decoder reads both).
func encodePostings(seqs []uint64) []byte {
	b := make([]byte, 0, 1+4*len(seqs))
	b = append(b, postingsOpen)
	prev := uint64(0)
	for _, s := range seqs {
		b = binary.AppendUvarint(b, s-prev)
		prev = s
	}
	return b
}

func TestPostingsRoundTrip(t *testing.T) {
	for _, seqs := range [][]uint64{nil, {1}, {3, 4, 900, 1 << 40}} {
		got, err := DecodePostings(nil, encodePostings(seqs))
		if err != nil || got.Full || !slices.Equal(got.Seqs, seqs) {
			t.Errorf("%v: got %+v, %v; want the same numbers, open", seqs, got, err)
		}
	}
	if got, err := DecodePostings(nil, FullPostings()); err != nil || !got.Full || got.Seqs != nil {
		t.Errorf("full list: got %+v, %v; want full", got, err)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	want := &store.Record{Seq: 9, Time: time.Unix(1700000000, 5).UTC(), Runes: 77, Cluster: "000000000000000a",
		Indexed: true, URL: "https://x/", Title: "标题", Hash: 1<<63 | 5, Keys: [][]byte{[]byte("p/b12345678id"), {}}}
	for _, derived := range []bool{false, true} {
		b := EncodeRecord(want, derived)
		if KeysDerived(b) != derived {
			t.Errorf("KeysDerived of a record encoded with derived %v: %v", derived, !derived)
		}
		got, err := DecodeRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("derived %v: got %+v, want %+v", derived, got, want)
		}
		head, err := DecodeRecordHead(b)
		if err != nil {
			t.Fatal(err)
		}
		wantHead := *want
		wantHead.Keys = nil
		if !reflect.DeepEqual(head, &wantHead) {
			t.Errorf("derived %v: head: got %+v, want %+v", derived, head, &wantHead)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	tests := []struct {
		name   string
		decode func([]byte) error
		b      []byte
	}{
		{"record empty", decodeRec, nil},
		{"record version", decodeRec, []byte{9, 1}},
		{"record truncated", decodeRec, EncodeRecord(&store.Record{Title: "x"}, false)[:5]},
		{"record trailing", decodeRec, append(EncodeRecord(&store.Record{}, true), 0)},
		{"postings empty", decodeLists, nil},
		{"postings version", decodeLists, []byte{7, 1}},
		{"postings repeated", decodeLists, []byte{postingsOpen, 3, 0}},
		{"postings full with data", decodeLists, []byte{postingsFull, 1}},
		{"postings truncated", decodeLists, []byte{postingsOpen, 0x80}},
	}
	for _, tt := range tests {
		if err := tt.decode(tt.b); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tt.name, err)
		}
	}
}

func decodeRec(b []byte) error   { _, err := DecodeRecord(b); return err }
func decodeLists(b []byte) error { _, err := DecodePostings(nil, b); return err }

func TestForeignKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"t/site", true}, {"t!stale/id", true}, {"u/https://x/", true},
		{"t/", false}, {"d/id", false}, {"y/id", false}, {"!/seq", false}, {"", false}, {"x/y", false},
	}
	for _, tt := range tests {
		if got := ForeignKey([]byte(tt.key)); got != tt.want {
			t.Errorf("ForeignKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func FuzzDecodePostings(f *testing.F) {
	f.Add(encodePostings([]uint64{1, 5, 1 << 33}))
	f.Add(FullPostings())
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodePostings(nil, b)
		if err != nil || l.Full {
			return
		}
		if !slices.IsSorted(l.Seqs) {
			t.Fatalf("decoded %v, not ascending", l.Seqs)
		}
		if again, err := DecodePostings(nil, encodePostings(l.Seqs)); err != nil || !slices.Equal(again.Seqs, l.Seqs) {
			t.Errorf("re-encoding %v: got %v, %v", l.Seqs, again.Seqs, err)
		}
	})
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(EncodeRecord(&store.Record{Seq: 1, Cluster: "c", Keys: [][]byte{[]byte("k")}}, false))
	f.Add(EncodeRecord(&store.Record{Seq: 2, Cluster: "c"}, true))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := DecodeRecord(b)
		if err != nil {
			return
		}
		if _, err := DecodeRecord(EncodeRecord(rec, KeysDerived(b))); err != nil {
			t.Errorf("re-encoding %+v: %v", rec, err)
		}
	})
}
