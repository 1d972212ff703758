// Package extract finds the main content of a web page: its title and the
// paragraphs of the article, without navigation, link lists, footers and
// the source, editor and copyright lines that reprinting sites add.
//
// [HTML] runs go-trafilatura (balanced focus, with its go-readability and
// go-domdistiller fallbacks, a 100-rune minimum article length, links kept so that link density can be
// measured) and then drops paragraphs that are link-heavy (by its output
// or, where it dropped a link, by the same text on the page), have no
// letters or digits, or are short source/copyright/pagination/timestamp/
// byline lines in Chinese or English, and, among the last five paragraphs,
// English calls to action and credits (newsletter prompts, "follow us on
// Twitter", "X contributed to this report", e-mail addresses). Before
// that it rejoins English sentences that go-trafilatura split at a link.
// When nothing is left it falls back to the long text blocks of the page
// outside nav/header/footer/aside/list/form elements.
// [Text] splits plain text into paragraphs; [FromPage] picks one of the two
// for a [page.Page].
//
// Title-anchored narrowing (Options.TitleAnchor, narrow.go): go-trafilatura
// keeps every post of a blog page, forum thread or portal column, so an
// article reprinted as one post of such a page comes out with the site's
// other posts, and unrelated reprints in one template look alike. The
// page's <title>, with site names after " - ", "_", "|" removed, names the
// article, and an h1-h6 with the same text (after width and case folding,
// or with rune-bigram Dice >= 0.8) starts it. The article is taken as what
// follows that heading in its nearest container holding at least 50 words
// (Han characters) after it, above any <header>, up to the next heading of
// the same or a higher rank that is no deeper in the tree. That section
// replaces go-trafilatura's result only when the result holds it (80% of
// its shingles), starts with it (at most a quarter of the result before
// it) and is much longer (the section under 75% of it): narrowing never
// brings in text go-trafilatura did not find.
//
// Measured (data_test.go, shingle F1 as in the scrapinghub
// article-extraction benchmark): English 0.965 on 181 pages, Chinese 0.925
// on 69 pages (Han characters as tokens); on the reprints of the
// near-duplicate corpus, precision 0.948 and recall 0.960 against the
// reprinted articles (0.884 and 0.960 without narrowing, before the
// link, sentence and tail filters).
//
// Caveats: a page that holds several articles yields all of them unless
// its title names one and a heading carries that name (a blog index or a
// thread whose posts have no such heading stays whole); narrowing trusts
// the page title, so a page whose title names a box of the page rather
// than its article (a recipe card after the post is guarded against only
// by its position) can lose text; a title heading in a non-<header> box
// with a standfirst of 50 words or more can narrow the result to that box;
// short headings of template boxes ("热点推荐") can slip through; the
// boilerplate patterns know Chinese and English only; an article that ends
// on its own subject's newsletter or subscriptions loses those last
// paragraphs; embedded tweets are dropped with go-trafilatura's social
// boxes; the headline stays the first paragraph when go-trafilatura keeps
// it (Content.Title holds it too).
//
// HTML is safe for concurrent use; it costs a few milliseconds per page
// (see BenchmarkNeardup), narrowing about one of them (BenchmarkNarrow).
package extract
