package embedded_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// TestStatsParts: Stats adds up what the store holds by kind, largest
// first, the posting table among them.
func TestStatsParts(t *testing.T) {
	s := storetest.Embedded(t)
	c := store.ClusterID(1)
	payload := bytes.Repeat([]byte("text "), 400) // compressed when stored
	tx := s.Begin()
	err := errors.Join(tx.PutRecord("a", &store.Record{Seq: 1, Cluster: c}), tx.PutRecord("b", &store.Record{Seq: 2, Cluster: c}),
		tx.PutSignature(1, make([]byte, 600)), tx.PutSignature(2, make([]byte, 600)),
		tx.PutPayload("a", payload), tx.PutPayload("b", payload),
		tx.SetRepresentative(c, "a"), tx.AddMember(c, "a"), tx.AddMember(c, "b"),
		tx.PutPostings(store.PostingKey('b', 1), store.PostingList{Seqs: []uint64{1, 2}}, []uint64{1, 2}, nil))
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Part{}
	for _, p := range st.Parts {
		got[p.Name] = p
	}
	for _, tt := range []struct {
		name     string
		keys     int
		min, max int64 // bytes
	}{
		{store.PartRecords, 2, 2 * 4, 2 * 64},
		{store.PartSignatures, 2, 2 * 600, 2 * 620},
		{store.PartPayloads, 2, 2 * 4, 2 * 200}, // 2,000 bytes each before S2
		{store.PartMembers, 2, 2 * 4, 2 * 64},
		{store.PartPostingTable, 1, 8, 1 << 30},
	} {
		p := got[tt.name]
		if p.Keys != tt.keys || p.Bytes < tt.min || p.Bytes > tt.max {
			t.Errorf("part %q = %d keys, %d bytes; want %d keys, %d to %d bytes", tt.name, p.Keys, p.Bytes, tt.keys, tt.min, tt.max)
		}
	}
	if !slices.IsSortedFunc(st.Parts, func(a, b store.Part) int { return int(b.Bytes - a.Bytes) }) {
		t.Errorf("parts %+v: want the largest first", st.Parts)
	}
	if st.Docs != 2 || st.Clusters != 1 || st.Lists != 1 {
		t.Errorf("Stats = %d docs, %d clusters, %d lists; want 2, 1, 1", st.Docs, st.Clusters, st.Lists)
	}
}
