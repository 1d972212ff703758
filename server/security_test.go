package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// securityHeaderNames are the headers every answer must carry.
var securityHeaderNames = []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
	"X-Frame-Options", "Cross-Origin-Resource-Policy", "Cross-Origin-Opener-Policy"}

// serve runs s.Serve on a loopback port and returns its address and a
// function that stops it and returns what Serve returned; the test's end
// stops it too.
func serve(t *testing.T, s *server.Server) (addr string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	var result error
	stopped := false
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			result = <-done
		}
		return result
	}
	t.Cleanup(func() { stop() })
	return ln.Addr().String(), stop
}

// raw sends req as it is on a new connection to addr and reads one
// response.
func raw(t *testing.T, addr, req string) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", req, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp
}

func bodyOf(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// checkSecurityHeaders fails t unless resp carries each security header
// once.
func checkSecurityHeaders(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	for _, h := range securityHeaderNames {
		if n := len(resp.Header.Values(h)); n != 1 {
			t.Errorf("%s: %d %s header(s) in a %d answer, want 1", what, n, h, resp.StatusCode)
		}
	}
}

// TestErrorsOfNetHTTP sends what net/http answers itself, without
// calling the handler, over a raw connection: each answer carries the
// security headers.
func TestErrorsOfNetHTTP(t *testing.T) {
	addr, _ := serve(t, newServer(t, fixture(t), server.DefaultOptions()))
	host := "Host: " + addr + "\r\n"
	tests := []struct {
		name   string
		req    string
		status int
	}{
		{"malformed request line", "GARBAGE\r\n\r\n", 400},
		{"no Host", "GET / HTTP/1.1\r\n\r\n", 400},
		{"malformed Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
		{"header over net/http's limit", "GET / HTTP/1.1\r\n" + host + "X-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431},
		{"header over the handler's limit", "GET /api/search?q=x HTTP/1.1\r\n" + host + "X-Big: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", 431},
		{"unknown Expect", "GET / HTTP/1.1\r\n" + host + "Expect: tea\r\n\r\n", 417},
		{"unknown transfer coding", "POST /api/search HTTP/1.1\r\n" + host + "Transfer-Encoding: zip\r\n\r\n", 501},
		{"HTTP/9", "GET / HTTP/9.9\r\n" + host + "\r\n", 505},
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\n" + host + "\r\n", 200},
		{"search", "GET /api/search?q=bees HTTP/1.1\r\n" + host + "\r\n", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := raw(t, addr, tt.req)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			checkSecurityHeaders(t, tt.name, resp)
		})
	}
	// On one connection, a good request then a malformed one: each answer
	// has the headers once.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /api/search?q=bees HTTP/1.1\r\n%s\r\nBAD REQUEST\r\n\r\n", host)
	br := bufio.NewReader(c)
	for i, want := range []int{200, 400} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != want {
			t.Errorf("keep-alive answer %d: status %d, want %d", i, resp.StatusCode, want)
		}
		checkSecurityHeaders(t, fmt.Sprintf("keep-alive answer %d", i), resp)
	}
}

// TestHostHeader: a request must name the server in its Host header, as
// one resolving another site's name to this machine (DNS rebinding) does
// not.
func TestHostHeader(t *testing.T) {
	o := server.DefaultOptions()
	o.AllowedHosts = []string{"search.example.com", "alt.example:8443", "[fd00::1]"}
	addr, _ := serve(t, newServer(t, fixture(t), o))
	_, port, _ := net.SplitHostPort(addr)
	tests := []struct {
		host string
		want int
	}{
		{addr, 200},
		{"localhost:" + port, 200},
		{"LocalHost.:" + port, 200},
		{"[::1]:" + port, 200},
		{"127.0.0.2:" + port, 200},
		{"search.example.com", 200},
		{"search.example.com:443", 200},
		{"alt.example:8443", 200},
		{"[fd00::1]:" + port, 200},
		{"127.0.0.1", 421},   // port 80
		{"localhost:1", 421}, // another port
		{"alt.example:" + port, 421},
		{"attacker.example:" + port, 421},
		{"attacker.example", 421},
		{"127.0.0.1.nip.io:" + port, 421},
		{"search.example.com.attacker.example", 421},
		{"", 421}, // HTTP/1.0 may leave it out
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			req := "GET /api/search?q=bees HTTP/1.1\r\nHost: " + tt.host + "\r\n\r\n"
			if tt.host == "" {
				req = "GET /api/search?q=bees HTTP/1.0\r\n\r\n"
			}
			resp := raw(t, addr, req)
			body := bodyOf(resp)
			if resp.StatusCode != tt.want || (tt.want != 200) == strings.Contains(body, `"hits"`) {
				t.Errorf("Host %q: %d %.120s, want %d", tt.host, resp.StatusCode, body, tt.want)
			}
			checkSecurityHeaders(t, tt.host, resp)
		})
	}
	for _, bad := range []string{"*.example.com", "http://x.example", "x.example/path", ""} {
		o := server.DefaultOptions()
		o.AllowedHosts = []string{bad}
		if _, err := server.New(fixture(t), o); !errors.Is(err, server.ErrInvalidOptions) {
			t.Errorf("AllowedHosts %q: New error %v, want ErrInvalidOptions", bad, err)
		}
	}
}

// TestCrossSiteWrite posts pages as a page of another site could (a form,
// a simple fetch, or one with the browser's fetch metadata) and as the
// server's own page and programs do: only the latter are taken.
func TestCrossSiteWrite(t *testing.T) {
	ix, s := testindex.IngestServer(t, nil)
	addr, _ := serve(t, s)
	// A fresh page each time, so that each accepted one is indexed.
	n := 0
	line := func() string {
		n++
		return fmt.Sprintf(`{"id":"p%d","text":%q}`, n, articleText(fmt.Sprintf("topic%d", n)))
	}
	tests := []struct {
		name    string
		target  string
		header  map[string]string
		body    func() string
		want    int
		wantMsg string
	}{
		{"text/plain form from another site", "/api/ingest?format=jsonl",
			map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, line, 403, "cross-origin request refused"},
		{"text/plain without Origin", "/api/ingest?format=jsonl",
			map[string]string{"Content-Type": "text/plain"}, line, 415, "want application/x-ndjson"},
		{"urlencoded form", "/api/ingest",
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, func() string { return "a=" + line() }, 415, "want application/x-ndjson"},
		{"multipart form", "/api/ingest",
			map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, line, 415, "want application/x-ndjson"},
		{"no type", "/api/ingest", map[string]string{}, line, 415, "want application/x-ndjson"},
		{"JSONL from another site", "/api/ingest",
			map[string]string{"Origin": "http://evil.example", "Content-Type": "application/x-ndjson"}, line, 403, "cross-origin"},
		{"JSONL from another port of this host", "/api/ingest",
			map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": "application/x-ndjson"}, line, 403, "cross-origin"},
		{"opaque origin", "/api/ingest",
			map[string]string{"Origin": "null", "Content-Type": "application/x-ndjson"}, line, 403, "cross-origin"},
		{"fetch metadata: cross-site", "/api/ingest",
			map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/x-ndjson"}, line, 403, "cross-origin"},
		{"fetch metadata: same-site", "/api/ingest",
			map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:1", "Content-Type": "application/x-ndjson"}, line, 403, "cross-origin"},
		{"rebinding name", "/api/ingest",
			map[string]string{"Host": "attacker.example", "Content-Type": "application/x-ndjson"}, line, 421, "not a name of this server"},
		{"same origin", "/api/ingest",
			map[string]string{"Origin": "http://" + addr, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/x-ndjson"}, line, 200, `"indexed":1`},
		{"a program", "/api/ingest",
			map[string]string{"Content-Type": "application/x-ndjson; charset=utf-8"}, line, 200, `"indexed":1`},
		{"a program, gzipped", "/api/ingest",
			map[string]string{"Content-Type": "application/warc", "Content-Encoding": "gzip"},
			func() string {
				n++
				return string(gzipped(warcResponse(fmt.Sprintf("http://example.org/w%d", n), "<html><body><article><p>"+articleText(fmt.Sprintf("warc%d", n))+"</p></article></body></html>")))
			}, 200, `"indexed":1`},
	}
	accepted := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", "http://"+addr+tt.target, strings.NewReader(tt.body()))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			req.Host = tt.header["Host"]
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := bodyOf(resp)
			resp.Body.Close()
			if resp.StatusCode != tt.want || !strings.Contains(body, tt.wantMsg) {
				t.Errorf("got %d %s, want %d with %s", resp.StatusCode, body, tt.want, tt.wantMsg)
			}
			checkSecurityHeaders(t, tt.name, resp)
			if tt.want == 200 {
				accepted++
			}
		})
	}
	if got, _ := ix.Unwrap().DocCount(); got != uint64(accepted) {
		t.Errorf("%d documents indexed, want %d, those of the accepted requests", got, accepted)
	}
}

// TestWriteCredential: without a token, pages are taken from this
// machine only and not through a proxy; with one, only with it.
func TestWriteCredential(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		name   string
		token  string
		remote string
		header map[string]string
		want   int
	}{
		{"loopback", "", "127.0.0.1:5000", nil, 200},
		{"loopback v6", "", "[::1]:5000", nil, 200},
		{"another machine", "", "192.0.2.1:5000", nil, 403},
		{"through a proxy", "", "127.0.0.1:5000", map[string]string{"X-Forwarded-For": "192.0.2.1"}, 403},
		{"through a proxy, RFC 7239", "", "127.0.0.1:5000", map[string]string{"Forwarded": "for=192.0.2.1"}, 403},
		{"token: none sent", token, "127.0.0.1:5000", nil, 401},
		{"token: wrong", token, "192.0.2.1:5000", map[string]string{"Authorization": "Bearer " + token[:31] + "0"}, 401},
		{"token: a prefix", token, "192.0.2.1:5000", map[string]string{"Authorization": "Bearer " + token[:16]}, 401},
		{"token: basic", token, "192.0.2.1:5000", map[string]string{"Authorization": "Basic " + token}, 401},
		{"token: right", token, "192.0.2.1:5000", map[string]string{"Authorization": "Bearer " + token}, 200},
		{"token: right, scheme in lower case, through a proxy", token, "127.0.0.1:5000",
			map[string]string{"Authorization": "bearer " + token, "X-Forwarded-For": "192.0.2.1"}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, h := testindex.IngestServer(t, func(in *server.Ingest) { in.Token = tt.token })
			req := localRequest("POST", "/api/ingest", strings.NewReader(fmt.Sprintf(`{"id":"a","text":%q}`, articleText("river"))))
			req.RemoteAddr = tt.remote
			req.Header.Set("Content-Type", "application/x-ndjson")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("status %d %s, want %d", rec.Code, rec.Body, tt.want)
			}
			if tt.want == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			wantDocs := uint64(0)
			if tt.want == 200 {
				wantDocs = 1
			}
			if n, _ := ix.Unwrap().DocCount(); n != wantDocs {
				t.Errorf("%d documents, want %d", n, wantDocs)
			}
		})
	}
	ix := fixture(t)
	o := server.DefaultOptions()
	o.Ingest = server.DefaultIngest(ix)
	o.Ingest.Token = "short"
	if _, err := server.New(ix, o); !errors.Is(err, server.ErrInvalidOptions) {
		t.Errorf("a %d-byte token: New error %v, want ErrInvalidOptions", len(o.Ingest.Token), err)
	}
}
