package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
)

// robotsCache fetches each host's robots.txt once and keeps it for the
// crawler's life; one that could not be had is fetched again next time.
type robotsCache struct {
	fetcher   *fetcher
	userAgent string

	mu    sync.Mutex
	hosts map[string]*robotsEntry
}

type robotsEntry struct {
	once   sync.Once
	robots *Robots
	err    error
}

// disallowAll stands for the rules of a page whose URL cannot be parsed.
var disallowAll = &Robots{rules: []rule{{allow: false, pattern: "/"}}}

// get returns the rules for pageURL's host. Concurrent callers for one
// host wait for a single fetch. A robots.txt that is missing (4xx) allows
// everything. One that fails (5xx, no answer) gives an error wrapping
// ErrUnreachable: RFC 9309 §2.3.1.4 has the crawler assume a complete
// disallow meanwhile, and the caller tries again later (see
// Options.RetryFor). Such a fetch, or one cancelled by ctx, is not kept.
func (rc *robotsCache) get(ctx context.Context, pageURL string) (*Robots, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return disallowAll, nil
	}
	key := u.Scheme + "://" + u.Host
	rc.mu.Lock()
	if rc.hosts == nil {
		rc.hosts = make(map[string]*robotsEntry)
	}
	e, ok := rc.hosts[key]
	if !ok {
		e = &robotsEntry{}
		rc.hosts[key] = e
	}
	rc.mu.Unlock()
	e.once.Do(func() { e.robots, e.err = rc.fetch(ctx, key+"/robots.txt") })
	if e.robots == nil { // failed or cancelled: forget the entry so a later call fetches
		rc.mu.Lock()
		if rc.hosts[key] == e {
			delete(rc.hosts, key)
		}
		rc.mu.Unlock()
	}
	return e.robots, e.err
}

func (rc *robotsCache) fetch(ctx context.Context, robotsURL string) (*Robots, error) {
	resp, err := rc.fetcher.get(context.WithValue(ctx, anyHost{}, true), robotsURL, false)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err == nil:
		return ParseRobots(resp.body, rc.userAgent), nil
	case errors.Is(err, ErrHTTPStatus) && resp.status >= 400 && resp.status < 500:
		return &Robots{}, nil
	case errors.Is(err, ErrUnreachable):
		return nil, fmt.Errorf("robots.txt: %w", err)
	default:
		return nil, fmt.Errorf("robots.txt: %w: %w", ErrUnreachable, err)
	}
}
