package rediscluster_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		in         string
		addrs      []string
		prefix     string
		wantErrSub string
	}{
		{"redis://127.0.0.1:7000", []string{"127.0.0.1:7000"}, rediscluster.DefaultPrefix, ""},
		{"redis://a:1,b:2,[::1]:3/crawl-2026", []string{"a:1", "b:2", "[::1]:3"}, "crawl-2026", ""},
		{"http://a:1", nil, "", "want redis://"},
		{"redis://a", nil, "", "want HOST:PORT"},
		{"redis://a:1,,b:2", nil, "", "want HOST:PORT"},
		{"redis://a:1/x{y}", nil, "", "without braces"},
	}
	for _, tt := range tests {
		addrs, prefix, err := rediscluster.ParseURL(tt.in)
		if tt.wantErrSub != "" {
			if !errors.Is(err, rediscluster.ErrInvalidURL) || !strings.Contains(err.Error(), tt.wantErrSub) {
				t.Errorf("ParseURL(%q) error = %v, want ErrInvalidURL mentioning %q", tt.in, err, tt.wantErrSub)
			}
			continue
		}
		if err != nil || !slices.Equal(addrs, tt.addrs) || prefix != tt.prefix {
			t.Errorf("ParseURL(%q) = %q, %q, %v; want %q, %q", tt.in, addrs, prefix, err, tt.addrs, tt.prefix)
		}
	}
}

// TestFormat: a store is marked with the key layout it was written in;
// one of the earlier layout (documents, no format key) or of another
// version is refused, not read as empty.
func TestFormat(t *testing.T) {
	addrs := storetest.RedisAddrs(t)
	s := storetest.Redis(t, addrs, "")
	rdb := s.Client()
	ctx := context.Background()
	if v, err := rdb.Get(ctx, s.Key("format")).Result(); err != nil || v != rediscluster.Format {
		t.Fatalf("format key of a new store: %q, %v; want %q", v, err, rediscluster.Format)
	}
	reopen := func() error {
		local, err := embedded.OpenLocal(embedded.DefaultOptions(""))
		if err != nil {
			t.Fatal(err)
		}
		defer local.Close()
		g, err := rediscluster.New(rdb, s.Prefix(), local)
		if err == nil {
			g.Close()
		}
		return err
	}
	tests := []struct {
		name    string
		prepare func() error
		wantErr bool
	}{
		{"same layout", func() error { return nil }, false},
		{"another version", func() error { return rdb.Set(ctx, s.Key("format"), "99", 0).Err() }, true},
		{"layouts 1 to 3: documents, no format key", func() error {
			if err := rdb.Del(ctx, s.Key("format")).Err(); err != nil {
				return err
			}
			return rdb.ZAdd(ctx, s.Key("clusters"), redis.Z{Score: 1, Member: "1"}).Err()
		}, true},
	}
	for _, tt := range tests {
		if err := tt.prepare(); err != nil {
			t.Fatal(err)
		}
		err := reopen()
		if got := errors.Is(err, store.ErrCorrupt); got != tt.wantErr {
			t.Errorf("%s: New error %v, want ErrCorrupt: %v", tt.name, err, tt.wantErr)
		}
	}
}

// TestFamiliesGrow posts lists that all fall in one posting family, so
// that it splits bucket after bucket, and reads every list back, from the
// store that posted them and from one whose cached family states are
// stale.
func TestFamiliesGrow(t *testing.T) {
	addrs := storetest.RedisAddrs(t)
	a := storetest.Redis(t, addrs, "")
	var keys [][]byte
	for i := uint64(0); len(keys) < 300; i++ {
		if k := store.PostingKey('b', i); rediscluster.FamilyOf(k) == 7 {
			keys = append(keys, k)
		}
	}
	b := storetest.Redis(t, addrs, a.Prefix())
	b.RankedPostings(keys) // b caches the family's first state
	want := map[string][]uint64{}
	const pages = 40 * rediscluster.BucketLoad
	for start := 0; start < pages; start += 100 {
		sigs, ks := make([][]byte, 100), make([][][]byte, 100)
		for i := range sigs {
			page := start + i
			sigs[i], ks[i] = []byte{0}, [][]byte{keys[page%len(keys)], keys[(page*7+3)%len(keys)]}
		}
		first, err := a.Post(sigs, ks, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sigs {
			for _, k := range ks[i] {
				if l := want[string(k)]; len(l) == 0 || l[len(l)-1] != first+uint64(i) {
					want[string(k)] = append(l, first+uint64(i))
				}
			}
		}
	}
	for _, s := range []*rediscluster.Store{a, b} {
		err := s.Read(func(tx store.Txn) error {
			got, err := tx.Postings(keys)
			if err != nil {
				return err
			}
			for i, k := range keys {
				if !slices.Equal(got[i].Seqs, want[string(k)]) {
					t.Errorf("list %d = %v, want %v", i, got[i].Seqs, want[string(k)])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	n, err := a.Client().HLen(context.Background(), a.Key("p", "{7}")).Result()
	if err != nil || n < 10 {
		t.Errorf("family fields %d, %v: want it split into many buckets", n, err)
	}
}

// Package embedded's Local is the local part of a process' store.
var _ rediscluster.Local = (*embedded.Local)(nil)

// TestNoLocal: a store given no local part reads the shared state and
// writes nothing.
func TestNoLocal(t *testing.T) {
	a := storetest.Redis(t, storetest.RedisAddrs(t), "")
	tx := a.Begin()
	if err := errors.Join(tx.PutRecord("x", &store.Record{Seq: 1, URL: "u"}), tx.Commit()); err != nil {
		t.Fatal(err)
	}
	b, err := rediscluster.New(a.Client(), a.Prefix(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.ReadOnly() {
		t.Error("ReadOnly = false")
	}
	err = b.Read(func(tx store.Txn) error {
		rec, err := tx.Record("x", false)
		if err == nil && rec.URL != "u" {
			t.Errorf("record %+v, want URL u", rec)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tx = b.Begin()
	defer tx.Discard()
	if err := tx.Commit(); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("Commit = %v, want ErrReadOnly", err)
	}
}

// TestFounderLeft: a page that joins a cluster naming its founder (as it
// read the cluster) does not bring the founder back once the founder has
// left it, whether the founder was alone (no hash) or the cluster's last
// members left: the founder is in another cluster by then, and would be
// listed in two. The page makes the cluster again as its only member;
// the cluster left is no cluster meanwhile.
func TestFounderLeft(t *testing.T) {
	s := storetest.Redis(t, storetest.RedisAddrs(t), "")
	t0 := time.Unix(1700000000, 0).UTC()
	member := func(id string, seq uint64) store.Member {
		return store.Member{ID: id, Seq: seq, Time: t0, Runes: 100}
	}
	mutate := func(fn func(tx store.Txn) error) {
		t.Helper()
		tx := s.Begin()
		defer tx.Discard()
		if err := errors.Join(fn(tx), tx.Commit()); err != nil {
			t.Fatal(err)
		}
	}
	join := func(c string, m store.Member, founder *store.Member) store.JoinResult {
		t.Helper()
		var res store.JoinResult
		mutate(func(tx store.Txn) error {
			var err error
			res, err = tx.Join(c, m, founder, store.Rule{})
			return errors.Join(err, tx.PutRecord(m.ID, &store.Record{Seq: m.Seq, Time: t0, Runes: 100, Cluster: c}))
		})
		return res
	}
	leave := func(c, id string) {
		t.Helper()
		mutate(func(tx store.Txn) error {
			_, err := tx.Leave(c, id, store.Rule{})
			return err
		})
	}
	members := func(c string) []string {
		t.Helper()
		var ms []string
		if err := s.Read(func(tx store.Txn) (err error) { ms, err = tx.Members(c); return err }); err != nil {
			t.Fatal(err)
		}
		return ms
	}
	gone := func(c string) {
		t.Helper()
		err := s.Read(func(tx store.Txn) error { _, err := tx.Representative(c); return err })
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("cluster %s left by all: Representative error %v, want ErrNotFound", c, err)
		}
		if ms := members(c); len(ms) != 0 {
			t.Errorf("cluster %s left by all: members %v", c, ms)
		}
	}

	// f founds cluster 10 alone, then leaves it; p read it there.
	f := member("f", 10)
	c := store.ClusterID(10)
	join(c, f, nil)
	leave(c, "f")
	gone(c)
	if res := join(c, member("p", 30), &f); res.Representative != "p" || !res.Indexed {
		t.Errorf("p joining the cluster f left alone: %+v, want p representing it, indexed", res)
	}
	if ms := members(c); !slices.Equal(ms, []string{"p"}) {
		t.Errorf("cluster f left alone, joined by p: members %v, want p", ms)
	}

	// g founds cluster 40, q joins it, both leave; r read it with g.
	g := member("g", 40)
	c2 := store.ClusterID(40)
	join(c2, g, nil)
	join(c2, member("q", 41), &g)
	if ms := members(c2); !slices.Equal(ms, []string{"g", "q"}) {
		t.Fatalf("cluster 40: members %v, want g, q", ms)
	}
	leave(c2, "g")
	leave(c2, "q")
	gone(c2)
	if res := join(c2, member("r", 50), &g); res.Representative != "r" {
		t.Errorf("r joining the cluster g and q left: %+v, want r representing it", res)
	}
	if ms := members(c2); !slices.Equal(ms, []string{"r"}) {
		t.Errorf("cluster g and q left, joined by r: members %v, want r", ms)
	}

	// Listed once each, with the members above; the marks of clusters left
	// are no clusters.
	c3 := store.ClusterID(60)
	join(c3, member("h", 60), nil)
	leave(c3, "h")
	var listed []string
	if err := s.Read(func(tx store.Txn) error {
		return tx.Clusters("", func(id string) error { listed = append(listed, id); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{c, c2}; !slices.Equal(listed, want) {
		t.Errorf("clusters %v, want %v", listed, want)
	}
}
