// Package extract finds the main content of a web page: its title and the
// paragraphs of the article, without navigation, link lists, footers and
// the source, editor and copyright lines that reprinting sites add.
//
// [Options.HTMLContext] reads the page once with tdewolff/parse's HTML
// lexer, which returns slices of the page held in memory, into a tree
// (tree.go): the elements (tag, depth, a few flags) and the text cut
// into blocks at block-level elements and <br>, each element holding a
// contiguous range of blocks. It applies the HTML rules that decide which
// element a text belongs to (implied ends of p, li, dd/dt, table rows and
// cells, end tags matched within their scope) but not the ones that only
// move inline markup, keeps at most 512 open elements (deeper ones add
// their text to the deepest kept one, where html.Parse gives up on the
// page), and costs O(1) amortised per token.
//
// The Native engine (the default; native.go) then scores every element:
// the runes of its blocks, less twice their link runes and a small cost
// per block (short lines: menus, dates, buttons), each child subtree
// taking at most 100 from its parent, so a related-links box inside the
// article's container does not outweigh the article. Template boxes add
// nothing: navigation, footer, aside, figure and similar elements,
// hidden ones (hidden, aria-hidden, display:none), navigation roles,
// elements whose class or id names a box ("sidebar", "share", "related",
// "comment", and their German, Polish, French, Spanish, Italian, Dutch,
// Portuguese, Czech and pinyin words: "kommentare", "powiazane",
// "compartir"; a name that also names an article body, "l-sidebar
// l-article-body", is neither; an id of more than four words is a
// heading's slug, not a name; a box holding more than half of the page's
// prose is a wrapper named after the boxes in it, unless it is a comment
// section, a gallery or has the id "sidebar"), and elements that start
// with the label of a box in one of eleven languages ("Related articles",
// "Kommentare (12)", "Czytaj także", "関連記事", "相关文章"; labels.go), up
// to an element already named as a box (a comment count atop an article
// does not make the article a comment section). The element with the
// highest score, or its child that keeps 85% of that score (not a list
// or data table, whose introduction would be lost), holds the article;
// when no element scores above 0 (every line short or link-dense), the
// element holding most text outside links does. Its blocks outside
// template boxes are the result. The Trafilatura engine runs
// go-trafilatura (balanced focus, its go-readability and go-domdistiller
// fallbacks, a 100-rune minimum article length, links kept so that link
// density can be measured) on pages small enough for it
// (Options.MaxTrafilaturaElements, MaxTrafilaturaRunes) that html.Parse
// can read; other pages go to Native.
// It is linked only into programs that import package extract/trafilatura,
// which registers it (RegisterEngine): go-trafilatura's date parser costs
// every program that links it about half a second of start-up, 78 MB of
// allocations and 25.6 MiB of heap.
//
// Both engines' paragraphs then go through the same filters (filter.go):
// paragraphs that are link-heavy (by the engine's output or, where
// go-trafilatura dropped a link, by the same text on the page; the linked
// names in the rows of a data table are data, not links), have no letters
// or digits, are only a label of page furniture ("Teilen", "Share:"), or
// are short source/copyright/pagination/timestamp/byline lines (Chinese
// and English, and in European languages source and credit labels,
// "Foto: dpa", bylines, "Von Anna Schmidt", dates with a time and relative
// times, "vor 3 Stunden", "3時間前") are dropped, and, among the last five
// paragraphs, calls to action and credits (newsletter prompts, "follow us
// on Twitter", "Newsletter abonnieren", "X contributed to this report",
// e-mail addresses). Before that, English sentences split at a link or a
// <br> are rejoined. When nothing is left, the long text blocks of the
// page outside nav/header/footer/aside/list/form elements are taken
// (fallback).
// [Text] splits plain text into paragraphs; [FromPageContext] picks one of
// the two for a [page.Page].
//
// Title-anchored narrowing (Options.TitleAnchor, narrow.go): an engine
// keeps every post of a blog page, forum thread or portal column, so an
// article reprinted as one post of such a page comes out with the site's
// other posts, and unrelated reprints in one template look alike. The
// page's <title>, with site names after " - ", "_", "|" removed, names the
// article, and an h1-h6 with the same text (after width and case folding,
// or with rune-bigram Dice >= 0.8) starts it. The article is taken as what
// follows that heading in its nearest container holding at least 50 words
// (Han characters) after it, above any <header> and no lower than the
// <article> that holds it (pages cut an article into parts), up to the
// next heading of the same or a higher rank that is no deeper in the
// tree (a heading of the same rank beside it under its parent is a
// subheading), and within the part of the page the engine read (a teaser of the
// article elsewhere repeats its headline and lead). That section
// replaces the engine's result only when the result holds it (80% of its
// shingles), starts with it (at most a quarter of the result before it)
// and is much longer (the section under 75% of it): narrowing never brings
// in text the engine did not find. It narrows 11% of the near-duplicate
// corpus.
//
// Quality and speed on the labelled sets, with their history, are in
// docs/extraction.md: in one goroutine Native costs about a millisecond
// of CPU a page and scores 0.975 (English), 0.956 (Chinese) and 0.955
// (varied layouts) in shingle F1, and 0.904 and 0.935 on two English sets
// kept apart (Dragnet; L3S-GN1, held out of all tuning).
//
// Cost on any page: every stage is linear in the page (the figures for
// 8 MB pages of pathological shapes are in docs/extraction.md). The
// context is looked at every 1,024 tokens, blocks or runes and every 64
// KiB of a long text, so a cancelled extraction returns within about 0.1
// s (BenchmarkShapesCancel). go-trafilatura cannot be interrupted: on
// cancellation it is left to finish on its own, which its size limits
// bound to a fraction of a second.
//
// Caveats: a page that holds several articles yields all of them unless
// its title names one and a heading carries that name (a blog index or a
// thread whose posts have no such heading stays whole); narrowing trusts
// the page title, so a page whose title names a box of the page rather
// than its article (a recipe card after the post is guarded against only
// by its position) can lose text; a title heading in a non-<header> box
// with a standfirst of 50 words or more can narrow the result to that box;
// short headings of template boxes ("热点推荐") can slip through; the class
// and id words and the labels know eleven languages, the other
// boilerplate patterns Chinese and English best; comment threads are left
// out only when their elements are named as comments or start with a
// comment label; an article
// split between two containers whose parent also holds much else keeps
// only its larger part; an article that ends on its own subject's
// newsletter or subscriptions loses those last paragraphs; picture
// captions and embedded tweets in figures are dropped; the headline stays
// the first paragraph when the engine keeps it (Content.Title holds it
// too).
//
// HTML and HTMLContext are safe for concurrent use.
package extract
