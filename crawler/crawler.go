package crawler

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/canon"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// FieldRelevance is the numeric field relevant pages are indexed with:
// their relevance.Score.Value in [0, 1].
const FieldRelevance = "relevance"

// Indexer receives relevant pages with the content the crawler extracted
// from them; *indexer.Feed is one, which takes them through the index's
// batch pipeline. The decision's Duplicate and Of say whether the page
// repeats one indexed before; indexer.ErrUnchanged, that the index holds
// it already.
type Indexer interface {
	Add(ctx context.Context, p page.Page, doc *indexer.Document) (dedupfilter.Decision, error)
}

// Recorder archives the crawl's HTTP exchanges; *warcout.Recorder is
// one.
type Recorder interface {
	// Transport wraps the crawler's transport: every exchange goes
	// through the returned one.
	Transport(http.RoundTripper) http.RoundTripper
	// Err reports the first exchange that could not be archived.
	Err() error
}

// Record is what happened to one fetched page, as written by the
// command's --log (one JSON object a line).
type Record struct {
	URL       string  `json:"url"`
	Status    int     `json:"status"` // HTTP status; 0 when no response
	Depth     int     `json:"depth"`
	LinkValue float64 `json:"link_value"` // predicted, with the weights at fetch time; 1 for seeds
	Relevance float64 `json:"relevance"`  // relevance.Score.Value
	Relevant  bool    `json:"relevant"`
	// DuplicateOf is the URL of the page this one repeats: a page with the
	// same extracted text, the indexed near-duplicate, or the target of a
	// redirect already seen.
	DuplicateOf string `json:"duplicate_of,omitempty"`
	Error       string `json:"error,omitempty"`
	// Err is the error behind Error.
	Err error `json:"-"`
	// Links is how many new links the page added to the frontier.
	Links int `json:"-"`
}

// Summary counts a crawl's pages. The counts are cumulative over resumed
// runs; Elapsed and RunFetched are this run's.
type Summary struct {
	Fetched    int // fetch attempts (pages disallowed by robots.txt excluded)
	Relevant   int // pages judged relevant, duplicates included
	Duplicates int // pages not indexed or expanded because they repeat another
	Errors     int // fetches that failed (network, status, size, type)
	Disallowed int // links robots.txt forbade
	Indexed    int // relevant pages written to the index
	Dropped    int // links ignored because the frontier was full
	Frontier   int // links left to fetch
	RunFetched int
	Elapsed    time.Duration
}

// HarvestRate is Relevant/Fetched (the link-value paper's search precision), 0 before
// any fetch.
func (s Summary) HarvestRate() float64 {
	if s.Fetched == 0 {
		return 0
	}
	return float64(s.Relevant) / float64(s.Fetched)
}

// PagesPerSecond is this run's fetch rate.
func (s Summary) PagesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.RunFetched) / s.Elapsed.Seconds()
}

// Crawler is a focused crawler. Run it once at a time; New and Close
// bracket its use of the state store.
type Crawler struct {
	opts    Options
	db      *badger.DB
	scorer  *relevance.LinkScorer
	fetcher *fetcher
	robots  robotsCache

	front     *frontier
	counts    counters
	hostDelay map[string]time.Duration // politeness per host, robots Crawl-delay included
	down      map[string]*outage       // servers that did not answer, by serverOf
	hubs      map[string]*hub          // fetched pages by URL: what their links led to
	why       error                    // this run's first failure, for ErrNoPages

	mu      sync.Mutex // guards seen and content, which workers also read
	seen    map[string]struct{}
	content map[string]string

	closeOnce sync.Once
	closeErr  error
}

// New opens (or creates) the crawl state in opts.Dir. A new store is
// seeded with opts.Seeds; an existing one resumes: its frontier (links
// queued or being fetched when it stopped), seen set, counters and learnt
// weights are loaded.
func New(opts Options) (*Crawler, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.AllowedHosts == nil {
		for _, s := range opts.Seeds {
			if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
				opts.AllowedHosts = append(opts.AllowedHosts, strings.ToLower(u.Hostname()))
			}
		}
	}
	scorer := opts.LinkScorer
	if scorer == nil {
		var err error
		if scorer, err = relevance.NewLinkScorer(opts.Profile, relevance.DefaultLinkOptions()); err != nil {
			return nil, fmt.Errorf("crawler: %w", err)
		}
	}
	db, err := openStore(opts.Dir, opts.SyncWrites)
	if err != nil {
		return nil, err
	}
	st, err := loadState(db)
	if err == nil && st.weights != nil {
		err = scorer.UnmarshalJSON(st.weights)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	c := &Crawler{
		opts:      opts,
		db:        db,
		scorer:    scorer,
		front:     newFrontier(opts.Strategy),
		counts:    st.counters,
		hostDelay: make(map[string]time.Duration),
		down:      make(map[string]*outage),
		hubs:      make(map[string]*hub),
		seen:      st.seen,
		content:   st.content,
	}
	c.fetcher = newFetcher(opts, c.allowedHost)
	c.robots.fetcher = c.fetcher
	c.robots.userAgent = opts.UserAgent
	w := c.weights()
	for _, it := range st.frontier {
		c.front.add(it, w)
	}
	if st.fresh {
		if err := c.addSeeds(); err != nil {
			db.Close()
			return nil, err
		}
	}
	return c, nil
}

// LinkScorer returns the scorer with the weights learnt so far; save its
// MarshalJSON to seed another crawl (Options.LinkScorer).
func (c *Crawler) LinkScorer() *relevance.LinkScorer { return c.scorer }

// Close closes the state store and idle connections. The Options.Index
// is the caller's to close. Later calls return the first call's result.
func (c *Crawler) Close() error {
	c.closeOnce.Do(func() {
		c.fetcher.client.CloseIdleConnections()
		if err := c.db.Close(); err != nil {
			c.closeErr = fmt.Errorf("crawler: close state: %w", err)
		}
	})
	return c.closeErr
}

func (c *Crawler) weights() relevance.Signals {
	if c.opts.Strategy == BreadthFirst {
		return relevance.Signals{}
	}
	return c.scorer.Weights()
}

func (c *Crawler) addSeeds() error {
	var ch change
	for _, s := range c.opts.Seeds {
		u, err := canon.URL(nil, s, c.opts.StripParams)
		if err != nil {
			return fmt.Errorf("crawler: seed %q: %w", s, err)
		}
		if _, dup := c.seen[u]; dup {
			continue
		}
		c.seen[u] = struct{}{}
		it := &item{URL: u, Seq: c.counts.Seq, Seed: true}
		c.counts.Seq++
		c.front.add(it, c.weights())
		ch.queued = append(ch.queued, it)
		ch.seen = append(ch.seen, u)
	}
	ch.counts = c.counts
	return commit(c.db, ch)
}

// allowedHost reports whether host (without port) may be crawled.
func (c *Crawler) allowedHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, a := range c.opts.AllowedHosts {
		a = strings.ToLower(a)
		if host == a || (strings.HasPrefix(a, ".") && (strings.HasSuffix(host, a) || host == a[1:])) {
			return true
		}
	}
	return false
}

func (c *Crawler) summary() Summary {
	k := c.counts
	return Summary{
		Fetched: k.Fetched, Relevant: k.Relevant, Duplicates: k.Duplicates, Errors: k.Errors,
		Disallowed: k.Disallowed, Indexed: k.Indexed, Dropped: k.Dropped, Frontier: len(c.front.byURL),
	}
}

// Run crawls until the frontier is empty, MaxPages is reached or ctx is
// cancelled. Cancelling abandons the pages in flight (their fetches and
// extractions stop); their links stay in the store's frontier and a later
// Run (or New on the same Dir) fetches them. The error is nil when the
// crawl stopped for either of the first two reasons, ctx.Err() when
// cancelled, and the store's error if state could not be saved. Per-page
// failures are counted, not returned.
func (c *Crawler) Run(ctx context.Context) (Summary, error) {
	start := time.Now()
	runFetched := 0
	finish := func(err error) (Summary, error) {
		s := c.summary()
		s.RunFetched, s.Elapsed = runFetched, time.Since(start)
		return s, err
	}

	ctx, cancel := context.WithCancel(ctx)
	jobs := make(chan *item)
	results := make(chan result)
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Go(func() {
			for it := range jobs {
				results <- c.process(ctx, it)
			}
		})
	}
	flying := make(map[string]*item)
	defer func() {
		cancel()
		close(jobs)
		drained := make(chan struct{})
		go func() { // drain the results of abandoned pages so workers exit
			for r := range results {
				c.unsee(r)
			}
			close(drained)
		}()
		wg.Wait()
		close(results)
		<-drained
		// Abandoned fetches go back to the queue for a later Run.
		for _, it := range flying {
			c.front.push(it)
		}
	}()

	nextAt := make(map[string]time.Time) // per host: earliest next request
	inflight := 0
	var timer *time.Timer
	for {
		budget := c.opts.MaxPages == 0 || c.counts.Fetched+inflight < c.opts.MaxPages
		if inflight == 0 && (!budget || c.front.Len() == 0) {
			return finish(c.noPages())
		}
		var next *item
		var wait time.Duration
		if budget && inflight < c.opts.Workers && c.front.Len() > 0 {
			next, wait = c.pick(nextAt)
		}
		if next != nil {
			if err := c.gaveUp(serverOf(next.URL)); err != nil {
				// Not contacted again: each try of a server that times
				// out costs ConnectTimeout+ReadTimeout.
				if err := c.record(result{it: next, err: err}); err != nil {
					return finish(err)
				}
				continue
			}
		}
		var jobc chan *item
		if next != nil {
			jobc = jobs
		}
		var timeout <-chan time.Time
		if next == nil && wait > 0 {
			timer = resetTimer(timer, wait)
			timeout = timer.C
		}
		select {
		case jobc <- next:
			host := serverOf(next.URL)
			nextAt[host] = time.Now().Add(c.delay(host))
			flying[next.URL] = next
			inflight++
		case r := <-results:
			if next != nil {
				c.front.push(next)
			}
			inflight--
			delete(flying, r.it.URL)
			if r.canceled {
				c.unsee(r)
				c.front.push(r.it)
				continue
			}
			if err := c.recorderErr(); err != nil {
				c.unsee(r)
				c.front.push(r.it) // perhaps not archived: fetched again next run
				return finish(err)
			}
			host := serverOf(r.it.URL)
			if errors.Is(r.err, ErrUnreachable) {
				if wait, ok := c.backoff(host, r.err); ok {
					c.front.push(r.it)
					nextAt[host] = time.Now().Add(wait)
					continue
				}
			} else {
				delete(c.down, host)
			}
			if !r.disallowed {
				runFetched++
			}
			if err := c.record(r); err != nil {
				return finish(err)
			}
		case <-timeout:
		case <-ctx.Done():
			if next != nil {
				c.front.push(next)
			}
			return finish(ctx.Err())
		}
	}
}

// outage is a server that has not answered since a time.
type outage struct {
	since time.Time
	tries int
	err   error // the last failure
}

// Backoff between tries of a server that does not answer: from
// retryFirst, doubling, at most retryMax.
const (
	retryFirst = 500 * time.Millisecond
	retryMax   = 15 * time.Second
)

// backoff records that host did not answer with err and returns how
// long to wait before trying it again, or false when it has not answered
// for Options.RetryFor (the last try falls at that bound).
func (c *Crawler) backoff(host string, err error) (time.Duration, bool) {
	now := time.Now()
	o := c.down[host]
	if o == nil {
		o = &outage{since: now}
		c.down[host] = o
	}
	o.err = err
	left := o.since.Add(c.opts.RetryFor).Sub(now)
	if left <= 0 {
		return 0, false
	}
	wait := min(retryFirst<<min(o.tries, 10), retryMax, left)
	o.tries++
	return wait, true
}

// gaveUp returns the error for a page of host when host has not answered
// for Options.RetryFor, else nil.
func (c *Crawler) gaveUp(host string) error {
	o := c.down[host]
	if o == nil || time.Since(o.since) < c.opts.RetryFor || o.err == nil {
		return nil
	}
	return fmt.Errorf("crawler: not tried, %s has not answered for %v: %w", host, c.opts.RetryFor, o.err)
}

// noPages is the error of a crawl that ended having read no page at all,
// across resumed runs, after trying some: ErrNoPages with the first
// failure of this run.
func (c *Crawler) noPages() error {
	k := c.counts
	if k.Fetched > k.Errors || (k.Fetched == 0 && k.Disallowed == 0) {
		return nil
	}
	why := c.why
	if why == nil { // a resumed crawl with nothing left to try
		why = errors.New("none in earlier runs either")
	}
	return fmt.Errorf("crawler: %w: %w", ErrNoPages, why)
}

// recorderErr is the Recorder's failure, if any: a page recorded as
// done after it would be missing from the archive for good.
func (c *Crawler) recorderErr() error {
	if c.opts.Recorder == nil {
		return nil
	}
	if err := c.opts.Recorder.Err(); err != nil {
		return fmt.Errorf("crawler: archive: %w", err)
	}
	return nil
}

func resetTimer(t *time.Timer, d time.Duration) *time.Timer {
	if t == nil {
		return time.NewTimer(d)
	}
	t.Reset(d)
	return t
}

// pickScan bounds how many queued links pick passes over when the best
// ones wait for their hosts' politeness delay.
const pickScan = 64

// pick takes the best queued link whose host may be contacted now. When
// every link it looks at waits for its host, it returns nil and how long
// until the first host is free.
func (c *Crawler) pick(nextAt map[string]time.Time) (*item, time.Duration) {
	now := time.Now()
	var skipped []*item
	defer func() {
		for _, it := range skipped {
			c.front.push(it)
		}
	}()
	wait := time.Duration(-1)
	for range pickScan {
		if c.front.Len() == 0 {
			break
		}
		it := c.front.pop()
		at, ok := nextAt[serverOf(it.URL)]
		if !ok || !at.After(now) {
			return it, 0
		}
		skipped = append(skipped, it)
		if d := at.Sub(now); wait < 0 || d < wait {
			wait = d
		}
	}
	return nil, wait
}

func (c *Crawler) delay(host string) time.Duration {
	if d, ok := c.hostDelay[host]; ok {
		return d
	}
	return c.opts.Delay
}

// serverOf is the server a request to rawURL goes to, host and port: the
// unit of politeness delays (two ports of a host are two servers).
func serverOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Host
	}
	return ""
}

// newLink is a link found on a page, canonical and allowed.
type newLink struct {
	url     string
	signals relevance.Signals
}

// result is a worker's outcome for one item.
type result struct {
	it          *item
	canceled    bool // ctx ended during the fetch or extraction: leave it queued
	disallowed  bool
	robotsDelay time.Duration
	status      int
	final       string // URL after redirects, when different and new
	score       relevance.Score
	fetchedHTML bool // a page was read and scored
	duplicateOf string
	indexed     bool
	hash        string
	links       []newLink
	err         error
}

// process fetches, scores, de-duplicates and indexes one page, and
// collects its links. It runs in a worker.
func (c *Crawler) process(ctx context.Context, it *item) result {
	r := result{it: it}
	if c.opts.Robots && !c.checkRobots(ctx, &r) {
		return r
	}
	resp, err := c.fetcher.get(ctx, it.URL, true)
	r.status = resp.status
	if ctx.Err() != nil {
		r.canceled = true
		return r
	}
	if err != nil {
		r.err = err
		return r
	}
	if final, err := canon.URL(nil, resp.url.String(), c.opts.StripParams); err == nil && final != it.URL {
		if !c.markSeen(final) {
			r.duplicateOf = final
			return r
		}
		r.final = final
	}
	text, content, err := c.read(ctx, resp, r.pageURL())
	if ctx.Err() != nil {
		r.canceled = true // the extraction stopped
		return r
	}
	if err != nil {
		r.err = err
		return r
	}
	r.score = c.opts.Profile.Score(content.Title, content.Text())
	r.fetchedHTML = true
	if !c.index(ctx, &r, text, content) {
		return r
	}
	if it.Depth < c.opts.MaxDepth {
		r.links = c.links(text, resp.url, r.score.Value)
	}
	return r
}

// pageURL is the URL the page is known by: after redirects, canonical.
func (r *result) pageURL() string {
	if r.final != "" {
		return r.final
	}
	return r.it.URL
}

// checkRobots reports whether robots.txt lets the item be fetched,
// recording its crawl delay, a refusal or a cancellation in r.
func (c *Crawler) checkRobots(ctx context.Context, r *result) bool {
	rb, err := c.robots.get(ctx, r.it.URL)
	if ctx.Err() != nil {
		r.canceled = true
		return false
	}
	if err != nil {
		r.err = err
		return false
	}
	r.robotsDelay = rb.Delay
	if u, err := url.Parse(r.it.URL); err == nil && !rb.Allowed(u.RequestURI()) {
		r.disallowed = true
		return false
	}
	return true
}

// read decodes a response and extracts its main content, stopping when
// ctx is done; a page with no main content is not an error (it is scored
// as empty and its links followed).
func (c *Crawler) read(ctx context.Context, resp response, pageURL string) (string, extract.Content, error) {
	dec, err := page.Decode(resp.body, resp.contentType)
	if err != nil {
		return "", extract.Content{}, fmt.Errorf("crawler: decode: %w", err)
	}
	content, err := extract.DefaultOptions().HTMLContext(ctx, dec.Text, pageURL)
	if err != nil && !errors.Is(err, extract.ErrNoContent) {
		return "", extract.Content{}, err
	}
	return dec.Text, content, nil
}

// index drops an exact copy of a page already fetched and indexes a
// relevant page through the near-duplicate filter. It reports whether the
// page's links are worth following: not for a copy of another page.
func (c *Crawler) index(ctx context.Context, r *result, html string, content extract.Content) bool {
	pageURL := r.pageURL()
	sum := sha1.Sum([]byte(content.Title + "\x00" + content.Text()))
	r.hash = hex.EncodeToString(sum[:])
	if first, dup := c.markContent(r.hash, pageURL); dup {
		r.duplicateOf, r.hash = first, ""
		return false
	}
	if !r.score.Relevant || c.opts.Index == nil || len(content.Paragraphs) == 0 {
		return true
	}
	// (pageURL is canonical already: the index need not make it again.)
	p := page.Page{ID: pageURL, URL: pageURL, CanonicalURL: pageURL, HTML: html}
	dec, err := c.opts.Index.Add(ctx, p, &indexer.Document{Title: content.Title, Paragraphs: content.Paragraphs,
		Fields: map[string]any{FieldRelevance: r.score.Value}})
	if errors.Is(err, indexer.ErrUnchanged) {
		r.indexed = true
		return true
	}
	if err != nil {
		r.err = fmt.Errorf("crawler: index: %w", err)
		return false
	}
	if dec.Duplicate && dec.Of != pageURL {
		r.duplicateOf = dec.Of
		return false
	}
	r.indexed = true
	return true
}

// links returns the page's new links with their predicted signals.
func (c *Crawler) links(text string, base *url.URL, parentRelevance float64) []newLink {
	found, baseHref := parseLinks(strings.NewReader(text), c.opts.MaxLinks)
	if baseHref != "" {
		if b, err := base.Parse(baseHref); err == nil {
			base = b
		}
	}
	sibs := siblingAnchors(found)
	var out []newLink
	inPage := make(map[string]bool)
	for i, f := range found {
		if len(f.href) > c.opts.MaxURLLength {
			continue
		}
		u, err := canon.URL(base, f.href, c.opts.StripParams)
		if err != nil || len(u) > c.opts.MaxURLLength || inPage[u] {
			continue
		}
		inPage[u] = true
		// Under BestFirst a seen link may still raise a queued one's value.
		if !c.allowedHost(hostnameOf(u)) || (c.isSeen(u) && c.opts.Strategy == BreadthFirst) {
			continue
		}
		sig := c.scorer.Signals(relevance.Link{URL: u, Anchor: f.anchor, Siblings: sibs[i], ParentRelevance: parentRelevance})
		out = append(out, newLink{url: u, signals: sig})
	}
	return out
}

func hostnameOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Hostname()
	}
	return ""
}

func (c *Crawler) isSeen(u string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.seen[u]
	return ok
}

// unsee removes from the seen set the redirect target a worker marked for
// a result that is not recorded (its run stopped), which the store does
// not hold either: the page, fetched again by a later Run, would
// otherwise be taken for a duplicate of its own target.
func (c *Crawler) unsee(r result) {
	if r.final == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, r.final)
}

// markSeen adds u to the seen set and reports whether it was new.
func (c *Crawler) markSeen(u string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[u]; ok {
		return false
	}
	c.seen[u] = struct{}{}
	return true
}

// markContent records that the page u has content hash h, or returns the
// first page that had it.
func (c *Crawler) markContent(h, u string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if first, ok := c.content[h]; ok && first != u {
		return first, true
	}
	c.content[h] = u
	return "", false
}

// record applies a worker's result: counters, learning, new links, the
// store and OnPage. It runs in Run's goroutine, in fetch order.
func (c *Crawler) record(r result) error {
	it := r.it
	ch := change{done: it.URL}
	c.front.done(it.URL)
	if r.robotsDelay > 0 {
		c.hostDelay[serverOf(it.URL)] = min(max(c.opts.Delay, r.robotsDelay), c.opts.MaxCrawlDelay)
	}
	if r.disallowed {
		if c.why == nil {
			c.why = fmt.Errorf("%s: disallowed by robots.txt", it.URL)
		}
		c.counts.Disallowed++
		ch.counts = c.counts
		return commit(c.db, ch)
	}
	rec := c.count(r)
	if r.final != "" {
		ch.seen = append(ch.seen, r.final)
	}
	if r.hash != "" {
		ch.content = [2]string{r.hash, r.pageURL()}
	}
	if c.opts.Learn && r.fetchedHTML && !it.Seed {
		if err := c.learn(r, &ch); err != nil {
			return err
		}
	}
	c.feedHubs(r)
	rec.Links = c.enqueue(it, r.links, &ch)
	ch.counts = c.counts
	if err := commit(c.db, ch); err != nil {
		return err
	}
	if c.opts.OnPage != nil {
		c.opts.OnPage(rec)
	}
	return nil
}

// count adds a fetched page's outcome to the counters and returns its log
// record.
func (c *Crawler) count(r result) Record {
	it := r.it
	c.counts.Fetched++
	// The link value is logged with the scorer's weights even under
	// BreadthFirst, which does not use it, so logs of both compare.
	rec := Record{URL: it.URL, Status: r.status, Depth: it.Depth, LinkValue: value(it, c.scorer.Weights()),
		Relevance: r.score.Value, Relevant: r.score.Relevant, DuplicateOf: r.duplicateOf, Err: r.err}
	if r.err != nil {
		rec.Error = r.err.Error()
		c.counts.Errors++
		if c.why == nil {
			c.why = fmt.Errorf("%s: %w", it.URL, r.err)
		}
	}
	if r.score.Relevant {
		c.counts.Relevant++
	}
	if r.duplicateOf != "" {
		c.counts.Duplicates++
	}
	if r.indexed {
		c.counts.Indexed++
	}
	return rec
}

// learn teaches the link scorer how well the item's signals predicted
// the page's relevance, and stores its new state with the change.
func (c *Crawler) learn(r result, ch *change) error {
	c.scorer.ObserveSignals(r.it.Signals, r.score.Value)
	state, err := c.scorer.MarshalJSON()
	if err != nil {
		return fmt.Errorf("crawler: save weights: %w", err)
	}
	ch.weights = state
	if c.opts.Strategy == BestFirst && c.scorer.Observations()%reweightEvery == 0 {
		c.front.reweight(c.scorer.Weights())
	}
	return nil
}

// hub is what a fetched page's links have led to: the link-value paper's
// parent signal, the page's own relevance, says little of a list of
// links (a section index, a "next page" link), whose text names no
// topic, while the relevance of the pages it led to says much. A link's
// parent signal is the larger of its page's relevance and the page's
// yield: the mean relevance of its children fetched so far, with the
// yield of the page that led to it counted as one more child, so that a
// list reached from a productive list starts out as one.
type hub struct {
	relevance float64
	n         int
	sum       float64 // children's relevance
	prior     float64 // the yield of the page that led here
}

func (h *hub) parentSignal() float64 {
	return max(h.relevance, (h.sum+h.prior)/float64(h.n+1))
}

// feedHubs records a fetched page as its parent's child, moves the
// parent signal of the parent's queued links with it, and opens the
// page's own hub. Under BreadthFirst, which ignores link values, it does
// nothing. The moved signals are not written to the store: a resumed
// crawl starts the hubs afresh.
func (c *Crawler) feedHubs(r result) {
	if c.opts.Strategy != BestFirst || !r.fetchedHTML {
		return
	}
	it := r.it
	prior := 0.0
	if h := c.hubs[it.Parent]; h != nil {
		h.n++
		h.sum += r.score.Value
		v := h.parentSignal()
		w := c.weights()
		for _, kid := range c.front.children(it.Parent) {
			if kid.Signals.Parent != v {
				kid.Signals.Parent = v
				c.front.fix(kid, w)
			}
		}
		prior = (h.sum + h.prior) / float64(h.n+1)
	}
	c.hubs[it.URL] = &hub{relevance: r.score.Value, prior: prior}
}

// enqueue adds the page's new links to the frontier (or raises the value
// of queued ones) and returns how many were added.
func (c *Crawler) enqueue(parent *item, links []newLink, ch *change) int {
	w := c.weights()
	added := 0
	// The links a page finds first are its children and take its hub's
	// parent signal; links found again (a site's navigation, repeated on
	// every page) keep the page's own relevance, or every list would
	// lift them.
	h := c.hubs[parent.URL]
	for _, l := range links {
		if raised, ok := c.front.raise(l.url, l.signals, w); ok {
			ch.queued = append(ch.queued, raised)
			continue
		}
		if len(c.front.byURL) >= c.opts.MaxFrontier {
			c.counts.Dropped++
			continue
		}
		if !c.markSeen(l.url) {
			continue
		}
		if h != nil {
			l.signals.Parent = h.parentSignal()
		}
		nit := &item{URL: l.url, Depth: parent.Depth + 1, Seq: c.counts.Seq, Signals: l.signals, Parent: parent.URL}
		c.counts.Seq++
		c.front.add(nit, w)
		ch.queued = append(ch.queued, nit)
		ch.seen = append(ch.seen, l.url)
		added++
	}
	return added
}

// reweightEvery is how many observations pass between recomputing the
// values of all queued links with the newly learnt weights: often enough
// to follow the weights, rarely enough to keep the cost (a pass over the
// frontier) small.
const reweightEvery = 16
