package dedupfilter

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

func TestFeaturesRoundTrip(t *testing.T) {
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
	}
	for i, f := range tests {
		got, err := decodeFeatures(encodeFeatures(f))
		if err != nil {
			t.Fatalf("%d: decode: %v", i, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("%d: got %+v, want %+v", i, got, f)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	want := &record{Seq: 9, Time: time.Unix(1700000000, 5).UTC(), Runes: 77, Cluster: "000000000000000a",
		Indexed: true, URL: "https://x/", Title: "标题", Keys: [][]byte{[]byte("p/b12345678id"), {}}}
	got, err := decodeRecord(encodeRecord(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	good := encodeFeatures(&analyzer.Features{Pieces: []string{"abc"}, MinHash: []uint64{1}})
	tests := map[string][]byte{
		"empty":       nil,
		"version":     append([]byte{99}, good[1:]...),
		"truncated":   good[:len(good)-3],
		"trailing":    append(append([]byte{}, good...), 0),
		"huge count":  {featuresV1, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"op bad kind": {opV2, 9, 0, 0, 0},
	}
	for name, b := range tests {
		_, err := decodeFeatures(b)
		if name == "op bad kind" {
			_, err = decodeOp(b)
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzDecodeFeatures(f *testing.F) {
	f.Add(encodeFeatures(&analyzer.Features{Pieces: []string{"ab"}, Terms: map[string]int{"x": 2}, Blocks: blocks("q"), MinHash: []uint64{3}, Runes: 5}))
	f.Add([]byte{featuresV1})
	f.Fuzz(func(t *testing.T, b []byte) {
		feat, err := decodeFeatures(b)
		if err != nil {
			return
		}
		again, err := decodeFeatures(encodeFeatures(feat))
		if err != nil || !reflect.DeepEqual(again, feat) {
			t.Errorf("re-encoding %+v: got %+v, %v", feat, again, err)
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

func FuzzDecodeOp(f *testing.F) {
	f.Add(encodeOp(Op{Kind: OpIndex, ID: "a", Cluster: "c", Payload: []byte("p"), Seq: 300}))
	f.Fuzz(func(t *testing.T, b []byte) {
		op, err := decodeOp(b)
		if err != nil {
			return
		}
		if again, err := decodeOp(encodeOp(op)); err != nil || !reflect.DeepEqual(again, op) {
			t.Errorf("re-encoding %+v: got %+v, %v", op, again, err)
		}
	})
}
