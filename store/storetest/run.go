package storetest

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Run checks the store open returns (a new, empty one for each call)
// against the contract of store.Backend and store.Txn.
func Run(t *testing.T, open func(t *testing.T) store.Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Backend)
	}{
		{"Records", testRecords},
		{"Signatures", testSignatures},
		{"Payloads", testPayloads},
		{"Postings", testPostings},
		{"Clusters", testClusters},
		{"Counters", testCounters},
		{"Pending", testPending},
		{"Local", testLocal},
		{"Discard", testDiscard},
		{"EmptyAndStats", testEmptyAndStats},
		{"Exclusive", testExclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

// mutate runs fn in a mutation of b and commits it.
func mutate(t *testing.T, b store.Backend, fn func(store.Txn) error) {
	t.Helper()
	tx := b.Begin()
	defer tx.Discard()
	if err := fn(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// read runs fn in a read of b.
func read(t *testing.T, b store.Backend, fn func(store.Txn) error) {
	t.Helper()
	if err := b.Read(fn); err != nil {
		t.Fatal(err)
	}
}

func testRecords(t *testing.T, b store.Backend) {
	want := &store.Record{Seq: 3, Time: time.Unix(1700000000, 0).UTC(), Runes: 42, Cluster: store.ClusterID(1),
		Indexed: true, URL: "https://example.com/a", Title: "标题", Hash: 99,
		Keys: [][]byte{store.PostingKey('b', 1), store.PostingKey('f', 2)}}
	mutate(t, b, func(tx store.Txn) error {
		if err := tx.PutRecord("a/1", want); err != nil {
			return err
		}
		// The mutation reads its own write.
		got, err := tx.Record("a/1", true)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Record in its mutation = %+v, %v; want %+v", got, err, want)
		}
		return nil
	})
	read(t, b, func(tx store.Txn) error {
		got, err := tx.Record("a/1", true)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Record = %+v, %v; want %+v", got, err, want)
		}
		head, err := tx.Record("a/1", false)
		if err != nil || head.Keys != nil || head.Cluster != want.Cluster || head.Seq != want.Seq {
			t.Errorf("Record without keys = %+v, %v; want the head of %+v", head, err, want)
		}
		if _, err := tx.Record("absent", false); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Record(absent): err = %v, want ErrNotFound", err)
		}
		return nil
	})
	mutate(t, b, func(tx store.Txn) error { return tx.DeleteRecord("a/1") })
	read(t, b, func(tx store.Txn) error {
		if _, err := tx.Record("a/1", false); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Record after DeleteRecord: err = %v, want ErrNotFound", err)
		}
		return nil
	})
}

func testSignatures(t *testing.T, b store.Backend) {
	sig := []byte{2, 1, 'x', 0, 0, 0}
	mutate(t, b, func(tx store.Txn) error { return tx.PutSignature(1<<40, sig) })
	read(t, b, func(tx store.Txn) error {
		if got, err := tx.Signature(1 << 40); err != nil || !slices.Equal(got, sig) {
			t.Errorf("Signature = %v, %v; want %v", got, err, sig)
		}
		if _, err := tx.Signature(5); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Signature(absent): err = %v, want ErrNotFound", err)
		}
		return nil
	})
	mutate(t, b, func(tx store.Txn) error { return tx.DeleteSignature(1 << 40) })
	read(t, b, func(tx store.Txn) error {
		if _, err := tx.Signature(1 << 40); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Signature after delete: err = %v, want ErrNotFound", err)
		}
		return nil
	})
}

func testPayloads(t *testing.T, b store.Backend) {
	text := []byte(`{"text":"the same words, the same words, the same words"}`)
	mutate(t, b, func(tx store.Txn) error {
		return errors.Join(tx.PutPayload("p", text), tx.PutPayload("empty", nil))
	})
	read(t, b, func(tx store.Txn) error {
		if got, err := tx.Payload("p"); err != nil || !slices.Equal(got, text) {
			t.Errorf("Payload = %q, %v; want %q", got, err, text)
		}
		if got, err := tx.Payload("empty"); err != nil || len(got) != 0 {
			t.Errorf("empty Payload = %q, %v; want empty", got, err)
		}
		if ok, err := tx.HasPayload("p"); !ok || err != nil {
			t.Errorf("HasPayload(p) = %v, %v; want true", ok, err)
		}
		if ok, err := tx.HasPayload("absent"); ok || err != nil {
			t.Errorf("HasPayload(absent) = %v, %v; want false", ok, err)
		}
		return nil
	})
	mutate(t, b, func(tx store.Txn) error { return tx.DeletePayload("p") })
	read(t, b, func(tx store.Txn) error {
		if ok, err := tx.HasPayload("p"); ok || err != nil {
			t.Errorf("HasPayload after delete = %v, %v; want false", ok, err)
		}
		return nil
	})
}

func testPostings(t *testing.T, b store.Backend) {
	k1, k2, k3 := store.PostingKey('b', 1), store.PostingKey('k', 2), store.PostingKey('f', 3)
	mutate(t, b, func(tx store.Txn) error {
		return errors.Join(
			tx.PutPostings(k1, store.PostingList{Seqs: []uint64{4, 9}}, []uint64{4, 9}, nil),
			tx.PutPostings(k2, store.PostingList{Seqs: []uint64{9}}, []uint64{9}, nil))
	})
	mutate(t, b, func(tx store.Txn) error {
		return errors.Join(
			tx.PutPostings(k1, store.PostingList{Seqs: []uint64{9, 12}}, []uint64{12}, []uint64{4}),
			tx.PutPostings(k2, store.PostingList{Full: true}, nil, nil))
	})
	read(t, b, func(tx store.Txn) error {
		got, err := tx.Postings([][]byte{k3, k1, k2})
		want := []store.PostingList{{}, {Seqs: []uint64{9, 12}}, {Full: true}}
		if err != nil || len(got) != 3 || got[0].Full || len(got[0].Seqs) != 0 ||
			!slices.Equal(got[1].Seqs, want[1].Seqs) || got[1].Full || !got[2].Full {
			t.Errorf("Postings = %+v, %v; want %+v", got, err, want)
		}
		return nil
	})
	// A list emptied is gone.
	mutate(t, b, func(tx store.Txn) error {
		return tx.PutPostings(k1, store.PostingList{}, nil, []uint64{9, 12})
	})
	read(t, b, func(tx store.Txn) error {
		if got, err := tx.Postings([][]byte{k1}); err != nil || len(got[0].Seqs) != 0 || got[0].Full {
			t.Errorf("emptied list = %+v, %v; want empty", got, err)
		}
		return nil
	})
}

func testClusters(t *testing.T, b store.Backend) {
	c1, c2, c3 := store.ClusterID(1), store.ClusterID(2), store.ClusterID(300)
	mutate(t, b, func(tx store.Txn) error {
		return errors.Join(
			tx.SetRepresentative(c2, "x"), tx.AddMember(c2, "x"), tx.AddMember(c2, "b"), tx.AddMember(c2, "a/1"),
			tx.SetRepresentative(c1, "y"), tx.AddMember(c1, "y"),
			tx.SetRepresentative(c3, "z"), tx.AddMember(c3, "z"))
	})
	mutate(t, b, func(tx store.Txn) error {
		return errors.Join(tx.RemoveMember(c2, "b"), tx.SetRepresentative(c2, "a/1"), tx.DeleteCluster(c1), tx.RemoveMember(c1, "y"))
	})
	read(t, b, func(tx store.Txn) error {
		if rep, err := tx.Representative(c2); err != nil || rep != "a/1" {
			t.Errorf("Representative = %q, %v; want a/1", rep, err)
		}
		if _, err := tx.Representative(c1); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Representative of a deleted cluster: err = %v, want ErrNotFound", err)
		}
		if ms, err := tx.Members(c2); err != nil || !slices.Equal(ms, []string{"a/1", "x"}) {
			t.Errorf("Members = %v, %v; want [a/1 x] (in id order)", ms, err)
		}
		if ms, err := tx.Members(c1); err != nil || len(ms) != 0 {
			t.Errorf("Members of a deleted cluster = %v, %v; want none", ms, err)
		}
		var ids []string
		if err := tx.Clusters("", func(id string) error { ids = append(ids, id); return nil }); err != nil {
			return err
		}
		if !slices.Equal(ids, []string{c2, c3}) {
			t.Errorf("Clusters = %v, want [%s %s] (creation order)", ids, c2, c3)
		}
		ids = nil
		if err := tx.Clusters(c2, func(id string) error { ids = append(ids, id); return nil }); err != nil {
			return err
		}
		if !slices.Equal(ids, []string{c3}) {
			t.Errorf("Clusters after %s = %v, want [%s]", c2, ids, c3)
		}
		return nil
	})
}

func testCounters(t *testing.T, b store.Backend) {
	var seqs, clusters []uint64
	for range 3 {
		mutate(t, b, func(tx store.Txn) error {
			s, err := tx.NextSeq()
			c, cerr := tx.NextCluster()
			seqs, clusters = append(seqs, s), append(clusters, c)
			return errors.Join(err, cerr)
		})
	}
	for _, ns := range [][]uint64{seqs, clusters} {
		if ns[0] == 0 || !slices.IsSorted(ns) || slices.Compact(slices.Clone(ns))[2] != ns[2] {
			t.Errorf("counter values %v: want positive and increasing", ns)
		}
	}
}

func testPending(t *testing.T, b store.Backend) {
	for _, seq := range []uint64{9, 3, 5} {
		mutate(t, b, func(tx store.Txn) error { return tx.SetPending(seq, []byte{byte(seq)}) })
	}
	pending := func() []uint64 {
		var got []uint64
		err := b.Pending(func(seq uint64, ops []byte) error {
			if len(ops) != 1 || uint64(ops[0]) != seq {
				t.Errorf("pending %d: ops %v, want [%d]", seq, ops, seq)
			}
			got = append(got, seq)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := pending(); !slices.Equal(got, []uint64{3, 5, 9}) {
		t.Errorf("Pending = %v, want [3 5 9] (in seq order)", got)
	}
	if st, err := b.Stats(); err != nil || st.Pending != 3 {
		t.Errorf("Stats.Pending = %d, %v; want 3", st.Pending, err)
	}
	if err := b.ClearPending([]uint64{3, 9}); err != nil {
		t.Fatal(err)
	}
	if got := pending(); !slices.Equal(got, []uint64{5}) {
		t.Errorf("Pending after ClearPending = %v, want [5]", got)
	}
}

func testLocal(t *testing.T, b store.Backend) {
	site := []byte(store.NSSite + "example.com/1")
	url := []byte(store.NSURL + "https://example.com/")
	mutate(t, b, func(tx store.Txn) error {
		kv := tx.Local()
		if err := kv.Set([]byte(store.NSDoc+"x"), []byte("forged")); !errors.Is(err, store.ErrNamespace) {
			t.Errorf("KV Set of the store's own key: err = %v, want ErrNamespace", err)
		}
		if err := kv.Delete([]byte(store.KeySeq)); !errors.Is(err, store.ErrNamespace) {
			t.Errorf("KV Delete of the store's own key: err = %v, want ErrNamespace", err)
		}
		return errors.Join(kv.Set(site, []byte("s")), kv.Set(url, []byte("id")))
	})
	read(t, b, func(tx store.Txn) error {
		kv := tx.Local()
		if v, err := kv.Get(url); err != nil || string(v) != "id" {
			t.Errorf("KV Get = %q, %v; want id", v, err)
		}
		if _, err := kv.Get([]byte(store.NSURL + "absent")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("KV Get(absent): err = %v, want ErrNotFound", err)
		}
		var keys []string
		err := kv.Scan([]byte(store.NSSite), func(k, v []byte) error { keys = append(keys, string(k)); return nil })
		if err != nil || !slices.Equal(keys, []string{string(site)}) {
			t.Errorf("KV Scan = %v, %v; want [%s]", keys, err, site)
		}
		return nil
	})
}

func testDiscard(t *testing.T, b store.Backend) {
	tx := b.Begin()
	err := errors.Join(tx.PutRecord("gone", &store.Record{Seq: 1}), tx.PutPayload("gone", []byte("x")),
		tx.SetRepresentative(store.ClusterID(7), "gone"), tx.Local().Set([]byte(store.NSURL+"gone"), []byte("gone")))
	if err != nil {
		t.Fatal(err)
	}
	tx.Discard()
	read(t, b, func(tx store.Txn) error {
		_, rerr := tx.Record("gone", false)
		has, _ := tx.HasPayload("gone")
		_, cerr := tx.Representative(store.ClusterID(7))
		_, kerr := tx.Local().Get([]byte(store.NSURL + "gone"))
		if !errors.Is(rerr, store.ErrNotFound) || has || !errors.Is(cerr, store.ErrNotFound) || !errors.Is(kerr, store.ErrNotFound) {
			t.Errorf("after Discard: record %v, payload %v, cluster %v, local key %v; want nothing written", rerr, has, cerr, kerr)
		}
		return nil
	})
}

func testEmptyAndStats(t *testing.T, b store.Backend) {
	if !b.Empty() {
		t.Error("a new store: Empty = false")
	}
	c := store.ClusterID(1)
	mutate(t, b, func(tx store.Txn) error {
		return errors.Join(tx.PutRecord("a", &store.Record{Seq: 1, Cluster: c}), tx.PutRecord("b", &store.Record{Seq: 2, Cluster: c}),
			tx.SetRepresentative(c, "a"), tx.AddMember(c, "a"), tx.AddMember(c, "b"),
			tx.PutPostings(store.PostingKey('b', 1), store.PostingList{Seqs: []uint64{1, 2}}, []uint64{1, 2}, nil))
	})
	if b.Empty() {
		t.Error("after a commit: Empty = true")
	}
	st, err := b.Stats()
	if err != nil || st.Docs != 2 || st.Clusters != 1 || st.Lists != 1 {
		t.Errorf("Stats = %+v, %v; want 2 docs, 1 cluster, 1 list", st, err)
	}
}

func testExclusive(t *testing.T, b store.Backend) {
	want := errors.New("from fn")
	ran := false
	if err := b.Exclusive(func() error { ran = true; return want }); !errors.Is(err, want) || !ran {
		t.Errorf("Exclusive = %v (ran %v), want fn's error", err, ran)
	}
	// Mutations inside see each other's commits.
	err := b.Exclusive(func() error {
		mutate(t, b, func(tx store.Txn) error { return tx.PutRecord("e", &store.Record{Seq: 1}) })
		tx := b.Begin()
		defer tx.Discard()
		_, err := tx.Record("e", false)
		return err
	})
	if err != nil {
		t.Errorf("a mutation inside Exclusive did not see the one before: %v", err)
	}
}
