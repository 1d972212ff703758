package warcout

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc/v3"

	"github.com/bleve-dedup/bleve-dedup/page"
)

const testHTML = "<!DOCTYPE html><html><head><title>Trout</title></head><body><p>The trout is a fish.</p></body></html>"

// testServer serves the responses of the recorder's test table.
func testServer(tb testing.TB) *httptest.Server {
	tb.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, testHTML)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, testHTML)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		z := gzip.NewWriter(w)
		io.WriteString(z, testHTML)
		z.Close()
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, testHTML[:40])
		w.(http.Flusher).Flush() // no Content-Length: chunked
		io.WriteString(w, testHTML[40:])
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(make([]byte, 1<<20))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>"+strings.Repeat("<p>big page</p>", 10000))
	})
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// got is a record read back with gowarc.
type got struct {
	typ                               gowarc.RecordType
	end                               int64 // offset after the record
	id, target, truncated, ip, status string
	concurrentTo                      []string
	header                            http.Header
	payload                           []byte
}

// readRecords reads a WARC file with gowarc's strictest validation and
// checks every block and payload digest against the bytes.
func readRecords(tb testing.TB, name string) []got {
	tb.Helper()
	rd, err := gowarc.NewWarcFileReader(name, 0, gowarc.WithStrictValidation())
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Close()
	var out []got
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		if len(rec.Validation) > 0 {
			tb.Errorf("%s at %d: validation %v", name, rec.Offset, rec.Validation)
		}
		wr := rec.WarcRecord
		h := wr.WarcHeader()
		g := got{typ: wr.Type(), end: rec.Offset + rec.Size, id: h.GetId(gowarc.WarcRecordID), target: h.Get(gowarc.WarcTargetURI),
			truncated: h.Get(gowarc.WarcTruncated), ip: h.Get(gowarc.WarcIPAddress)}
		for _, c := range h.GetAll(gowarc.WarcConcurrentTo) {
			g.concurrentTo = append(g.concurrentTo, strings.Trim(c, "<>"))
		}
		raw, err := wr.Block().RawBytes()
		if err != nil {
			tb.Fatal(err)
		}
		block, err := io.ReadAll(raw)
		if err != nil {
			tb.Fatal(err)
		}
		if want := digest(block); h.Get(gowarc.WarcBlockDigest) != want {
			tb.Errorf("%s %s: block digest %s, want %s", wr.Type(), g.target, h.Get(gowarc.WarcBlockDigest), want)
		}
		if wr.Type() == gowarc.Response || wr.Type() == gowarc.Request {
			head, payload, ok := bytes.Cut(block, []byte("\r\n\r\n"))
			if !ok {
				tb.Fatalf("%s %s: no end of HTTP header", wr.Type(), g.target)
			}
			g.payload = payload
			if want := digest(payload); h.Get(gowarc.WarcPayloadDigest) != want {
				tb.Errorf("%s %s: payload digest %s, want %s", wr.Type(), g.target, h.Get(gowarc.WarcPayloadDigest), want)
			}
			lines := strings.SplitN(string(head), "\r\n", 2)
			g.status = lines[0]
			g.header = http.Header{}
			if len(lines) == 2 {
				for l := range strings.SplitSeq(lines[1], "\r\n") {
					k, v, _ := strings.Cut(l, ": ")
					g.header.Add(k, v)
				}
			}
		}
		rec.Close()
		out = append(out, g)
	}
}

func digest(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// pageResults reads the files with our reader: the HTML of each page
// and the error of each record that gave none, by id.
func pageResults(tb testing.TB, files ...string) (pages map[string][]string, errs map[string]error) {
	tb.Helper()
	pages, errs = map[string][]string{}, map[string]error{}
	for p, err := range page.Read(files, page.DefaultOptions()) {
		if err != nil {
			var pe *page.Error
			if !errors.As(err, &pe) {
				tb.Fatalf("read back: %v", err)
			}
			errs[pe.ID] = err // "" for a record without a readable id
			continue
		}
		pages[p.ID] = append(pages[p.ID], p.HTML)
	}
	return pages, errs
}

func TestRecordExchanges(t *testing.T) {
	srv := testServer(t)
	name := filepath.Join(t.TempDir(), "crawl.warc.gz")
	rec, err := Open(name, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: rec.Transport(&http.Transport{})}
	// Each case is one client request; read is how many body bytes the
	// client reads before closing (-1: all). want lists the recorded
	// responses: status line, WARC-Truncated and what our reader makes
	// of the record.
	type resp struct {
		status, truncated string
		pageErr           error // nil: a page with the body read
	}
	tests := []struct {
		name, path   string
		acceptGzip   bool
		read         int
		want         []resp
		wantEncoding string // Content-Encoding recorded
	}{
		{"html page", "/page", false, -1, []resp{{"HTTP/1.1 200 OK", "", nil}}, ""},
		{"redirect", "/redirect", false, -1, []resp{{"HTTP/1.1 302 Found", "", page.ErrHTTPStatus}, {"HTTP/1.1 200 OK", "", nil}}, ""},
		{"404 not read", "/missing", false, 0, []resp{{"HTTP/1.1 404 Not Found", "length", page.ErrHTTPStatus}}, ""},
		{"gzip decoded by Go", "/gzip", false, -1, []resp{{"HTTP/1.1 200 OK", "", nil}}, ""},
		{"gzip as sent", "/gzip?raw=1", true, -1, []resp{{"HTTP/1.1 200 OK", "", nil}}, "gzip"},
		{"chunked", "/chunked", false, -1, []resp{{"HTTP/1.1 200 OK", "", nil}}, ""},
		{"non-HTML cut short", "/image.png", false, 100, []resp{{"HTTP/1.1 200 OK", "length", page.ErrNotHTML}}, ""},
		{"HTML over the limit", "/big", false, 1000, []resp{{"HTTP/1.1 200 OK", "length", page.ErrTruncated}}, ""},
	}
	read := make(map[string][]byte) // what the client read, by path
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
		if tt.acceptGzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		r, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var src io.Reader = r.Body
		if tt.read >= 0 {
			src = io.LimitReader(r.Body, int64(tt.read))
		}
		read[tt.path], _ = io.ReadAll(src)
		r.Body.Close()
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	st := rec.Stats()
	if !slices.Equal(st.Files, []string{name}) || st.Exchanges != 9 || st.Truncated != 3 || st.Bytes == 0 {
		t.Errorf("stats %+v, want 9 exchanges, 3 truncated, in %s", st, name)
	}

	recs := readRecords(t, name)
	if len(recs) == 0 || recs[0].typ != gowarc.Warcinfo {
		t.Fatalf("file does not start with a warcinfo record")
	}
	recs = recs[1:]
	pages, errs := pageResults(t, name)
	i := 0
	for _, tt := range tests {
		for k, w := range tt.want {
			if i+1 >= len(recs) {
				t.Fatalf("%s: %d records, want more", tt.name, len(recs))
			}
			q, r := recs[i], recs[i+1]
			i += 2
			if q.typ != gowarc.Request || r.typ != gowarc.Response {
				t.Errorf("%s: records %v, %v; want a request, then its response", tt.name, q.typ, r.typ)
				continue
			}
			if !slices.Equal(q.concurrentTo, []string{r.id}) || !slices.Equal(r.concurrentTo, []string{q.id}) {
				t.Errorf("%s: WARC-Concurrent-To %v and %v, want each other's id", tt.name, q.concurrentTo, r.concurrentTo)
			}
			if q.target != r.target || q.ip != "127.0.0.1" || r.ip != "127.0.0.1" {
				t.Errorf("%s: targets %s, %s, IP addresses %q, %q", tt.name, q.target, r.target, q.ip, r.ip)
			}
			if !strings.HasPrefix(q.status, "GET /") || q.header.Get("Host") == "" {
				t.Errorf("%s: request line %q, header %v", tt.name, q.status, q.header)
			}
			if r.status != w.status || r.truncated != w.truncated {
				t.Errorf("%s: %q truncated %q, want %q truncated %q", tt.name, r.status, r.truncated, w.status, w.truncated)
			}
			if ce := r.header.Get("Content-Encoding"); k == len(tt.want)-1 && ce != tt.wantEncoding {
				t.Errorf("%s: Content-Encoding %q recorded, want %q", tt.name, ce, tt.wantEncoding)
			}
			if k == len(tt.want)-1 && !bytes.Equal(r.payload, read[tt.path]) {
				t.Errorf("%s: recorded %d body bytes, the client read %d", tt.name, len(r.payload), len(read[tt.path]))
			}
			if w.pageErr != nil {
				if !errors.Is(errs[r.target], w.pageErr) {
					t.Errorf("%s: page.Read error %v, want %v", tt.name, errs[r.target], w.pageErr)
				}
			} else if len(pages[r.target]) == 0 || pages[r.target][0] != testHTML {
				t.Errorf("%s: page.Read gave %q for %s", tt.name, pages[r.target], r.target)
			}
		}
	}
	if i != len(recs) {
		t.Errorf("%d records, want %d", len(recs), i)
	}
	if n := len(pages[srv.URL+"/page"]); n != 2 {
		t.Errorf("/page read %d times from the archive, want 2 (direct and redirected)", n)
	}
	for _, r := range recs {
		if r.typ == gowarc.Request && r.target == srv.URL+"/gzip" && r.header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("request record of /gzip lacks the Accept-Encoding the transport added: %v", r.header)
		}
	}
}

// exchanges sends n requests for /page through rec.
func exchanges(tb testing.TB, rec *Recorder, url string, n int) {
	tb.Helper()
	client := &http.Client{Transport: rec.Transport(&http.Transport{})}
	for i := range n {
		r, err := client.Get(fmt.Sprintf("%s/page?n=%d", url, i))
		if err != nil {
			tb.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
}

// recordPages records n exchanges for /page into the series name and
// returns what the recorder says it wrote.
func recordPages(tb testing.TB, name string, o Options, url string, n int) Stats {
	tb.Helper()
	rec, err := Open(name, o)
	if err != nil {
		tb.Fatal(err)
	}
	exchanges(tb, rec, url, n)
	if err := errors.Join(rec.Close(), rec.Err()); err != nil {
		tb.Fatal(err)
	}
	return rec.Stats()
}

func TestRotateAndResume(t *testing.T) {
	srv := testServer(t)
	for _, ext := range []string{".warc.gz", ".warc"} {
		dir := t.TempDir()
		name := filepath.Join(dir, "crawl"+ext)
		o := DefaultOptions()
		o.MaxSize = 3000
		first := recordPages(t, name, o, srv.URL, 20).Files
		want := []string{name, filepath.Join(dir, "crawl-00001"+ext), filepath.Join(dir, "crawl-00002"+ext)}
		if len(first) < 3 || !slices.Equal(first[:3], want) {
			t.Fatalf("%s: files %v, want %v and more", ext, first, want)
		}
		before := make(map[string][]byte)
		for i, f := range first {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			before[f] = b
			// Every file starts with its warcinfo, holds whole exchanges
			// and all but the last has grown to the size.
			recs := readRecords(t, f)
			if recs[0].typ != gowarc.Warcinfo || len(recs)%2 != 1 {
				t.Errorf("%s: %d records, want a warcinfo and pairs", f, len(recs))
			}
			if i < len(first)-1 && int64(len(b)) < o.MaxSize {
				t.Errorf("%s: %d bytes, closed before %d", f, len(b), o.MaxSize)
			}
		}

		// A resumed recorder goes on after the last file.
		second := recordPages(t, name, o, srv.URL, 2).Files
		if wantNext := filepath.Join(dir, fmt.Sprintf("crawl-%05d%s", len(first), ext)); !slices.Equal(second, []string{wantNext}) {
			t.Errorf("%s: resumed recorder wrote %v, want %s", ext, second, wantNext)
		}
		for f, b := range before {
			if now, err := os.ReadFile(f); err != nil || !bytes.Equal(now, b) {
				t.Errorf("%s changed by the resumed recorder", f)
			}
		}
		// Read in the order written, the pages come in request order.
		var ids []string
		for p, err := range page.Read(append(first, second...), page.DefaultOptions()) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, strings.TrimPrefix(p.ID, srv.URL))
		}
		var wantIDs []string
		for i := range 20 {
			wantIDs = append(wantIDs, fmt.Sprintf("/page?n=%d", i))
		}
		wantIDs = append(wantIDs, "/page?n=0", "/page?n=1")
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("%s: pages %v, want %v", ext, ids, wantIDs)
		}
	}
}

// TestFinishOpenFile checks what happens to a file a crash left open:
// renamed by hand, our reader reads its whole records and reports the cut
// one; Open cuts it after its last whole record and closes it.
func TestFinishOpenFile(t *testing.T) {
	srv := testServer(t)
	src := filepath.Join(t.TempDir(), "crawl.warc.gz")
	recordPages(t, src, DefaultOptions(), srv.URL, 4)
	whole, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := whole[:len(whole)-20] // the last response is cut

	dir := t.TempDir()
	byHand := filepath.Join(dir, "byhand.warc.gz")
	os.WriteFile(byHand, cut, 0o644)
	pages, errs := pageResults(t, byHand)
	if len(pages) != 3 || len(errs) != 1 || !errors.Is(errs[""], page.ErrCorrupt) {
		t.Errorf("cut file renamed by hand: %d pages, errors %v; want 3 pages and the cut record corrupt", len(pages), errs)
	}

	name := filepath.Join(dir, "crawl.warc.gz")
	os.WriteFile(name+openSuffix, cut, 0o644)
	st := recordPages(t, name, DefaultOptions(), srv.URL, 1)
	if len(st.Finished) != 1 || !slices.Equal(st.Files, []string{filepath.Join(dir, "crawl-00001.warc.gz")}) {
		t.Errorf("stats %+v: want the open file finished and the next one written", st)
	}
	if exists(name + openSuffix) {
		t.Errorf("%s still there", name+openSuffix)
	}
	recs := readRecords(t, name) // strict: no cut record left
	if len(recs) != 1+2*3+1 {
		t.Errorf("finished file holds %d records, want the warcinfo, 3 exchanges and the cut one's request", len(recs))
	}
}

func TestWriteFailureIsKept(t *testing.T) {
	srv := testServer(t)
	dir := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(dir, 0o755)
	rec, err := Open(filepath.Join(dir, "crawl.warc.gz"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	os.Remove(dir)
	exchanges(t, rec, srv.URL, 2) // the fetches themselves succeed
	if err := rec.Err(); err == nil {
		t.Error("no error after writing into a removed directory")
	}
}

func TestOpenErrors(t *testing.T) {
	for _, name := range []string{"crawl.gz", "crawl", ".warc.gz", "crawl.warc.zip"} {
		if _, err := Open(filepath.Join(t.TempDir(), name), DefaultOptions()); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Open(%q): %v, want ErrInvalidOptions", name, err)
		}
	}
	o := DefaultOptions()
	o.MaxSize = -1
	if _, err := Open(filepath.Join(t.TempDir(), "a.warc"), o); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("negative MaxSize: %v, want ErrInvalidOptions", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "no", "such", "a.warc"), DefaultOptions()); err == nil {
		t.Error("Open in a missing directory: no error")
	}
}
