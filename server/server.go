package server

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
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
	// MaxCompareSentences caps the sentences compared per document
	// (default 400): the comparison table grows with the square.
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
	// query's terms marked (default true), at the cost of a second search
	// restricted to the page's hits (BenchmarkSnippets). A search index
	// that does not store the text with its term vectors (a mapping other
	// than indexer.NewMapping's) still gets them, from the texts the
	// filter's store keeps, at a higher cost.
	Snippets bool
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
		MaxCompareSentences: 400,
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

// Index is what a Server reads: an *indexer.Index, or *indexer.Shards
// sharing one store.
type Index interface {
	// Bleve is the search index (an alias of the shards).
	Bleve() bleve.Index
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
	// snippetMapping is the mapping storedSnippets indexes the hits'
	// texts with; nil when the search index keeps the text itself.
	snippetMapping *mapping.IndexMappingImpl
	allowedHosts   []hostPattern
	crossOrigin    *http.CrossOriginProtection
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
	s := &Server{ix: ix, searcher: collapse.New(ix.Bleve(), ix.Filter()), opts: opts, mux: http.NewServeMux(),
		allowedHosts: hosts, crossOrigin: crossOrigin}
	if opts.Snippets {
		if s.snippetMapping, err = snippetMapping(ix.Bleve().Mapping()); err != nil {
			return nil, err
		}
	}
	sub, _ := fs.Sub(static, "static") // cannot fail: the directory is embedded
	files := http.FileServerFS(sub)
	s.mux.Handle("/", get(func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.Path != "/" && r.URL.Path != "/app.js" && r.URL.Path != "/style.css" {
			return errNotFound
		}
		files.ServeHTTP(w, r)
		return nil
	}))
	s.mux.Handle("/api/search", get(s.search))
	s.mux.Handle("/api/doc", get(s.doc))
	s.mux.Handle("/api/clusters", get(s.clusters))
	s.mux.Handle("/api/cluster", get(s.cluster))
	s.mux.Handle("/api/compare", get(s.compare))
	s.mux.Handle("/api/ingest", handler(s.ingest))
	return s, nil
}

// Serve answers on ln until ctx is done, then stops gracefully: a running
// ingest is cut after the batch being decided and its client gets the
// summary of what was indexed, marked cut short; searches in flight are
// cancelled; requests that come meanwhile get 503 with Retry-After; then
// it takes no more connections. It returns nil once no request runs, or
// an error after ShutdownTimeout; either way no request reads the index
// any more, and the caller may close it.
//
// Every answer carries the security headers, net/http's own (a malformed
// request's 400, 431 past its header limit) included.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
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
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.running.Add(1)
	defer s.running.Add(-1)
	h := w.Header()
	for _, kv := range securityHeaders {
		h.Set(kv[0], kv[1])
	}
	if err := s.admit(w, r); err != nil {
		writeError(w, err)
		return
	}
	// Other requests carry no body; a client sending one gets it cut off.
	if r.URL.Path != "/api/ingest" {
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
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) // the status is sent; a write error has no one to go to
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

// searchResponse is the body of /api/search.
type searchResponse struct {
	Query         string  `json:"query"`
	Syntax        string  `json:"syntax"`
	Collapse      bool    `json:"collapse"`
	From          int     `json:"from"`
	Size          int     `json:"size"`
	Total         uint64  `json:"total"`
	Clusters      int     `json:"clusters"`
	ClustersExact bool    `json:"clusters_exact"`
	TookMS        float64 `json:"took_ms"`
	Hits          []hit   `json:"hits"`
}

// hit is a search hit with its snippet.
type hit struct {
	collapse.Hit
	Snippet []Segment `json:"snippet"`
}

// search serves GET /api/search?q=QUERY[&syntax=boolean|querystring]
// [&collapse=true][&from=0][&size=10].
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	qs, err := stringParam(r, "q")
	if err != nil {
		return err
	}
	p := r.URL.Query()
	syntax := boolquery.Boolean
	if v := p.Get("syntax"); v != "" {
		if syntax, err = boolquery.ParseSyntax(v); err != nil {
			return badRequest("parameter syntax: want boolean or querystring, got %q", v)
		}
	}
	fold := true
	if v := p.Get("collapse"); v != "" {
		if fold, err = strconv.ParseBool(v); err != nil {
			return badRequest("parameter collapse: want true or false, got %q", v)
		}
	}
	size, err := intParam(r, "size", collapse.DefaultSize, 1, s.opts.MaxPageSize)
	if err != nil {
		return err
	}
	from, err := intParam(r, "from", 0, 0, collapse.MaxWindow-size)
	if err != nil {
		return err
	}
	bounded, err := s.opts.CheckQuery(r.Context(), qs)
	if err != nil {
		return badRequest("parameter q: %d bytes, longer than %d", len(qs), s.opts.MaxQueryLen)
	}
	q, err := boolquery.Query(qs, boolquery.Options{Fields: indexer.TextFields(), Syntax: syntax})
	if err != nil {
		he := &httpError{status: http.StatusBadRequest, msg: err.Error()}
		if se, ok := errors.AsType[*boolquery.SyntaxError](err); ok {
			he.extra = map[string]any{"pos": se.Pos, "expected": se.Expected, "found": se.Found}
		}
		return he
	}
	ctx, cancel := context.WithTimeout(bounded, s.opts.SearchTimeout)
	defer cancel()
	start := time.Now()
	res, err := s.searcher.Search(ctx, collapse.Request{Query: q, From: from, Size: size, Collapse: fold})
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &httpError{status: http.StatusServiceUnavailable, msg: "search timed out"}
	case tooManyTerms(err):
		return badRequest("query opens more than %d term searchers: use fewer terms, or wildcards that match fewer words", s.opts.MaxQueryTerms)
	case err != nil:
		return err
	}
	var snips map[string][]Segment
	if s.opts.Snippets {
		snips, err = s.snippets(ctx, q, res.Hits)
		if errors.Is(err, context.DeadlineExceeded) {
			return &httpError{status: http.StatusServiceUnavailable, msg: "search timed out"}
		}
		if err != nil {
			return err
		}
	}
	hits := make([]hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = hit{Hit: h, Snippet: snips[h.ID]}
	}
	writeJSON(w, http.StatusOK, searchResponse{
		Query: qs, Syntax: syntax.String(), Collapse: fold, From: from, Size: size,
		Total: res.Total, Clusters: res.Clusters, ClustersExact: res.ClustersExact,
		TookMS: float64(time.Since(start).Microseconds()) / 1000, Hits: hits,
	})
	return nil
}

// tooManyTerms reports whether err is bleve's for a search past
// MaxTermSearchersKey, which has no sentinel.
func tooManyTerms(err error) bool {
	return err != nil && strings.Contains(err.Error(), "TooManyTermSearchers")
}

// document is the body of /api/doc: a stored document with its text.
type document struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Cluster string `json:"cluster"`
	Indexed bool   `json:"indexed"`
	Text    string `json:"text,omitempty"`
}

// loadDoc reads id from the dedup store, text from its payload.
func (s *Server) loadDoc(id string) (document, error) {
	e, err := s.ix.Doc(id)
	if errors.Is(err, dedupfilter.ErrNotFound) {
		return document{}, &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no document %q", id)}
	}
	if err != nil {
		return document{}, err
	}
	d := document{ID: id, URL: e.URL, Title: e.Title, Cluster: e.Cluster, Indexed: e.Indexed}
	var body struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(e.Payload, &body); err != nil {
		return document{}, fmt.Errorf("document %q: stored payload: %w", id, err)
	}
	d.Text = body.Text
	return d, nil
}

// doc serves GET /api/doc?id=ID.
func (s *Server) doc(w http.ResponseWriter, r *http.Request) error {
	id, err := stringParam(r, "id")
	if err != nil {
		return err
	}
	d, err := s.loadDoc(id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// clusterSummary is a cluster in /api/clusters.
type clusterSummary struct {
	ID             string   `json:"id"`
	Representative string   `json:"representative"`
	Size           int      `json:"size"`
	Members        []string `json:"members"`
}

// clusters serves GET /api/clusters[?min=2][&from=0][&size=100], the
// clusters of at least min members in creation order, with their total
// (a walk of the whole store); or, with after=CLUSTER, the page after that
// cluster, without a total and with "next", the cursor of the page after
// it ("" at the end): paging through a large store that way costs time
// linear in what is read.
func (s *Server) clusters(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Has("after") {
		return s.clustersAfter(w, r)
	}
	minSize, err := intParam(r, "min", 2, 1, 1<<30)
	if err != nil {
		return err
	}
	size, err := intParam(r, "size", s.opts.MaxPageSize, 1, s.opts.MaxPageSize)
	if err != nil {
		return err
	}
	from, err := intParam(r, "from", 0, 0, 1<<30)
	if err != nil {
		return err
	}
	page := []clusterSummary{}
	total := 0
	err = s.ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		if len(c.Members) < minSize {
			return nil
		}
		if total >= from && len(page) < size {
			page = append(page, clusterSummary{ID: c.ID, Representative: c.Representative, Size: len(c.Members), Members: c.Members})
		}
		total++
		return r.Context().Err()
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "from": from, "clusters": page})
	return nil
}

// errPageFull stops a walk once a page is full.
var errPageFull = errors.New("page full")

func (s *Server) clustersAfter(w http.ResponseWriter, r *http.Request) error {
	minSize, err := intParam(r, "min", 2, 1, 1<<30)
	if err != nil {
		return err
	}
	size, err := intParam(r, "size", s.opts.MaxPageSize, 1, s.opts.MaxPageSize)
	if err != nil {
		return err
	}
	page := []clusterSummary{}
	next := ""
	err = s.ix.Filter().ClustersAfter(r.URL.Query().Get("after"), func(c dedupfilter.Cluster) error {
		if len(c.Members) < minSize {
			return r.Context().Err()
		}
		if len(page) == size {
			next = page[len(page)-1].ID
			return errPageFull
		}
		page = append(page, clusterSummary{ID: c.ID, Representative: c.Representative, Size: len(c.Members), Members: c.Members})
		return r.Context().Err()
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"clusters": page, "next": next})
	return nil
}

// clusterDetail is the body of /api/cluster.
type clusterDetail struct {
	ID             string     `json:"id"`
	Representative string     `json:"representative"`
	Size           int        `json:"size"` // members, listed or not
	Members        []document `json:"members"`
}

// cluster serves GET /api/cluster?id=CLUSTER, or ?doc=ID for the cluster
// of a document: up to MaxClusterMembers members (the representative
// first), without their text.
func (s *Server) cluster(w http.ResponseWriter, r *http.Request) error {
	p := r.URL.Query()
	var c dedupfilter.Cluster
	var err error
	switch {
	case p.Get("id") != "":
		c, err = s.ix.Filter().Cluster(p.Get("id"))
	case p.Get("doc") != "":
		c, err = s.ix.Filter().ClusterOf(p.Get("doc"))
	default:
		return badRequest("missing parameter id or doc")
	}
	if errors.Is(err, dedupfilter.ErrNotFound) {
		return &httpError{status: http.StatusNotFound, msg: "no such cluster"}
	}
	if err != nil {
		return err
	}
	others := slices.DeleteFunc(slices.Clone(c.Members), func(id string) bool { return id == c.Representative })
	ids := append([]string{c.Representative}, others...)
	ids = ids[:min(len(ids), s.opts.MaxClusterMembers)]
	out := clusterDetail{ID: c.ID, Representative: c.Representative, Size: len(c.Members), Members: make([]document, 0, len(ids))}
	for _, id := range ids {
		d, err := s.loadDoc(id)
		if err != nil {
			return err
		}
		d.Text = ""
		out.Members = append(out.Members, d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// comparison is the body of /api/compare.
type comparison struct {
	A     document  `json:"a"`
	B     document  `json:"b"`
	Left  []Passage `json:"left"`
	Right []Passage `json:"right"`
}

// compare serves GET /api/compare?a=ID&b=ID: both documents' text as
// sentences marked shared or not (see Diff).
func (s *Server) compare(w http.ResponseWriter, r *http.Request) error {
	var docs [2]document
	for i, name := range []string{"a", "b"} {
		id, err := stringParam(r, name)
		if err != nil {
			return err
		}
		if docs[i], err = s.loadDoc(id); err != nil {
			return err
		}
	}
	left, right := Diff(docs[0].Text, docs[1].Text, s.opts.MaxCompareSentences)
	docs[0].Text, docs[1].Text = "", ""
	writeJSON(w, http.StatusOK, comparison{A: docs[0], B: docs[1], Left: left, Right: right})
	return nil
}
