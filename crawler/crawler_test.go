package crawler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// urlsOf returns the set of record URLs, failing on a URL fetched twice.
func urlsOf(tb testing.TB, recs []Record) map[string]bool {
	tb.Helper()
	set := make(map[string]bool)
	for _, r := range recs {
		if set[r.URL] {
			tb.Errorf("%s fetched twice", r.URL)
		}
		set[r.URL] = true
	}
	return set
}

func TestCrawlTinyWeb(t *testing.T) {
	w, base := serve(t, tinyDocs(), testweb.Options{Seed: 1, OutLinks: 4, Duplicates: 6})
	for _, s := range []Strategy{BestFirst, BreadthFirst} {
		o := testOptions(t, base+"/", fishProfile(t))
		o.Strategy = s
		recs, c := crawlRecords(t, o)
		urlsOf(t, recs)
		// Every page is reachable from the home page in this web.
		if got, want := len(recs), len(w.Pages)+1; got != want {
			t.Errorf("%v: fetched %d pages, want %d (all pages and the home)", s, got, want)
		}
		rel, dups := 0, 0
		for _, r := range recs {
			p := w.Page(strings.TrimPrefix(r.URL, base))
			if r.URL == base+"/" {
				continue
			}
			if p == nil {
				t.Errorf("%v: fetched %s, not a page (canonicalisation failed?)", s, r.URL)
				continue
			}
			if r.Relevant != (p.Topic == "fish") {
				t.Errorf("%v: %s relevant = %v (%.2f), label %q", s, r.URL, r.Relevant, r.Relevance, p.Topic)
			}
			if r.Relevant {
				rel++
			}
			if r.DuplicateOf != "" {
				dups++
				if d := w.Page(strings.TrimPrefix(r.DuplicateOf, base)); d == nil || d.Title != p.Title {
					t.Errorf("%v: %s duplicate of %s, a different page", s, r.URL, r.DuplicateOf)
				}
			}
		}
		sum, _ := c.Run(context.Background()) // nothing left: returns at once
		if sum.Fetched != len(recs) || sum.Relevant != rel || sum.Duplicates != dups || sum.Errors != 0 || sum.Frontier != 0 {
			t.Errorf("%v: summary %+v, want fetched %d relevant %d duplicates %d", s, sum, len(recs), rel, dups)
		}
		if dups == 0 {
			t.Errorf("%v: no duplicate found; the web has mirror copies of mirrors' originals", s)
		}
	}
}

func TestBestFirstFindsTopicEarlier(t *testing.T) {
	_, base := serve(t, tinyDocs(), testweb.Options{Seed: 3, OutLinks: 3, Duplicates: 1, HomeLinks: 6})
	first := map[Strategy]float64{}
	for _, s := range []Strategy{BestFirst, BreadthFirst} {
		o := testOptions(t, base+"/", fishProfile(t))
		o.Strategy, o.Workers = s, 1
		recs, _ := crawlRecords(t, o)
		first[s] = harvestAt(recs, 8)
	}
	if first[BestFirst] <= first[BreadthFirst] {
		t.Errorf("harvest after 8 pages: best-first %.2f, breadth-first %.2f; want best-first higher", first[BestFirst], first[BreadthFirst])
	}
}

func TestResumeAfterStop(t *testing.T) {
	_, base := serve(t, tinyDocs(), testweb.Options{Seed: 5, OutLinks: 4, Duplicates: 3})
	full, _ := crawlRecords(t, testOptions(t, base+"/", fishProfile(t)))

	o := testOptions(t, base+"/", fishProfile(t))
	o.Workers = 2
	ctx, cancel := context.WithCancel(context.Background())
	var first []Record
	o.OnPage = func(r Record) {
		first = append(first, r)
		if len(first) == 5 {
			cancel() // as SIGINT does in the command
		}
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v, want context.Canceled", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if len(first) < 5 || len(first) >= len(full) {
		t.Fatalf("first run fetched %d pages, want 5 to %d", len(first), len(full)-1)
	}

	o.Seeds = []string{base + "/never-fetched"} // ignored: the store exists
	var second []Record
	o.OnPage = func(r Record) { second = append(second, r) }
	c, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sum, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := urlsOf(t, append(slices.Clone(first), second...))
	want := urlsOf(t, full)
	if !maps.Equal(got, want) {
		t.Errorf("stopped+resumed crawl fetched %d pages, uninterrupted %d; want the same set", len(got), len(want))
	}
	if sum.Fetched != len(full) || sum.RunFetched != len(second) {
		t.Errorf("summary fetched %d (this run %d), want %d (%d)", sum.Fetched, sum.RunFetched, len(full), len(second))
	}
}

func TestResumeKeepsLearntWeights(t *testing.T) {
	_, base := serve(t, tinyDocs(), testweb.Options{Seed: 2, OutLinks: 4, Duplicates: 1})
	o := testOptions(t, base+"/", fishProfile(t))
	o.MaxPages = 10
	_, c := crawlRecords(t, o)
	learnt := c.LinkScorer().Weights()
	n := c.LinkScorer().Observations()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := c2.LinkScorer().Weights(); got != learnt || c2.LinkScorer().Observations() != n || n == 0 {
		t.Errorf("reopened weights %+v (%d observations), want %+v (%d)", got, c2.LinkScorer().Observations(), learnt, n)
	}
}

func TestPoliteness(t *testing.T) {
	w, base := serve(t, tinyDocs(), testweb.Options{Seed: 4, OutLinks: 4, Duplicates: 1})
	o := testOptions(t, base+"/", fishProfile(t))
	o.Workers = 8
	o.MaxPages = 6
	o.Robots = false
	o.Delay = 80 * time.Millisecond
	start := time.Now()
	crawlRecords(t, o)
	if el := time.Since(start); el < 5*o.Delay {
		t.Errorf("6 pages in %v, want at least 5 delays (%v)", el, 5*o.Delay)
	}
	hits := w.Log()
	for i := 1; i < len(hits); i++ {
		// Requests start at least Delay apart; allow for scheduling jitter
		// between dispatch and the server seeing the request.
		if gap := hits[i].At.Sub(hits[i-1].At); gap < o.Delay-20*time.Millisecond {
			t.Errorf("requests %d and %d to one host %v apart, want about %v", i-1, i, gap, o.Delay)
		}
	}
}

func TestHostileSite(t *testing.T) {
	w, base := serve(t, tinyDocs(), testweb.Options{Seed: 6, OutLinks: 3, Duplicates: 1, Hostile: true, SlowDelay: 5 * time.Second})
	o := testOptions(t, base+"/", fishProfile(t))
	o.ReadTimeout = 300 * time.Millisecond
	o.MaxLinks = 100
	o.MaxDepth = 4
	o.MaxPages = 400
	o.Workers = 4
	start := time.Now()
	recs, c := crawlRecords(t, o)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("hostile crawl took %v; the time-outs should bound it", el)
	}
	byPath := make(map[string]Record)
	for _, r := range recs {
		byPath[strings.TrimPrefix(r.URL, base)] = r
		if r.Depth > o.MaxDepth {
			t.Errorf("%s fetched at depth %d > %d", r.URL, r.Depth, o.MaxDepth)
		}
		if r.Links > o.MaxLinks {
			t.Errorf("%s added %d links > %d", r.URL, r.Links, o.MaxLinks)
		}
	}
	tests := []struct {
		path   string
		want   error
		status int
	}{
		{"/hostile/big", ErrTooLarge, 200},
		{"/hostile/loop/a", ErrTooManyRedirects, 0},
		{"/hostile/offsite", ErrOffSite, 0},
		{"/hostile/image.png", ErrNotHTML, 200},
		{"/hostile/slow", context.DeadlineExceeded, 200},
		{"/hostile/error", ErrHTTPStatus, 500},
	}
	for _, tt := range tests {
		r, ok := byPath[tt.path]
		if !ok {
			t.Errorf("%s not fetched", tt.path)
			continue
		}
		if !errors.Is(r.Err, tt.want) || r.Status != tt.status {
			t.Errorf("%s: status %d error %v, want %d and %v", tt.path, r.Status, r.Err, tt.status, tt.want)
		}
	}
	if r := byPath["/hostile/attr"]; r.Err != nil || r.Status != 200 {
		t.Errorf("huge-attribute page: %+v, want fetched without error", r)
	}
	if n := w.Hits("/private/secret"); n != 0 {
		t.Errorf("robots.txt-disallowed page fetched %d times", n)
	}
	sum, _ := c.Run(context.Background())
	if sum.Disallowed == 0 || sum.Errors < len(tests) {
		t.Errorf("summary %+v: want disallowed > 0 and errors >= %d", sum, len(tests))
	}
	trap := 0
	for p := range byPath {
		if strings.HasPrefix(p, "/hostile/trap/") {
			trap++
		}
	}
	// Each trap page links to two new ones; only the depth limit stops it.
	if trap >= 1<<o.MaxDepth {
		t.Errorf("fetched %d trap pages, want fewer than 2^MaxDepth = %d", trap, 1<<o.MaxDepth)
	}
}

func TestIndexesRelevantPages(t *testing.T) {
	_, base := serve(t, tinyDocs(), testweb.Options{Seed: 8, OutLinks: 4, Duplicates: 4})
	ix, err := indexer.Open(t.TempDir(), indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	o := testOptions(t, base+"/", fishProfile(t))
	feed, err := ix.Feed(context.Background(), indexer.DefaultRunOptions())
	if err != nil {
		t.Fatal(err)
	}
	o.Index = feed
	recs, c := crawlRecords(t, o)
	sum, _ := c.Run(context.Background())
	if _, err := feed.Close(); err != nil {
		t.Fatal(err)
	}
	n, err := ix.Unwrap().DocCount()
	if err != nil {
		t.Fatal(err)
	}
	if int(n) != sum.Indexed || sum.Indexed == 0 {
		t.Errorf("bleve holds %d documents, summary says %d indexed", n, sum.Indexed)
	}
	lo := relevance.DefaultOptions().Threshold
	q := bleve.NewNumericRangeQuery(&lo, nil)
	q.SetField(FieldRelevance)
	res, err := ix.Unwrap().Search(bleve.NewSearchRequest(q))
	if err != nil {
		t.Fatal(err)
	}
	if int(res.Total) != sum.Indexed {
		t.Errorf("%d documents with relevance >= %v, want all %d indexed", res.Total, lo, sum.Indexed)
	}
	for _, r := range recs {
		if !r.Relevant && r.DuplicateOf == "" {
			if _, err := ix.Filter().Doc(r.URL); err == nil {
				t.Errorf("irrelevant page %s was indexed", r.URL)
			}
		}
	}
}

// TestRealWebDuplicates crawls the test web built from real pages with
// many mirrored articles and checks that the index's near-duplicate
// filter catches the relevant mirrors (a reprint line added, the last
// paragraph dropped) and flags nothing else.
func TestRealWebDuplicates(t *testing.T) {
	rw := loadRealWeb(t, testweb.Options{Seed: 11, Duplicates: 300})
	_, prof := rw.topic(t, "rail", 0)
	ix, err := indexer.Open(t.TempDir(), indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	feed, err := ix.Feed(context.Background(), indexer.DefaultRunOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	o := testOptions(t, rw.base+"/", prof)
	o.Index, o.MaxPages = feed, 400
	recs, _ := crawlRecords(t, o)
	fetched := make(map[string]Record)
	for _, r := range recs {
		fetched[strings.TrimPrefix(r.URL, rw.base)] = r
	}
	caught, missed := 0, 0
	for path, r := range fetched {
		p := rw.web.Page(path)
		if p == nil {
			continue
		}
		if r.DuplicateOf != "" {
			if d := rw.web.Page(strings.TrimPrefix(r.DuplicateOf, rw.base)); d == nil || d.Title != p.Title {
				t.Errorf("%s (%q) flagged as duplicate of %s, another article", path, p.Title, r.DuplicateOf)
			}
		}
		// A relevant mirror fetched with its original: one of the two must
		// be flagged, whichever came second.
		if p.DupOf == "" || !r.Relevant {
			continue
		}
		if o, ok := fetched[p.DupOf]; ok && o.Relevant {
			if r.DuplicateOf != "" || o.DuplicateOf != "" {
				caught++
			} else {
				missed++
				t.Logf("missed: %s (original %s)", path, p.DupOf)
			}
		}
	}
	t.Logf("%d pages fetched; relevant mirrors caught %d, missed %d", len(recs), caught, missed)
	if caught == 0 || missed > caught/4 {
		t.Errorf("caught %d relevant mirrors, missed %d; want most caught", caught, missed)
	}
}

// indexFunc is an Indexer calling a function.
type indexFunc func(indexer.Document) (dedupfilter.Decision, error)

func (f indexFunc) Add(_ context.Context, _ page.Page, d *indexer.Document) (dedupfilter.Decision, error) {
	return f(*d)
}

// TestRunAgainAfterStopInRedirect stops a run while a redirected page is
// processed (past the point where its target is marked seen) and runs the
// same crawler again: the page must be processed anew, not taken for a
// duplicate of its own redirect target.
func TestRunAgainAfterStopInRedirect(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/", http.RedirectHandler("/article", http.StatusFound))
	mux.HandleFunc("/article", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<title>Salmon fish</title><p>Salmon is a fish that swims in rivers and seas. The salmon fish has fins and scales.</p>")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	stop := true
	o := testOptions(t, srv.URL+"/", fishProfile(t))
	o.Workers = 1
	o.Index = indexFunc(func(indexer.Document) (dedupfilter.Decision, error) {
		if stop { // the first run stops here, the page being indexed
			stop = false
			cancel()
			time.Sleep(50 * time.Millisecond) // Run sees the cancellation first
		}
		return dedupfilter.Decision{}, nil
	})
	var recs []Record
	o.OnPage = func(r Record) { recs = append(recs, r) }
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v, want context.Canceled", err)
	}
	if len(recs) != 0 {
		t.Fatalf("first run recorded %+v, want nothing", recs)
	}
	sum, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].DuplicateOf != "" || sum.Indexed != 1 {
		t.Errorf("second run recorded %+v (indexed %d), want the page indexed", recs, sum.Indexed)
	}
}

// TestHubSignal crawls a site whose topical pages sit in a list whose
// text and anchors name no topic: once one page the home page led to
// proves relevant, the home page's links, and the list's links after
// them, rank above the off-topic links found as early.
func TestHubSignal(t *testing.T) {
	page := func(title, body string) string {
		return "<html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
	}
	var home, list strings.Builder
	home.WriteString(`<ul><li><a href="/e0">E0</a></li><li><a href="/list">List</a></li>`)
	for i := range 10 {
		fmt.Fprintf(&home, `<li><a href="/o%d">Other %d</a></li>`, i, i)
	}
	home.WriteString("</ul>")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&list, `<li><a href="/e%d">E%d</a></li>`, i, i)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/":
			fmt.Fprint(w, page("Home", home.String()))
		case p == "/list":
			fmt.Fprint(w, page("List", "<ul>"+list.String()+"</ul>"))
		case strings.HasPrefix(p, "/e"):
			fmt.Fprint(w, page(p, "<p>"+strings.Repeat("The fish swims with its fins and scales. ", 20)+"</p>"))
		case strings.HasPrefix(p, "/o"):
			fmt.Fprint(w, page(p, "<p>Opera, tennis and tea are the subjects of this page, at length.</p>"))
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	o := testOptions(t, srv.URL+"/", fishProfile(t))
	o.Workers, o.Learn = 1, false
	recs, _ := crawlRecords(t, o)
	var order []string
	lastEntry := 0
	for i, r := range recs {
		order = append(order, strings.TrimPrefix(r.URL, srv.URL))
		if strings.HasPrefix(order[i], "/e") {
			lastEntry = i
		}
	}
	others := 0
	for _, p := range order[:lastEntry] {
		if strings.HasPrefix(p, "/o") {
			others++
		}
	}
	if others > 2 {
		t.Errorf("%d off-topic pages fetched before the last list entry, want at most 2; order %v", others, order)
	}
}
