package crawler

import (
	"fmt"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/enum"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// Strategy orders the frontier.
type Strategy int

const (
	// BestFirst fetches the link with the highest predicted value first
	// (the link-value paper's I(p) = Σ w_k·I_k(p)); ties go to the earlier found link.
	BestFirst Strategy = iota
	// BreadthFirst fetches links in the order they were found.
	BreadthFirst
)

var strategyNames = enum.New[Strategy]("strategy", "best-first", "breadth-first")

func (s Strategy) String() string { return strategyNames.String(s) }

// ParseStrategy parses "best-first" or "breadth-first" (case-insensitive).
func ParseStrategy(s string) (Strategy, error) {
	st, err := strategyNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("crawler: %v: %w", err, ErrInvalidOptions)
	}
	return st, nil
}

// Options configure a Crawler. Start from DefaultOptions.
type Options struct {
	// Dir holds the crawl state (frontier, seen set, learnt weights,
	// counters) in a Badger store, so a stopped crawl resumes. Required.
	Dir string

	// Seeds are the start URLs. They are added only when Dir is new; a
	// resumed crawl continues from its stored frontier.
	Seeds []string

	// Profile is the topic pages are scored against. Required.
	Profile *relevance.Profile

	// Index receives the relevant pages (nil: nothing is indexed and
	// there is no near-duplicate detection, only exact-content dedup).
	Index Indexer

	// AllowedHosts limits the crawl: a host is allowed when it equals an
	// entry, or ends with an entry that starts with "." (".example.com"
	// allows all subdomains). Default (nil): the seeds' hosts. Links to
	// other hosts are ignored and redirects to them fail (ErrOffSite), so
	// list both "example.com" and "www.example.com" when a site redirects
	// between them.
	AllowedHosts []string

	// MaxDepth is the largest link distance from a seed that is fetched
	// (seeds are depth 0). Default 10.
	MaxDepth int

	// MaxPages stops the crawl after this many fetches in total, across
	// resumed runs. Default 1000; 0 means no limit.
	MaxPages int

	// Workers fetch and process pages in parallel. Default 4.
	Workers int

	// Delay is the least time between the starts of two requests to one
	// host (politeness); a robots.txt Crawl-delay raises it up to
	// MaxCrawlDelay. Default 1 s. 0 lets all workers hit one host at once:
	// only for servers you run.
	Delay time.Duration
	// MaxCrawlDelay caps a robots.txt Crawl-delay. Default 30 s.
	MaxCrawlDelay time.Duration

	// Robots makes the crawler fetch and obey robots.txt. Default true.
	Robots bool

	// RetryFor is how long a server that does not answer (connection
	// refused, a time-out before the response; for robots.txt also a
	// server error) is tried again, with backoff from half a second
	// doubling to 15 s, counted from its first failure: a server that
	// comes up or back within that time is crawled. Until then its
	// robots.txt counts as a complete disallow (RFC 9309) and its pages
	// wait in the frontier; after it they fail with ErrUnreachable
	// without the server being tried again.
	// Default 1 minute; 0 fails them at once.
	RetryFor time.Duration

	// ConnectTimeout bounds dialling (TCP and TLS handshake); ReadTimeout
	// bounds the whole request after that, body included, so a server
	// that trickles bytes is cut off. Defaults 10 s each.
	ConnectTimeout, ReadTimeout time.Duration

	// UserAgent is sent with every request and matched against robots.txt
	// groups. Default "bleve-dedup-crawler/1.0".
	UserAgent string

	// Strategy orders the frontier. Default BestFirst.
	Strategy Strategy

	// Learn lets the link scorer's weights learn from every fetched page
	// (the link-value paper): each page's actual relevance is compared with the four
	// predictions of the link that led to it. The weights persist in Dir.
	// Default true; false keeps the weights fixed (equal, or LinkScorer's).
	Learn bool

	// LinkScorer predicts link values. Default nil: a new scorer for
	// Profile with relevance.DefaultLinkOptions and equal weights. Pass a
	// scorer loaded from a training crawl's state (LinkScorer.MarshalJSON
	// of Crawler.LinkScorer) to start from learnt weights. A resumed crawl
	// replaces its state with the one stored in Dir.
	LinkScorer *relevance.LinkScorer

	// StripParams are the query parameters dropped by canonicalisation.
	// Default canon.DefaultStripParams.
	StripParams []string

	// Bounds for hostile servers and pages.
	//
	// MaxBytes: larger responses are dropped (ErrTooLarge) after reading at
	// most MaxBytes+1 bytes. Default 4 MiB.
	MaxBytes int64
	// MaxRedirects: longer chains fail (ErrTooManyRedirects). Default 5.
	MaxRedirects int
	// MaxLinks: links taken from one page; the rest are ignored. Default
	// 500, at most 10,000 (a page's new links are stored in one
	// transaction); 0 fetches the seeds only.
	MaxLinks int
	// MaxURLLength: longer links are ignored. Default 2048 bytes.
	MaxURLLength int
	// MaxFrontier: links found while the frontier holds this many are
	// dropped (counted in Summary.Dropped). Default 200,000, about 60 MiB.
	MaxFrontier int

	// OnPage, if set, is called once per fetched page in fetch order from
	// a single goroutine; it must not block for long.
	OnPage func(Record)

	// Recorder, if set, sees every HTTP exchange of the crawl (pages,
	// redirects, robots.txt) to archive it; *warcout.Recorder is one.
	// Once it fails, Run stops with its error and the page at hand stays
	// queued, so the archive has no hole the crawl store does not know
	// of. It is the caller's to close, after Run.
	Recorder Recorder

	// SyncWrites fsyncs the crawl store after every page. Default false:
	// a power loss may lose the last pages' state (they are fetched
	// again); a process crash or SIGINT loses nothing.
	SyncWrites bool
}

// DefaultOptions returns the defaults documented on Options, with the
// state store in dir.
func DefaultOptions(dir string) Options {
	return Options{
		Dir:            dir,
		MaxDepth:       10,
		MaxPages:       1000,
		Workers:        4,
		Delay:          time.Second,
		MaxCrawlDelay:  30 * time.Second,
		Robots:         true,
		RetryFor:       time.Minute,
		ConnectTimeout: 10 * time.Second,
		ReadTimeout:    10 * time.Second,
		UserAgent:      "bleve-dedup-crawler/1.0",
		Strategy:       BestFirst,
		Learn:          true,
		MaxBytes:       4 << 20,
		MaxRedirects:   5,
		MaxLinks:       500,
		MaxURLLength:   2048,
		MaxFrontier:    200_000,
	}
}

// maxLinksLimit keeps one page's state change well inside a Badger
// transaction.
const maxLinksLimit = 10000

func (o Options) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("crawler: "+format+": %w", append(args, ErrInvalidOptions)...)
	}
	switch {
	case o.Dir == "":
		return bad("no state directory")
	case o.Profile == nil:
		return bad("no topic profile")
	case o.MaxDepth < 0:
		return bad("max depth %d < 0", o.MaxDepth)
	case o.MaxPages < 0:
		return bad("max pages %d < 0", o.MaxPages)
	case o.Workers < 1:
		return bad("workers %d < 1", o.Workers)
	case o.Delay < 0 || o.MaxCrawlDelay < 0 || o.RetryFor < 0:
		return bad("negative delay")
	case o.ConnectTimeout <= 0 || o.ReadTimeout <= 0:
		return bad("time-outs must be positive")
	case o.UserAgent == "":
		return bad("empty user agent")
	case o.Strategy != BestFirst && o.Strategy != BreadthFirst:
		return bad("unknown strategy %d", int(o.Strategy))
	case o.MaxBytes <= 0 || o.MaxRedirects < 0 || o.MaxLinks < 0 || o.MaxURLLength <= 0 || o.MaxFrontier <= 0:
		return bad("limits must be positive")
	case o.MaxLinks > maxLinksLimit:
		return bad("max links %d > %d", o.MaxLinks, maxLinksLimit)
	}
	return nil
}
