package crawler

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Robots is the part of a robots.txt file that applies to one user agent
// (the Robots Exclusion Protocol, RFC 9309): its allow and disallow rules
// and its Crawl-delay. The zero value allows everything.
type Robots struct {
	rules []rule
	// Delay is the group's Crawl-delay (a common extension), 0 if none.
	Delay time.Duration
}

type rule struct {
	allow   bool
	pattern string
}

// maxRobotsLines bounds the work on hostile robots.txt files; RFC 9309
// asks crawlers to read at least 500 KiB, about this many short lines.
const maxRobotsLines = 50000

// ParseRobots parses a robots.txt body for the user agent ua: the rules of
// the groups whose User-agent line is a case-insensitive substring of ua's
// product token (the part before "/"), or "*" when no group names it. Rule
// paths may use "*" (any run of characters) and a final "$" (end of URL).
// Unknown lines and lines beyond the first 50,000 are ignored; parsing
// never fails.
func ParseRobots(body []byte, ua string) *Robots {
	token := strings.ToLower(ua)
	if i := strings.IndexAny(token, "/ "); i >= 0 {
		token = token[:i]
	}
	var (
		specific, star Robots
		foundSpecific  bool
		inAgents       bool // the previous meaningful line was User-agent
		applies        int  // 0: current group not ours; 1: "*"; 2: specific
	)
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for n := 0; sc.Scan() && n < maxRobotsLines; n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if !inAgents {
				applies = 0
			}
			inAgents = true
			agent := strings.ToLower(val)
			switch {
			case agent == "*":
				applies = max(applies, 1)
			case token != "" && agent != "" && strings.Contains(token, agent):
				applies, foundSpecific = 2, true
			}
		case "allow", "disallow":
			inAgents = false
			if val == "" { // "Disallow:" allows everything; "Allow:" means nothing
				continue
			}
			r := rule{allow: key == "allow", pattern: val}
			switch applies {
			case 1:
				star.rules = append(star.rules, r)
			case 2:
				specific.rules = append(specific.rules, r)
			}
		case "crawl-delay":
			inAgents = false
			secs, err := strconv.ParseFloat(val, 64)
			if err != nil || !(secs > 0) || secs > 86400 {
				continue
			}
			d := time.Duration(secs * float64(time.Second))
			switch applies {
			case 1:
				star.Delay = d
			case 2:
				specific.Delay = d
			}
		default:
			inAgents = false
		}
	}
	if foundSpecific {
		return &specific
	}
	return &star
}

// Allowed reports whether the path-and-query pathQuery ("/a/b?x=1") may be
// fetched: the longest matching rule decides, and allow wins a tie.
// "/robots.txt" is always allowed.
func (r *Robots) Allowed(pathQuery string) bool {
	if r == nil || pathQuery == "/robots.txt" {
		return true
	}
	best, allow := -1, true
	for _, ru := range r.rules {
		if n := len(ru.pattern); n >= best && matchRobots(ru.pattern, pathQuery) {
			if n > best || ru.allow {
				allow = ru.allow
			}
			best = n
		}
	}
	return allow
}

// matchRobots matches a robots.txt path pattern against a path: "*"
// matches any run of characters, a final "$" anchors at the end, anything
// else is a prefix match. Matching each middle part at its leftmost
// position is exact for such patterns and needs no backtracking.
func matchRobots(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	pos := len(parts[0])
	if len(parts) == 1 {
		return !anchored || pos == len(path)
	}
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(path[pos:], p)
		if i < 0 {
			return false
		}
		pos += i + len(p)
	}
	last := parts[len(parts)-1]
	if anchored {
		return len(path)-pos >= len(last) && strings.HasSuffix(path, last)
	}
	return strings.Contains(path[pos:], last)
}
