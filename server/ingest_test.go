package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// articleText is a paragraph of its own per topic: words drawn by a
// generator seeded with the topic.
func articleText(topic string) string {
	words := strings.Fields("river bridge school market harbour council budget teacher farmer winter storm railway museum library doctor nurse festival election court police garden factory engineer student village mountain forest lake island ferry airport tunnel highway bakery theatre concert painter writer novel poem science rocket planet ocean whale desert camel tiger panda")
	seed := uint64(14695981039346656037)
	for _, c := range topic {
		seed = (seed ^ uint64(c)) * 1099511628211
	}
	var b strings.Builder
	b.WriteString(topic)
	for w := range 80 {
		seed = seed*6364136223846793005 + 1442695040888963407
		b.WriteString(" " + words[(seed>>33)%uint64(len(words))])
		if w%10 == 9 {
			b.WriteString(".")
		}
	}
	return b.String()
}

func jsonlBody(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// warcResponse is one WARC response record of an HTML page at uri.
func warcResponse(uri, html string) []byte {
	return warcResponseOf(uri, "text/html; charset=utf-8", html)
}

// warcResponseOf is one WARC response record of a body of type ctype.
func warcResponseOf(uri, ctype, body string) []byte {
	http := "HTTP/1.1 200 OK\r\nContent-Type: " + ctype + "\r\n\r\n" + body
	return fmt.Appendf(nil, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08x-0000-0000-0000-000000000000>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: %s\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		len(uri), uri, len(http), http)
}

func TestIngest(t *testing.T) {
	pageLine := func(id, topic string) string {
		return fmt.Sprintf(`{"id":%q,"url":"http://example.com/%s","text":%q}`, id, id, articleText(topic))
	}
	jsonl := jsonlBody(pageLine("a", "river"), pageLine("a-copy", "river"), `{"id":"bad"}`, pageLine("b", "forest"))
	html := func(topic string) string {
		return "<html><body><article><p>" + articleText(topic) + "</p></article></body></html>"
	}
	w1, w2 := warcResponse("http://example.org/w1", html("mountain")), warcResponse("http://example.org/w2", html("island"))
	warc := slices.Concat(w1, w2)
	big := warcResponse("http://example.org/big", html("desert")+strings.Repeat(" ", 70000)) // over Pages.MaxBytes and the headroom: cut

	image := warcResponseOf("http://example.org/x.png", "image/png", strings.Repeat("\x89PNG", 20000))
	request := []byte("WARC/1.1\r\nWARC-Type: request\r\nWARC-Target-URI: http://example.org/w1\r\nContent-Length: 18\r\n\r\nGET / HTTP/1.1\r\n\r\n\r\n\r\n")
	noLength := []byte("WARC/1.1\r\nWARC-Type: response\r\n\r\nlost\r\n\r\n")
	tests := []struct {
		name        string
		method      string
		target      string
		contentType string
		encoding    string
		body        []byte
		maxBytes    int64
		maxPage     int64
		off         bool
		wantStatus  int
		want        string // substring of the answer
		wantDocs    uint64
	}{
		{"jsonl", "POST", "/api/ingest", "application/x-ndjson", "", jsonl, 0, 0, false, 200,
			`"read":4,"indexed":2,"duplicates":1,"kept_duplicates":0,"unchanged":0,"updated":0,"truncated":0,"not_html":0,"bad_status":0,"errors":1,"error_list":["page: body:3 (bad): neither html nor text: syntax error"]`, 2},
		{"jsonl gzip", "POST", "/api/ingest", "application/x-ndjson", "gzip", gzipped(jsonl), 0, 0, false, 200, `"read":4,"indexed":2`, 2},
		{"jsonl gzip, told by its bytes", "POST", "/api/ingest", "application/x-ndjson", "", gzipped(jsonl), 0, 0, false, 200, `"read":4,"indexed":2`, 2},
		{"warc", "POST", "/api/ingest", "application/warc", "", warc, 0, 0, false, 200, `"read":2,"indexed":2`, 2},
		{"warc gzip", "POST", "/api/ingest", "application/warc", "gzip", gzipped(warc), 0, 0, false, 200, `"read":2,"indexed":2`, 2},
		{"warc gzip a record a member", "POST", "/api/ingest", "application/warc", "", slices.Concat(gzipped(w1), gzipped(w2)), 0, 0, false, 200, `"read":2,"indexed":2`, 2},
		{"warc records that are not pages", "POST", "/api/ingest", "application/warc", "", slices.Concat(request, w1, image), 0, 0, false, 200,
			`"read":2,"indexed":1,"duplicates":0,"kept_duplicates":0,"unchanged":0,"updated":0,"truncated":0,"not_html":1`, 1},
		{"warc records over the page limit", "POST", "/api/ingest", "application/warc", "", slices.Concat(big, image, w1), 0, 1000, false, 200,
			`"read":3,"indexed":1,"duplicates":0,"kept_duplicates":0,"unchanged":0,"updated":0,"truncated":0,"not_html":1,"bad_status":0,"errors":1,"error_list":["page: body: record 1 at byte 0 (http://example.org/big): 66477 bytes, more than 1000: document too large"]`, 1},
		{"warc damaged between good records", "POST", "/api/ingest", "application/warc", "", slices.Concat(w1, noLength, []byte("junk\r\n"), w2), 0, 0, false, 200,
			fmt.Sprintf(`"read":3,"indexed":2,"duplicates":0,"kept_duplicates":0,"unchanged":0,"updated":0,"truncated":0,"not_html":0,"bad_status":0,"errors":1,"error_list":["page: body: record 2 at byte %d: no Content-Length: corrupt`, len(w1)), 2},
		{"warc cut inside a record", "POST", "/api/ingest", "application/warc", "", slices.Concat(w1, w2[:len(w2)-40]), 0, 0, false, 200,
			`"read":2,"indexed":1,"duplicates":0,"kept_duplicates":0,"unchanged":0,"updated":0,"truncated":0,"not_html":0,"bad_status":0,"errors":1,"error_list":["page: body: record 2 at byte`, 1},
		{"body over the limit keeps the pages before", "POST", "/api/ingest", "application/x-ndjson", "", jsonl, int64(len(jsonl) - 10), 0, false, 413,
			`"read":4,"indexed":1,"duplicates":1`, 1},
		{"warc over the limit keeps the records before", "POST", "/api/ingest", "application/warc", "", warc, int64(len(w1) + 100), 0, false, 413,
			`"read":2,"indexed":1`, 1},
		{"gzip over the limit once gunzipped", "POST", "/api/ingest", "application/x-ndjson", "gzip", gzipped(slices.Concat(jsonl, bytes.Repeat([]byte(" "), 1<<20))), 1 << 19, 0, false, 413,
			`http: request body too large`, 2},
		{"not WARC", "POST", "/api/ingest", "application/warc", "", make([]byte, 4096), 0, 0, false, 400, `body: starts with`, 0},
		{"not JSONL", "POST", "/api/ingest", "application/x-ndjson", "", []byte("id,text\nx,y\n"), 0, 0, false, 400, `not a JSON object`, 0},
		{"gzip inside gzip", "POST", "/api/ingest", "application/x-ndjson", "gzip", gzipped(gzipped(jsonl)), 0, 0, false, 400, `body: starts with`, 0},
		{"bad gzip", "POST", "/api/ingest", "application/x-ndjson", "gzip", jsonl, 0, 0, false, 400, `gzip: invalid header`, 0},
		{"empty", "POST", "/api/ingest", "application/warc", "", nil, 0, 0, false, 200, `"read":0`, 0},
		{"unknown type", "POST", "/api/ingest", "text/plain", "", jsonl, 0, 0, false, 415, `want application/x-ndjson`, 0},
		{"the type decides, not a parameter", "POST", "/api/ingest?format=jsonl", "application/octet-stream", "", jsonl, 0, 0, false, 415, `want application/x-ndjson`, 0},
		{"unknown encoding", "POST", "/api/ingest", "application/x-ndjson", "br", jsonl, 0, 0, false, 415, `want gzip or none`, 0},
		{"progress", "GET", "/api/ingest", "", "", nil, 0, 0, false, 200, `{"running":false,"received":0`, 0},
		{"PUT", "PUT", "/api/ingest", "", "", nil, 0, 0, false, 405, `method PUT not allowed`, 0},
		{"off", "POST", "/api/ingest", "application/x-ndjson", "", jsonl, 0, 0, true, 404, `start serve with --ingest`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h http.Handler
			var ix *indexer.Index
			if tt.off {
				ix = fixture(t)
				h = newServer(t, ix, server.DefaultOptions())
			} else {
				ix, h = testindex.IngestServer(t, func(in *server.Ingest) {
					if tt.maxBytes > 0 {
						in.MaxBytes = tt.maxBytes
					}
					if tt.maxPage > 0 {
						in.Pages.MaxBytes = tt.maxPage
					}
				})
			}
			before, _ := ix.Unwrap().DocCount()
			req := localRequest(tt.method, tt.target, bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.contentType)
			req.Header.Set("Content-Encoding", tt.encoding)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("got %d %s, want %d with %s", rec.Code, rec.Body, tt.wantStatus, tt.want)
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("answer %d without the security headers", rec.Code)
			}
			if n, _ := ix.Unwrap().DocCount(); n-before != tt.wantDocs {
				t.Errorf("got %d new documents, want %d", n-before, tt.wantDocs)
			}
		})
	}
}

// TestIngestWhileSearching sends pages slowly on one connection, as
// JSONL and as WARC: each is searchable while the body is still open
// (the body is read as it comes, not gathered first), other searches
// answer meanwhile, GET shows the run's progress, and a second ingest is
// turned away with 429.
func TestIngestWhileSearching(t *testing.T) {
	formats := []struct {
		contentType string
		page        func(i int, topic string) []byte
		id          func(i int) string // as the index has it
	}{
		{"application/x-ndjson",
			func(i int, topic string) []byte {
				return fmt.Appendf(nil, "{\"id\":\"p%d\",\"text\":%q}\n", i, articleText(topic))
			},
			func(i int) string { return fmt.Sprintf(`"id":"p%d"`, i) }},
		{"application/warc",
			func(i int, topic string) []byte {
				return warcResponse(fmt.Sprintf("http://example.org/p%d", i), "<html><body><article><p>"+articleText(topic)+"</p></article></body></html>")
			},
			func(i int) string { return fmt.Sprintf(`"id":"http://example.org/p%d"`, i) }},
	}
	for _, f := range formats {
		t.Run(f.contentType, func(t *testing.T) {
			_, h := testindex.IngestServer(t, func(in *server.Ingest) { in.Run.FlushAfter = 50 * time.Millisecond })
			ts := httptest.NewServer(h)
			defer ts.Close()
			pr, pw := io.Pipe()
			done := make(chan *http.Response, 1)
			go func() {
				resp, err := http.Post(ts.URL+"/api/ingest", f.contentType, pr)
				if err != nil {
					t.Error(err)
				}
				done <- resp
			}()
			topics := []string{"river", "forest", "harbour"}
			for i, topic := range topics {
				pw.Write(f.page(i, topic))
				if !eventually(t, ts.URL+"/api/search?q="+topic, f.id(i), 5*time.Second) {
					t.Fatalf("page %d not searchable within 5s of being sent", i)
				}
			}
			if !eventually(t, ts.URL+"/api/ingest", `"running":true,"received":3,"read":3,"indexed":3`, time.Second) {
				t.Error(`GET /api/ingest does not show the run's progress`)
			}
			resp, err := http.Post(ts.URL+"/api/ingest", f.contentType, strings.NewReader("{}\n"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
				t.Errorf("a second ingest: got %d Retry-After %q, want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			pw.Close()
			resp = <-done
			defer resp.Body.Close()
			var sum struct{ Read, Indexed int }
			if err := json.NewDecoder(resp.Body).Decode(&sum); err != nil || sum.Read != 3 || sum.Indexed != 3 {
				t.Errorf("summary %+v, %v: want 3 read and indexed", sum, err)
			}
		})
	}
}

// eventually reports whether GET url answers with want in its body within
// wait.
func eventually(tb testing.TB, url, want string, wait time.Duration) bool {
	tb.Helper()
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url)
		if err != nil {
			tb.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			tb.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
		}
		if strings.Contains(string(body), want) {
			return true
		}
	}
	return false
}

// trickle is a JSONL body that sends its first pages at once and then one
// every 50ms, without end: it never goes idle.
type trickle struct {
	first, n int
	buf      []byte
}

func (b *trickle) Read(p []byte) (int, error) {
	if len(b.buf) == 0 {
		if b.n >= b.first {
			time.Sleep(50 * time.Millisecond)
		}
		b.n++
		b.buf = fmt.Appendf(nil, "{\"id\":\"p%d\",\"text\":%q}\n", b.n, articleText(fmt.Sprintf("topic %d", b.n)))
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// repeated is b again and again, without end.
type repeated struct {
	b   []byte
	off int
}

func (r *repeated) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n, r.off = n+c, (r.off+c)%len(r.b)
	}
	return n, nil
}

// TestIngestTimeLimits: a body that trickles a page at a time, or that
// is blank lines without end after a page, plain or gzipped, is cut at
// Ingest.MaxDuration, and one that goes silent at Ingest.IdleTimeout;
// each is answered soon after with 408, the summary of the pages kept
// (which the index holds) and an error naming the limit, as OpenAPI
// documents it.
func TestIngestTimeLimits(t *testing.T) {
	page := func(id string) []byte {
		return fmt.Appendf(nil, "{\"id\":%q,\"text\":%q}\n", id, articleText(id))
	}
	trickling := func(*testing.T) io.Reader { return &trickle{first: 3} }
	blank := func(*testing.T) io.Reader {
		return io.MultiReader(bytes.NewReader(page("river")), &repeated{b: bytes.Repeat([]byte("\n"), 4096)})
	}
	member := gzipped(bytes.Repeat([]byte("\n"), 1<<20)) // 1 MiB of blank lines in 1 KiB or so
	gzippedBlank := func(*testing.T) io.Reader {
		return io.MultiReader(bytes.NewReader(gzipped(page("river"))), &repeated{b: member})
	}
	silent := func(t *testing.T) io.Reader {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close() })
		go pw.Write(slices.Concat(page("river"), page("forest")))
		return pr
	}
	const limit = 300 * time.Millisecond
	tests := []struct {
		name     string
		body     func(*testing.T) io.Reader
		encoding string
		idle     bool   // cut for its idle time, not its duration
		want     string // in the error
		least    int    // pages indexed, at least
	}{
		{"trickling", trickling, "", false, "the request took longer than 300ms (serve --ingest-max-duration, Ingest.MaxDuration)", 3},
		{"blank lines", blank, "", false, "the request took longer than 300ms", 1},
		{"gzipped blank lines", gzippedBlank, "gzip", false, "the request took longer than 300ms", 1},
		{"silent", silent, "", true, "the body sent nothing for 300ms (Ingest.IdleTimeout)", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, s := testindex.IngestServer(t, func(in *server.Ingest) {
				in.Run.FlushAfter, in.MaxBytes = 50*time.Millisecond, 1<<40 // only time cuts the body
				if tt.idle {
					in.IdleTimeout = limit
				} else {
					in.MaxDuration = limit
				}
			})
			addr, _ := serve(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/api/ingest", tt.body(t))
			req.Header.Set("Content-Type", "application/x-ndjson")
			req.Header.Set("Content-Encoding", tt.encoding)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			start := time.Now()
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("answered after %v, want within 5s", d)
			}
			var sum server.IngestSummary
			if err := json.Unmarshal(body, &sum); err != nil || resp.StatusCode != http.StatusRequestTimeout ||
				!strings.Contains(sum.Error, tt.want) || sum.Indexed < tt.least || sum.CutShort {
				t.Errorf("got %d %s, want 408 with at least %d pages indexed and the error %q", resp.StatusCode, body, tt.least, tt.want)
			}
			if n, _ := ix.Unwrap().DocCount(); n != uint64(sum.Indexed) {
				t.Errorf("the index holds %d documents, the answer said %d", n, sum.Indexed)
			}
			var doc openAPIDoc
			if err := json.Unmarshal([]byte(do(t, s, "GET", "/api/openapi.json").body), &doc); err != nil {
				t.Fatal(err)
			}
			var v any
			json.Unmarshal(body, &v)
			for _, e := range validate(doc, doc.Paths["/api/ingest"]["post"].Responses["408"].Content["application/json"].Schema, v, "summary") {
				t.Errorf("the answer against OpenAPI's 408: %s", e)
			}
		})
	}
}

// drainer reads pages until their body ends, whatever its context says,
// counting those read after the context ended.
type drainer struct{ after atomic.Int64 }

func (d *drainer) IndexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o indexer.RunOptions) (indexer.Stats, error) {
	var st indexer.Stats
	for range pages {
		st.Read++
		if ctx.Err() != nil {
			d.after.Add(1)
		}
	}
	return st, ctx.Err()
}

// TestIngestCutStopsReading: once a request is cut at its MaxDuration its
// body is read no further, though a few bytes gzipped are a megabyte of
// blank lines, which yield no page at which the run could stop. The body
// is gzip members of a page and 1 MiB of blank lines, about 1 KB each:
// without the stop, the members read ahead of the cut were read on (16).
func TestIngestCutStopsReading(t *testing.T) {
	line := fmt.Appendf(nil, "{\"id\":\"a\",\"text\":%q}\n", articleText("river"))
	d := &drainer{}
	_, s := testindex.IngestServer(t, func(in *server.Ingest) {
		in.Index, in.MaxBytes, in.MaxDuration = d, 1<<40, 300*time.Millisecond
	})
	addr, _ := serve(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body := &repeated{b: gzipped(slices.Concat(line, bytes.Repeat([]byte("\n"), 1<<20)))}
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/api/ingest", body)
	req.Header.Set("Content-Type", "application/x-ndjson")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	if n := d.after.Load(); resp.StatusCode != http.StatusRequestTimeout || n > 1 {
		t.Errorf("answered %d, %d pages read after the cut; want 408, and at most the page of the 64 KiB read then", resp.StatusCode, n)
	}
}
