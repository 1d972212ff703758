package dedupfilter

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// redisFilters opens n filters sharing one store on the Redis Cluster, as
// n indexer processes would, each with a local store of its own.
func redisFilters(t *testing.T, n int) []*Filter {
	t.Helper()
	addrs := storetest.RedisAddrs(t)
	first := storetest.Redis(t, addrs, "")
	var out []*Filter
	for i := range n {
		b := first
		if i > 0 {
			b = storetest.Redis(t, addrs, first.Prefix())
		}
		f, err := New(b, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
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

// TestRedisPrefetch decides the same batches with and without prefetch
// (each in one exclusive call, copies of a batch's own documents among
// them): the decisions are the same.
func TestRedisPrefetch(t *testing.T) {
	docs := newCorpus(9).clusters(t, testAnalyzer(t), 12, 4)
	rand.New(rand.NewPCG(9, 9)).Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	var got [2][]string
	for run, prefetch := range []bool{false, true} {
		f := redisFilters(t, 1)[0]
		for start := 0; start < len(docs); start += 16 {
			var batch []Doc
			for _, d := range docs[start:min(start+16, len(docs))] {
				batch = append(batch, d.doc)
			}
			for _, dec := range decideBatch(t, f, batch, prefetch) {
				got[run] = append(got[run], fmt.Sprintf("%s %v %s %s", dec.ID, dec.Duplicate, dec.Of, dec.Cluster))
			}
		}
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("decisions with prefetch:\n%s\nwithout:\n%s", strings.Join(got[1], "\n"), strings.Join(got[0], "\n"))
	}
}

// TestRedisReadsBesideASession: reads outside the lease (Meta, Cluster,
// as the indexer's workers make while a batch is decided) run beside an
// exclusive call's decisions without a data race (go test -race) and see
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
	err := f.exclusive(func() error {
		for _, d := range docs {
			p, err := f.prepare(d.doc)
			if err != nil {
				return err
			}
			if _, err := f.addPrepared(p, addOptions{}); err != nil {
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

// TestRedisRefusesStopWords: document frequencies counted in one process
// would be wrong beside other writers, so a shared store refuses them.
func TestRedisRefusesStopWords(t *testing.T) {
	b := storetest.Redis(t, storetest.RedisAddrs(t), "")
	o := DefaultOptions()
	o.BooleanStopShare = 0.5
	if _, err := New(b, o); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("New over a shared store with BooleanStopShare: %v, want ErrInvalidOptions", err)
	}
}
