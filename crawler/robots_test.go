package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseRobots(t *testing.T) {
	const file = `# comment
User-agent: BadBot
Disallow: /

User-agent: bleve-dedup-crawler
User-agent: other
Disallow: /private/
Allow: /private/open
Disallow: /*.pdf$
Disallow: /search*q=
Crawl-delay: 2.5

User-agent: *
Disallow: /tmp/
Disallow:
`
	ours := ParseRobots([]byte(file), "bleve-dedup-crawler/1.0")
	star := ParseRobots([]byte(file), "SomeBrowser/5.0")
	bad := ParseRobots([]byte(file), "BadBot")
	tests := []struct {
		name string
		r    *Robots
		path string
		want bool
	}{
		{"ours: open", ours, "/index.html", true},
		{"ours: disallowed dir", ours, "/private/x", false},
		{"ours: longer allow wins", ours, "/private/open/doc", true},
		{"ours: star group not used", ours, "/tmp/x", true},
		{"ours: $ anchors", ours, "/files/a.pdf", false},
		{"ours: $ needs end", ours, "/files/a.pdf?x=1", true},
		{"ours: * in middle", ours, "/search/all?q=fish", false},
		{"ours: * no match", ours, "/search/all?p=fish", true},
		{"ours: robots.txt itself", ours, "/robots.txt", true},
		{"star: tmp", star, "/tmp/x", false},
		{"star: private ok", star, "/private/x", true},
		{"bad: everything", bad, "/anything", false},
	}
	for _, tt := range tests {
		if got := tt.r.Allowed(tt.path); got != tt.want {
			t.Errorf("%s: Allowed(%q) = %v, want %v", tt.name, tt.path, got, tt.want)
		}
	}
	if got, want := ours.Delay, 2500*time.Millisecond; got != want {
		t.Errorf("Crawl-delay = %v, want %v", got, want)
	}
	if star.Delay != 0 {
		t.Errorf("star Crawl-delay = %v, want 0", star.Delay)
	}
}

func TestRobotsEdgeCases(t *testing.T) {
	tests := []struct {
		name, file, path string
		want             bool
	}{
		{"empty file", "", "/x", true},
		{"no groups", "Disallow: /", "/x", true},
		{"tie allow wins", "User-agent: *\nDisallow: /a\nAllow: /a", "/a", true},
		{"case-insensitive keys", "USER-AGENT: *\nDISALLOW: /a", "/a/b", false},
		{"crlf", "User-agent: *\r\nDisallow: /a\r\n", "/a", false},
		{"path case matters", "User-agent: *\nDisallow: /A", "/a", true},
		{"bad crawl-delay ignored", "User-agent: *\nCrawl-delay: soon\nDisallow: /a", "/a", false},
	}
	for _, tt := range tests {
		if got := ParseRobots([]byte(tt.file), "x").Allowed(tt.path); got != tt.want {
			t.Errorf("%s: Allowed(%q) = %v, want %v", tt.name, tt.path, got, tt.want)
		}
	}
	var zero *Robots
	if !zero.Allowed("/x") {
		t.Error("nil Robots must allow everything")
	}
}

func TestRobotsHostile(t *testing.T) {
	// A huge file of wildcard rules parses and matches in bounded time.
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for range 200000 {
		b.WriteString("Disallow: /*a*a*a*a*a*b$\n")
	}
	b.WriteString("Disallow: /late\n") // past the line limit: ignored
	r := ParseRobots([]byte(b.String()), "x")
	if len(r.rules) >= maxRobotsLines {
		t.Errorf("kept %d rules, want fewer than %d", len(r.rules), maxRobotsLines)
	}
	if !r.Allowed("/late") {
		t.Error("rule past the line limit was used")
	}
	if r.Allowed("/" + strings.Repeat("a", 100) + "b") {
		t.Error("wildcard rule did not match")
	}
}

func FuzzParseRobots(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /a*b$\nAllow: /a\nCrawl-delay: 1"), "/ab")
	f.Add([]byte("User-agent: x\n\nDisallow: /"), "/")
	f.Fuzz(func(t *testing.T, file []byte, path string) {
		r := ParseRobots(file, "bleve-dedup-crawler/1.0")
		r.Allowed(path)
		if r.Delay < 0 {
			t.Fatalf("negative delay %v", r.Delay)
		}
	})
}

func TestRobotsCache(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /moved\n")
	}))
	defer other.Close()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		path    string
		want    bool
		fetches int32 // of three calls: a failure is fetched again
	}{
		{"missing allows all", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "/x", true, 1},
		{"server error is unreachable", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 503) }, "/x", false, 3},
		{"redirect to another host followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/robots.txt", http.StatusMovedPermanently)
		}, "/moved", false, 1},
		{"rules applied", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nDisallow: /x\n") }, "/x", false, 1},
	}
	for _, tt := range tests {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			tt.handler(w, r)
		}))
		o := DefaultOptions("unused")
		rc := robotsCache{fetcher: newFetcher(o, func(string) bool { return false }), userAgent: o.UserAgent}
		for range 3 {
			rb, err := rc.get(context.Background(), srv.URL+tt.path)
			if tt.fetches > 1 {
				if !errors.Is(err, ErrUnreachable) || rb != nil {
					t.Errorf("%s: get = %v, %v; want nil, ErrUnreachable", tt.name, rb, err)
				}
				continue
			}
			if got := rb.Allowed(tt.path); err != nil || got != tt.want {
				t.Errorf("%s: Allowed(%s) = %v (error %v), want %v", tt.name, tt.path, got, err, tt.want)
			}
		}
		if n := hits.Load(); n != tt.fetches {
			t.Errorf("%s: robots.txt fetched %d times, want %d", tt.name, n, tt.fetches)
		}
		srv.Close()
	}
	// A server that does not answer at all.
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	o := DefaultOptions("unused")
	rc := robotsCache{fetcher: newFetcher(o, func(string) bool { return false }), userAgent: o.UserAgent}
	if rb, err := rc.get(context.Background(), srv.URL+"/x"); !errors.Is(err, ErrUnreachable) || rb != nil {
		t.Errorf("closed server: get = %v, %v; want nil, ErrUnreachable", rb, err)
	}
}

func TestCrawlDelayHonoured(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.1\n")
			return
		}
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p"))
		fmt.Fprintf(w, `<title>fish %d</title><p>fish fins</p><a href="/p%d">fish</a><a href="/p%d">fish</a>`, n, n+1, n+2)
	}))
	defer srv.Close()
	o := testOptions(t, srv.URL+"/p0", fishProfile(t))
	o.Workers, o.MaxPages = 4, 5
	crawlRecords(t, o)
	// The delay is learnt when the first page is recorded, after the
	// second may have been sent: check the gaps from the second page on.
	for i := 2; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 80*time.Millisecond {
			t.Errorf("pages %d and %d %v apart, want the Crawl-delay 100ms", i-1, i, gap)
		}
	}
}
