package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
)

// exchanges records the requests a handler answers and their statuses.
type exchanges struct {
	h  http.Handler
	mu sync.Mutex
	// seen are "METHOD path status" lines.
	seen []string
}

func (x *exchanges) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	x.h.ServeHTTP(sw, r)
	x.mu.Lock()
	x.seen = append(x.seen, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, sw.status))
	x.mu.Unlock()
}

// count returns how many requests started with prefix ("POST /api/ingest").
func (x *exchanges) count(prefix string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, s := range x.seen {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// attackPage is a page of another site (another loopback port) that tries
// to write into the index at target as pages could before: a text/plain
// form post, a no-cors fetch, a JSONL fetch (which needs the server's
// consent in a CORS preflight), and a read of the search API.
const attackPage = `<!doctype html><html><head><title>cute cats</title></head><body>
<form id="f" method="POST" action="%[1]s/api/ingest?format=jsonl" enctype="text/plain" target="sink">
<input name='{"id":"form","text":"injected by a form' value='"}'>
</form>
<iframe name="sink"></iframe>
<script>
window.results = {};
(async () => {
  try {
    const r = await fetch("%[1]s/api/ingest?format=jsonl", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: '{"id":"nocors","text":"injected by a fetch"}'});
    window.results.nocors = r.type;
  } catch (e) { window.results.nocors = "error: " + e; }
  try {
    const r = await fetch("%[1]s/api/ingest", {method: "POST",
      headers: {"Content-Type": "application/x-ndjson"}, body: '{"id":"cors","text":"injected by a fetch"}'});
    window.results.cors = "status " + r.status;
  } catch (e) { window.results.cors = "error: " + e; }
  try {
    const r = await fetch("%[1]s/api/search?q=bees");
    window.results.read = "status " + r.status + ": " + (await r.text());
  } catch (e) { window.results.read = "error: " + e; }
  document.getElementById("f").submit();
  window.results.done = true;
})();
</script></body></html>`

// TestBrowserCrossSite drives Chromium against a server taking pages on
// 127.0.0.1: a page of another origin (another loopback port) cannot
// write into the index, by form or by fetch, nor read its answers; a name
// resolved to this machine (DNS rebinding) gets nothing; the server's own
// origin can post.
func TestBrowserCrossSite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"))
	ix, s := testindex.IngestServer(t, nil)
	x := &exchanges{h: s}
	ts := httptest.NewServer(x)
	defer ts.Close()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, attackPage, ts.URL)
	}))
	defer evil.Close()

	browse(t, ctx, chromedp.Navigate(evil.URL))
	results := run(t, ctx, chromedp.Poll[map[string]any](`window.results.done && window.results`, chromedp.WithPollingTimeout(20*time.Second)))
	for end := time.Now().Add(10 * time.Second); x.count("POST /api/ingest") < 2 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond) // the form's post
	}
	posts, refused := x.count("POST /api/ingest"), x.count("POST /api/ingest 403")
	preflights := x.count("OPTIONS /api/ingest")
	docs, _ := ix.Unwrap().DocCount()

	// DNS rebinding: the attacker's name now resolves to this machine.
	_, port, _ := strings.Cut(strings.TrimPrefix(ts.URL, "http://"), ":")
	rebound := "http://rebind.test:" + port
	browse(t, ctx, chromedp.Navigate(rebound+"/api/search?q=bees"))
	reboundText := run(t, ctx, chromedp.Evaluate[string](`document.body.innerText`))
	reboundStatus := x.count("GET /api/search 421") // Chromium asks twice: 421 invites a retry on another connection

	// The server's own origin may post.
	browse(t, ctx, chromedp.Navigate(ts.URL))
	own := run(t, ctx, chromedp.Evaluate[string](`fetch("/api/ingest", {method: "POST", headers: {"Content-Type": "application/x-ndjson"},
		body: '{"id":"own","text":"a page sent by the server\'s own origin about bees and rivers"}'}).then(r => r.text())`,
		chromedp.EvalAwaitPromise))
	after, _ := ix.Unwrap().DocCount()

	checks := []struct {
		what      string
		ok        bool
		got, want any
	}{
		{"posts that reached the server", posts == 2, posts, "2 (the form and the no-cors fetch)"},
		{"posts refused", refused == 2, refused, 2},
		{"the JSONL fetch was stopped at its preflight", preflights == 1 && strings.HasPrefix(fmt.Sprint(results["cors"]), "error:"), fmt.Sprint(preflights, " preflight, ", results["cors"]), "1 preflight, error: TypeError"},
		{"the page could not read a search", strings.HasPrefix(fmt.Sprint(results["read"]), "error:"), results["read"], "error: TypeError"},
		{"documents after the attack", docs == 0, docs, 0},
		{"the rebound name", reboundStatus >= 1 && strings.Contains(reboundText, "not a name of this server") && !strings.Contains(reboundText, "hits"), reboundText, "421, not a name of this server"},
		{"the server's own origin", strings.Contains(own, `"indexed":1`) && after == 1, fmt.Sprint(own, after), `"indexed":1, 1 document`},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	x.mu.Lock()
	t.Logf("requests: %q; page results: %v", x.seen, results)
	x.mu.Unlock()
}
