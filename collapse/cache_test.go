package collapse

import (
	"fmt"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// TestTableCacheShards: one cache over two indexes (the shards of an
// alias) keeps each one's tables while the other is searched, and drops
// a table unused for tableTTL.
func TestTableCacheShards(t *testing.T) {
	reader := func(docs int) index.IndexReader {
		idx, err := bleve.New(t.TempDir()+"/b", bleve.NewIndexMapping())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		for i := range docs {
			if err := idx.Index(fmt.Sprint(i), map[string]any{"site": fmt.Sprintf("s%d", i%3)}); err != nil {
				t.Fatal(err)
			}
		}
		adv, err := idx.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		r, err := adv.Reader()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	a, b := reader(5), reader(7)
	now := time.Unix(1e9, 0)
	tc := newTableCache()
	tc.now = func() time.Time { return now }
	table := func(r index.IndexReader) *snapshotTable {
		t.Helper()
		sn, err := tc.forSnapshot(r, "site")
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	first := table(a).segs[0]
	table(b)
	now = now.Add(tableTTL / 2)
	if got := table(a).segs[0]; got != first {
		t.Error("shard a's table was built again after shard b was searched")
	}
	now = now.Add(tableTTL + time.Second)
	if bs, n := len(table(b).segs), len(tc.segs); n != bs {
		t.Errorf("%d tables after shard a went unused for longer than tableTTL, want shard b's %d", n, bs)
	}
	if got := table(a).segs[0]; got == first {
		t.Error("shard a's table was kept past tableTTL unused")
	}
}
