package canon

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/idna"
)

// DefaultStripParams are the query parameters URL drops by
// default: click and campaign trackers that change the URL, not the page.
// An entry ending in "*" is a prefix.
var DefaultStripParams = []string{
	"utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid",
	"yclid", "mc_cid", "mc_eid", "igshid", "_ga", "_gl", "_hsenc", "_hsmi",
	"mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "spm",
}

// URL resolves ref against base (nil for an absolute ref) and returns its
// canonical form, the one the crawler's seen set and the indexer's document
// ids use, so that two addresses of one page give one string:
//
//   - http and https only; scheme and host lowercased, the host in its
//     IDNA ASCII form without a trailing dot; the default port (80, 443)
//     removed; user info and fragment removed;
//   - dot segments resolved; an empty path made "/"; percent-escapes
//     normalised (unreserved characters decoded, hex in upper case, "%2F"
//     kept);
//   - a last path segment naming a directory index (index.html, index.htm,
//     index.shtml, index.php, index.asp, index.aspx, index.jsp, and the
//     same names with "default", case-insensitive) removed, so "/a/index.html"
//     is "/a/": servers answer the directory with that file, and sites
//     link to both forms of one page;
//   - query parameters matching strip (DefaultStripParams when nil)
//     removed and the rest sorted by name, keeping the order of repeated
//     names.
//
// Left alone, because they name different resources on enough servers:
// the "www." prefix, a trailing slash ("/a" and "/a/"), the scheme (http
// and https), path case. Errors wrap ErrBadURL.
func URL(base *url.URL, ref string, strip []string) (string, error) {
	if strip == nil {
		strip = DefaultStripParams
	}
	ref = strings.TrimSpace(ref)
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("crawler: %w: %w", err, ErrBadURL)
	}
	if base == nil {
		base = &url.URL{}
	}
	u = base.ResolveReference(u) // also removes dot segments of absolute refs
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("crawler: scheme %q: %w", u.Scheme, ErrBadURL)
	}
	host := strings.TrimRight(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", fmt.Errorf("crawler: no host in %q: %w", ref, ErrBadURL)
	}
	if !strings.HasPrefix(host, "[") && strings.IndexByte(host, ':') < 0 { // not IPv6
		if host, err = idna.Lookup.ToASCII(host); err != nil {
			return "", fmt.Errorf("crawler: host: %w: %w", err, ErrBadURL)
		}
	} else if !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	out := url.URL{Scheme: u.Scheme, Host: host, RawQuery: canonicalQuery(u.RawQuery, strip)}
	// Decoding escapes may reveal dot segments ("%2e"); resolve them again.
	p, raw := canonicalPath(u)
	r := (&url.URL{Scheme: "http", Host: "h"}).ResolveReference(&url.URL{Path: p, RawPath: raw})
	out.Path, out.RawPath = r.Path, r.RawPath
	// An index name has no escapes, so it ends Path and RawPath alike.
	if n := indexSuffix(out.EscapedPath()); n > 0 {
		out.Path = out.Path[:len(out.Path)-n]
		if out.RawPath != "" {
			out.RawPath = out.RawPath[:len(out.RawPath)-n]
		}
	}
	if out.Path == "" {
		out.Path = "/"
	}
	return out.String(), nil
}

// indexNames and indexExts make the directory-index file names that URL
// drops from the end of a path (lowercase).
var (
	indexNames = []string{"index", "default"}
	indexExts  = []string{"html", "htm", "shtml", "php", "asp", "aspx", "jsp"}
)

// indexSuffix returns the length of the last segment of the escaped path
// p when it names a directory index, else 0.
func indexSuffix(p string) int {
	file := p[strings.LastIndexByte(p, '/')+1:]
	name, ext, ok := strings.Cut(strings.ToLower(file), ".")
	if ok && slices.Contains(indexNames, name) && slices.Contains(indexExts, ext) {
		return len(file)
	}
	return 0
}

// canonicalPath returns the path and, when the path holds an escaped "/"
// that must stay escaped, its raw form.
func canonicalPath(u *url.URL) (path, raw string) {
	esc := u.EscapedPath()
	if !strings.Contains(strings.ToUpper(esc), "%2F") {
		return u.Path, ""
	}
	// Keep %2F (a "/" inside a segment); normalise every other escape.
	segs := strings.Split(esc, "/")
	for i, s := range segs {
		parts := strings.Split(strings.ReplaceAll(s, "%2f", "%2F"), "%2F")
		for j, p := range parts {
			if d, err := url.PathUnescape(p); err == nil {
				parts[j] = (&url.URL{Path: d}).EscapedPath()
			}
		}
		segs[i] = strings.Join(parts, "%2F")
	}
	raw = strings.Join(segs, "/")
	path, err := url.PathUnescape(raw)
	if err != nil {
		return u.Path, ""
	}
	return path, raw
}

// canonicalQuery drops the parameters matching strip and sorts the rest by
// name (stable, so repeated names keep their order), re-escaping each part.
func canonicalQuery(raw string, strip []string) string {
	if raw == "" {
		return ""
	}
	type pair struct{ k, v string }
	var pairs []pair
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, hasV := strings.Cut(part, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			dk = k
		}
		if stripped(dk, strip) {
			continue
		}
		p := pair{k: url.QueryEscape(dk)}
		if hasV {
			dv, err := url.QueryUnescape(v)
			if err != nil {
				dv = v
			}
			p.v = "=" + url.QueryEscape(dv)
		}
		pairs = append(pairs, p)
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return strings.Compare(a.k, b.k) })
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k + p.v)
	}
	return b.String()
}

func stripped(key string, strip []string) bool {
	key = strings.ToLower(key)
	for _, s := range strip {
		if prefix, ok := strings.CutSuffix(s, "*"); ok {
			if strings.HasPrefix(key, prefix) {
				return true
			}
		} else if key == s {
			return true
		}
	}
	return false
}
