package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serveAfter serves h on addr from d on, until the test ends.
func serveAfter(tb testing.TB, addr string, h http.Handler, d time.Duration) {
	tb.Helper()
	srv := &http.Server{Addr: addr, Handler: h}
	up := make(chan struct{})
	go func() {
		defer close(up)
		time.Sleep(d)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			tb.Errorf("listen %s: %v", addr, err)
			return
		}
		go srv.Serve(ln)
	}()
	tb.Cleanup(func() {
		<-up
		srv.Close()
	})
}

// TestUnreachable starts crawls against servers that answer late, never,
// or refuse every page: a server up within RetryFor is crawled whole, and
// a crawl that reads no page ends with ErrNoPages and the reason.
func TestUnreachable(t *testing.T) {
	web := testweb.Build(tinyDocs(), testweb.Options{Seed: 1, Duplicates: -1})
	disallow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nDisallow: /\n"))
	})
	tests := []struct {
		name     string
		handler  http.Handler // nil: nothing ever listens
		after    time.Duration
		robots   bool
		wantErr  []error
		wantRead int // pages read at least
	}{
		{"server up a second late", web.Handler(), time.Second, true, nil, len(web.Pages)},
		{"server up late, robots off", web.Handler(), time.Second, false, nil, len(web.Pages)},
		{"no server", nil, 0, true, []error{ErrNoPages, ErrUnreachable}, 0},
		{"no server, robots off", nil, 0, false, []error{ErrNoPages, ErrUnreachable}, 0},
		{"robots.txt disallows all", disallow, 0, true, []error{ErrNoPages}, 0},
		{"seed missing", http.NotFoundHandler(), 0, false, []error{ErrNoPages, ErrHTTPStatus}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := freeAddr(t)
			if tt.handler != nil {
				serveAfter(t, addr, tt.handler, tt.after)
			}
			o := testOptions(t, "http://"+addr+"/", fishProfile(t))
			o.RetryFor, o.Robots, o.Workers = 3*time.Second, tt.robots, 2
			c, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			sum, err := c.Run(context.Background())
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("Run error %v, want %v", err, want)
				}
			}
			if tt.wantErr == nil && err != nil {
				t.Errorf("Run error %v, want none", err)
			}
			if read := sum.Fetched - sum.Errors; read < tt.wantRead {
				t.Errorf("read %d pages (%+v), want at least %d", read, sum, tt.wantRead)
			}
			if d := time.Since(start); d > o.RetryFor+5*time.Second {
				t.Errorf("crawl took %v, RetryFor %v", d, o.RetryFor)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	c := &Crawler{opts: Options{RetryFor: 5 * time.Second}, down: make(map[string]*outage)}
	var got []time.Duration
	for {
		d, ok := c.backoff("h:1", ErrUnreachable)
		if !ok {
			break
		}
		got = append(got, d.Round(100*time.Millisecond))
		c.down["h:1"].since = c.down["h:1"].since.Add(-d) // as if d had passed
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 1500 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("waits %v, want %v", got, want)
			break
		}
	}
	if _, ok := (&Crawler{down: make(map[string]*outage)}).backoff("h:1", ErrUnreachable); ok {
		t.Error("RetryFor 0 retries")
	}
}

// TestGiveUp checks that once a server has not answered for RetryFor,
// its other pages fail without contacting it again.
func TestGiveUp(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	o := testOptions(t, srv.URL+"/", fishProfile(t))
	for i := range 20 {
		o.Seeds = append(o.Seeds, fmt.Sprintf("%s/p%d", srv.URL, i))
	}
	o.RetryFor, o.Workers = time.Second, 1
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sum, err := c.Run(context.Background())
	if !errors.Is(err, ErrNoPages) || !errors.Is(err, ErrUnreachable) {
		t.Errorf("Run error %v, want ErrNoPages and ErrUnreachable", err)
	}
	if sum.Errors != 21 || sum.Disallowed != 0 {
		t.Errorf("summary %+v, want 21 errors", sum)
	}
	// Tries at 0, 0.5 and 1 s (the last at the bound), then none.
	if n := hits.Load(); n > 4 {
		t.Errorf("the server was tried %d times, want at most 4", n)
	}
}
