package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// passage is a piece of a page in a chunked (RAG) index.
type passage struct {
	Source string // the page it was cut from
	Site   string
	Body   string
}

// chunkIndex wraps a new bleve index of passages in dir, Source and Site
// mapped as keywords, copies marked rather than kept out.
func chunkIndex(dir string) (*indexer.Index, error) {
	m := bleve.NewIndexMapping()
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	m.DefaultMapping.AddFieldMappingsAt("Source", kw)
	m.DefaultMapping.AddFieldMappingsAt("Site", kw)
	indexer.AddFilterFields(m)
	idx, err := bleve.New(filepath.Join(dir, "passages.bleve"), m)
	if err != nil {
		return nil, err
	}
	o := indexer.Options{Store: filepath.Join(dir, "passages.dedup"), TextFields: []string{"Body"}}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Wrap(idx, o)
	if err != nil {
		idx.Close()
		return nil, err
	}
	return ix, nil
}

// ExampleIndex_SearchGroups searches passages for one hit per source
// page, copies of a passage on another page folded away, with each
// page's two best passages and the sites counted by pages.
func ExampleIndex_SearchGroups() {
	dir, err := os.MkdirTemp("", "example-groups-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ix, err := chunkIndex(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	bees := "The city library opened its rooftop to six beehives this spring, and the first honey was sold at the summer fair to readers and neighbours."
	for _, p := range []struct {
		id string
		passage
	}{
		{"gazette/bees#1", passage{"gazette/bees", "gazette.example", bees}},
		{"gazette/bees#2", passage{"gazette/bees", "gazette.example", "Volunteers check the hives every week; they say the bees ignore the readers of the library below, who mostly ignore the bees."}},
		{"gazette/bees#3", passage{"gazette/bees", "gazette.example", "The library plans a beekeeping course for children next year, paid for by the honey the bees on its roof make."}},
		{"reader/hives#1", passage{"reader/hives", "reader.example", bees}}, // a reprint
		{"blog/honey#1", passage{"blog/honey", "blog.example", "Honey from city bees tastes of lime trees, says a beekeeper who keeps hives on three roofs near the library and the station."}},
	} {
		if err := ix.Index(p.id, p.passage); err != nil {
			log.Fatal(err)
		}
	}

	req := bleve.NewSearchRequest(bleve.NewMatchQuery("bees honey library"))
	req.AddFacet("sites", bleve.NewFacetRequest("Site", 10))
	res, err := ix.SearchGroups(context.Background(), indexer.GroupRequest{SearchRequest: req,
		Field: "Source", FoldCopies: true, InnerSize: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Total, "pages,", res.Documents, "passages match")
	for i, h := range res.Hits {
		g := res.Groups[i]
		fmt.Printf("%s (passages: %d), hit %s, best:", g.Value, g.Size, h.ID)
		for _, in := range g.Inner {
			fmt.Print(" ", in.ID)
		}
		fmt.Println()
	}
	for _, t := range res.Terms["sites"] {
		fmt.Printf("%s: pages %d, passages %d\n", t.Term, t.Groups, t.Documents)
	}
	// The reprint's passage is a copy of gazette/bees#1, which ties with
	// it and wins by id: reader/hives has no passage left.

	// Output:
	// 2 pages, 5 passages match
	// gazette/bees (passages: 3), hit gazette/bees#3, best: gazette/bees#3 gazette/bees#2
	// blog/honey (passages: 1), hit blog/honey#1, best: blog/honey#1
	// gazette.example: pages 1, passages 3
	// blog.example: pages 1, passages 1
}

func TestSearchGroupsRefusesOtherSorts(t *testing.T) {
	ix, err := chunkIndex(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	tests := []struct {
		name string
		req  indexer.GroupRequest
	}{
		{"no request", indexer.GroupRequest{Field: "Source"}},
		{"sorted by a field", func() indexer.GroupRequest {
			r := bleve.NewSearchRequest(bleve.NewMatchAllQuery())
			r.SortBy([]string{"Site"})
			return indexer.GroupRequest{SearchRequest: r, Field: "Source"}
		}()},
		{"too many inner hits", indexer.GroupRequest{SearchRequest: bleve.NewSearchRequest(bleve.NewMatchAllQuery()), Field: "Source", InnerSize: collapse.MaxInner + 1}},
	}
	for _, tt := range tests {
		if _, err := ix.SearchGroups(context.Background(), tt.req); !errors.Is(err, collapse.ErrInvalidRequest) {
			t.Errorf("%s: got error %v, want collapse.ErrInvalidRequest", tt.name, err)
		}
	}
}

// TestSearchGroupsAlias: grouped over an Alias of two shards sharing one
// store, every source comes once over the pages, as over one index with
// all the passages, in the same order where scores tie (match all: ids
// decide), with the same group sizes and facet counts.
func TestSearchGroupsAlias(t *testing.T) {
	store := fmt.Sprintf("redis://%s/groupstest-%x", storetest.RedisAddrs(t), rand.Uint64())
	open := func(store string) *indexer.Index {
		o := indexer.Options{Store: store}
		o.Policy = dedupfilter.Mark
		ix, err := indexer.Open(t.TempDir(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	union, a, b := open(""), open(store), open(store)
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa")
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 120 {
		text := make([]string, 12)
		for j := range text {
			text[j] = words[r.IntN(len(words))]
		}
		d := indexer.Document{ID: fmt.Sprintf("p%03d", i), Paragraphs: []string{strings.Join(text, " ")},
			Fields: map[string]any{"source": fmt.Sprintf("s%02d", r.IntN(30)), "host": fmt.Sprintf("h%d", r.IntN(4))}}
		shard := a
		if r.IntN(2) == 1 {
			shard = b
		}
		for _, ix := range []*indexer.Index{union, shard} {
			if err := ix.Index(d.ID, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := indexer.Alias(a, b)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fold bool
	}{{"by source", false}, {"by source, copies folded", true}}
	for _, tt := range tests {
		pages := func(ix *indexer.Index) (hits []string, terms []indexer.TermCount) {
			for from := 0; ; from += 7 {
				req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 7, from, false)
				req.AddFacet("host", bleve.NewFacetRequest("host", 10))
				res, err := ix.SearchGroups(context.Background(), indexer.GroupRequest{SearchRequest: req, Field: "source", FoldCopies: tt.fold})
				if err != nil {
					t.Fatal(err)
				}
				for i, h := range res.Hits {
					hits = append(hits, fmt.Sprintf("%s/%s/%d", res.Groups[i].Value, h.ID, res.Groups[i].Size))
				}
				if len(res.Hits) < 7 {
					return hits, res.Terms["host"]
				}
			}
		}
		want, wantTerms := pages(union)
		got, gotTerms := pages(all)
		if !slices.Equal(got, want) {
			t.Errorf("%s: pages over the shards\n got %v\nwant %v (one index)", tt.name, got, want)
		}
		if !slices.Equal(gotTerms, wantTerms) {
			t.Errorf("%s: host facet over the shards %v, want %v (one index)", tt.name, gotTerms, wantTerms)
		}
	}
}
