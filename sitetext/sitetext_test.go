package sitetext

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

func TestSite(t *testing.T) {
	tests := []struct{ url, id, want string }{
		{"https://news.example.com:8080/a?b", "x", "news.example.com"},
		{"", "example.org/2024/a.html", "example.org/2024"},
		{"", "a.html", ""},
		{"not a url", "site/page", "site"},
	}
	for _, tt := range tests {
		if got := Site(tt.url, tt.id); got != tt.want {
			t.Errorf("Site(%q, %q) = %q, want %q", tt.url, tt.id, got, tt.want)
		}
	}
}

// para makes a distinct paragraph of n words.
func para(tag string, n int) string {
	return strings.TrimSpace(strings.Repeat(tag+" words ", n))
}

// cleanCase is a page planned and applied in turn, and what its plan
// keeps and names stale.
type cleanCase struct {
	name                string
	site, id            string
	paras               []string
	wantKept, wantStale []string
}

func cleanCases() []cleanCase {
	nav, foot := para("navigation", 10), para("footer", 10)
	return []cleanCase{
		{"first page keeps all", "a", "p1", []string{nav, para("one", 30), foot},
			[]string{nav, para("one", 30), foot}, nil},
		{"second page drops the template, first is stale", "a", "p2", []string{nav, para("two", 30), foot},
			[]string{para("two", 30)}, []string{"p1"}},
		{"third page drops the known template", "a", "p3", []string{nav, para("three", 30), foot},
			[]string{para("three", 30)}, nil},
		{"a longer mirror keeps what it shares with the page it mirrors", "a", "p3-long", []string{nav, para("three", 30), foot, para("more", 60)},
			[]string{para("three", 30), para("more", 60)}, nil},
		{"other site keeps its copy whole", "b", "q1", []string{nav, para("two", 30), foot},
			[]string{nav, para("two", 30), foot}, nil},
		{"same-site copy is kept whole", "a", "p2-print", []string{nav, para("two", 30), foot},
			[]string{para("two", 30)}, nil},
		{"single paragraph is never cleaned", "a", "p4", []string{nav},
			[]string{nav}, nil},
		{"page of template only is kept whole", "a", "p5", []string{nav, foot},
			[]string{nav, foot}, nil},
	}
}

func TestClean(t *testing.T) {
	runClean(t, memDB(t), cleanCases())
}

// TestCleanLegacy: a table written before refs, which named pages by
// their ids, is read and written on as a new one.
func TestCleanLegacy(t *testing.T) {
	cases := cleanCases()
	first := cases[0]
	db := memDB(t)
	err := db.Update(func(kv store.KV) error {
		// The first page as the layout before recorded it.
		own := 0
		var norm []byte
		for _, p := range first.paras {
			norm = analyzer.AppendNormalized(norm[:0], p)
			own += utf8.RuneCount(norm)
			if err := kv.Set(paragraphKey(first.site, norm), append([]byte(first.id), 0)); err != nil {
				return err
			}
		}
		return kv.Set(legacyPageKey(first.site, first.id), binary.AppendUvarint(nil, uint64(own)))
	})
	if err != nil {
		t.Fatal(err)
	}
	nav, foot := para("navigation", 10), para("footer", 10)
	mirror := cleanCase{"a longer mirror of the page recorded before refs", "a", "p1-long", []string{nav, para("one", 30), foot, para("more", 80)},
		[]string{nav, para("one", 30), foot, para("more", 80)}, nil}
	runClean(t, db, append([]cleanCase{mirror}, cases[1:]...))
}

// TestValueSize: a paragraph's value names its page in 9 bytes, however
// long the page's id.
func TestValueSize(t *testing.T) {
	db := memDB(t)
	id := "https://news.example.com/2024/05/a-long-article-name-as-crawls-have-them.html"
	err := db.Update(func(kv store.KV) error {
		p, err := New().Plan(KVReader{kv}, "news.example.com", id, []string{para("one", 5), para("two", 5)})
		if err != nil {
			return err
		}
		for _, w := range p.writes {
			if w.key[len(ns)+len("news.example.com")] == 0 && len(w.value) != 9 {
				t.Errorf("paragraph value %q: %d bytes, want 9", w.value, len(w.value))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzPlan: whatever the values under a page's keys, a plan is made or
// refused with an error.
func FuzzPlan(f *testing.F) {
	f.Add([]byte("p1\x00"), []byte{40})
	f.Add([]byte("12345678\x02"), []byte{40, 0, 'p', '1'})
	f.Add([]byte("12345678\x03"), []byte{})
	f.Add([]byte{}, []byte{0x80})
	nav, own := para("navigation", 10), para("own", 10)
	f.Fuzz(func(t *testing.T, value, pageValue []byte) {
		db := memDB(t)
		err := db.Update(func(kv store.KV) error {
			norm := analyzer.AppendNormalized(nil, nav)
			if err := kv.Set(paragraphKey("s", norm), value); err != nil {
				return err
			}
			if len(value) > 1 {
				o := refOf(string(value[:len(value)-1]))
				if len(value) == 9 {
					o = ref(value[:8])
				}
				if err := kv.Set(pageKey("s", o), pageValue); err != nil {
					return err
				}
			}
			p, err := New().WithStaleShare(0).Plan(KVReader{kv}, "s", "p2", []string{nav, own})
			if err == nil {
				return p.Apply(kv)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// runClean plans and applies each case in turn in db.
func runClean(t *testing.T, db *embedded.Local, cases []cleanCase) {
	t.Helper()
	tab := New().WithStaleShare(0)
	for _, tt := range cases {
		var kept, left, stale []string
		err := db.Update(func(kv store.KV) error {
			p, err := tab.Plan(KVReader{kv}, tt.site, tt.id, tt.paras)
			if err != nil {
				return err
			}
			kept, left, stale = p.Kept, p.Left, p.Stale
			return p.Apply(kv)
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(kept, tt.wantKept) || !slices.Equal(stale, tt.wantStale) {
			t.Errorf("%s: Clean = %q, stale %q; want %q, stale %q", tt.name, kept, stale, tt.wantKept, tt.wantStale)
		}
		// What is not kept is left: the page's whole text is both.
		whole := slices.Sorted(slices.Values(append(slices.Clone(kept), left...)))
		if want := slices.Sorted(slices.Values(tt.paras)); !slices.Equal(whole, want) {
			t.Errorf("%s: kept %q and left %q, want the paragraphs %q between them", tt.name, kept, left, tt.paras)
		}
	}
}

func TestPlanNil(t *testing.T) {
	var tab *Table
	paras := []string{"a", "b"}
	p, err := tab.Plan(nil, "site", "id", paras)
	if err != nil || !slices.Equal(p.Kept, paras) || p.Stale != nil || len(p.writes) != 0 {
		t.Errorf("nil Table: Plan = %+v, %v; want the paragraphs unchanged, no writes", p, err)
	}
}

// TestOverlayMatchesCommits: planning a run of pages over an overlay, and
// planning each against the commits of the ones before, give the same
// plans; Stale lists what was planned stale and not done.
func TestOverlayMatchesCommits(t *testing.T) {
	nav, foot := para("navigation", 10), para("footer", 10)
	pages := [][]string{
		{nav, para("one", 30), foot},
		{nav, para("two", 30), foot},
		{nav, para("three", 30), foot},
		{para("one", 30), nav},
	}
	tab := New()
	committed := memDB(t)
	overlaid := memDB(t)
	var want, got []*Plan
	for i, ps := range pages {
		err := committed.Update(func(kv store.KV) error {
			p, err := tab.Plan(KVReader{kv}, "s", fmt.Sprint(i), ps)
			want = append(want, p)
			if err != nil {
				return err
			}
			return p.Apply(kv)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	txn := overlaid.Begin(false)
	defer txn.Discard()
	o := NewOverlay(KVReader{txn})
	for i, ps := range pages {
		p, err := tab.Plan(o, "s", fmt.Sprint(i), ps)
		if err != nil {
			t.Fatal(err)
		}
		o.Add(p)
		got = append(got, p)
	}
	for i := range pages {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("page %d: overlay plan %+v, committed plan %+v", i, got[i], want[i])
		}
	}
	err := committed.Update(func(kv store.KV) error {
		if s, err := Stale(kv); err != nil || !slices.Equal(s, []string{"0"}) {
			t.Errorf("Stale = %q, %v; want [0]", s, err)
		}
		if err := Done(kv, "0"); err != nil {
			return err
		}
		if s, err := Stale(kv); err != nil || len(s) != 0 {
			t.Errorf("after Done, Stale = %q, %v; want none", s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func memDB(tb testing.TB) *embedded.Local {
	tb.Helper()
	db, err := embedded.OpenLocal(embedded.DefaultOptions(""))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
