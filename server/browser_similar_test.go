package server_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSimilar: a hit's "similar pages" link opens the pages
// similar to it, graded, with the evidence; a row's compare link opens
// the comparison; a page sharing nothing says so.
func TestBrowserSimilar(t *testing.T) {
	ctx, ts := startBrowser(t)
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q=meadow"),
		shows("#results li.hit .similar-link"),
		chromedp.Click(chromedp.CSS("#results li.hit .similar-link")),
		shows("#similar tbody tr.similar-row"),
	)
	search := run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#search-view").hidden`))
	title := run(t, ctx, chromedp.Text(chromedp.CSS("#similar-title")))
	loc := run(t, ctx, chromedp.Evaluate[string](`location.search`))
	rows := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#similar tr.similar-row")].map(r => r.dataset.id + " " + r.dataset.grade)`))
	badges := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#similar tr.similar-row .grade")].map(g => g.textContent + ": " + g.title)`))
	evidence := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#similar tr.similar-row .evidence")].map(e => e.textContent)`))
	lists := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#similar tr.similar-row .lists")].map(e => e.textContent)`))
	saveScreenshot(t, ctx, "similar-pages.png")

	// From the bee story: its copies first, then the compare link of the
	// first.
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?similar="+url.QueryEscape(beesID)),
		shows("#similar tbody tr.similar-row"),
	)
	beeRows := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#similar tr.similar-row")].map(r => r.dataset.id + " " + r.dataset.grade)`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#similar tr.similar-row .compare-link")),
		shows("#cluster-view #verdict .headline"),
	)
	headline := run(t, ctx, chromedp.Text(chromedp.CSS("#verdict .headline")))

	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?similar=xss"),
		shows("#similar tbody td.meta"),
	)
	none := run(t, ctx, chromedp.Text(chromedp.CSS("#similar tbody td.meta")))

	report(t, []check{
		{"search hidden", search, search, true},
		{"title", strings.HasPrefix(title, "Pages similar to "), title, "Pages similar to …"},
		{"URL", strings.HasPrefix(loc, "?similar="), loc, "?similar=ID"},
		{"rows", len(rows) > 0, rows, "some"},
		{"grade badges explained", len(badges) == len(rows) && !slices.ContainsFunc(badges, func(b string) bool { return strings.HasSuffix(b, ": ") }), badges, "a title on each"},
		{"evidence", len(evidence) == len(rows) && !slices.Contains(evidence, ""), evidence, "a verdict a row"},
		{"lists shared", len(lists) == len(rows) && !slices.Contains(lists, ""), lists, "the lists a row"},
		{"bee story's copies first", slices.Equal(beeRows[:min(2, len(beeRows))], []string{"en/daily-reader/rooftop-hives-reprint copy", "en/bee-archive/library-bees copy"}), beeRows, "its two copies, graded copy"},
		{"compare from a row", strings.HasPrefix(headline, "Near-duplicates"), headline, "Near-duplicates: …"},
		{"nothing similar", none == "no page shares a feature with this one", none, "no page shares a feature with this one"},
	})
}
