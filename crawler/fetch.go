package crawler

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// fetcher does bounded HTTP GETs.
type fetcher struct {
	client    *http.Client
	userAgent string
	maxBytes  int64
	timeout   time.Duration // whole request, dial included
}

// response is a fetched resource. body is nil for a non-HTML page.
type response struct {
	url         *url.URL // after redirects
	status      int
	contentType string
	body        []byte
}

func newFetcher(o Options, allowed func(host string) bool) *fetcher {
	dialer := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    o.ConnectTimeout,
		ResponseHeaderTimeout:  o.ReadTimeout,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    o.Workers,
		IdleConnTimeout:        90 * time.Second,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		MaxResponseHeaderBytes: 64 << 10,
	}
	var rt http.RoundTripper = tr
	if o.Recorder != nil {
		rt = o.Recorder.Transport(tr)
	}
	client := &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > o.MaxRedirects {
				return fmt.Errorf("crawler: more than %d: %w", o.MaxRedirects, ErrTooManyRedirects)
			}
			for _, v := range via {
				if v.URL.String() == req.URL.String() {
					return fmt.Errorf("crawler: loop at %s: %w", req.URL, ErrTooManyRedirects)
				}
			}
			if req.Context().Value(anyHost{}) == nil && !allowed(req.URL.Hostname()) {
				return fmt.Errorf("crawler: %s: %w", req.URL.Host, ErrOffSite)
			}
			return nil
		},
	}
	return &fetcher{client: client, userAgent: o.UserAgent, maxBytes: o.MaxBytes, timeout: o.ConnectTimeout + o.ReadTimeout}
}

// get fetches rawURL. With wantHTML, a response that is not HTML (by
// Content-Type, or by sniffing when there is none) is not read and gives
// ErrNotHTML. A non-2xx status gives ErrHTTPStatus with the response's
// status set. The body read is at most maxBytes.
func (f *fetcher) get(ctx context.Context, rawURL string, wantHTML bool) (response, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return response{}, fmt.Errorf("crawler: %w: %w", err, ErrBadURL)
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			if !errors.Is(err, ErrTooManyRedirects) && !errors.Is(err, ErrOffSite) {
				err = fmt.Errorf("%w: %w", ErrUnreachable, err) // err names the URL
			}
		}
		return response{}, err
	}
	defer resp.Body.Close()
	r := response{url: resp.Request.URL, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return r, fmt.Errorf("crawler: status %d: %w", resp.StatusCode, ErrHTTPStatus)
	}
	if resp.ContentLength > f.maxBytes {
		return r, fmt.Errorf("crawler: %d bytes: %w", resp.ContentLength, ErrTooLarge)
	}
	if wantHTML && r.contentType != "" && !isHTML(r.contentType) {
		return r, fmt.Errorf("crawler: %s: %w", r.contentType, ErrNotHTML)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return r, err
	}
	if int64(len(body)) > f.maxBytes {
		return r, fmt.Errorf("crawler: over %d bytes: %w", f.maxBytes, ErrTooLarge)
	}
	if wantHTML && r.contentType == "" && !isHTML(http.DetectContentType(body)) {
		return r, fmt.Errorf("crawler: sniffed %s: %w", http.DetectContentType(body), ErrNotHTML)
	}
	r.body = body
	return r, nil
}

// anyHost marks a request context whose redirects may leave the allowed
// hosts: robots.txt of "example.com" often redirects to "www.example.com",
// and RFC 9309 says to follow it.
type anyHost struct{}

func isHTML(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}
