package dedupfilter

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testtext"
	"github.com/bleve-dedup/bleve-dedup/sitetext"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

// sitePage is document id of the site at host, the site's template
// around body.
func sitePage(host, id string, body []string) *Item {
	head, tail := testtext.Template(host)
	paras := append(append(append([]string{}, head...), body...), tail...)
	payload, _ := json.Marshal(map[string]string{"text": strings.Join(paras, "\n")})
	return &Item{Doc: Doc{ID: id, URL: "https://" + host + "/" + id, Payload: payload}, Paras: paras}
}

// openDecider returns a Decider over an in-memory store, recognising
// template text when site; its Text fails while *fail is true.
func openDecider(t *testing.T, site bool, fail *bool) (*Decider, *embedded.Local) {
	t.Helper()
	eo := embedded.DefaultOptions("")
	eo.SignatureKeys = DefaultOptions().SignatureKeys
	st, err := embedded.Open(eo)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(st, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(); st.Local().Close() })
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	o := DeciderOptions{Local: st.Local(), Analyzer: an, Text: func(payload []byte) ([]string, error) {
		if *fail {
			return nil, errors.New("payload unreadable")
		}
		var body map[string]string
		err := json.Unmarshal(payload, &body)
		return strings.Split(body["text"], "\n"), err
	}}
	if site {
		o.Site, o.CacheSize = sitetext.New(), 1024
	}
	return NewDecider(f, o), st.Local()
}

func TestDecide(t *testing.T) {
	reprint := append([]string{"Source: Site A"}, testtext.Article("river", 3)...)
	reprint[2] = strings.Replace(reprint[2], " ", "  ", 1) + " Edited."
	tests := []struct {
		name string
		site bool
		want [][]string // the clusters
	}{
		// a2 reveals site A's template, so a1 is decided again without
		// it, and b2 site B's: b1 too. a1-copy is a copy on its own
		// site: nothing of its own.
		{"template text left out", true, [][]string{{"a1", "a1-copy", "b1"}, {"a2"}, {"a3"}, {"b2"}}},
		// one template, most of each page, but the articles share no
		// text in order: the same clusters
		{"pages whole", false, [][]string{{"a1", "a1-copy", "b1"}, {"a2"}, {"a3"}, {"b2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fail := false
			dc, local := openDecider(t, tt.site, &fail)
			items := []*Item{
				sitePage("a.example", "a1", testtext.Article("river", 3)),
				sitePage("a.example", "a2", testtext.Article("bridge", 3)),
				sitePage("a.example", "a3", testtext.Article("school", 3)),
				sitePage("b.example", "b1", reprint),
				sitePage("b.example", "b2", testtext.Article("harbour", 3)),
				sitePage("a.example", "a1-copy", testtext.Article("river", 3)),
			}
			decs, _, err := dc.Decide(items, func(kv store.KV, i int) error {
				return kv.Set([]byte(store.NSURL+items[i].Doc.ID), []byte(items[i].Doc.ID))
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(decs) != len(items) {
				t.Fatalf("%d decisions, want %d", len(decs), len(items))
			}
			var got [][]string
			for _, it := range items {
				c, err := dc.filter.ClusterOf(it.Doc.ID)
				if err != nil {
					t.Fatal(err)
				}
				if m := slices.Sorted(slices.Values(c.Members)); !slices.ContainsFunc(got, func(g []string) bool { return slices.Equal(g, m) }) {
					got = append(got, m)
				}
				// also wrote with each decision
				local.View(func(kv store.KV) error {
					if v, err := kv.Get([]byte(store.NSURL + it.Doc.ID)); err != nil || string(v) != it.Doc.ID {
						t.Errorf("also's key of %s: %q, %v; want %q", it.Doc.ID, v, err, it.Doc.ID)
					}
					return nil
				})
				if it.Paras != nil || it.Doc.Features != nil {
					t.Errorf("%s decided: its paragraphs and features kept, want them let go", it.Doc.ID)
				}
			}
			slices.SortFunc(got, slices.Compare)
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("clusters %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFinishStale cuts a re-decision short (the stored payload cannot be
// read) and finishes it as the next open would.
func TestFinishStale(t *testing.T) {
	fail := false
	dc, local := openDecider(t, true, &fail)
	stale := func() []string {
		var ids []string
		local.View(func(kv store.KV) error {
			var err error
			ids, err = sitetext.Stale(kv)
			return err
		})
		return ids
	}
	if _, _, err := dc.Decide([]*Item{sitePage("b.example", "b1", testtext.Article("river", 3))}, nil); err != nil {
		t.Fatal(err)
	}
	fail = true
	decs, _, err := dc.Decide([]*Item{sitePage("b.example", "b2", testtext.Article("harbour", 3))}, nil)
	if err == nil || len(decs) != 1 {
		t.Fatalf("Decide with the re-decision failing: %d decisions, error %v; want b2's decision and an error", len(decs), err)
	}
	if got := stale(); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("stale pages after the failure %v, want [b1]", got)
	}
	before, _ := dc.filter.Meta("b1")
	fail = false
	ops, err := dc.FinishStale()
	if err != nil {
		t.Fatal(err)
	}
	// Alone before and after, b1 is re-decided (a new version) in its
	// cluster, which the search index holds already.
	after, _ := dc.filter.Meta("b1")
	if len(ops) != 0 || after.Seq == before.Seq || after.Cluster != before.Cluster {
		t.Errorf("FinishStale: ops %v, b1 version %d → %d in cluster %s → %s; want no ops, a new version, the same cluster", opsString(ops), before.Seq, after.Seq, before.Cluster, after.Cluster)
	}
	if got := stale(); len(got) != 0 {
		t.Errorf("stale pages after FinishStale %v, want none", got)
	}
}

// TestRedecideKeepsCluster: a page revealing its site's template has an
// earlier page's cluster decided again; the cluster comes back whole, so
// it keeps its id and the search index is not written for its members.
func TestRedecideKeepsCluster(t *testing.T) {
	fail := false
	dc, _ := openDecider(t, true, &fail)
	reprint := append([]string{"Source: Site A"}, testtext.Article("river", 3)...)
	if _, _, err := dc.Decide([]*Item{
		sitePage("a.example", "a1", testtext.Article("river", 3)),
		sitePage("b.example", "b1", reprint),
	}, nil); err != nil {
		t.Fatal(err)
	}
	before, err := dc.filter.ClusterOf("a1")
	if err != nil || !slices.Equal(before.Members, []string{"a1", "b1"}) {
		t.Fatalf("cluster of a1 %+v, %v; want a1 and b1", before, err)
	}
	seq, err := dc.filter.Meta("a1")
	if err != nil {
		t.Fatal(err)
	}
	_, ops, err := dc.Decide([]*Item{sitePage("a.example", "a2", testtext.Article("bridge", 3))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	after, err := dc.filter.ClusterOf("a1")
	if err != nil {
		t.Fatal(err)
	}
	redone, err := dc.filter.Meta("a1")
	if err != nil {
		t.Fatal(err)
	}
	if redone.Seq == seq.Seq {
		t.Fatalf("a1 not decided again (version %d): the test's template was not revealed", seq.Seq)
	}
	if after.ID != before.ID || !slices.Equal(after.Members, before.Members) || after.Representative != before.Representative {
		t.Errorf("cluster after the re-decision %v, want %v", after, before)
	}
	if got := opsString(ops); !slices.Equal(got, []string{"+a2"}) {
		t.Errorf("ops %v, want [+a2] (a1 and b1 stay as the search index holds them)", got)
	}
}
