// Package sitetext recognises a site's template text: a paragraph that
// another page of the same site already showed (navigation, sidebars, a
// blog's other posts, footers) belongs to the site, not to the article.
// Reprints live on other sites, so dropping such paragraphs before
// analysis keeps two different articles in one template from looking
// alike, while copies of one article on different sites keep all their
// text.
//
// # Basics
//
// A Table lives in a Badger store the caller opens (the indexer's, beside
// package dedupfilter's keys); for each page, in input order, Clean
// returns the paragraphs to analyse and records the page's paragraphs.
// Site names a page's site: its URL host, or for pages without a URL the
// directory part of its id.
//
// The first page of a site cannot tell its template from its article.
// When a later page shows one of its paragraphs, Clean returns that page
// in stale, so the caller analyses it again without the template (the
// indexer re-decides its cluster).
//
// A page is kept whole when it would keep less than 1% of its text, and
// when it is a copy of one earlier page of the site (80% of either page's
// own text shared: a print version, a URL variant, a mirror): such a
// page marks nothing as template.
//
// # Caveats
//
// Calls must not run concurrently (the indexer serialises them). The rule
// cannot tell a copy from a short article in a long template while the
// site has shown that template on one page only. Paragraphs are matched
// after normalisation (analyzer.AppendNormalized) by a 64-bit hash, per
// site: the table grows by one key per distinct paragraph of each site.
package sitetext
