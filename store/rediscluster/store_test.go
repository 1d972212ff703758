package rediscluster_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// TestJournalReplay: a holder that dies after writing its journal and
// before applying it leaves its commit to the next holder, which
// completes it.
func TestJournalReplay(t *testing.T) {
	addrs := storetest.RedisAddrs(t)
	a := storetest.Redis(t, addrs, "")
	b := storetest.Redis(t, addrs, a.Prefix())
	cluster := store.ClusterID(999)
	// A mutation made by hand, up to the journal.
	tx := a.Begin()
	err := errors.Join(tx.PutRecord("cut", &store.Record{Seq: 1, Cluster: cluster, Indexed: true}),
		tx.SetRepresentative(cluster, "cut"), tx.AddMember(cluster, "cut"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Client().Set(ctx, a.Key("journal"), a.JournalOf(tx), 0).Err(); err != nil {
		t.Fatal(err)
	}
	tx.Discard() // dies: the lease goes (here released, as it would expire)
	if err := b.Read(func(tx store.Txn) error {
		if rep, err := tx.Representative(cluster); err == nil {
			t.Fatalf("before the next holder, the cut cluster is visible (representative %q)", rep)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The next holder's first mutation completes the cut one.
	tx = b.Begin()
	if err := errors.Join(tx.PutRecord("other", &store.Record{Seq: 2}), tx.Commit()); err != nil {
		t.Fatal(err)
	}
	if err := b.Read(func(tx store.Txn) error {
		ms, err := tx.Members(cluster)
		if err != nil || !slices.Equal(ms, []string{"cut"}) {
			t.Errorf("after replay: members %v, %v; want the cut commit's cluster", ms, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Applied journals are deleted, so the next holder replays nothing.
	if n, err := a.Client().Exists(ctx, a.Key("journal")).Result(); err != nil || n != 0 {
		t.Errorf("journal after the commits: %d keys, %v; want none", n, err)
	}
}

// TestForgetsOnlyItsJournal: a holder deletes its applied journal, never
// one another holder wrote after it.
func TestForgetsOnlyItsJournal(t *testing.T) {
	addrs := storetest.RedisAddrs(t)
	a := storetest.Redis(t, addrs, "")
	b := storetest.Redis(t, addrs, a.Prefix())
	ctx := context.Background()
	tests := []struct {
		writer *rediscluster.Store
		want   int64 // journals left after a's forget
	}{
		{a, 0},
		{b, 1},
	}
	for _, tt := range tests {
		if err := a.Client().Set(ctx, a.Key("journal"), tt.writer.EmptyJournal(), 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := a.Forget(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := a.Client().Exists(ctx, a.Key("journal")).Result(); err != nil || n != tt.want {
			t.Errorf("journal written by %s, forgotten by %s: %d left, %v; want %d", tt.writer.Token(), a.Token(), n, err, tt.want)
		}
	}
}

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
		{"layout 1: documents, no format key", func() error {
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
