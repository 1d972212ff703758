package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
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

	"github.com/bleve-dedup/bleve-dedup/api"
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
	// MaxBytes caps a request body, counted as sent and again after
	// gunzipping (default 256 MiB); past it the run stops with 413,
	// keeping the pages before. The body is read as it arrives, a WARC
	// record or a JSONL line at a time, each bounded by Pages.MaxBytes.
	MaxBytes int64
	// MaxErrors caps the per-page errors listed in a summary (default
	// 100); all are counted.
	MaxErrors int
	// IdleTimeout is how long a body may send nothing before the request
	// is cut (default 60s).
	IdleTimeout time.Duration
	// MaxDuration bounds a request from its start (default 30m): one
	// ingest runs at a time, and a body that trickles a line at a time
	// never goes idle. Past either time the run stops reading, keeps the
	// pages it committed and answers 408 naming the limit.
	MaxDuration time.Duration
	// Token, when set, is the credential a POST must carry
	// (Authorization: Bearer TOKEN), at least MinTokenBytes long. Without
	// one, pages are taken only from programs on this machine: loopback
	// peers whose requests came through no proxy.
	Token string
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
	return &Ingest{Index: ix, Run: run, Pages: page.DefaultOptions(), MaxBytes: 256 << 20, MaxErrors: 100,
		IdleTimeout: time.Minute, MaxDuration: 30 * time.Minute}
}

func (o *Ingest) validate() error {
	if o.Index == nil || o.MaxBytes < 1 || o.MaxErrors < 0 || o.IdleTimeout <= 0 || o.MaxDuration <= 0 {
		return fmt.Errorf("server: Ingest needs an Index, a positive MaxBytes, IdleTimeout and MaxDuration: %w", ErrInvalidOptions)
	}
	if o.Token != "" && len(o.Token) < MinTokenBytes {
		return fmt.Errorf("server: Ingest.Token of %d bytes, want at least %d: %w", len(o.Token), MinTokenBytes, ErrInvalidOptions)
	}
	return nil
}

// IngestSummary is the body of a POST /api/ingest response; it is
// api.IngestSummary, which clients (package remote) decode.
type IngestSummary = api.IngestSummary

// ingestFormats are the Content-Types of an ingest body. Neither is a
// type a form or a script of another site may send without the
// browser asking first (CORS preflight), which the server does not answer.
var ingestFormats = map[string]string{
	"application/x-ndjson": "jsonl",
	"application/warc":     "warc",
}

// ingest serves POST /api/ingest: the body's pages are indexed as by
// "bleve-dedup index", one request at a time (429 with Retry-After
// otherwise), and the answer is a summary of the run. GET /api/ingest
// answers the progress of the run going on, or of the last.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request) error {
	in := s.opts.Ingest
	if in == nil {
		return &httpError{status: http.StatusNotFound, msg: "ingest is off: start serve with --ingest"}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, s.progress.status(in.MaxBytes))
		return nil
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		return &httpError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " not allowed"}
	}
	if err := s.authorizeWrite(w, r); err != nil {
		return err
	}
	format, gzipped, err := ingestFormat(r)
	if err != nil {
		return err
	}
	// Before the body is read: a client that sent Expect: 100-continue
	// has sent none of it yet, and can send it again later.
	if !s.ingesting.TryLock() {
		w.Header().Set("Retry-After", "5")
		return &httpError{status: http.StatusTooManyRequests, msg: "another ingest is running; retry when it ends"}
	}
	defer s.ingesting.Unlock()

	// The server's time-outs suit searches; an ingest lasts as long as
	// its body keeps coming, up to MaxDuration.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	ctx, cancel := context.WithTimeoutCause(r.Context(), in.MaxDuration, errTooLong)
	defer cancel()
	wire := &idleReader{r: http.MaxBytesReader(w, r.Body, in.MaxBytes), rc: rc, idle: in.IdleTimeout}
	// A run cut by its time, the server's stop or the client's leaving
	// must not wait for a body read: the reader may be waiting on a
	// silent client.
	unwatch := context.AfterFunc(ctx, wire.stop)
	defer func() {
		unwatch()
		wire.finish()
	}()
	body, err := openBody(wire, format, gzipped, in.MaxBytes)
	if err != nil {
		return err
	}
	// Gunzipped, a few bytes read may be a long run of reads, and blank
	// lines yield no page at which the run could stop.
	body = cutReader{ctx: ctx, r: body}
	var pages iter.Seq2[page.Page, error]
	switch format {
	case "jsonl":
		pages = page.ReadJSONL("body", body, in.Pages)
	case "warc":
		pages = page.ReadWARCStream("body", body, in.Pages)
	}
	sum, status := s.runIngest(ctx, s.progress.count(pages), in, wire)
	if sum.CutShort {
		w.Header().Set("Retry-After", "5")
	}
	if sum.Error != "" {
		// The rest of the body is not read: the connection ends after
		// the answer, which goes at once. Otherwise net/http would first
		// read up to 256 KiB of the body, for as long as a client sending
		// a line at a time takes.
		w.Header().Set("Connection", "close")
	}
	writeJSON(w, status, sum)
	if sum.Error != "" {
		linger(rc, r.Body, wire)
	}
	return nil
}

// lingerTime bounds how long an answer to a client still sending waits
// for it to leave.
const lingerTime = time.Second

// linger sends the answer and reads on what the client still sends, until
// it leaves (having read the answer) or for lingerTime. The run ended
// before the body: closing the connection with data unread would reset
// it, and the client, still sending, would lose the answer. net/http
// lingers so itself for a body cut by http.MaxBytesReader, not for one
// sent after Expect: 100-continue, as bleve-dedup's client sends it.
func linger(rc *http.ResponseController, body io.Reader, wire *idleReader) {
	wire.finish() // the deadline is this function's now
	rc.Flush()
	rc.SetReadDeadline(time.Now().Add(lingerTime))
	io.Copy(io.Discard, body)
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
	// MaxBody is the largest body a POST may send (Ingest.MaxBytes):
	// clients cut their input into requests below it.
	MaxBody int64 `json:"max_body"`
}

func (p *ingestProgress) status(maxBody int64) ingestStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := ingestStatus{Running: p.running, Received: p.received, Read: p.st.Read, Indexed: p.st.Indexed,
		Duplicates: p.st.Duplicates, Errors: p.st.Errors, ElapsedMS: p.st.Elapsed.Milliseconds(), DocsPerSec: p.st.DocsPerSecond(),
		MaxBody: maxBody}
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

// runIngest indexes pages, read from wire, and returns the summary and
// its status.
func (s *Server) runIngest(ctx context.Context, pages iter.Seq2[page.Page, error], in *Ingest, wire *idleReader) (IngestSummary, int) {
	var sum IngestSummary
	status := http.StatusOK
	run := in.Run
	run.Progress = func(st indexer.Stats) {
		s.progress.update(st, false)
		s.metrics.countIngest(st.Read, st.Indexed, st.Duplicates, st.Errors)
		s.changed()
	}
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
	s.metrics.countIngest(st.Read, st.Indexed, st.Duplicates, st.Errors)
	s.changed()
	sum.Read, sum.Indexed, sum.Duplicates, sum.KeptDuplicates = st.Read, st.Indexed, st.Duplicates, st.KeptDuplicates
	sum.Unchanged, sum.Updated, sum.Truncated, sum.NotHTML, sum.BadStatus = st.Unchanged, st.Updated, st.Truncated, st.NotHTML, st.BadStatus
	sum.Errors, sum.ElapsedMS = st.Errors, st.Elapsed.Milliseconds()
	if sum.ErrorList == nil {
		sum.ErrorList = []string{}
	}
	switch {
	case err != nil && s.stopping.Load() && ctx.Err() != nil:
		sum.CutShort, status = true, http.StatusServiceUnavailable
		sum.Error = "the server is stopping: the run was cut short after the pages counted here, which are indexed; send the rest again later"
	case err != nil && context.Cause(ctx) == errTooLong:
		sum.Error, status = fmt.Sprintf("the request took longer than %v (serve --ingest-max-duration, Ingest.MaxDuration): "+
			"the run was cut after the pages counted here, which are indexed; send the rest again in smaller requests (pages indexed already are skipped)", in.MaxDuration), http.StatusRequestTimeout
	case err != nil && wire.timedOut():
		sum.Error, status = fmt.Sprintf("the body sent nothing for %v (Ingest.IdleTimeout): "+
			"the run was cut after the pages counted here, which are indexed; send the rest again (pages indexed already are skipped)", in.IdleTimeout), http.StatusRequestTimeout
	case err != nil:
		sum.Error, status = err.Error(), http.StatusInternalServerError
	}
	return sum, status
}

// ingestFormat returns the body's format, from its Content-Type, and
// whether its Content-Encoding says it is gzipped.
func ingestFormat(r *http.Request) (format string, gzipped bool, err error) {
	switch ce := strings.ToLower(r.Header.Get("Content-Encoding")); ce {
	case "", "identity":
	case "gzip", "x-gzip":
		gzipped = true
	default:
		return "", false, &httpError{status: http.StatusUnsupportedMediaType, msg: fmt.Sprintf("content encoding %q: want gzip or none", ce)}
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if format = ingestFormats[mt]; format == "" {
		return "", false, &httpError{status: http.StatusUnsupportedMediaType,
			msg: fmt.Sprintf("content type %q: want application/x-ndjson (JSONL) or application/warc", mt)}
	}
	return format, gzipped, nil
}

// openBody returns the body to parse: gunzipped when its encoding says so
// or it starts as gzip does (a .jsonl.gz or .warc.gz file sent as it is),
// bounded to max bytes after gunzipping too, and checked to start as its
// format does, so that a body of something else is refused before a page
// is read.
func openBody(wire io.Reader, format string, gzipped bool, max int64) (io.Reader, error) {
	br := bufio.NewReaderSize(wire, 64<<10)
	if magic, _ := br.Peek(2); gzipped || bytes.Equal(magic, gzipMagic) {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, badRequest("body: gzip: %v", err)
		}
		br = bufio.NewReaderSize(&capReader{r: z, left: max}, 64<<10)
	}
	head, err := br.Peek(8)
	if err != nil && len(head) == 0 {
		if err == io.EOF {
			return br, nil // no pages
		}
		return nil, readError(err)
	}
	first := bytes.TrimLeft(head, " \t\r\n")
	ok := len(first) == 0 || (format == "jsonl" && first[0] == '{') || (format == "warc" && bytes.HasPrefix([]byte("WARC/"), first[:min(len(first), 5)]))
	if !ok {
		return nil, badRequest("body: starts with %q, not %s", head, map[string]string{"jsonl": "a JSON object", "warc": "a WARC record"}[format])
	}
	return br, nil
}

// gzipMagic starts every gzip member.
var gzipMagic = []byte{0x1f, 0x8b}

// readError is the answer to a body that could not be read.
func readError(err error) error {
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &httpError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("body larger than %d bytes", mbe.Limit)}
	}
	return badRequest("body: %v", err)
}

// capReader fails with *http.MaxBytesError, as http.MaxBytesReader does,
// past left bytes: it bounds a gunzipped body.
type capReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.limit == 0 {
		c.limit = c.left
	}
	if c.left < 0 {
		return 0, &http.MaxBytesError{Limit: c.limit}
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - 1, &http.MaxBytesError{Limit: c.limit}
	}
	return n, err
}

// cutReader fails once ctx is done.
type cutReader struct {
	ctx context.Context
	r   io.Reader
}

func (c cutReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, errCut
	}
	return c.r.Read(p)
}

// idleReader moves the connection's read deadline on before each read: a
// body may send slowly, but not stall. stop makes the reads after it
// fail, and the one waiting fail too if the client sends nothing within
// stopGrace; finish, called before the handler returns, makes stop do
// nothing more, as the connection is no longer the request's.
type idleReader struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration

	mu       sync.Mutex
	reading  bool
	stopped  bool
	finished bool
	cut      bool // stop ended the read waiting
	idled    bool // a read outlasted idle
}

// stopGrace is how long a read waiting when its run is cut may wait on.
// A deadline ends it after that, but also ends the request's body: net/
// http then closes the connection without reading on, and a client still
// sending may lose the answer to a reset. A client that sends gets there
// first; one that sends nothing has nothing in flight to lose.
const stopGrace = 250 * time.Millisecond

// errCut is the read error of a body whose run was cut.
var errCut = errors.New("the run was cut")

// errTooLong is the cause of a run cut at Ingest.MaxDuration.
var errTooLong = errors.New("server: ingest: longer than Ingest.MaxDuration")

func (ir *idleReader) Read(p []byte) (int, error) {
	ir.mu.Lock()
	if ir.stopped {
		ir.mu.Unlock()
		return 0, errCut
	}
	ir.rc.SetReadDeadline(time.Now().Add(ir.idle)) // unsupported only on wrapped writers: the server's own time-outs then apply
	ir.reading = true
	ir.mu.Unlock()
	n, err := ir.r.Read(p)
	ir.mu.Lock()
	ir.reading = false
	ir.idled = ir.idled || errors.Is(err, os.ErrDeadlineExceeded) && !ir.cut
	ir.mu.Unlock()
	return n, err
}

// timedOut reports whether the body was cut for sending nothing for the
// idle time.
func (ir *idleReader) timedOut() bool {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	return ir.idled
}

func (ir *idleReader) stop() {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	if ir.stopped {
		return
	}
	ir.stopped = true
	time.AfterFunc(stopGrace, func() {
		ir.mu.Lock()
		defer ir.mu.Unlock()
		if ir.reading && !ir.finished {
			ir.rc.SetReadDeadline(time.Now())
			ir.cut = true
		}
	})
}

func (ir *idleReader) finish() {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	ir.finished = true
}
