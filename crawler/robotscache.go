package crawler

import (
	"context"
	"errors"
	"net/url"
	"sync"
)

// robotsCache fetches each host's robots.txt once and keeps it for the
// crawler's life.
type robotsCache struct {
	fetcher   *fetcher
	userAgent string

	mu    sync.Mutex
	hosts map[string]*robotsEntry
}

type robotsEntry struct {
	once   sync.Once
	robots *Robots
}

// disallowAll is used for hosts whose robots.txt answers with a server
// error or not at all (RFC 9309 §2.3.1.4: assume complete disallow).
var disallowAll = &Robots{rules: []rule{{allow: false, pattern: "/"}}}

// get returns the rules for pageURL's host. Concurrent callers for one
// host wait for a single fetch. A robots.txt that is missing (4xx) allows
// everything; one that fails (5xx, network error) disallows everything
// for the crawler's life. A fetch cancelled by ctx is retried next time.
func (rc *robotsCache) get(ctx context.Context, pageURL string) *Robots {
	u, err := url.Parse(pageURL)
	if err != nil {
		return disallowAll
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
	e.once.Do(func() { e.robots = rc.fetch(ctx, key+"/robots.txt") })
	if e.robots == nil { // cancelled: forget the entry so a later call fetches
		rc.mu.Lock()
		if rc.hosts[key] == e {
			delete(rc.hosts, key)
		}
		rc.mu.Unlock()
		return disallowAll
	}
	return e.robots
}

func (rc *robotsCache) fetch(ctx context.Context, robotsURL string) *Robots {
	resp, err := rc.fetcher.get(context.WithValue(ctx, anyHost{}, true), robotsURL, false)
	switch {
	case ctx.Err() != nil:
		return nil
	case err == nil:
		return ParseRobots(resp.body, rc.userAgent)
	case errors.Is(err, ErrHTTPStatus) && resp.status >= 400 && resp.status < 500:
		return &Robots{}
	default:
		return disallowAll
	}
}
