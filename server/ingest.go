package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// Ingester indexes pages; *indexer.Index is one.
type Ingester interface {
	IndexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o indexer.RunOptions) (indexer.Stats, error)
}

// Ingest configures POST /api/ingest. Start from DefaultIngest.
type Ingest struct {
	// Index takes the pages; the Server's Index must read the same index
	// for them to be searchable.
	Index Ingester
	// Run configures each request's indexing run (default
	// indexer.DefaultRunOptions with FlushAfter 1s, so pages are
	// searchable about a second after they arrive). Progress and OnError
	// are the Server's.
	Run indexer.RunOptions
	// Pages are the reading limits of each page (page.DefaultOptions).
	Pages page.Options
	// MaxBytes caps a request body (default 4 GiB); past it the run stops
	// with 413, keeping the pages before. A WARC body is spooled to a
	// temporary file (in TempDir; "" is os.TempDir) to be read; a JSONL
	// body is read as it arrives.
	MaxBytes int64
	TempDir  string
	// MaxErrors caps the per-page errors listed in a summary (default
	// 100); all are counted.
	MaxErrors int
	// IdleTimeout is how long a body may send nothing before the request
	// is cut (default 60s): an ingest has no overall time limit, and one
	// runs at a time.
	IdleTimeout time.Duration
}

// DefaultIngest returns the defaults documented on Ingest for ix.
func DefaultIngest(ix Ingester) *Ingest {
	run := indexer.DefaultRunOptions()
	// Searchable soon after arriving: a page waits at most FlushAfter for
	// its batch, behind at most Ahead pages read before it, and batches
	// are small, so that one is decided and written in well under a second
	// even while the machine is saturated (a pipeline's latency is the
	// work in it). 100,000 pages streamed as fast as the server takes
	// them: searchable 0.8 s (p50), 1.6 s (max) after the server read
	// them, at 308 pages/s; with the bulk run's settings (a second, 256
	// pages ahead, batches of 1,000 pages or 1 MiB) 3.6 s and 7.2 s, at
	// 306 pages/s (internal/cmd/ingestbench).
	run.FlushAfter, run.Ahead = 500*time.Millisecond, 32
	run.BatchSize, run.BatchBytes = 250, 256<<10
	return &Ingest{Index: ix, Run: run, Pages: page.DefaultOptions(), MaxBytes: 4 << 30, MaxErrors: 100, IdleTimeout: time.Minute}
}

func (o *Ingest) validate() error {
	if o.Index == nil || o.MaxBytes < 1 || o.MaxErrors < 0 || o.IdleTimeout <= 0 {
		return fmt.Errorf("server: Ingest needs an Index, a positive MaxBytes and IdleTimeout, got %+v: %w", *o, ErrInvalidOptions)
	}
	return nil
}

// IngestSummary is the body of a POST /api/ingest response (clients
// decode it too).
type IngestSummary struct {
	Read       int      `json:"read"`
	Indexed    int      `json:"indexed"`
	Duplicates int      `json:"duplicates"`
	Unchanged  int      `json:"unchanged"`
	Updated    int      `json:"updated"`
	Truncated  int      `json:"truncated"`
	NotHTML    int      `json:"not_html"`
	BadStatus  int      `json:"bad_status"`
	Errors     int      `json:"errors"`
	ErrorList  []string `json:"error_list"`
	ElapsedMS  int64    `json:"elapsed_ms"`
	Error      string   `json:"error,omitempty"` // why the run stopped early
}

// Ingest formats, from the request's Content-Type or ?format=.
var ingestFormats = map[string]string{
	"application/x-ndjson":     "jsonl",
	"application/ndjson":       "jsonl",
	"application/jsonl":        "jsonl",
	"application/x-jsonlines":  "jsonl",
	"application/json-lines":   "jsonl",
	"application/warc":         "warc",
	"application/x-warc":       "warc",
	"application/octet-stream": "", // ?format= must say
}

// ingest serves POST /api/ingest[?format=jsonl|warc]: the body's pages
// are indexed as by "bleve-dedup index", one request at a time (429 with
// Retry-After otherwise), and the answer is a summary of the run. GET
// /api/ingest answers the progress of the run going on, or of the last.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request) error {
	in := s.opts.Ingest
	if in == nil {
		return &httpError{status: http.StatusNotFound, msg: "ingest is off: start serve with --ingest"}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, s.progress.status())
		return nil
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		return &httpError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " not allowed"}
	}
	format, err := ingestFormat(r)
	if err != nil {
		return err
	}
	if !s.ingesting.TryLock() {
		w.Header().Set("Retry-After", "5")
		return &httpError{status: http.StatusTooManyRequests, msg: "another ingest is running; retry when it ends"}
	}
	defer s.ingesting.Unlock()

	// The server's time-outs suit searches; an ingest lasts as long as
	// its body keeps coming.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	body := &idleReader{r: http.MaxBytesReader(w, r.Body, in.MaxBytes), rc: rc, idle: in.IdleTimeout}

	var pages iter.Seq2[page.Page, error]
	switch format {
	case "jsonl":
		pages = page.ReadJSONL("body", body, in.Pages)
	case "warc":
		f, size, err := spool(body, in.TempDir)
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		pages = page.ReadWARC("body", f, size, in.Pages)
	}
	sum, status := s.runIngest(r.Context(), s.progress.count(pages), in)
	writeJSON(w, status, sum)
	return nil
}

// ingestProgress is the state of the ingest running, for GET /api/ingest.
type ingestProgress struct {
	mu       sync.Mutex
	running  bool
	started  time.Time
	received int // pages read from the body
	st       indexer.Stats
}

// ingestStatus is the body of GET /api/ingest.
type ingestStatus struct {
	Running bool `json:"running"`
	// Received counts the pages read from the body so far; the others
	// count them as they are decided (a batch at a time), as in the
	// summary of a POST.
	Received   int     `json:"received"`
	Read       int     `json:"read"`
	Indexed    int     `json:"indexed"`
	Duplicates int     `json:"duplicates"`
	Errors     int     `json:"errors"`
	ElapsedMS  int64   `json:"elapsed_ms"`
	DocsPerSec float64 `json:"docs_per_second"`
}

func (p *ingestProgress) status() ingestStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := ingestStatus{Running: p.running, Received: p.received, Read: p.st.Read, Indexed: p.st.Indexed,
		Duplicates: p.st.Duplicates, Errors: p.st.Errors, ElapsedMS: p.st.Elapsed.Milliseconds(), DocsPerSec: p.st.DocsPerSecond()}
	if p.running {
		st.ElapsedMS = time.Since(p.started).Milliseconds()
	}
	return st
}

// count starts a run's progress and counts the pages read.
func (p *ingestProgress) count(pages iter.Seq2[page.Page, error]) iter.Seq2[page.Page, error] {
	p.mu.Lock()
	p.running, p.started, p.received, p.st = true, time.Now(), 0, indexer.Stats{}
	p.mu.Unlock()
	return func(yield func(page.Page, error) bool) {
		for pg, err := range pages {
			p.mu.Lock()
			p.received++
			p.mu.Unlock()
			if !yield(pg, err) {
				return
			}
		}
	}
}

// update records a run's totals; done ends the run.
func (p *ingestProgress) update(st indexer.Stats, done bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st = st
	if done {
		p.running = false
	}
}

// runIngest indexes pages and returns the summary and its status.
func (s *Server) runIngest(ctx context.Context, pages iter.Seq2[page.Page, error], in *Ingest) (IngestSummary, int) {
	var sum IngestSummary
	status := http.StatusOK
	run := in.Run
	run.Progress = func(st indexer.Stats) { s.progress.update(st, false) }
	run.OnError = func(err error) { // called on this goroutine
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			status = http.StatusRequestEntityTooLarge
		}
		if len(sum.ErrorList) < in.MaxErrors {
			sum.ErrorList = append(sum.ErrorList, err.Error())
		}
	}
	st, err := in.Index.IndexPages(ctx, pages, run)
	s.progress.update(st, true)
	sum.Read, sum.Indexed, sum.Duplicates = st.Read, st.Indexed, st.Duplicates
	sum.Unchanged, sum.Updated, sum.Truncated, sum.NotHTML, sum.BadStatus = st.Unchanged, st.Updated, st.Truncated, st.NotHTML, st.BadStatus
	sum.Errors, sum.ElapsedMS = st.Errors, st.Elapsed.Milliseconds()
	if sum.ErrorList == nil {
		sum.ErrorList = []string{}
	}
	if err != nil {
		sum.Error, status = err.Error(), http.StatusInternalServerError
	}
	return sum, status
}

// ingestFormat returns the body's format: ?format= when given, else the
// Content-Type's. A gzip Content-Encoding is read by the page readers
// (they tell gzip by its first bytes); other encodings are refused.
func ingestFormat(r *http.Request) (string, error) {
	if ce := strings.ToLower(r.Header.Get("Content-Encoding")); ce != "" && ce != "gzip" && ce != "identity" {
		return "", &httpError{status: http.StatusUnsupportedMediaType, msg: fmt.Sprintf("content encoding %q: want gzip or none", ce)}
	}
	if f := r.URL.Query().Get("format"); f != "" {
		if f != "jsonl" && f != "warc" {
			return "", badRequest("parameter format: want jsonl or warc, got %q", f)
		}
		return f, nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if f := ingestFormats[mt]; f != "" {
		return f, nil
	}
	return "", &httpError{status: http.StatusUnsupportedMediaType,
		msg: fmt.Sprintf("content type %q: want application/x-ndjson (JSONL) or application/warc, or ?format=jsonl|warc", mt)}
}

// spool copies a WARC body to a temporary file, which the WARC reader
// needs to seek in; the caller removes it.
func spool(body io.Reader, dir string) (*os.File, int64, error) {
	f, err := os.CreateTemp(dir, "bleve-dedup-ingest-*.warc")
	if err != nil {
		return nil, 0, fmt.Errorf("server: spool the body: %w", err)
	}
	n, err := io.Copy(f, body)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, 0, &httpError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("body larger than %d bytes", mbe.Limit)}
		}
		return nil, 0, badRequest("reading the body: %v", err)
	}
	return f, n, nil
}

// idleReader moves the connection's read deadline on before each read: a
// body may take as long as it needs, but not stall.
type idleReader struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	ir.rc.SetReadDeadline(time.Now().Add(ir.idle)) // unsupported only on wrapped writers: the server's own time-outs then apply
	return ir.r.Read(p)
}
