package dedupfilter

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/redis/go-redis/v9"
)

// redisFilters opens n filters sharing one prefix, as n indexer processes
// would, each with a local store of its own.
func redisFilters(t *testing.T, n int) []*Filter {
	t.Helper()
	addrs := os.Getenv(redisEnv)
	if addrs == "" {
		t.Skipf("%s names no Redis Cluster (scripts/test.sh starts one)", redisEnv)
	}
	first := openRedisTest(t, addrs, DefaultOptions(""))
	prefix := strings.TrimSuffix(first.store.(*redisStore).prefix, ":")
	out := []*Filter{first}
	for range n - 1 {
		rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
		local, err := badger.Open(badger.DefaultOptions(filepath.Join(t.TempDir(), "local")).WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewRedis(rdb, prefix, local, DefaultOptions(""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close(); local.Close(); rdb.Close() })
		out = append(out, f)
	}
	return out
}

// TestRedisWritersMatchSerial: three writers add the copies of fifteen
// articles at the same time, each its share, in shuffled order; the
// clusters are those of a serial run, and no cluster has two
// representatives indexed: two copies decided at the same moment by two
// writers were never both admitted.
func TestRedisWritersMatchSerial(t *testing.T) {
	fs := redisFilters(t, 3)
	docs := newCorpus(8).clusters(t, testAnalyzer(t), 15, 4)
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	var wg sync.WaitGroup
	errs := make(chan error, len(docs))
	for w, f := range fs {
		wg.Go(func() {
			for i := w; i < len(docs); i += len(fs) {
				if _, err := f.Add(docs[i].doc); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := partition(t, fs[0])
	byLabel := map[int]string{}
	for _, d := range docs {
		c, ok := got[d.doc.ID]
		if !ok {
			t.Fatalf("%s is not stored", d.doc.ID)
		}
		if prev, ok := byLabel[d.label]; ok && prev != c {
			t.Errorf("article %d split over clusters %s and %s", d.label, prev, c)
		}
		byLabel[d.label] = c
	}
	oneIndexedPerCluster(t, fs[1], fs[2])
}

// TestRedisJournalReplay: a holder that dies after writing its journal
// and before applying it leaves its commit to the next holder, which
// completes it.
func TestRedisJournalReplay(t *testing.T) {
	fs := redisFilters(t, 2)
	a := testAnalyzer(t)
	p, err := fs[0].Prepare(Doc{ID: "cut", Features: a.Analyze(newCorpus(4).article(4))})
	if err != nil {
		t.Fatal(err)
	}
	// A mutation made by hand, up to the journal.
	s := fs[0].store.(*redisStore)
	w, err := fs[0].begin()
	if err != nil {
		t.Fatal(err)
	}
	rec := &record{Seq: w.seq, Cluster: fmt.Sprintf("%0*x", clusterIDLen, 999), Indexed: true}
	if err := errors.Join(w.st.putRecord("cut", rec), w.st.setRepresentative(rec.Cluster, "cut"), w.st.addMember(rec.Cluster, "cut"),
		w.st.putSignature(w.seq, encodeSignature("cut", p.sig))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.rdb.Set(ctx, s.k("journal"), s.journal(w.st.(*redisState).w), 0).Err(); err != nil {
		t.Fatal(err)
	}
	w.st.discard() // dies: the lease goes (here released, as it would expire)
	c, err := fs[1].Cluster(rec.Cluster)
	if err == nil {
		t.Fatalf("before the next holder, cluster %v is visible", c)
	}
	// The next holder's first mutation completes the cut one.
	mustAdd(t, fs[1], Doc{ID: "other", Features: a.Analyze(newCorpus(5).article(4))})
	c, err = fs[1].Cluster(rec.Cluster)
	if err != nil || !slices.Equal(c.Members, []string{"cut"}) {
		t.Errorf("after replay: %+v, %v; want the cut commit's cluster", c, err)
	}
	// Applied journals are deleted, so the next holder replays nothing.
	if n, err := s.rdb.Exists(ctx, s.k("journal")).Result(); err != nil || n != 0 {
		t.Errorf("journal after the commits: %d keys, %v; want none", n, err)
	}
}

// TestRedisForgetsOnlyItsJournal: a holder deletes its applied journal,
// never one another holder wrote after it.
func TestRedisForgetsOnlyItsJournal(t *testing.T) {
	fs := redisFilters(t, 2)
	a, b := fs[0].store.(*redisStore), fs[1].store.(*redisStore)
	ctx := context.Background()
	tests := []struct {
		writer *redisStore
		want   int64 // journals left after a's forget
	}{
		{a, 0},
		{b, 1},
	}
	for _, tt := range tests {
		if err := a.rdb.Set(ctx, a.k("journal"), tt.writer.journal(newWrites()), 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := forgetScript.Run(ctx, a.rdb, []string{a.k("journal")}, a.journalHead()).Err(); err != nil {
			t.Fatal(err)
		}
		if n, err := a.rdb.Exists(ctx, a.k("journal")).Result(); err != nil || n != tt.want {
			t.Errorf("journal written by %s, forgotten by %s: %d left, %v; want %d", tt.writer.token, a.token, n, err, tt.want)
		}
	}
}

func TestParseRedisURL(t *testing.T) {
	tests := []struct {
		in         string
		addrs      []string
		prefix     string
		wantErrSub string
	}{
		{"redis://127.0.0.1:7000", []string{"127.0.0.1:7000"}, DefaultRedisPrefix, ""},
		{"redis://a:1,b:2,[::1]:3/crawl-2026", []string{"a:1", "b:2", "[::1]:3"}, "crawl-2026", ""},
		{"http://a:1", nil, "", "want redis://"},
		{"redis://a", nil, "", "want HOST:PORT"},
		{"redis://a:1,,b:2", nil, "", "want HOST:PORT"},
	}
	for _, tt := range tests {
		addrs, prefix, err := ParseRedisURL(tt.in)
		if tt.wantErrSub != "" {
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tt.wantErrSub) {
				t.Errorf("ParseRedisURL(%q) error = %v, want ErrInvalidOptions mentioning %q", tt.in, err, tt.wantErrSub)
			}
			continue
		}
		if err != nil || !slices.Equal(addrs, tt.addrs) || prefix != tt.prefix {
			t.Errorf("ParseRedisURL(%q) = %q, %q, %v; want %q, %q", tt.in, addrs, prefix, err, tt.addrs, tt.prefix)
		}
	}
}

// TestRedisPrefetch decides the same batches with and without Prefetch
// (each in one Exclusive call, copies of a batch's own documents among
// them): the decisions are the same.
func TestRedisPrefetch(t *testing.T) {
	docs := newCorpus(9).clusters(t, testAnalyzer(t), 12, 4)
	rand.New(rand.NewPCG(9, 9)).Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	var got [2][]string
	for run, prefetch := range []bool{false, true} {
		f := redisFilters(t, 1)[0]
		for start := 0; start < len(docs); start += 16 {
			var ps []*Prepared
			for _, d := range docs[start:min(start+16, len(docs))] {
				p, err := f.Prepare(d.doc)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
			err := f.Exclusive(func() error {
				if prefetch {
					if err := f.Prefetch(ps); err != nil {
						return err
					}
				}
				for _, p := range ps {
					dec, err := f.AddPrepared(p)
					if err != nil {
						return err
					}
					got[run] = append(got[run], fmt.Sprintf("%s %v %s %s", dec.ID, dec.Duplicate, dec.Of, dec.Cluster))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("decisions with Prefetch:\n%s\nwithout:\n%s", strings.Join(got[1], "\n"), strings.Join(got[0], "\n"))
	}
}

// TestRedisReadsBesideASession: reads outside the lease (Meta, Cluster,
// as the indexer's workers make while a batch is decided) run beside an
// Exclusive call's decisions without a data race (go test -race) and see
// each decision once that call has committed it.
func TestRedisReadsBesideASession(t *testing.T) {
	f := redisFilters(t, 1)[0]
	docs := newCorpus(11).clusters(t, testAnalyzer(t), 10, 3)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			d := docs[i%len(docs)].doc
			if e, err := f.Meta(d.ID); err == nil {
				f.Cluster(e.Cluster)
			} else if !errors.Is(err, ErrNotFound) {
				t.Errorf("Meta(%s): %v", d.ID, err)
				return
			}
		}
	}()
	err := f.Exclusive(func() error {
		for _, d := range docs {
			p, err := f.Prepare(d.doc)
			if err != nil {
				return err
			}
			if _, err := f.AddPrepared(p); err != nil {
				return err
			}
		}
		return nil
	})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := f.Meta(d.doc.ID); err != nil {
			t.Errorf("after the session, Meta(%s): %v", d.doc.ID, err)
		}
	}
}

// TestRedisFormat: a store is marked with the key layout it was written
// in; one of the earlier layout (documents, no format key) or of another
// version is refused, not read as empty.
func TestRedisFormat(t *testing.T) {
	addrs := os.Getenv(redisEnv)
	if addrs == "" {
		t.Skipf("%s names no Redis Cluster (scripts/test.sh starts one)", redisEnv)
	}
	f := openRedisTest(t, addrs, DefaultOptions(""))
	s := f.store.(*redisStore)
	ctx := context.Background()
	if v, err := s.rdb.Get(ctx, s.k("format")).Result(); err != nil || v != redisFormat {
		t.Fatalf("format key of a new store: %q, %v; want %q", v, err, redisFormat)
	}
	reopen := func() error {
		local, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		defer local.Close()
		g, err := NewRedis(s.rdb, strings.TrimSuffix(s.prefix, ":"), local, DefaultOptions(""))
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
		{"another version", func() error { return s.rdb.Set(ctx, s.k("format"), "99", 0).Err() }, true},
		{"layout 1: documents, no format key", func() error {
			if err := s.rdb.Del(ctx, s.k("format")).Err(); err != nil {
				return err
			}
			return s.rdb.ZAdd(ctx, s.k("clusters"), redis.Z{Score: 1, Member: "1"}).Err()
		}, true},
	}
	for _, tt := range tests {
		if err := tt.prepare(); err != nil {
			t.Fatal(err)
		}
		err := reopen()
		if got := errors.Is(err, ErrCorrupt); got != tt.wantErr {
			t.Errorf("%s: NewRedis error %v, want ErrCorrupt: %v", tt.name, err, tt.wantErr)
		}
	}
}
