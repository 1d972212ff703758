package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// ingestServer returns a server over a new index that takes pages, with
// in changed by change.
func ingestServer(t *testing.T, change func(*server.Ingest)) (*server.Server, *indexer.Index) {
	t.Helper()
	ix, err := indexer.Open(t.TempDir(), indexer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	o := server.DefaultOptions()
	o.Ingest = server.DefaultIngest(ix)
	if change != nil {
		change(o.Ingest)
	}
	return newServer(t, ix, o), ix
}

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
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html
	return fmt.Appendf(nil, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08x-0000-0000-0000-000000000000>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: %s\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		len(uri), uri, len(http), http)
}

func TestIngest(t *testing.T) {
	pageLine := func(id, topic string) string {
		return fmt.Sprintf(`{"id":%q,"url":"http://example.com/%s","text":%q}`, id, id, articleText(topic))
	}
	jsonl := jsonlBody(pageLine("a", "river"), pageLine("a-copy", "river"), `{"id":"bad"}`, pageLine("b", "forest"))
	warc := append(warcResponse("http://example.org/w1", "<html><body><article><p>"+articleText("mountain")+"</p></article></body></html>"),
		warcResponse("http://example.org/w2", "<html><body><article><p>"+articleText("island")+"</p></article></body></html>")...)
	tests := []struct {
		name        string
		method      string
		target      string
		contentType string
		body        []byte
		maxBytes    int64
		off         bool
		wantStatus  int
		want        string // substring of the answer
		wantDocs    uint64
	}{
		{"jsonl", "POST", "/api/ingest", "application/x-ndjson", jsonl, 0, false, 200,
			`"read":4,"indexed":2,"duplicates":1,"unchanged":0,"updated":0,"truncated":0,"not_html":0,"bad_status":0,"errors":1,"error_list":["page: body:3 (bad): neither html nor text: syntax error"]`, 2},
		{"jsonl gzip, format parameter", "POST", "/api/ingest?format=jsonl", "application/octet-stream", gzipped(jsonl), 0, false, 200, `"read":4,"indexed":2`, 2},
		{"warc", "POST", "/api/ingest", "application/warc", warc, 0, false, 200, `"read":2,"indexed":2`, 2},
		{"warc gzip", "POST", "/api/ingest", "application/warc", gzipped(warc), 0, false, 200, `"read":2,"indexed":2`, 2},
		{"body over the limit keeps the pages before", "POST", "/api/ingest", "application/x-ndjson", jsonl, int64(len(jsonl) - 10), false, 413,
			`"read":4,"indexed":1,"duplicates":1`, 1},
		{"warc over the limit", "POST", "/api/ingest", "application/warc", warc, 100, false, 413, `body larger than 100 bytes`, 0},
		{"unknown type", "POST", "/api/ingest", "text/plain", jsonl, 0, false, 415, `want application/x-ndjson`, 0},
		{"bad format", "POST", "/api/ingest?format=csv", "", jsonl, 0, false, 400, `want jsonl or warc`, 0},
		{"progress", "GET", "/api/ingest", "", nil, 0, false, 200, `{"running":false,"received":0`, 0},
		{"PUT", "PUT", "/api/ingest", "", nil, 0, false, 405, `method PUT not allowed`, 0},
		{"off", "POST", "/api/ingest", "application/x-ndjson", jsonl, 0, true, 404, `start serve with --ingest`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h http.Handler
			var ix *indexer.Index
			if tt.off {
				ix = fixture(t)
				h = newServer(t, ix, server.DefaultOptions())
			} else {
				h, ix = ingestServer(t, func(in *server.Ingest) {
					if tt.maxBytes > 0 {
						in.MaxBytes = tt.maxBytes
					}
				})
			}
			before, _ := ix.Bleve().DocCount()
			req := httptest.NewRequest(tt.method, tt.target, bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.contentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("got %d %s, want %d with %s", rec.Code, rec.Body, tt.wantStatus, tt.want)
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("answer %d without the security headers", rec.Code)
			}
			if n, _ := ix.Bleve().DocCount(); n-before != tt.wantDocs {
				t.Errorf("got %d new documents, want %d", n-before, tt.wantDocs)
			}
		})
	}
}

// TestIngestWhileSearching sends pages slowly on one connection: each is
// searchable while the body is still open, other searches answer
// meanwhile, GET shows the run's progress, and a second ingest is turned
// away with 429.
func TestIngestWhileSearching(t *testing.T) {
	h, _ := ingestServer(t, func(in *server.Ingest) { in.Run.FlushAfter = 50 * time.Millisecond })
	ts := httptest.NewServer(h)
	defer ts.Close()
	pr, pw := io.Pipe()
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/api/ingest", "application/x-ndjson", pr)
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	topics := []string{"river", "forest", "harbour"}
	for i, topic := range topics {
		fmt.Fprintf(pw, "{\"id\":\"p%d\",\"text\":%q}\n", i, articleText(topic))
		if !eventually(t, ts.URL+"/api/search?q="+topic, fmt.Sprintf(`"id":"p%d"`, i), 5*time.Second) {
			t.Fatalf("page p%d not searchable within 5s of being sent", i)
		}
	}
	if !eventually(t, ts.URL+"/api/ingest", `"running":true,"received":3,"read":3,"indexed":3`, time.Second) {
		t.Error(`GET /api/ingest does not show the run's progress`)
	}
	resp, err := http.Post(ts.URL+"/api/ingest", "application/x-ndjson", strings.NewReader("{}\n"))
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
