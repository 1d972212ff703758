package indexer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/recluster"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// chainDocs are three overlapping windows of one text: a~b and b~c are
// duplicates under the feature-string measure, a and c are not.
func chainDocs() (a, b, c Document) {
	ps := make([]string, 16)
	for i := range ps {
		var s strings.Builder
		for j := range 24 {
			fmt.Fprintf(&s, "w%dq%d", i, j*7%24)
			if j%8 == 7 {
				s.WriteString(". ")
			} else {
				s.WriteByte(' ')
			}
		}
		ps[i] = s.String()
	}
	doc := func(id string, from, to int) Document {
		return Document{ID: id, Title: id, Paragraphs: ps[from:to]}
	}
	return doc("a", 0, 10), doc("b", 3, 13), doc("c", 6, 16)
}

// bleveCluster is the cluster field bleve holds for id ("" when bleve
// does not hold it).
func bleveCluster(t *testing.T, ix *Index, id string) string {
	t.Helper()
	req := bleve.NewSearchRequest(bleve.NewDocIDQuery([]string{id}))
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		return ""
	}
	c, _ := res.Hits[0].Fields[FieldCluster].(string)
	return c
}

// TestRecluster: the page linking a cluster's halves is deleted; a dry
// run reports the split and changes nothing, a real one splits the
// cluster and bleve's cluster field follows.
func TestRecluster(t *testing.T) {
	for _, policy := range []dedupfilter.Policy{dedupfilter.Mark, dedupfilter.Suppress} {
		t.Run(policy.String(), func(t *testing.T) {
			f := dedupfilter.DefaultOptions()
			f.Measure = similarity.FeatureString
			o := Options{Filter: &f, Policy: policy, KeepSiteText: true}
			a, b, c := chainDocs()
			ix := openWith(t, nil, o)
			for _, d := range []Document{a, b, c} {
				if _, err := ix.IndexDecision(d.ID, d); err != nil {
					t.Fatal(err)
				}
			}
			if got := partition(t, ix); strings.Join(got, " ") != "a,b,c" {
				t.Fatalf("clusters %v, want a,b,c together", got)
			}
			if err := ix.Delete("b"); err != nil {
				t.Fatal(err)
			}
			plan, err := ix.Recluster(context.Background(), recluster.DefaultOptions(), true)
			if err != nil || len(plan.Splits) != 1 || len(plan.Merges) != 0 {
				t.Fatalf("dry run: %+v, %v; want one split", plan, err)
			}
			if got := partition(t, ix); strings.Join(got, " ") != "a,c" {
				t.Fatalf("dry run changed the clusters: %v", got)
			}
			ca, _ := ix.Filter().ClusterOf("a")
			if _, err := ix.Recluster(context.Background(), recluster.DefaultOptions(), false); err != nil {
				t.Fatal(err)
			}
			if got := partition(t, ix); strings.Join(got, " ") != "a c" {
				t.Fatalf("after: clusters %v, want a and c apart", got)
			}
			cc, _ := ix.Filter().ClusterOf("c")
			if got := bleveCluster(t, ix, "a"); got != ca.ID {
				t.Errorf("bleve: a in %q, want %q", got, ca.ID)
			}
			// c is in bleve under its new cluster: re-indexed under Mark,
			// promoted to its cluster's copy under Suppress.
			if got := bleveCluster(t, ix, "c"); got != cc.ID || cc.ID == ca.ID {
				t.Errorf("bleve: c in %q, want its new cluster %q (a is in %q)", got, cc.ID, ca.ID)
			}
		})
	}
}
