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
		{"JoinLeave", testJoinLeave},
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
	if _, ok := open(t).(store.Sequencer); ok {
		t.Run("Sequencer", func(t *testing.T) { testSequencer(t, open(t)) })
	}
}

// testSequencer posts three batches, numbers two of them out of their
// posting order, and reads the lists with their ranks.
func testSequencer(t *testing.T, b store.Backend) {
	sq := b.(store.Sequencer)
	k1, k2 := store.PostingKey('b', 1), store.PostingKey('f', 2)
	post := func(n int, keys ...[]byte) uint64 {
		sigs, ks := make([][]byte, n), make([][][]byte, n)
		for i := range sigs {
			sigs[i], ks[i] = []byte{1, byte('a' + i)}, keys
		}
		first, err := sq.Post(sigs, ks, 3)
		if err != nil {
			t.Fatalf("Post: %v", err)
		}
		return first
	}
	p1, p2, p3 := post(2, k1), post(1, k1, k2), post(3, k2)
	if p2 != p1+2 || p3 != p2+1 {
		t.Fatalf("batches posted from %d, %d, %d: want consecutive numbers", p1, p2, p3)
	}
	r2, err := sq.Number(p2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := sq.Number(p1, 2)
	if err != nil || r1 != r2+1 {
		t.Fatalf("Number = %d, %v after %d: want the next rank", r1, err, r2)
	}
	got, err := sq.RankedPostings([][]byte{k1, k2, store.PostingKey('k', 3)})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.RankedList{
		{Seqs: []uint64{p1, p1 + 1, p2}, Ranks: []uint64{r1, r1 + 1, r2}},
		// The third batch is not numbered: rank 0. Four postings: full.
		{Full: true},
		{},
	}
	if len(got) != 3 || !slices.Equal(got[0].Seqs, want[0].Seqs) || !slices.Equal(got[0].Ranks, want[0].Ranks) || got[0].Full ||
		!got[1].Full || len(got[2].Seqs) != 0 || got[2].Full {
		t.Errorf("RankedPostings = %+v, want %+v", got, want)
	}
	if err := sq.Withdraw([]uint64{p3, p3 + 1, p3 + 2}); err != nil {
		t.Fatal(err)
	}
	read(t, b, func(tx store.Txn) error {
		if _, err := tx.Signature(p3); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Signature of a withdrawn page: %v, want ErrNotFound", err)
		}
		if sig, err := tx.Signature(p2); err != nil || !slices.Equal(sig, []byte{1, 'a'}) {
			t.Errorf("Signature of a posted page = %v, %v; want [1 97]", sig, err)
		}
		return nil
	})
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
		if err != nil || !sameRecord(got, want) {
			t.Errorf("Record in its mutation = %+v, %v; want %+v", got, err, want)
		}
		return nil
	})
	read(t, b, func(tx store.Txn) error {
		got, err := tx.Record("a/1", true)
		if err != nil || !sameRecord(got, want) {
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

// sameRecord compares records; a store that keeps no posting keys (they
// are derived from the signature) returns none.
func sameRecord(got, want *store.Record) bool {
	if got != nil && got.Keys == nil {
		w := *want
		w.Keys = nil
		want = &w
	}
	return reflect.DeepEqual(got, want)
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

// testJoinLeave runs Join and Leave under each rule: three documents join
// a cluster its first one founded (earliest a, newest b, longest c), then
// the representative leaves, then the others.
func testJoinLeave(t *testing.T, b store.Backend) {
	t0 := time.Unix(1700000000, 0).UTC()
	tests := []struct {
		name       string
		rule       store.Rule
		joinB      store.JoinResult
		joinC      store.JoinResult
		leave      store.LeaveResult // of the representative after the joins
		indexedNow []string          // after it left, in id order
	}{
		{"suppress", store.Rule{}, store.JoinResult{Representative: "a"}, store.JoinResult{Representative: "a"},
			store.LeaveResult{Representative: "b", Promoted: "b"}, []string{"b"}},
		{"mark", store.Rule{Mark: true}, store.JoinResult{Representative: "a", Indexed: true}, store.JoinResult{Representative: "a", Indexed: true},
			store.LeaveResult{Representative: "b"}, []string{"b", "c"}},
		{"replace by the newer", store.Rule{Replace: true}, store.JoinResult{Representative: "b", Indexed: true, Demoted: "a"}, store.JoinResult{Representative: "b"},
			store.LeaveResult{Representative: "c", Promoted: "c"}, []string{"c"}},
		{"replace by the longer", store.Rule{Replace: true, Longer: true}, store.JoinResult{Representative: "a"}, store.JoinResult{Representative: "c", Indexed: true, Demoted: "a"},
			store.LeaveResult{Representative: "a", Promoted: "a"}, []string{"a"}},
		{"take", store.Rule{Take: true}, store.JoinResult{Representative: "b", Indexed: true, Demoted: "a"}, store.JoinResult{Representative: "c", Indexed: true, Demoted: "b"},
			store.LeaveResult{Representative: "a", Promoted: "a"}, []string{"a"}},
		{"take under mark", store.Rule{Take: true, Mark: true}, store.JoinResult{Representative: "b", Indexed: true}, store.JoinResult{Representative: "c", Indexed: true},
			store.LeaveResult{Representative: "a"}, []string{"a", "b"}},
	}
	for i, tt := range tests {
		c := store.ClusterID(uint64(100 + i))
		id := func(x string) string { return tt.name + "/" + x }
		ms := map[string]store.Member{
			"a": {ID: id("a"), Seq: 5, Time: t0, Runes: 10},
			"b": {ID: id("b"), Seq: 7, Time: t0.Add(time.Hour), Runes: 5},
			"c": {ID: id("c"), Seq: 9, Time: t0, Runes: 50},
		}
		named := func(r string) string {
			if r == "" {
				return ""
			}
			return id(r)
		}
		join := func(x string, founder *store.Member) store.JoinResult {
			var res store.JoinResult
			mutate(t, b, func(tx store.Txn) error {
				m := ms[x]
				var err error
				if res, err = tx.Join(c, m, founder, tt.rule); err != nil {
					return err
				}
				return tx.PutRecord(m.ID, &store.Record{Seq: m.Seq, Time: m.Time, Runes: m.Runes, Cluster: c, Indexed: res.Indexed})
			})
			return res
		}
		founder := ms["a"]
		if got := join("a", nil); got != (store.JoinResult{Representative: id("a"), Indexed: true}) {
			t.Errorf("%s: a founds the cluster: %+v", tt.name, got)
		}
		for _, step := range []struct {
			x    string
			want store.JoinResult
		}{{"b", tt.joinB}, {"c", tt.joinC}} {
			want := store.JoinResult{Representative: named(step.want.Representative), Indexed: step.want.Indexed, Demoted: named(step.want.Demoted)}
			if got := join(step.x, &founder); got != want {
				t.Errorf("%s: %s joins: %+v, want %+v", tt.name, step.x, got, want)
			}
		}
		var rep string
		read(t, b, func(tx store.Txn) error {
			var err error
			rep, err = tx.Representative(c)
			return err
		})
		var left store.LeaveResult
		mutate(t, b, func(tx store.Txn) error {
			var err error
			if left, err = tx.Leave(c, rep, tt.rule); err != nil {
				return err
			}
			return tx.DeleteRecord(rep)
		})
		if want := (store.LeaveResult{Representative: named(tt.leave.Representative), Promoted: named(tt.leave.Promoted)}); left != want {
			t.Errorf("%s: the representative leaves: %+v, want %+v", tt.name, left, want)
		}
		read(t, b, func(tx store.Txn) error {
			ms, err := tx.Members(c)
			if err != nil {
				return err
			}
			var indexed []string
			for _, m := range ms {
				rec, err := tx.Record(m, false)
				if err != nil {
					return err
				}
				if rec.Indexed {
					indexed = append(indexed, m)
				}
			}
			want := make([]string, len(tt.indexedNow))
			for i, x := range tt.indexedNow {
				want[i] = id(x)
			}
			if !slices.Equal(indexed, want) {
				t.Errorf("%s: indexed after the representative left: %v, want %v", tt.name, indexed, want)
			}
			return nil
		})
		for _, x := range []string{"a", "b", "c"} {
			if x == rep[len(rep)-1:] {
				continue
			}
			mutate(t, b, func(tx store.Txn) error {
				_, err := tx.Leave(c, id(x), tt.rule)
				return err
			})
		}
		read(t, b, func(tx store.Txn) error {
			if r, err := tx.Representative(c); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: every member left, Representative = %q, %v; want ErrNotFound", tt.name, r, err)
			}
			return nil
		})
	}
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
