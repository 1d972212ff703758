// Package remote reads and writes a bleve-dedup index through the JSON
// API of a running server (package server, bleve-dedup serve): a process
// other than the one holding the index open (which another cannot open)
// searches it, lists its clusters and sends it pages. The answers it
// reads are package api's types, which the server writes: the client
// does not link the server, bleve or the dedup store.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/api"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// ErrServer is returned, wrapped with the server's message, when the
// server answers a request with an error.
var ErrServer = errors.New("the server refused")

// maxAnswer bounds the answer of a GET the client reads.
const maxAnswer = 64 << 20

// Client is the API of one server.
type Client struct {
	base *url.URL
	http *http.Client
	// Token, when set, goes with every request (server.Ingest.Token).
	Token string
}

// New returns a client of the server at base, an http:// or https://
// URL.
func New(base string) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote: %q: want an http:// or https:// URL of a bleve-dedup serve", base)
	}
	return &Client{base: u, http: &http.Client{Timeout: time.Minute}}, nil
}

// get decodes the JSON answer of GET path?query into v.
func (c *Client) get(ctx context.Context, path string, query url.Values, v any) error {
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	return c.do(req, v)
}

// do sends req, with the token, and decodes its JSON answer into v.
func (c *Client) do(req *http.Request, v any) error {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	u := req.URL
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("remote: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return answerError(u.String(), resp.StatusCode, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("remote: %s: %w", u, err)
	}
	return nil
}

// PostJSON posts in, in JSON, to path and decodes the JSON answer into
// out: the call of an endpoint this package has no method for (the
// shard endpoints package remote/shard calls).
func (c *Client) PostJSON(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath(path).String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	return c.do(req, out)
}

// StatusError is the error of an answer that is not 200 OK: its status
// and the server's message (ErrServer).
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string { return fmt.Sprintf("%s: %s", ErrServer, e.Msg) }

func (e *StatusError) Unwrap() error { return ErrServer }

// answerError is the error of an answer that is not 200 OK: the
// server's own message when it gave one.
func answerError(u string, code int, status string, body []byte) error {
	var e struct{ Error string }
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return fmt.Errorf("remote: %w", &StatusError{Code: code, Msg: e.Error})
	}
	return fmt.Errorf("remote: %s: %w", u, &StatusError{Code: code, Msg: status})
}

// Query is a search a Client asks for, as GET /api/search takes it.
type Query struct {
	Q      string
	Syntax string // "boolean" or "querystring"; "": the server's default
	From   int
	Size   int
	// Uncollapsed asks for every matching document, not one a cluster.
	Uncollapsed bool
}

// ClusterInfo is a cluster as GET /api/clusters lists it.
type ClusterInfo struct {
	ID             string   `json:"id"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
}

// Search runs q as collapse.Searcher does on the index itself (whose
// collapse.Result is an api.SearchResult too); the result's MaxScore and
// Took, which the answer does not carry, are 0.
func (c *Client) Search(ctx context.Context, q Query) (*api.SearchResult, error) {
	var r api.SearchResult
	query := url.Values{"q": {q.Q}, "syntax": {q.Syntax}, "from": {strconv.Itoa(q.From)},
		"size": {strconv.Itoa(q.Size)}, "collapse": {strconv.FormatBool(!q.Uncollapsed)}}
	if err := c.get(ctx, "/api/search", query, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Clusters calls fn with every cluster of min members or more, in
// creation order, reading them a page at a time; an error from fn stops
// the walk.
func (c *Client) Clusters(ctx context.Context, min int, fn func(ClusterInfo) error) error {
	after := ""
	for {
		var r struct {
			Clusters []ClusterInfo `json:"clusters"`
			Next     string        `json:"next"`
		}
		if err := c.get(ctx, "/api/clusters", url.Values{"min": {strconv.Itoa(min)}, "after": {after}}, &r); err != nil {
			return err
		}
		for _, cl := range r.Clusters {
			if err := fn(cl); err != nil {
				return err
			}
		}
		if r.Next == "" {
			return nil
		}
		after = r.Next
	}
}

// Ingest sends pages to the server's /api/ingest (a server with server.Options.Ingest
// set) as JSONL bodies and returns the sum of their summaries. A body stays below the largest the
// server takes (its GET /api/ingest says), so a large input goes as
// several requests, one after the other; a page larger than that alone
// goes to onError, as do pages that cannot be read here. A body is sent
// only once the server takes it (Expect: 100-continue): while another
// ingest runs, the request is made again after the server's
// Retry-After, until ctx is done.
func (c *Client) Ingest(ctx context.Context, pages iter.Seq2[page.Page, error], onError func(error)) (api.IngestSummary, error) {
	var status struct {
		MaxBody int64 `json:"max_body"` // 0 from a server that does not say: no bound
	}
	if err := c.get(ctx, "/api/ingest", nil, &status); err != nil {
		return api.IngestSummary{}, err
	}
	next, stop := iter.Pull2(pages)
	defer stop()
	src := &pageSource{next: next, onError: onError, limit: status.MaxBody}
	total := api.IngestSummary{ErrorList: []string{}}
	for {
		sum, err := c.post(ctx, &pageBody{src: src})
		total.Add(sum)
		if err != nil || src.ended() {
			return total, err
		}
	}
}

// post sends one body of pages and returns the server's summary.
func (c *Client) post(ctx context.Context, body *pageBody) (api.IngestSummary, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 10 * time.Second
	hc := &http.Client{Transport: tr} // no overall time-out: the run lasts as long as the input
	u := c.base.JoinPath("/api/ingest").String()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
		if err != nil {
			return api.IngestSummary{}, fmt.Errorf("remote: %w", err)
		}
		req.Header.Set("Content-Type", "application/x-ndjson")
		req.Header.Set("Expect", "100-continue")
		if c.Token != "" {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
		resp, err := hc.Do(req)
		body.Close()
		if err != nil {
			return api.IngestSummary{}, fmt.Errorf("remote: %w", err)
		}
		var sum api.IngestSummary
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		resp.Body.Close()
		if err != nil {
			return api.IngestSummary{}, fmt.Errorf("remote: %s: %w", u, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests && !body.wasRead() {
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(max(wait, 1)) * time.Second):
				body.reopen()
				continue
			case <-ctx.Done():
				return api.IngestSummary{}, ctx.Err()
			}
		}
		if json.Unmarshal(data, &sum) != nil || (resp.StatusCode != http.StatusOK && sum.Error == "" && resp.StatusCode != http.StatusRequestEntityTooLarge) {
			return api.IngestSummary{}, answerError(u, resp.StatusCode, resp.Status, data)
		}
		if sum.Error != "" {
			return sum, fmt.Errorf("remote: %w: %s", ErrServer, sum.Error)
		}
		if resp.StatusCode == http.StatusRequestEntityTooLarge {
			return sum, fmt.Errorf("remote: %w: the input is larger than the server takes in one request (server.Ingest.MaxBytes); the pages before the limit are indexed", ErrServer)
		}
		return sum, nil
	}
}

// pageSource is the pages of an input as JSONL lines, shared by the
// bodies of the requests that send them in turn.
type pageSource struct {
	next    func() (page.Page, error, bool)
	onError func(error)
	limit   int64 // the largest body; 0: no bound

	mu      sync.Mutex
	pending []byte // the next line, read but not yet sent
	done    bool
	enc     bytes.Buffer
}

// line returns the next page's line, reading it when none is pending; nil
// at the end.
func (s *pageSource) line() []byte {
	for s.pending == nil && !s.done {
		p, err, ok := s.next()
		switch {
		case !ok:
			s.done = true
		case err != nil:
			s.onError(err)
		default:
			rec := jsonlPage{ID: p.ID, URL: p.URL, Title: p.Title}
			if p.HTML != "" {
				rec.HTML = &p.HTML
			} else {
				rec.Text = &p.Text
			}
			s.enc.Reset()
			enc := json.NewEncoder(&s.enc)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(rec); err != nil {
				s.onError(&page.Error{Source: p.Source, ID: p.ID, Err: err})
				continue
			}
			if s.limit > 0 && int64(s.enc.Len()) > s.limit {
				s.onError(&page.Error{Source: p.Source, ID: p.ID, Err: fmt.Errorf("%d bytes as JSON, more than the server takes in a request: %w", s.enc.Len(), page.ErrTooLarge)})
				continue
			}
			s.pending = bytes.Clone(s.enc.Bytes())
		}
	}
	return s.pending
}

func (s *pageSource) ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.line() == nil
}

// pageBody is a request body: the source's lines while they fit in its
// limit.
type pageBody struct {
	src     *pageSource
	buf     []byte // the rest of the line being sent
	sent    int64
	started bool // a line was taken from the source
	closed  bool
}

func (b *pageBody) Read(p []byte) (int, error) {
	s := b.src
	s.mu.Lock() // the transport may read on after the request ended
	defer s.mu.Unlock()
	for len(b.buf) == 0 {
		line := s.line()
		if b.closed || line == nil || (s.limit > 0 && b.sent+int64(len(line)) > s.limit) {
			return 0, io.EOF
		}
		b.buf, s.pending = line, nil
		b.sent += int64(len(line))
		b.started = true
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// Close ends the body: a line being sent is lost with the request.
func (b *pageBody) Close() error {
	b.src.mu.Lock()
	defer b.src.mu.Unlock()
	b.closed = true
	return nil
}

// wasRead reports whether a line was taken from the source.
func (b *pageBody) wasRead() bool {
	b.src.mu.Lock()
	defer b.src.mu.Unlock()
	return b.started
}

// reopen makes a body that was never read usable for another request.
func (b *pageBody) reopen() {
	b.src.mu.Lock()
	defer b.src.mu.Unlock()
	b.closed = false
}

// jsonlPage is a page as a JSONL input line (see page.Read).
type jsonlPage struct {
	ID    string  `json:"id"`
	URL   string  `json:"url,omitempty"`
	Title string  `json:"title,omitempty"`
	HTML  *string `json:"html,omitempty"`
	Text  *string `json:"text,omitempty"`
}
