package server

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
)

//go:embed static
var static embed.FS

// Options configures a Server. Start from DefaultOptions: New rejects
// values out of range rather than replacing them.
type Options struct {
	// SearchTimeout bounds one search (default 10s); a search that runs
	// out gets 503.
	SearchTimeout time.Duration
	// MaxPageSize caps the size parameter of searches and cluster lists
	// (default 100).
	MaxPageSize int
	// MaxQueryBytes caps a request's URL query string (default 4096);
	// longer ones get 414.
	MaxQueryBytes int
	// MaxQueryLen caps a search's query text, the q parameter, in bytes
	// (default 1024); longer ones get 400. MaxQueryTerms caps the term
	// searchers a search opens (default 1024): a term opens one a field
	// searched, and bleve's query strings open one a word a wildcard,
	// regular expression or fuzzy term matches, which an index's whole
	// vocabulary may (/.*/: 4.7 s and 425 MB on 1,902 pages without the
	// cap). A search past it gets 400.
	MaxQueryLen   int
	MaxQueryTerms int
	// MaxCompareSentences caps the sentences compared and shown per
	// document (default 2000, about 100 KB of text): the alignment's cost
	// grows with the texts' length and differences (see Diff), the
	// answer and the page with the length.
	MaxCompareSentences int
	// MaxClusterMembers caps the members /api/cluster lists (default
	// 200), each a store read.
	MaxClusterMembers int
	// MaxHeaderBytes caps a request's header lines (default 16 KiB);
	// larger headers get 431. The handler checks it, not net/http, so the
	// answer carries the security headers every response has.
	MaxHeaderBytes int
	// AllowedHosts are the Host header values a request may carry besides
	// the address it came in on and localhost, 127.0.0.1 or [::1] with
	// that address's port: the names the server is reached by through a
	// proxy or on a network ("search.example.com", or with a port,
	// "search.example.com:8080", to allow that port only). Other requests
	// get 421: a page of another site whose name was made to resolve to
	// this machine (DNS rebinding) could otherwise read the answers.
	AllowedHosts []string
	// TrustedOrigins are origins (https://host[:port]) besides the
	// server's own from which a browser may send requests that change the
	// index; other cross-origin ones get 403 (http.CrossOriginProtection).
	TrustedOrigins []string
	// ShutdownTimeout bounds Serve's graceful stop (default 5s).
	ShutdownTimeout time.Duration
	// Snippets gives every search hit a passage of its text with the
	// query's terms marked (default true), from the texts the filter's
	// store keeps: a store read a hit (BenchmarkSnippets).
	Snippets bool
	// Logger, when set, gets a line for every request answered (its id,
	// method, path, status, size, time and query) and the errors behind
	// 5xx answers.
	Logger *slog.Logger
	// Dirs are the index directories, when the caller knows them: the
	// metrics then report the bytes of their bleve indexes and stores.
	Dirs []string
	// Ingest, when set, takes pages on POST /api/ingest; nil (the
	// default) leaves the server read-only.
	Ingest *Ingest
}

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options {
	return Options{
		SearchTimeout:       10 * time.Second,
		MaxPageSize:         100,
		MaxQueryBytes:       4096,
		MaxQueryLen:         1024,
		MaxQueryTerms:       1024,
		MaxCompareSentences: 2000,
		MaxHeaderBytes:      16 << 10,
		MaxClusterMembers:   200,
		ShutdownTimeout:     5 * time.Second,
		Snippets:            true,
	}
}

func (o Options) validate() error {
	if o.SearchTimeout <= 0 || o.MaxPageSize < 1 || o.MaxQueryBytes < 1 || o.MaxQueryLen < 1 || o.MaxQueryTerms < 1 ||
		o.MaxCompareSentences < 1 || o.MaxClusterMembers < 1 || o.ShutdownTimeout <= 0 ||
		o.MaxHeaderBytes < 1 || o.MaxHeaderBytes > hardHeaderBytes {
		return fmt.Errorf("server: every Options field must be positive, got %+v: %w", o, ErrInvalidOptions)
	}
	if o.Ingest != nil {
		return o.Ingest.validate()
	}
	return nil
}

// CheckQuery returns an error when the query text qs is longer than
// MaxQueryLen, and else ctx carrying MaxQueryTerms for bleve: the bounds
// of a search through the API, for a program searching the index itself.
func (o Options) CheckQuery(ctx context.Context, qs string) (context.Context, error) {
	if len(qs) > o.MaxQueryLen {
		return ctx, fmt.Errorf("server: query of %d bytes, longer than %d: %w", len(qs), o.MaxQueryLen, ErrQueryTooLong)
	}
	return context.WithValue(ctx, search.MaxTermSearchersKey, o.MaxQueryTerms), nil
}

// Index is what a Server reads: an *indexer.Index (an indexer.Alias of
// shards sharing one store, too).
type Index interface {
	// Unwrap is the bleve index searched (an alias of the shards), which
	// the Server collapses itself.
	Unwrap() bleve.Index
	// SearchFields are the fields a query term without a field name
	// looks in; Mapping analyses them (that of the shards: an alias of
	// bleve's has none).
	SearchFields() []string
	Mapping() mapping.IndexMapping
	// Filter reads the clusters and the documents' metadata.
	Filter() *dedupfilter.Filter
	// Doc reads a document with its payload.
	Doc(id string) (dedupfilter.Entry, error)
}

// Server is the HTTP handler of the search API and the web page.
type Server struct {
	ix       Index
	searcher *collapse.Searcher
	opts     Options
	mux      *http.ServeMux
	metrics  *metrics
	// cat is the catalog facets and the overview read; gen counts the
	// changes this server made to the index (ingests), which make it
	// stale; lastChange is the time of the latest.
	cat          catalogs
	gen          atomic.Uint64
	lastChange   atomic.Int64
	allowedHosts []hostPattern
	crossOrigin  *http.CrossOriginProtection
	// ingesting is held by the one ingest that may run.
	ingesting sync.Mutex
	progress  ingestProgress
	// stopping is set when Serve begins to stop; running counts the
	// requests in ServeHTTP (counted before stopping is read, so that
	// Serve, which sets it first, sees every request it did not stop).
	stopping atomic.Bool
	running  atomic.Int64
}

// New returns a Server reading ix, which the caller keeps open while the
// Server runs and closes after.
func New(ix Index, opts Options) (*Server, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	hosts, err := parseHostPatterns(opts.AllowedHosts)
	if err != nil {
		return nil, err
	}
	crossOrigin := http.NewCrossOriginProtection()
	for _, o := range opts.TrustedOrigins {
		if err := crossOrigin.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("server: TrustedOrigins: %w: %w", err, ErrInvalidOptions)
		}
	}
	s := &Server{ix: ix, searcher: collapse.New(ix.Unwrap(), ix.Filter()), opts: opts, mux: http.NewServeMux(),
		allowedHosts: hosts, crossOrigin: crossOrigin}
	s.cat.stop, s.cat.cancel = context.WithCancel(context.Background())
	s.metrics = s.newMetrics()
	sub, _ := fs.Sub(static, "static") // cannot fail: the directory is embedded
	files := http.FileServerFS(sub)
	s.mux.Handle("/", get(func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.Path != "/" && r.URL.Path != "/app.js" && r.URL.Path != "/style.css" {
			return errNotFound
		}
		files.ServeHTTP(w, r)
		return nil
	}))
	for path, h := range s.routes() {
		s.mux.Handle(path, h)
	}
	return s, nil
}

// routes are the endpoints besides the page's files; those under /api/
// are described in openapi.json.
func (s *Server) routes() map[string]http.Handler {
	r := (&shards{index: s.ix.Unwrap(), searcher: s.searcher, opts: s.opts}).routes()
	maps.Copy(r, map[string]http.Handler{
		"/api/search":       get(s.search),
		"/api/doc":          get(s.doc),
		"/api/clusters":     get(s.clusters),
		"/api/cluster":      get(s.cluster),
		"/api/compare":      get(s.compare),
		"/api/similar":      handler(s.similar),
		"/api/overview":     get(s.overview),
		"/api/openapi.json": get(serveOpenAPI),
		"/api/ingest":       handler(s.ingest),
		"/healthz":          get(s.healthz),
		"/readyz":           get(s.readyz),
		"/metrics":          get(func(w http.ResponseWriter, r *http.Request) error { s.metricsHandler().ServeHTTP(w, r); return nil }),
	})
	return r
}

// Serve answers on ln until ctx is done, then stops gracefully: a running
// ingest is cut after the batch being decided and its client gets the
// summary of what was indexed, marked cut short; searches in flight are
// cancelled; requests that come meanwhile get 503 with Retry-After; then
// it takes no more connections. It returns nil once no request runs, or
// an error after ShutdownTimeout; either way no request reads the index
// any more, nor does the Server in the background (Serve calls Close),
// and the caller may close it.
//
// Every answer carries the security headers, net/http's own (a malformed
// request's 400, 431 past its header limit) included.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.Close()
	base, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	hs := &http.Server{
		Handler:           s,
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      s.opts.SearchTimeout + 10*time.Second,
		IdleTimeout:       60 * time.Second,
		// net/http answers past this itself (securityConn adds the
		// headers); below it ServeHTTP applies Options.MaxHeaderBytes.
		MaxHeaderBytes: hardHeaderBytes,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(securityListener{ln}) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	// While the requests running end (a cut ingest commits the batch it
	// decided), new ones are still taken, to be told to come back.
	s.stopping.Store(true)
	hs.SetKeepAlivesEnabled(false)
	cut()
	deadline := time.Now().Add(s.opts.ShutdownTimeout)
	for s.running.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	sctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc // http.ErrServerClosed
	if err != nil {
		hs.Close()
		err = fmt.Errorf("server: requests still running %v after the stop began: %w", s.opts.ShutdownTimeout, err)
		// Closed connections end their requests soon after: they are
		// cancelled and write to nowhere.
		for end := time.Now().Add(time.Second); s.running.Load() > 0 && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return err
}

// hardHeaderBytes is net/http's own header limit for the server (its
// default), the most Options.MaxHeaderBytes may be.
const hardHeaderBytes = http.DefaultMaxHeaderBytes

// headerBytes is the size of r's request line and header lines, as a
// client sent them.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4 // ": " and CRLF
		}
	}
	return n
}

// ServeHTTP sets the security headers, checks r against the limits and
// the cross-site checks every request passes, and routes it.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	s.running.Add(1)
	defer s.running.Add(-1)
	start := time.Now()
	s.metrics.inFlight.Inc()
	defer s.metrics.inFlight.Dec()
	w := &statusWriter{ResponseWriter: rw}
	info := &requestInfo{id: requestID(r)}
	r = r.WithContext(context.WithValue(r.Context(), requestInfoKey, info))
	defer func() { s.observe(r, w, info, start) }()
	h := w.Header()
	for _, kv := range securityHeaders {
		h.Set(kv[0], kv[1])
	}
	h.Set("X-Request-Id", info.id)
	if err := s.admit(w, r); err != nil {
		info.err = err.Error()
		writeError(w, err)
		return
	}
	// Other requests carry no body; a client sending one gets it cut off.
	if r.URL.Path != "/api/ingest" && r.URL.Path != "/api/similar" && !strings.HasPrefix(r.URL.Path, "/api/shard/") {
		r.Body = http.MaxBytesReader(w, r.Body, 0)
	}
	s.mux.ServeHTTP(w, r)
}

// admit returns the error r gets before it is routed, if any.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) error {
	switch {
	case s.stopping.Load():
		w.Header().Set("Connection", "close")
		return errStopping(w)
	case !s.hostAllowed(r):
		return &httpError{status: http.StatusMisdirectedRequest,
			msg: fmt.Sprintf("host %q is not a name of this server (serve --allowed-hosts)", r.Host)}
	case headerBytes(r) > s.opts.MaxHeaderBytes:
		return &httpError{status: http.StatusRequestHeaderFieldsTooLarge,
			msg: fmt.Sprintf("request header larger than %d bytes", s.opts.MaxHeaderBytes)}
	case len(r.URL.RawQuery) > s.opts.MaxQueryBytes:
		return &httpError{status: http.StatusRequestURITooLong,
			msg: fmt.Sprintf("query string longer than %d bytes", s.opts.MaxQueryBytes)}
	}
	if err := s.crossOrigin.Check(r); err != nil {
		return &httpError{status: http.StatusForbidden, msg: "cross-origin request refused (serve --trusted-origins): " + err.Error()}
	}
	return nil
}

// errStopping sets Retry-After on w and returns the error of a request
// the server will not finish because it is stopping.
func errStopping(w http.ResponseWriter) error {
	w.Header().Set("Retry-After", "5")
	return &httpError{status: http.StatusServiceUnavailable, msg: "the server is stopping; retry later"}
}

// httpError is an error with its HTTP status and extra JSON fields.
type httpError struct {
	status int
	msg    string
	extra  map[string]any
}

func (e *httpError) Error() string { return e.msg }

var errNotFound = &httpError{status: http.StatusNotFound, msg: "not found"}

func badRequest(format string, a ...any) error {
	return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, a...)}
}

// get adapts a handler returning an error to http.Handler: only GET and
// HEAD are allowed, and errors become JSON {"error": ...} responses.
func get(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, &httpError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " not allowed"})
			return
		}
		handler(h).ServeHTTP(w, r)
	})
}

// handler adapts a handler returning an error to http.Handler: errors
// become JSON {"error": ...} responses. A request cancelled by the
// server's stop gets 503 (one cancelled by its client's leaving gets it
// too, and reads nothing).
func handler(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			err = errStopping(w)
		}
		if err != nil {
			if info, ok := r.Context().Value(requestInfoKey).(*requestInfo); ok {
				info.err = err.Error()
			}
			writeError(w, err)
		}
	})
}

func writeError(w http.ResponseWriter, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		he = &httpError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	body := map[string]any{"error": he.msg}
	for k, v := range he.extra {
		body[k] = v
	}
	writeJSON(w, he.status, body)
}

// writeJSON writes v with HTML-escaped strings, so a response read as
// HTML by mistake runs no markup.
func writeJSON(w http.ResponseWriter, status int, v any) {
	// With its length, an answer is whole once sent, before the handler
	// returns (an ingest's answer then lingers).
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	w.Write(b.Bytes()) // the status is sent; a write error has no one to go to
}

// intParam parses the integer parameter name, def when absent, and checks
// it lies in [lo, hi].
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("parameter %s: want an integer from %d to %d, got %q", name, lo, hi, v)
	}
	return n, nil
}

func stringParam(r *http.Request, name string) (string, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return "", badRequest("missing parameter %s", name)
	}
	return v, nil
}

// tooManyTerms reports whether err is bleve's for a search past
// MaxTermSearchersKey, which has no sentinel.
func tooManyTerms(err error) bool {
	return err != nil && strings.Contains(err.Error(), "TooManyTermSearchers")
}
