package warcout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// Transport returns next (http.DefaultTransport when nil) wrapped so that
// every exchange through it is recorded, as a request record and a
// response record, when the caller closes the response body. Exchanges
// that end without a response (a refused connection, a time-out before
// the headers) are not recorded.
func (r *Recorder) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{r: r, next: next}
}

type transport struct {
	r    *Recorder
	next http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.r.Err() != nil { // the archive has a hole already: the crawl stops
		return t.next.RoundTrip(req)
	}
	ex := &exchange{r: t.r, req: req, date: time.Now()}
	resp, err := t.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), ex.trace())))
	if err != nil || resp == nil {
		return resp, err
	}
	resp.Body = ex.begin(resp)
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// wrapped transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// exchange is one request and its response on their way to the archive.
type exchange struct {
	r    *Recorder
	req  *http.Request
	date time.Time // when the request started

	mu     sync.Mutex // the trace hooks run in the transport's goroutines
	ip     string
	header bytes.Buffer // request header fields as written
}

// trace collects the address connected to and the request header as
// the transport wrote it, Host and the Accept-Encoding it adds included.
func (e *exchange) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(ci httptrace.GotConnInfo) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.header.Reset() // a retry on a new connection writes the header again
			if host, _, err := net.SplitHostPort(ci.Conn.RemoteAddr().String()); err == nil {
				e.ip = host
			}
		},
		WroteHeaderField: func(key string, values []string) {
			e.mu.Lock()
			defer e.mu.Unlock()
			for _, v := range values {
				fmt.Fprintf(&e.header, "%s: %s\r\n", key, v)
			}
		},
	}
}

// begin starts the response record with the status line and header and
// returns the body that copies what the caller reads into it. The
// header is Go's view of it: Transfer-Encoding is gone (the body is
// de-chunked), and when the transport decompressed a gzip body it removed
// Content-Encoding and Content-Length too, so header and body agree.
func (e *exchange) begin(resp *http.Response) io.ReadCloser {
	rb := newBuilder(gowarc.Response)
	var head bytes.Buffer
	fmt.Fprintf(&head, "HTTP/%d.%d %s\r\n", resp.ProtoMajor, resp.ProtoMinor, resp.Status)
	resp.Header.Write(&head)
	head.WriteString("\r\n")
	b := &body{ex: e, rc: resp.Body, rb: rb, length: resp.ContentLength}
	_, b.bufErr = rb.Write(head.Bytes())
	return b
}

// body passes a response body through, copying the bytes read into the
// response record, which it writes on Close.
type body struct {
	ex     *exchange
	rc     io.ReadCloser
	rb     gowarc.WarcRecordBuilder
	length int64 // Content-Length; -1 when unknown

	mu      sync.Mutex
	n       int64
	eof     bool
	readErr error
	bufErr  error
	closed  bool
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > 0 && b.bufErr == nil && !b.closed {
		_, b.bufErr = b.rb.Write(p[:n])
	}
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil && b.readErr == nil:
		b.readErr = err
	}
	return n, err
}

// Close closes the body and records the exchange; a failure to record
// it is the Recorder's Err, not Close's.
func (b *body) Close() error {
	err := b.rc.Close()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return err
	}
	b.closed = true
	b.mu.Unlock()
	b.ex.record(b)
	return err
}

// truncation is the WARC-Truncated reason of a body read so far: "" when
// it was read whole, "length" when the reader stopped (a page too large,
// a body not wanted), "time" or "disconnect" when reading failed. drop
// reports an exchange abandoned because the request was cancelled (the
// crawl is stopping and will fetch the page again).
func (b *body) truncation(ctx context.Context) (reason string, drop bool) {
	switch {
	case b.eof || (b.length >= 0 && b.n >= b.length):
		return "", false
	case errors.Is(b.readErr, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return "", true
	case errors.Is(b.readErr, context.DeadlineExceeded) || errors.Is(b.readErr, os.ErrDeadlineExceeded):
		return "time", false
	case b.readErr != nil:
		return "disconnect", false
	}
	return "length", false
}

// record builds the exchange's two records and writes them.
func (e *exchange) record(b *body) {
	reason, drop := b.truncation(e.req.Context())
	if drop || b.bufErr != nil {
		b.rb.Close()
		if b.bufErr != nil {
			e.r.fail(fmt.Errorf("warcout: %s: %w", e.req.URL, b.bufErr))
		}
		return
	}
	e.mu.Lock()
	ip, sent := e.ip, e.header.String()
	e.mu.Unlock()
	resp, err := e.build(b.rb, "response", ip, reason)
	if err != nil {
		e.r.fail(err)
		return
	}
	qb := newBuilder(gowarc.Request)
	fmt.Fprintf(qb, "%s %s HTTP/1.1\r\n", e.req.Method, e.req.URL.RequestURI())
	if sent == "" { // a transport without trace hooks: the header as requested
		host := e.req.Host
		if host == "" {
			host = e.req.URL.Host
		}
		fmt.Fprintf(qb, "Host: %s\r\n", host)
		e.req.Header.Write(qb)
	} else {
		qb.WriteString(sent)
	}
	qb.WriteString("\r\n")
	req, err := e.build(qb, "request", ip, "")
	if err != nil {
		resp.Close()
		e.r.fail(err)
		return
	}
	e.r.write(req, resp)
}

// build adds the WARC header fields and makes the record.
func (e *exchange) build(rb gowarc.WarcRecordBuilder, msgtype, ip, truncated string) (gowarc.WarcRecord, error) {
	rb.AddWarcHeader(gowarc.WarcTargetURI, e.req.URL.String())
	rb.AddWarcHeaderTime(gowarc.WarcDate, e.date)
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype="+msgtype)
	if ip != "" {
		rb.AddWarcHeader(gowarc.WarcIPAddress, ip)
	}
	if truncated != "" {
		rb.AddWarcHeader(gowarc.WarcTruncated, truncated)
	}
	rec, _, err := rb.Build()
	if err != nil {
		return nil, fmt.Errorf("warcout: %s %s: %w", msgtype, e.req.URL, err)
	}
	return rec, nil
}

// fail keeps the first failure to record an exchange.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}
