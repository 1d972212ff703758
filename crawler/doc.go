// Package crawler is a focused web crawler that feeds a bleve-dedup index:
// it fetches pages from seed URLs, scores each against a topic
// (relevance.Profile, the topic-crawler paper), indexes the relevant ones
// with their relevance through the near-duplicate filter, and orders its
// frontier by the link-value paper's predicted link value, whose weights
// learn from the pages fetched.
//
// # Use
//
//	o := crawler.DefaultOptions("DIR/crawl")
//	o.Seeds, o.Profile, o.Index = seeds, profile, feed // feed: an *indexer.Feed
//	c, err := crawler.New(o)
//	...
//	defer c.Close()
//	sum, err := c.Run(ctx) // cancel ctx to stop; New+Run again resumes
//
// # Pipeline
//
// Run hands links to Options.Workers goroutines. A worker checks
// robots.txt (fetched once per host), GETs the page (bounded: connect and
// read time-outs, MaxBytes, MaxRedirects, HTML only), decodes its charset
// (package page), extracts title and main text (package extract), scores
// it, drops it as a duplicate when its text equals an earlier page's or
// when the index's filter finds it near-duplicate (only relevant pages
// are indexed, so only they get near-duplicate detection), and otherwise
// collects its links with their anchor text and sibling anchors (links in
// the same list, paragraph or block) and predicts each link's four
// signals. One goroutine then applies the results in fetch order: it
// updates the link weights, queues new links, writes the page's state
// change to the store in one transaction and calls Options.OnPage.
//
// # Frontier
//
// BestFirst pops the link with the largest Σ w_k·I_k (anchor, siblings,
// parent, URL), BreadthFirst the shallowest, earliest found. The parent
// signal of a link is the larger of its page's relevance and the page's
// yield, the mean relevance of the links the page found first that were
// fetched so far (a section index names no topic, the pages it lists
// do); it moves on the queued links as their siblings come in.
// A link found again from a better page keeps the higher value. With
// Learn, every fetched page's actual relevance updates the weights by
// the rule documented on relevance.LinkScorer, and queued values are
// recomputed every 16 observations. Per-host politeness: two requests to
// a host start at least Delay apart (raised by a robots.txt Crawl-delay
// up to MaxCrawlDelay); the dispatcher skips links of waiting hosts.
//
// # URLs
//
// Every link is canonicalised (canon.URL) before the seen-set check
// and used as the document id, so "HTTP://Host:80/a?b=2&a=1&utm_source=x#f"
// and "http://host/a?a=1&b=2", or "/a/index.html" and "/a/", are fetched
// once.
//
// # State and resumption
//
// Options.Dir is a Badger store with the frontier (links queued or being
// fetched), the seen set, exact-content hashes, the cumulative counters
// and the learnt weights. Each page's changes commit atomically after
// the page is processed, so a crawl stopped at any point (SIGINT, kill)
// resumes at a page boundary: links in flight are fetched again, none is
// lost, none fetched twice once recorded. MaxPages counts across runs.
//
// # Archive
//
// With Options.Recorder (package warcout), every HTTP exchange of the
// crawl, robots.txt and redirects included, goes through the recorder's
// transport into WARC files. Run checks the recorder before it takes a
// page as done and stops with its error, the page left queued, so the
// archive holds every page the store took as done (docs/crawl.md says
// what re-indexing the archive reproduces).
//
// # Bounds
//
// Time per page is bounded by ConnectTimeout+ReadTimeout (a trickling
// server is cut off), memory per page by MaxBytes (an HTML token, however
// long, costs at most the page), MaxLinks, anchors of 200 runes and 20
// siblings per link. The frontier
// holds at most MaxFrontier links (about 300 bytes each); the seen set
// (queued and fetched URLs, about 150 bytes each) at most MaxPages +
// MaxFrontier, as links dropped from a full frontier are not marked seen.
//
// # Caveats
//
//   - Near-duplicates are detected only among relevant (indexed) pages;
//     off-topic pages are de-duplicated by exact extracted text only, so
//     an off-topic page mirrored with small changes is expanded twice.
//   - robots.txt is fetched once per host per process. A server that
//     does not answer (or answers robots.txt with a 5xx) is tried again
//     with backoff for Options.RetryFor, its pages waiting meanwhile (RFC
//     9309's complete disallow); then they fail with ErrUnreachable. A
//     crawl that reads no page at all returns ErrNoPages with the reason.
//     A redirect's target is checked against AllowedHosts but not against
//     its host's robots.txt.
//   - Politeness spaces page requests, not the robots.txt request itself.
//   - The depth limit is what stops link traps inside an allowed host
//     (calendars, session ids in paths): keep MaxDepth small for such sites.
//   - Learning measures each signal against the profile's own judgement,
//     so the weights also learn the profile's mistakes (see docs/crawl.md).
//   - With more than one worker, fetch order, and so the exact pages of a
//     budget-limited crawl, varies between runs.
package crawler
