package sitetext

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// TestCachePlansAsStore plans the same pages — several sites, each with a
// template, articles, and copies of earlier articles — against the store
// alone and through caches of several sizes (one that is always full, one
// that never is), committing each plan: every plan must be the same.
func TestCachePlansAsStore(t *testing.T) {
	type pg struct {
		site, id string
		paras    []string
	}
	r := rand.New(rand.NewPCG(1, 2))
	var pages []pg
	for i := range 300 {
		site := fmt.Sprintf("s%d", r.IntN(4))
		paras := []string{para("nav"+site, 8), para(fmt.Sprintf("related%d", r.IntN(6)), 5)}
		if i > 10 && r.IntN(3) == 0 {
			// A copy of an earlier article, on its site or another.
			paras = append(paras, pages[r.IntN(i)].paras[2:4]...)
		} else {
			paras = append(paras, para(fmt.Sprintf("a%d", i), 30), para(fmt.Sprintf("b%d", i), 20))
		}
		paras = append(paras, para("footer"+site, 6))
		pages = append(pages, pg{site, fmt.Sprintf("p%d", i), paras})
	}
	type result struct {
		Kept, Stale []string
	}
	run := func(c *Cache) []result {
		db := memDB(t)
		tab := New()
		var out []result
		for _, p := range pages {
			var plan *Plan
			err := db.Update(func(kv store.KV) error {
				var err error
				if plan, err = tab.Plan(c.Reader(KVReader{kv}), p.site, p.id, p.paras); err != nil {
					return err
				}
				return plan.Apply(kv)
			})
			if err != nil {
				t.Fatal(err)
			}
			c.Committed(plan)
			out = append(out, result{plan.Kept, plan.Stale})
		}
		return out
	}
	want := run(nil)
	for _, size := range []int{1, 7, 1 << 16} {
		got := run(NewCache(size))
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("cache of %d: page %s planned %+v, want %+v", size, pages[i].id, got[i], want[i])
			}
		}
	}
}

// TestCache checks reads through, write-through, eviction and Reset.
func TestCache(t *testing.T) {
	base := mapReader{"t/a": []byte("1"), "t/b": []byte("2")}
	c := NewCache(2)
	rd := c.Reader(base)
	get := func(k string) string {
		t.Helper()
		v, ok, err := rd.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "-"
		}
		return string(v)
	}
	steps := []struct {
		do   func()
		key  string
		want string
	}{
		{nil, "t/a", "1"},
		{func() { base["t/a"] = []byte("changed behind the cache") }, "t/a", "1"},
		{func() { c.Committed(&Plan{writes: []write{{[]byte("t/a"), []byte("3")}}}) }, "t/a", "3"},
		{nil, "t/c", "-"},
		{func() { c.Committed(&Plan{writes: []write{{[]byte(staleNS + "x"), nil}}}) }, staleNS + "x", "-"},
		{func() { c.Reset() }, "t/a", "changed behind the cache"},
		{nil, "t/b", "2"},
		{func() { base["t/a"] = []byte("4") }, "t/a", "changed behind the cache"},
		{nil, "t/c", "-"},
		{func() {
			base["t/b"] = []byte("5")
			get("t/zz")
			c.Committed(&Plan{writes: []write{{[]byte("t/d"), []byte("6")}}})
		}, "t/b", "5"}, // full: forgot
	}
	for i, s := range steps {
		if s.do != nil {
			s.do()
		}
		if got := get(s.key); got != s.want {
			t.Errorf("step %d: Get(%s) = %q, want %q", i, s.key, got, s.want)
		}
	}
	var nilCache *Cache
	if _, ok := nilCache.Reader(base).(mapReader); !ok {
		t.Error("a nil cache wraps its base")
	}
	nilCache.Committed(&Plan{})
	nilCache.Reset()
}

type mapReader map[string][]byte

func (m mapReader) Get(k []byte) ([]byte, bool, error) {
	v, ok := m[string(k)]
	return v, ok, nil
}
