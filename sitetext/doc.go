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
// The tables live among a store's local keys (package store's KV: the
// indexer's embedded store, beside the filter's keys). For each page, in
// input order, Plan reads the tables (through a Reader: a store
// transaction's KV, or an Overlay that also sees the plans of earlier
// pages not yet committed) and returns the
// paragraphs to analyse and the writes that record the page; the caller
// commits them (Apply) in the same transaction as the page's other
// writes, so that after a crash the tables hold exactly the pages that
// were decided. Site names a page's site: its URL host, or for pages
// without a URL the directory part of its id.
//
// The first page of a site cannot tell its template from its article.
// When later pages have shown a tenth of its text (DefaultStaleShare) on
// other pages, a plan names it stale, so the caller analyses it again
// without the template (the indexer re-decides its cluster). Stale pages
// are recorded with the plan and cleared by Done, so a crash in between
// leaves them to redo (Stale).
//
// A page is kept whole when it would keep less than 1% of its text, and
// when it is a copy of one earlier page of the site (80% of either page's
// own text shared: a print version, a URL variant, a mirror): such a
// page marks nothing as template.
//
// # Caveats
//
// Plans must be committed in the order they were made (the indexer
// serialises them). The rule
// cannot tell a copy from a short article in a long template while the
// site has shown that template on one page only. Paragraphs are matched
// after normalisation (analyzer.AppendNormalized) by a 64-bit hash, per
// site: the table grows by one key per distinct paragraph of each site,
// whose value names the page that showed it first in 9 bytes.
package sitetext
