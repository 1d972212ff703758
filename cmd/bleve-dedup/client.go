package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bleve-dedup/bleve-dedup/collapse"
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
