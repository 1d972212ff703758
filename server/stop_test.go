package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// TestServeStop stops a server while a client is in the middle of an
// ingest, its body open but silent: the ingest is cut and answered with
// what was kept, Serve returns nil well within ShutdownTimeout, no new
// connection is taken, and the index holds what the answer counted.
func TestServeStop(t *testing.T) {
	ix, s := testindex.IngestServer(t, func(in *server.Ingest) { in.Run.FlushAfter = 50 * time.Millisecond })
	addr, stop := serve(t, s)
	pr, pw := io.Pipe()
	defer pw.Close()
	answer := make(chan *http.Response, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/api/ingest", "application/x-ndjson", pr)
		if err != nil {
			t.Error(err)
		}
		answer <- resp
	}()
	for i, topic := range []string{"river", "forest", "harbour"} {
		fmt.Fprintf(pw, "{\"id\":\"p%d\",\"text\":%q}\n", i, articleText(topic))
	}
	if !eventually(t, "http://"+addr+"/api/ingest", `"indexed":3`, 5*time.Second) {
		t.Fatal("the pages sent were not indexed")
	}
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	var resp *http.Response
	select {
	case resp = <-answer:
	case <-time.After(5 * time.Second):
		t.Fatal("the ingest was not answered within 5s of the stop")
	}
	var sum server.IngestSummary
	err := json.NewDecoder(resp.Body).Decode(&sum)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!sum.CutShort || sum.Read != 3 || sum.Indexed != 3 || !strings.Contains(sum.Error, "stopping") {
		t.Errorf("the ingest's answer: %d Retry-After %q %+v %v; want 503 with Retry-After, cut short, 3 read and indexed",
			resp.StatusCode, resp.Header.Get("Retry-After"), sum, err)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Serve returned %v, want nil", err)
		}
	case <-time.After(server.DefaultOptions().ShutdownTimeout):
		t.Fatal("Serve did not return within ShutdownTimeout")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the stop took %v, want under 2s", d)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("a connection was taken after the stop")
	}
	if n, _ := ix.Unwrap().DocCount(); n != uint64(sum.Indexed) {
		t.Errorf("the index holds %d documents, the answer said %d", n, sum.Indexed)
	}
}

// slowStop is an ingester whose run, once cut, ends only when release is
// closed: the server is stopping meanwhile.
type slowStop struct{ cut, release chan struct{} }

func (s *slowStop) IndexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o indexer.RunOptions) (indexer.Stats, error) {
	for range pages {
	}
	<-ctx.Done()
	close(s.cut)
	<-s.release
	return indexer.Stats{}, ctx.Err()
}

// TestServeStopRefusesNewRequests: while a stop waits for the requests
// running, a new one gets 503 with Retry-After and the connection closed.
func TestServeStopRefusesNewRequests(t *testing.T) {
	ing := &slowStop{cut: make(chan struct{}), release: make(chan struct{})}
	_, s := testindex.IngestServer(t, func(in *server.Ingest) { in.Index = ing })
	addr, stop := serve(t, s)
	go http.Post("http://"+addr+"/api/ingest", "application/x-ndjson", strings.NewReader("{}\n"))
	if !eventually(t, "http://"+addr+"/api/ingest", `"running":true`, 2*time.Second) {
		t.Fatal("the run did not start")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	<-ing.cut
	resp := raw(t, addr, "GET /api/search?q=bees HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !resp.Close {
		t.Errorf("a request during the stop: %d Retry-After %q close %v, want 503, Retry-After, and the connection closed",
			resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close)
	}
	checkSecurityHeaders(t, "503", resp)
	close(ing.release)
	if err := <-stopped; err != nil {
		t.Errorf("Serve returned %v, want nil", err)
	}
}

// waitingIngester reads every page, then waits for its context to end.
type waitingIngester struct{ ended chan struct{} }

func (w *waitingIngester) IndexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o indexer.RunOptions) (indexer.Stats, error) {
	var st indexer.Stats
	for range pages {
		st.Read++
	}
	<-ctx.Done()
	close(w.ended)
	return st, ctx.Err()
}

// TestIngestClientGone: the ingest slot is freed soon after its client
// goes away, whether the body was all sent, cut, or left silent.
func TestIngestClientGone(t *testing.T) {
	line := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n", articleText("river"))
	tests := []struct {
		name    string
		waiting bool   // the run goes on after the body ends, until its context ends
		body    string // sent after the header
		length  int    // Content-Length
		close   bool   // the client closes the connection after the body
	}{
		{"body all sent, then gone", true, line, len(line), true},
		{"gone in the middle of the body", false, line, len(line) + 1000, true},
		{"silent in the middle of the body", false, line, len(line) + 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &waitingIngester{ended: make(chan struct{})}
			_, s := testindex.IngestServer(t, func(in *server.Ingest) {
				in.IdleTimeout = 300 * time.Millisecond
				if tt.waiting {
					in.Index = w
				}
			})
			addr, _ := serve(t, s)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /api/ingest HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n%s", addr, tt.length, tt.body)
			if !eventually(t, "http://"+addr+"/api/ingest", `"running":true`, 2*time.Second) {
				t.Fatal("the run did not start")
			}
			if tt.close {
				c.Close()
			}
			if tt.waiting {
				select {
				case <-w.ended:
				case <-time.After(2 * time.Second):
					t.Fatal("the run went on 2s after its client left")
				}
			}
			if !eventually(t, "http://"+addr+"/api/ingest", `"running":false`, 2*time.Second) {
				t.Fatal("the slot was held 2s after the client left")
			}
		})
	}
}

// endlessPages is a JSONL body that never ends: a client still sending
// when the server stops.
type endlessPages struct {
	n   int
	buf []byte
}

func (e *endlessPages) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		e.n++
		e.buf = fmt.Appendf(nil, "{\"id\":\"p%d\",\"text\":%q}\n", e.n, articleText(fmt.Sprintf("topic %d", e.n)))
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// TestServeStopWhileSending: a client still sending its body when the
// server stops gets the summary of what was kept, not a connection reset,
// whether it sent Expect: 100-continue (as bleve-dedup's client does) or
// not, wherever in the run the stop falls.
func TestServeStopWhileSending(t *testing.T) {
	for _, expect := range []bool{false, true} {
		for i := range 3 {
			ix, s := testindex.IngestServer(t, func(in *server.Ingest) { in.Run.FlushAfter = 50 * time.Millisecond })
			addr, stop := serve(t, s)
			answer := make(chan error, 1)
			var sum server.IngestSummary
			var status int
			go func() {
				tr := http.DefaultTransport.(*http.Transport).Clone()
				tr.ExpectContinueTimeout = 10 * time.Second
				req, _ := http.NewRequest("POST", "http://"+addr+"/api/ingest", &endlessPages{})
				req.Header.Set("Content-Type", "application/x-ndjson")
				if expect {
					req.Header.Set("Expect", "100-continue")
				}
				resp, err := (&http.Client{Transport: tr}).Do(req)
				if err == nil {
					status = resp.StatusCode
					err = json.NewDecoder(resp.Body).Decode(&sum)
					resp.Body.Close()
				}
				answer <- err
			}()
			if !eventually(t, "http://"+addr+"/api/ingest", `"running":true,"received":`, 5*time.Second) {
				t.Fatal("the run did not start")
			}
			time.Sleep(time.Duration(i) * 300 * time.Millisecond)
			if err := stop(); err != nil {
				t.Errorf("Serve returned %v", err)
			}
			if err := <-answer; err != nil || status != http.StatusServiceUnavailable || !sum.CutShort {
				t.Fatalf("expect %v, stop %d: the client got %d %+v, %v; want 503 and the summary", expect, i, status, sum, err)
			}
			if n, _ := ix.Unwrap().DocCount(); n != uint64(sum.Indexed) {
				t.Errorf("expect %v, stop %d: the index holds %d documents, the answer said %d", expect, i, n, sum.Indexed)
			}
		}
	}
}
