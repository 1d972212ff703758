// Package canon gives web addresses one canonical form, so that the
// addresses of one page compare equal: the crawler's seen set and the
// indexer's document ids both use [URL].
//
// Same-URL removal is the cheapest duplicate test (the feature-string
// paper, §2.2): it misses reprints on other sites, which the near-duplicate
// filter catches, but it must not miss the same page reached as
// "HTTP://Example.com:80/a/index.html?utm_source=feed#top" and
// "http://example.com/a/". The rules are on [URL].
package canon
