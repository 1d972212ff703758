package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// client reads an index through the JSON API of a running serve, for the
// read commands' --server: an index that process holds open cannot be
// opened by another.
type client struct {
	base *url.URL
	http *http.Client
}

func newClient(server string) (*client, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--server %q: want an http:// or https:// URL of a bleve-dedup serve", server)
	}
	return &client{base: u, http: &http.Client{Timeout: time.Minute}}, nil
}

// get decodes the JSON answer of GET path?query into v.
func (c *client) get(ctx context.Context, path string, query url.Values, v any) error {
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("--server: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("--server: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return fmt.Errorf("--server: %s", e.Error)
		}
		return fmt.Errorf("--server: %s: %s", u, resp.Status)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("--server: %s: %w", u, err)
	}
	return nil
}

// search runs a search as searchCmd would on the index itself.
func (c *client) search(ctx context.Context, q, syntax string, from, size int, fold bool) (*collapse.Result, error) {
	var r struct {
		Total         uint64         `json:"total"`
		Clusters      int            `json:"clusters"`
		ClustersExact bool           `json:"clusters_exact"`
		Hits          []collapse.Hit `json:"hits"`
	}
	query := url.Values{"q": {q}, "syntax": {syntax}, "from": {strconv.Itoa(from)},
		"size": {strconv.Itoa(size)}, "collapse": {strconv.FormatBool(fold)}}
	if err := c.get(ctx, "/api/search", query, &r); err != nil {
		return nil, err
	}
	return &collapse.Result{Hits: r.Hits, Total: r.Total, Clusters: r.Clusters, ClustersExact: r.ClustersExact}, nil
}

// clusters calls fn with every cluster of two or more members, in
// creation order, a page at a time.
func (c *client) clusters(ctx context.Context, fn func(clusterLine) error) error {
	after := ""
	for {
		var r struct {
			Clusters []struct {
				ID             string   `json:"id"`
				Representative string   `json:"representative"`
				Members        []string `json:"members"`
			} `json:"clusters"`
			Next string `json:"next"`
		}
		if err := c.get(ctx, "/api/clusters", url.Values{"min": {"2"}, "after": {after}}, &r); err != nil {
			return err
		}
		for _, cl := range r.Clusters {
			if err := fn(clusterLine{cl.ID, cl.Representative, cl.Members}); err != nil {
				return err
			}
		}
		if r.Next == "" {
			return nil
		}
		after = r.Next
	}
}

// ingest sends pages to the server's /api/ingest as a JSONL body and
// returns its summary. The body is sent only once the server takes it
// (Expect: 100-continue): while another ingest runs, the request is made
// again after the server's Retry-After, until ctx is done. Pages that
// cannot be read here go to onError.
func (c *client) ingest(ctx context.Context, pages iter.Seq2[page.Page, error], onError func(error)) (server.IngestSummary, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 10 * time.Second
	hc := &http.Client{Transport: tr} // no overall time-out: the run lasts as long as the input
	u := c.base.JoinPath("/api/ingest").String()
	for {
		body := &pageBody{pages: pages, onError: onError}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
		if err != nil {
			return server.IngestSummary{}, err
		}
		req.Header.Set("Content-Type", "application/x-ndjson")
		req.Header.Set("Expect", "100-continue")
		resp, err := hc.Do(req)
		body.Close()
		if err != nil {
			return server.IngestSummary{}, fmt.Errorf("--server: %w", err)
		}
		var sum server.IngestSummary
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return server.IngestSummary{}, fmt.Errorf("--server: %s: %w", u, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(max(wait, 1)) * time.Second):
				continue
			case <-ctx.Done():
				return server.IngestSummary{}, ctx.Err()
			}
		}
		if json.Unmarshal(data, &sum) != nil || (resp.StatusCode != http.StatusOK && sum.Error == "" && resp.StatusCode != http.StatusRequestEntityTooLarge) {
			var e struct{ Error string }
			if json.Unmarshal(data, &e) == nil && e.Error != "" {
				return server.IngestSummary{}, fmt.Errorf("--server: %s", e.Error)
			}
			return server.IngestSummary{}, fmt.Errorf("--server: %s: %s", u, resp.Status)
		}
		if sum.Error != "" {
			return sum, fmt.Errorf("--server: %s", sum.Error)
		}
		if resp.StatusCode == http.StatusRequestEntityTooLarge {
			return sum, fmt.Errorf("--server: the input is larger than the server takes in one request (serve --ingest-max-body); the pages before the limit are indexed")
		}
		return sum, nil
	}
}

// pageBody is a request body of pages as JSONL lines, made as it is read.
type pageBody struct {
	pages   iter.Seq2[page.Page, error]
	onError func(error)
	once    sync.Once
	pr      *io.PipeReader
}

func (b *pageBody) Read(p []byte) (int, error) {
	b.once.Do(b.start)
	return b.pr.Read(p)
}

// Close stops the writer when the request ends before the pages do.
func (b *pageBody) Close() error {
	b.once.Do(func() {}) // a body never read starts nothing
	if b.pr != nil {
		b.pr.Close()
	}
	return nil
}

func (b *pageBody) start() {
	pr, pw := io.Pipe()
	b.pr = pr
	go func() {
		bw := bufio.NewWriterSize(pw, 256<<10)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for p, err := range b.pages {
			if err != nil {
				b.onError(err)
				continue
			}
			rec := jsonlPage{ID: p.ID, URL: p.URL, Title: p.Title}
			if p.HTML != "" {
				rec.HTML = &p.HTML
			} else {
				rec.Text = &p.Text
			}
			if err := enc.Encode(rec); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(bw.Flush())
	}()
}

// jsonlPage is a page as a JSONL input line (see page.Read).
type jsonlPage struct {
	ID    string  `json:"id"`
	URL   string  `json:"url,omitempty"`
	Title string  `json:"title,omitempty"`
	HTML  *string `json:"html,omitempty"`
	Text  *string `json:"text,omitempty"`
}
