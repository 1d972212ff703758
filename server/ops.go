package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bleve-dedup/bleve-dedup/internal/du"
)

// Operations: /healthz (the process answers), /readyz (the index is open
// and searchable), /metrics (Prometheus text format, the standard client
// library), and a structured log line a request (Options.Logger) with a
// request id, which the response carries in X-Request-Id and which a
// client may choose by sending one.

// metrics are a Server's collectors, in a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	ingested *prometheus.CounterVec
	// last are the totals of the running ingest already counted.
	mu   sync.Mutex
	last ingestTotals
}

type ingestTotals struct{ read, indexed, duplicates, errors int }

// endpoints are the request paths metrics and logs name; others are
// "other", so that the label's values stay few.
var endpoints = map[string]bool{
	"/": true, "/app.js": true, "/style.css": true, "/healthz": true, "/readyz": true, "/metrics": true,
	"/api/search": true, "/api/doc": true, "/api/clusters": true, "/api/cluster": true, "/api/compare": true,
	"/api/overview": true, "/api/ingest": true, "/api/openapi.json": true,
}

func endpoint(path string) string {
	if endpoints[path] {
		return path
	}
	return "other"
}

func (s *Server) newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bleve_dedup_http_requests_total", Help: "HTTP requests answered, by endpoint and status code.",
	}, []string{"endpoint", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "bleve_dedup_http_request_duration_seconds", Help: "Time to answer an HTTP request, by endpoint.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"endpoint"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "bleve_dedup_http_requests_in_flight", Help: "HTTP requests being answered.",
	})
	m.ingested = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bleve_dedup_ingest_pages_total",
		Help: "Pages ingested through POST /api/ingest, by outcome (read, indexed, duplicate, error); rate() of read is the ingest rate.",
	}, []string{"outcome"})
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.reg.MustRegister(m.requests, m.latency, m.inFlight, m.ingested,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		catalogGauges{s},
		gauge("bleve_dedup_documents_indexed", "Documents in the search index (bleve's count).", func() float64 {
			n, err := s.ix.Unwrap().DocCount()
			if err != nil {
				return 0
			}
			return float64(n)
		}),
		gauge("bleve_dedup_ingest_running", "1 while an ingest runs.", func() float64 {
			if s.progress.status(0).Running {
				return 1
			}
			return 0
		}),
		gauge("bleve_dedup_ingest_queue_pages", "Pages of the running ingest read from its body and not yet decided.", func() float64 {
			st := s.progress.status(0)
			return float64(max(st.Received-st.Read, 0))
		}),
		gauge("bleve_dedup_ingest_docs_per_second", "Pages a second of the running (or last) ingest.", func() float64 {
			return s.progress.status(0).DocsPerSec
		}),
	)
	if len(s.opts.Dirs) > 0 {
		m.reg.MustRegister(
			gauge("bleve_dedup_bleve_bytes", "Bytes on disk of the bleve indexes (DIR/bleve).", func() float64 { return s.dirBytes("bleve") }),
			gauge("bleve_dedup_store_bytes", "Bytes on disk of the dedup stores (DIR/store).", func() float64 { return s.dirBytes("store") }),
		)
	}
	return m
}

// The store's counts as of the last catalog walk.
var (
	descStored     = prometheus.NewDesc("bleve_dedup_documents_stored", "Documents in the dedup store, suppressed copies included (as of the last catalog walk).", nil, nil)
	descClusters   = prometheus.NewDesc("bleve_dedup_clusters", "Clusters in the dedup store, those of one document included (as of the last catalog walk).", nil, nil)
	descDuplicates = prometheus.NewDesc("bleve_dedup_duplicate_clusters", "Clusters of two or more documents (as of the last catalog walk).", nil, nil)
)

// catalogGauges are the store's counts, absent from a scrape until the
// first catalog walk has ended (a scrape starts it, as a search does): a
// server just started must not look like an empty index.
type catalogGauges struct{ s *Server }

func (catalogGauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- descStored
	ch <- descClusters
	ch <- descDuplicates
}

func (g catalogGauges) Collect(ch chan<- prometheus.Metric) {
	c, _ := g.s.catalog(context.Background(), false) // cannot fail without waiting
	if c.made.IsZero() {
		return
	}
	for d, v := range map[*prometheus.Desc]int{descStored: c.stats.Documents, descClusters: c.stats.Clusters, descDuplicates: c.stats.Duplicates} {
		if m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, float64(v)); err == nil {
			ch <- m
		}
	}
}

// countIngest adds what the running ingest decided since the last call
// to the ingest counters; a new run (totals smaller than the last) starts
// from zero.
func (m *metrics) countIngest(read, indexed, duplicates, errors int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := ingestTotals{read, indexed, duplicates, errors}
	if now.read < m.last.read {
		m.last = ingestTotals{}
	}
	m.ingested.WithLabelValues("read").Add(float64(now.read - m.last.read))
	m.ingested.WithLabelValues("indexed").Add(float64(max(now.indexed-m.last.indexed, 0)))
	m.ingested.WithLabelValues("duplicate").Add(float64(max(now.duplicates-m.last.duplicates, 0)))
	m.ingested.WithLabelValues("error").Add(float64(max(now.errors-m.last.errors, 0)))
	m.last = now
}

// dirBytes sums the disk space of the files under DIR/sub of every index
// directory.
func (s *Server) dirBytes(sub string) float64 {
	var n int64
	for _, d := range s.opts.Dirs {
		n += du.Bytes(filepath.Join(d, sub))
	}
	return float64(n)
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// healthz serves GET /healthz: the process answers.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz serves GET /readyz: 200 when the search index answers a search,
// the dedup store a read, and the catalog of its clusters is known; 503
// otherwise.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	fail := func(what string, err error) error {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "error": what + ": " + err.Error()})
		return nil
	}
	n, err := s.ix.Unwrap().DocCount()
	if err != nil {
		return fail("search index", err)
	}
	if _, err := s.ix.Unwrap().SearchInContext(ctx, bleve.NewSearchRequestOptions(bleve.NewTermQuery("\x00ready"), 0, 0, false)); err != nil {
		return fail("search index", err)
	}
	if _, err := s.ix.Filter().Cluster("\x00ready"); err != nil && !isNotFound(err) {
		return fail("dedup store", err)
	}
	// The counts pages and metrics show come from the catalog: not ready
	// until its first walk has ended (this starts it).
	if c, _ := s.catalog(ctx, false); c.made.IsZero() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "error": "the first walk of the dedup store's clusters has not ended", "documents": n})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "documents": n})
	return nil
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer
// (ingest flushes and extends its deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestID returns the id r's client chose (X-Request-Id: up to 64
// letters, digits, '-', '_' and '.'), or a new random one.
func requestID(r *http.Request) string {
	if v := r.Header.Get("X-Request-Id"); v != "" && len(v) <= 64 && validID(v) {
		return v
	}
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

func validID(v string) bool {
	for _, c := range []byte(v) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// requestInfo is what a request's log line says besides the request:
// its id and the error it got, if any.
type requestInfo struct {
	id, err string
}

type ctxKey int

const requestInfoKey ctxKey = 0

// observe records a request answered: its metrics and its log line.
func (s *Server) observe(r *http.Request, w *statusWriter, info *requestInfo, start time.Time) {
	took := time.Since(start)
	ep := endpoint(r.URL.Path)
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	s.metrics.requests.WithLabelValues(ep, strconv.Itoa(status)).Inc()
	s.metrics.latency.WithLabelValues(ep).Observe(took.Seconds())
	if s.opts.Logger == nil {
		return
	}
	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case status >= 400:
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("id", info.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Int64("bytes", w.bytes),
		slog.Float64("ms", float64(took.Microseconds())/1000), slog.String("remote", r.RemoteAddr),
	}
	if q := r.URL.Query().Get("q"); q != "" {
		attrs = append(attrs, slog.String("q", q))
	}
	if info.err != "" {
		attrs = append(attrs, slog.String("error", info.err))
	}
	s.opts.Logger.LogAttrs(r.Context(), level, "request", attrs...)
}
