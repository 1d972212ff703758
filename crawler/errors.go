package crawler

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/canon"
	"github.com/bleve-dedup/bleve-dedup/internal/errs"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// Sentinel errors; test with errors.Is. The per-page ones appear in
// Record.Error and are counted, they do not stop a crawl.
var (
	// ErrInvalidOptions reports an Options field out of range.
	ErrInvalidOptions = errs.InvalidOptions
	// ErrBadURL reports a URL that cannot be crawled (unparsable, not
	// http(s), no host). It is canon.ErrBadURL, which canonicalisation
	// returns.
	ErrBadURL = canon.ErrBadURL
	// ErrNotHTML reports a response whose Content-Type is not HTML. It
	// is page.ErrNotHTML, which a WARC record of one gives when read.
	ErrNotHTML = page.ErrNotHTML
	// ErrTooLarge reports a response larger than Options.MaxBytes. It is
	// page.ErrTooLarge.
	ErrTooLarge = page.ErrTooLarge
	// ErrTooManyRedirects reports a redirect chain longer than
	// Options.MaxRedirects, or one that loops.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrHTTPStatus reports a non-2xx final status. It is
	// page.ErrHTTPStatus.
	ErrHTTPStatus = page.ErrHTTPStatus
	// ErrOffSite reports a redirect to a host outside Options.AllowedHosts
	// or to a URL robots.txt disallows.
	ErrOffSite = errors.New("redirect off site")
	// ErrUnreachable reports a server that did not answer (connection
	// refused or reset, a time-out before the response) or, for
	// robots.txt, answered with a server error. The crawler tries such a
	// server again with backoff for Options.RetryFor before its pages
	// fail with this error.
	ErrUnreachable = errors.New("server unreachable")
	// ErrNoPages reports a crawl that ended without reading any page;
	// the error says why (the seeds' last failure).
	ErrNoPages = errors.New("no page fetched")
	// ErrStoreVersion reports a crawl store written by an incompatible
	// version.
	ErrStoreVersion = errors.New("incompatible crawl store")
)
