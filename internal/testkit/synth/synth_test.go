package synth

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/eval"
)

// model trains the text models once per test binary.
var model = sync.OnceValues(func() (*Model, error) {
	dir, err := FindData()
	if err != nil {
		return nil, err
	}
	return Load(dir)
})

func testModel(t *testing.T) *Model {
	t.Helper()
	m, err := model()
	if errors.Is(err, ErrNoData) {
		t.Skipf("the shared data is absent (%v): it lives in ../shared/data beside the worktree", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func generate(t *testing.T, m *Model, o Options) []Page {
	t.Helper()
	seq, err := m.Pages(o)
	if err != nil {
		t.Fatal(err)
	}
	var ps []Page
	for p := range seq {
		ps = append(ps, p)
	}
	return ps
}

func fingerprint(ps []Page) uint64 {
	h := fnv.New64a()
	for _, p := range ps {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", p.ID, p.URL, p.Title, p.Text, p.Cluster)
	}
	return h.Sum64()
}

func TestDeterministic(t *testing.T) {
	m := testModel(t)
	o := DefaultOptions(500)
	a, b := generate(t, m, o), generate(t, m, o)
	if got, want := fingerprint(b), fingerprint(a); got != want {
		t.Errorf("second pass: fingerprint %x, want %x (the same pages)", got, want)
	}
	o.Seed = 2
	if fingerprint(generate(t, m, o)) == fingerprint(a) {
		t.Error("seeds 1 and 2 gave the same pages")
	}
	// A longer corpus starts with the shorter one: pages do not depend on N.
	o.Seed, o.Pages = 1, 200
	if got, want := fingerprint(generate(t, m, o)), fingerprint(a[:200]); got != want {
		t.Errorf("first 200 pages of 200: fingerprint %x, want %x (those of 500)", got, want)
	}
}

func TestEarlyStop(t *testing.T) {
	m := testModel(t)
	seq, err := m.Pages(DefaultOptions(1000))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range seq {
		if n++; n == 10 {
			break
		}
	}
	if n != 10 {
		t.Errorf("got %d pages before breaking, want 10", n)
	}
}

func TestProperties(t *testing.T) {
	m := testModel(t)
	tests := []struct {
		name     string
		pages    int
		dupShare float64
		minSites int
	}{
		{"default share", 4000, 0.3, 97},
		{"no copies", 1000, 0, 64},
		{"many copies", 1000, 0.6, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions(tt.pages)
			o.DupShare = tt.dupShare
			ps := generate(t, m, o)
			if len(ps) != tt.pages {
				t.Fatalf("got %d pages, want %d", len(ps), tt.pages)
			}
			var st Stats
			hosts := map[string]bool{}
			ids := map[string]bool{}
			origin := map[string]int{} // cluster -> position of its original
			far := 0
			for k, p := range ps {
				st.Count(p, hosts)
				if ids[p.ID] {
					t.Fatalf("id %s twice", p.ID)
				}
				ids[p.ID] = true
				j, seen := origin[p.Cluster]
				if p.Copy != seen {
					t.Fatalf("%s: copy %v, but its cluster %s was seen before: %v", p.ID, p.Copy, p.Cluster, seen)
				}
				if !seen {
					origin[p.Cluster] = k
				} else if k-j > 2*o.Recent {
					far++
				}
				if p.Lang != "en" && p.Lang != "zh" || p.Title == "" || p.URL == "" || len(p.body) == 0 {
					t.Fatalf("%s: incomplete page %+v", p.ID, p)
				}
			}
			share := func(n int) float64 { return float64(n) / float64(st.Pages) }
			checks := []struct {
				what      string
				got, want float64
				tol       float64
			}{
				{"copy share", share(st.Copies), tt.dupShare, 0.03},
				{"Chinese share", share(st.Chinese), 0.5, 0.05},
				{"mean text KB", float64(st.TextBytes) / float64(st.Pages) / 1024, 2, 0.4},
			}
			for _, c := range checks {
				if c.got < c.want-c.tol || c.got > c.want+c.tol {
					t.Errorf("%s: got %.3f, want %.3f ± %.3f", c.what, c.got, c.want, c.tol)
				}
			}
			if st.Sites < tt.minSites {
				t.Errorf("got %d sites, want at least %d", st.Sites, tt.minSites)
			}
			if st.Clusters+st.Copies != st.Pages {
				t.Errorf("clusters %d + copies %d != pages %d", st.Clusters, st.Copies, st.Pages)
			}
			if tt.dupShare > 0 && tt.pages >= 4000 && far == 0 {
				t.Error("no copy of an article far back")
			}
		})
	}
}

// TestLabels checks that the labels file agrees with the pages written.
func TestLabels(t *testing.T) {
	m := testModel(t)
	seq, err := m.Pages(DefaultOptions(300))
	if err != nil {
		t.Fatal(err)
	}
	var pages, labels bytes.Buffer
	clusters := map[string]string{}
	st, err := WriteJSONL(seq, &pages, &labels, func(p Page) { clusters[p.ID] = p.Cluster })
	if err != nil {
		t.Fatal(err)
	}
	gold, err := eval.ReadLabels(&labels, "labels")
	if err != nil {
		t.Fatal(err)
	}
	if len(gold) != st.Pages || len(clusters) != st.Pages {
		t.Fatalf("labels %d, pages seen %d, want %d", len(gold), len(clusters), st.Pages)
	}
	for id, c := range clusters {
		if gold[id] != c {
			t.Errorf("%s: label %q, want %q", id, gold[id], c)
		}
	}
	if got := bytes.Count(pages.Bytes(), []byte("\n")); got != st.Pages {
		t.Errorf("got %d page lines, want %d", got, st.Pages)
	}
	if s := eval.Score(gold, gold); s.GoldPairs == 0 {
		t.Error("no duplicate pairs among 300 pages")
	}
}

// shingles are the word 3-grams (English) or character 4-grams (Chinese)
// of an article body.
func shingles(p Page) map[string]bool {
	out := map[string]bool{}
	text := strings.Join(p.body, " ")
	if p.Lang == "zh" {
		rs := []rune(zhHalf.Replace(text))
		for i := 0; i+4 <= len(rs); i++ {
			out[string(rs[i:i+4])] = true
		}
		return out
	}
	ws := strings.Fields(strings.ToLower(enStraight.Replace(text)))
	for i := 0; i+3 <= len(ws); i++ {
		out[strings.Join(ws[i:i+3], " ")] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for s := range a {
		if b[s] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// TestNearDuplicates checks that copies stay close to their original and
// that different articles share little text: sentences are not recycled.
func TestNearDuplicates(t *testing.T) {
	m := testModel(t)
	ps := generate(t, m, DefaultOptions(1500))
	orig := map[string]Page{}
	var low []float64
	copies := 0
	for _, p := range ps {
		if !p.Copy {
			orig[p.Cluster] = p
			continue
		}
		copies++
		if j := jaccard(shingles(p), shingles(orig[p.Cluster])); j < 0.3 {
			low = append(low, j)
		}
	}
	if len(low)*20 > copies {
		t.Errorf("%d of %d copies share less than 30%% of their original's shingles: %v", len(low), copies, low)
	}
	// Consecutive originals of one language: unrelated articles.
	prev := map[string]Page{}
	worst := 0.0
	for _, p := range ps {
		if p.Copy {
			continue
		}
		if q, ok := prev[p.Lang]; ok {
			worst = max(worst, jaccard(shingles(p), shingles(q)))
		}
		prev[p.Lang] = p
	}
	if worst > 0.1 {
		t.Errorf("two different articles share %.2f of their shingles, want at most 0.1", worst)
	}
	// A sentence of an original recurs in other articles rarely.
	seen := map[string]string{}
	total, repeated := 0, 0
	for _, p := range orig {
		for _, para := range p.body {
			for _, s := range strings.FieldsFunc(para, func(r rune) bool { return r == '。' || r == '.' }) {
				if utf8.RuneCountInString(s) < 25 {
					continue
				}
				total++
				if c, ok := seen[s]; ok && c != p.Cluster {
					repeated++
				}
				seen[s] = p.Cluster
			}
		}
	}
	if total == 0 || repeated*20 > total {
		t.Errorf("%d of %d sentences recur in another article, want under 5%%", repeated, total)
	}
}

func TestOptionsRejected(t *testing.T) {
	m := testModel(t)
	tests := []struct {
		name string
		edit func(*Options)
	}{
		{"negative pages", func(o *Options) { o.Pages = -1 }},
		{"share above 1", func(o *Options) { o.DupShare = 1.5 }},
		{"one site", func(o *Options) { o.Sites = 1 }},
		{"tiny pages", func(o *Options) { o.TextBytes = 10 }},
		{"no recent window", func(o *Options) { o.Recent = 0 }},
		{"negative quote share", func(o *Options) { o.QuoteShare = -0.1 }},
		{"whole share above 1", func(o *Options) { o.WholeShare = 1.5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions(10)
			tt.edit(&o)
			if _, err := m.Pages(o); !errors.Is(err, ErrOptions) {
				t.Errorf("got %v, want ErrOptions", err)
			}
		})
	}
}

func TestQueries(t *testing.T) {
	m := testModel(t)
	o := DefaultOptions(1000)
	seq, err := m.Pages(o)
	if err != nil {
		t.Fatal(err)
	}
	qs := NewQuerySampler(50, o.Pages, 1)
	text := map[string]string{}
	for p := range seq {
		qs.Offer(p)
		text[p.ID] = strings.ToLower(p.Text)
	}
	got := qs.Queries()
	if len(got) != 50 {
		t.Fatalf("got %d queries, want 50", len(got))
	}
	langs := map[string]int{}
	for _, q := range got {
		langs[q.Lang]++
		terms := strings.Fields(q.Text)
		if len(terms) < 1 || len(terms) > 3 {
			t.Errorf("%q: %d terms, want 1 to 3", q.Text, len(terms))
		}
		for _, term := range terms {
			if !strings.Contains(text[q.From], term) {
				t.Errorf("%q: %q is not in page %s", q.Text, term, q.From)
			}
		}
	}
	if langs["en"] < 10 || langs["zh"] < 10 {
		t.Errorf("queries per language %v, want a mix", langs)
	}
}

func TestFindData(t *testing.T) {
	dir, err := FindData()
	if errors.Is(err, ErrNoData) {
		t.Skip("the shared data is absent")
	}
	if err != nil || !strings.HasSuffix(dir, "shared/data") {
		t.Errorf("FindData() = %q, %v; want a shared/data directory", dir, err)
	}
}

func TestPageSeq(t *testing.T) {
	m := testModel(t)
	seq, err := m.Pages(DefaultOptions(20))
	if err != nil {
		t.Fatal(err)
	}
	want := generate(t, m, DefaultOptions(20))
	i := 0
	for p, err := range PageSeq(seq) {
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		if p.ID != w.ID || p.URL != w.URL || p.Title != w.Title || p.Text != w.Text || p.HTML != "" {
			t.Errorf("page %d: got %+v, want the fields of %s", i, p, w.ID)
		}
		i++
	}
	if i != len(want) {
		t.Errorf("got %d pages, want %d", i, len(want))
	}
}

// TestChainsAndSkew: with Skew some articles gather many copies, and with
// ChainShare copies of copies drift from the original.
func TestChainsAndSkew(t *testing.T) {
	m := testModel(t)
	largest := func(o Options) int {
		n := map[string]int{}
		pages, err := m.Pages(o)
		if err != nil {
			t.Fatal(err)
		}
		for p := range pages {
			n[p.Cluster]++
		}
		best := 0
		for _, c := range n {
			best = max(best, c)
		}
		return best
	}
	o := DefaultOptions(3000)
	flat := largest(o)
	o.Skew, o.ChainShare = 1.2, 0.5
	if skewed := largest(o); skewed < 10 || skewed <= flat {
		t.Errorf("largest cluster %d with skew, %d without; want 10 or more, and more than without", skewed, flat)
	}
}
