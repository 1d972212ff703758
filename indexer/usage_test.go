package indexer_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testtext"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	st := indexPages(t, dir, 15, 4)
	ix, err := indexer.Open(dir, indexer.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	u, err := ix.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if u.Docs != st.Read || u.Indexed != uint64(st.Indexed) || u.Clusters != st.Indexed-st.KeptDuplicates {
		t.Errorf("%d docs, %d indexed, %d clusters; want %d read, %d indexed, %d clusters", u.Docs, u.Indexed, u.Clusters, st.Read, st.Indexed, st.Indexed-st.KeptDuplicates)
	}
	if u.BleveBytes <= 0 || u.StoreBytes <= 0 {
		t.Errorf("bleve %d bytes, store %d: want both on disk", u.BleveBytes, u.StoreBytes)
	}
	parts := map[string]store.Part{}
	for _, p := range u.Parts {
		parts[p.Name] = p
	}
	for _, name := range []string{store.PartRecords, store.PartSignatures, store.PartPayloads} {
		if p := parts[name]; p.Keys != u.Docs || p.Bytes <= 0 {
			t.Errorf("part %q: %d keys, %d bytes; want one key a document (%d)", name, p.Keys, p.Bytes, u.Docs)
		}
	}
}

// TestUsageAlias: over shards sharing a store, the shards' bleve
// documents and files add up, and the shared store's documents count
// once.
func TestUsageAlias(t *testing.T) {
	shared := fmt.Sprintf("redis://%s/usagetest-%x", storetest.RedisAddrs(t), rand.Uint64())
	var shards []*indexer.Index
	for range 2 {
		ix, err := indexer.Open(t.TempDir(), indexer.Options{Store: shared})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		shards = append(shards, ix)
	}
	for i := range 10 {
		d := indexer.Document{ID: fmt.Sprint("p", i), Paragraphs: testtext.Article(fmt.Sprint("topic ", i), 3)}
		if err := shards[i%2].Index(d.ID, d); err != nil {
			t.Fatal(err)
		}
	}
	var want indexer.Usage
	for _, s := range shards {
		u, err := s.Usage()
		if err != nil {
			t.Fatal(err)
		}
		if u.Docs != 10 || u.Parts != nil {
			t.Errorf("a shard: %d docs, parts %v; want the shared store's 10, no parts", u.Docs, u.Parts)
		}
		want.Indexed += u.Indexed
		want.StoreBytes += u.StoreBytes
	}
	all, err := indexer.Alias(shards...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := all.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if got.Docs != 10 || got.Indexed != want.Indexed || got.Indexed != 10 || got.StoreBytes != want.StoreBytes {
		t.Errorf("alias: %d docs, %d indexed, store %d bytes; want 10, 10, %d", got.Docs, got.Indexed, got.StoreBytes, want.StoreBytes)
	}
}
