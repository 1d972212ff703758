package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/server"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// TestBrowserFacetsAndURL: a facet value narrows the results and goes in
// the URL, which restores it (and the sort and page size) when loaded;
// the page numbers and the jump move through the pages.
func TestBrowserFacetsAndURL(t *testing.T) {
	ctx, ts := startBrowser(t)

	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("library OR 图书馆 OR tide")),
		shows(`#facets fieldset[data-facet="lang"] input[value="zh"]`),
	)
	before := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#results > li.hit")].map(e => e.dataset.id)`))
	statusBefore := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS(`#facets fieldset[data-facet="lang"] input[value="zh"]`)),
		chromedp.Poll[chromedp.Void](`location.search.includes("lang=zh") && [...document.querySelectorAll("#results > li.hit")].length > 0 && [...document.querySelectorAll("#results > li.hit")].every(e => e.dataset.id.startsWith("zh/"))`),
	)
	after := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#results > li.hit")].map(e => e.dataset.id)`))
	chip := run(t, ctx, chromedp.Text(chromedp.CSS("#filters .chip")))
	langValues := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#facets fieldset[data-facet="lang"] input')].map(e => e.value)`))
	saveScreenshot(t, ctx, "facet-zh.png")

	// Sort and page size go in the URL too; loading it restores all.
	browse(t, ctx,
		chromedp.SetValue(chromedp.CSS("#sort"), "newest"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#sort").dispatchEvent(new Event("change"))`),
		chromedp.Poll[chromedp.Void](`location.search.includes("sort=newest")`),
		chromedp.SetValue(chromedp.CSS("#page-size"), "20"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#page-size").dispatchEvent(new Event("change"))`),
		chromedp.Poll[chromedp.Void](`location.search.includes("size=20")`),
	)
	link := run(t, ctx, chromedp.Evaluate[string](`location.href`))
	browse(t, ctx,
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(link),
		shows("#results > li.hit"),
	)
	restored := run(t, ctx, chromedp.Evaluate[[]any](`[document.querySelector('#facets fieldset[data-facet="lang"] input[value="zh"]').checked,
		document.querySelector("#sort").value, document.querySelector("#page-size").value, document.querySelector("#q").value,
		[...document.querySelectorAll("#results > li.hit")].length]`))

	// Page numbers: every document a hit (collapse off), 10 a page.
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("NOT qqqq")+"&collapse=false"),
		shows("#pages .page-number"),
	)
	pages := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#pages .page-number")].map(b => b.textContent)`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS(`#pages .page-number:not(.current)`)),
		chromedp.Poll[chromedp.Void](`location.search.includes("from=10") && document.querySelector("#results").start === 11`),
		chromedp.SendKeys(chromedp.CSS("#jump"), "1"+kb.Enter),
		chromedp.Poll[chromedp.Void](`!location.search.includes("from=") && document.querySelector("#results").start === 1`),
	)

	checks := []struct {
		what      string
		ok        bool
		got, want any
	}{
		{"both languages before", anyPrefix(before, "en/") && anyPrefix(before, "zh/"), before, "en/ and zh/ hits"},
		{"narrowed to Chinese", len(after) > 0 && len(after) < len(before), after, "fewer hits, all zh/"},
		{"status changed", statusBefore != run(t, ctx, chromedp.Text(chromedp.CSS("#status"))), statusBefore, "another count"},
		{"filter chip", strings.Contains(chip, "Chinese"), chip, "Language: Chinese ×"},
		{"facet lists the chosen value only", len(langValues) == 1, langValues, "[zh]"},
		{"URL restores facet, sort, size, query", restored[0] == true && restored[1] == "newest" && restored[2] == "20" && restored[3] == "library OR 图书馆 OR tide" && restored[4].(float64) > 0,
			restored, "[true newest 20 query hits]"},
		{"page numbers", len(pages) == 2 && pages[0] == "1" && pages[1] == "2", pages, "[1 2]"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

func anyPrefix(ids []string, p string) bool {
	for _, id := range ids {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// TestBrowserKeyboard: / goes to the query, j and k move between hits,
// o unfolds a hit's copies, Enter opens its page, Escape comes back, n
// turns the page.
func TestBrowserKeyboard(t *testing.T) {
	ctx, ts := startBrowser(t)
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("bees OR tide OR 图书馆")),
		shows("#results > li.hit"),
		chromedp.KeyEvent("/"),
	)
	active := run(t, ctx, chromedp.Evaluate[string](`document.activeElement.id`))
	browse(t, ctx,
		chromedp.KeyEvent(kb.Escape),
		chromedp.KeyEvent("j"),
		chromedp.KeyEvent("j"),
		chromedp.KeyEvent("k"),
	)
	focused := run(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#results > li.hit")].findIndex(e => e === document.activeElement)`))
	hasFold := run(t, ctx, chromedp.Evaluate[bool](`document.activeElement.querySelector(".fold") !== null`))
	browse(t, ctx, chromedp.KeyEvent("o"))
	expanded := run(t, ctx, chromedp.Evaluate[string](`document.activeElement.querySelector(".fold") ? document.activeElement.querySelector(".fold").getAttribute("aria-expanded") : "no fold"`))
	id := run(t, ctx, chromedp.Evaluate[string](`document.activeElement.dataset.id`))
	browse(t, ctx,
		chromedp.KeyEvent(kb.Enter),
		shows("#doc-page #doc-text p"),
	)
	docURL := run(t, ctx, chromedp.Evaluate[string](`location.search`))
	browse(t, ctx,
		chromedp.KeyEvent(kb.Escape),
		shows("#results > li.hit"),
	)
	backURL := run(t, ctx, chromedp.Evaluate[string](`location.search`))
	checks := []struct {
		what      string
		ok        bool
		got, want any
	}{
		{"/ focuses the query", active == "q", active, "q"},
		{"j j k: the first hit", focused == 0, focused, 0},
		{"o unfolds", !hasFold || expanded == "true", expanded, "true"},
		{"Enter opens the hit's page", docURL == "?doc="+url.QueryEscape(id), docURL, "?doc=" + id},
		{"Escape goes back", strings.HasPrefix(backURL, "?q="), backURL, "?q=…"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestBrowserCompareReflowed: a Chinese page and a copy whose text is
// re-wrapped into lines of 23 characters, cutting its sentences (as a
// copy whose paragraphs were merged, or a forum's fixed-width post): the
// comparison shows most passages shared on both sides, with the filter's
// verdict, and the cluster and document pages show them.
func TestBrowserCompareReflowed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ix := fixture(t)
	const orig, copyID = "zh/hedong-news/library-night", "zh/rewrapped/library-night"
	e, err := ix.Doc(orig)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Text string }
	if err := json.Unmarshal(e.Payload, &body); err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(body.Text, "\n", "")
	var lines []string
	for len(text) > 0 {
		n := 0
		for i := 0; i < 23 && n < len(text); i++ {
			_, w := utf8.DecodeRuneInString(text[n:])
			n += w
		}
		lines = append(lines, text[:n])
		text = text[n:]
	}
	if err := ix.Index(copyID, indexer.Document{Title: e.Title, Paragraphs: lines}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, ix, server.DefaultOptions()))
	t.Cleanup(ts.Close)

	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?a="+url.QueryEscape(orig)+"&b="+url.QueryEscape(copyID)),
		shows("#right .text .passage"),
	)
	shares := run(t, ctx, chromedp.Evaluate[[]int](`["#left", "#right"].flatMap(c => [document.querySelectorAll(c + " .passage.shared").length, document.querySelectorAll(c + " .passage").length])`))
	stats := run(t, ctx, chromedp.Text(chromedp.CSS("#diff-stats")))
	headline := run(t, ctx, chromedp.Text(chromedp.CSS("#verdict .headline")))
	saveScreenshot(t, ctx, "compare-rewrapped.png")
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#right h3 a")),
		shows("#doc-page #nearest li a"),
	)
	nearest := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#nearest li > a")].map(a => a.textContent)`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#doc-meta .cluster-link")),
		shows("#cluster-page #members tbody tr"),
	)
	rows := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#members tbody tr")].map(r => r.dataset.id + " " + r.querySelector(".evidence").textContent)`))
	saveScreenshot(t, ctx, "cluster-page.png")

	checks := []struct {
		what      string
		ok        bool
		got, want any
	}{
		{"most passages shared on the left", shares[0]*10 >= shares[1]*8 && shares[1] > 0, shares[:2], "8 in 10"},
		{"most passages shared on the right", shares[2]*10 >= shares[3]*8 && shares[3] > 0, shares[2:], "8 in 10"},
		{"word shares", strings.HasPrefix(stats, "100% of the left's words and 100% of the right's are shared") ||
			strings.Contains(stats, "9") && !strings.HasPrefix(stats, "0"), stats, "about 100% of both"},
		{"verdict", strings.HasPrefix(headline, "Near-duplicates: decided by"), headline, "Near-duplicates: decided by …"},
		{"nearest copies of the copy", len(nearest) > 0, nearest, "the original among them"},
		{"cluster rows with evidence", len(rows) >= 3 && strings.Contains(strings.Join(rows, "\n"), copyID+" duplicate by"), rows, "the copy, duplicate by …"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// check is a thing a browser test checks, in the tests' tables.
type check struct {
	what      string
	ok        bool
	got, want any
}

func report(t *testing.T, checks []check) {
	t.Helper()
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// displayed is a script telling whether the element selector names is
// drawn: present, and neither it nor an ancestor hidden.
func displayed(selector string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e !== null && e.getClientRects().length > 0; })()`, selector)
}

// serveIndex starts Chromium and a server of ix, both stopped when the
// test ends; it skips the test under -short.
func serveIndex(t *testing.T, ix *indexer.Index) (context.Context, *httptest.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, ix, server.DefaultOptions()))
	t.Cleanup(ts.Close)
	return ctx, ts
}

// TestBrowserSyntaxErrorAlone: a query that does not parse, submitted
// after a search that found pages, shows its error alone: no pager (its
// Previous and Next buttons, its page box), no facets, no sorting, no
// stale hits; the caret waits in the query where the error is.
func TestBrowserSyntaxErrorAlone(t *testing.T) {
	ctx, ts := startBrowser(t)
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("NOT qqqq")+"&collapse=false"),
		shows("#pager #next"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#q").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#q"), "bees AND (tide"+kb.Enter),
		shows("#status.error"),
	)
	status := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	var shown []string
	for _, sel := range []string{"#pager", "#prev", "#next", "#jump", "#pages", "#facets", "#sort", "#page-size", "#results li"} {
		if run(t, ctx, chromedp.Evaluate[bool](displayed(sel))) {
			shown = append(shown, sel)
		}
	}
	caret := run(t, ctx, chromedp.Evaluate[[]any](`[document.activeElement.id, document.activeElement.selectionStart]`))
	saveScreenshot(t, ctx, "search-syntax-error.png")
	report(t, []check{
		{"the error", strings.Contains(status, "at 14: expected") && strings.Contains(status, "              ^"), status, "the error at 14 with a caret"},
		{"controls shown with the error", len(shown) == 0, shown, "none"},
		{"caret at the error", caret[0] == "q" && caret[1] == float64(14), caret, "[q 14]"},
	})
}

// TestBrowserNoResults: a search that finds nothing says so, shows the
// query as parsed and no empty facet headings; narrowed by a filter, it
// offers to drop the filter (which finds pages again) or to unfold the
// duplicates.
func TestBrowserNoResults(t *testing.T) {
	ctx, ts := startBrowser(t)
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("bees and qqqq")),
		shows("#no-results .parsed"),
	)
	status := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	parsed := run(t, ctx, chromedp.Text(chromedp.CSS("#no-results .parsed code")))
	legends := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#facets legend")].filter(e => e.getClientRects().length).map(e => e.textContent)`))
	dropOffered := run(t, ctx, chromedp.Evaluate[bool](displayed("#no-results .drop-filter")))
	pager := run(t, ctx, chromedp.Evaluate[bool](displayed("#pager")))

	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("zebras OR tide")+"&lang=zh"),
		shows("#no-results .drop-filter"),
	)
	narrowedStatus := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	drops := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#no-results .drop-filter")].map(e => e.textContent)`))
	unfold := run(t, ctx, chromedp.Evaluate[bool](displayed("#no-results .unfold-duplicates")))
	narrowedLegends := run(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#facets legend")].filter(e => e.getClientRects().length).length`))
	saveScreenshot(t, ctx, "search-no-results.png")
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#no-results .drop-filter")),
		shows("#results > li.hit"),
	)
	dropped := run(t, ctx, chromedp.Evaluate[string](`location.search`))

	report(t, []check{
		{"status", status == "No results for “bees and qqqq”", status, "No results for “bees and qqqq”"},
		{"no 0–0", !strings.Contains(status+narrowedStatus, "0–0"), status + " / " + narrowedStatus, "no “Results 0–0”"},
		{"the query as parsed", parsed == "bees AND and AND qqqq", parsed, "bees AND and AND qqqq"},
		{"no facet headings", len(legends) == 0 && narrowedLegends == 0, fmt.Sprint(legends, narrowedLegends), "none"},
		{"no filter to drop when none is active", !dropOffered, dropOffered, false},
		{"no pager", !pager, pager, false},
		{"the filter offered to drop", len(drops) == 1 && strings.Contains(drops[0], "Chinese"), drops, "[Language: Chinese ×]"},
		{"unfolding offered", unfold, unfold, true},
		{"dropping the filter finds pages", !strings.Contains(dropped, "lang="), dropped, "no lang= in the URL"},
	})
}

// otherIndex indexes pages that share no subject with testdata/pages: no
// bees, libraries, harbours or tides.
func otherIndex(t *testing.T) *indexer.Index {
	t.Helper()
	ix, err := indexer.Open(t.TempDir(), indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	pages := []struct{ id, title, text string }{
		{"glacier-melt", "Glacier Melt Reshapes the Mountain Valley", "The glacier above the valley lost forty metres of ice this summer. Meltwater carved a new channel past the old shepherd huts. Surveyors mapped the moraine with drones and found the lake twice as deep as in 2019."},
		{"glacier-guides", "Glacier Guides Train for the Summer Season", "Twelve guides spent a week on the glacier practising crevasse rescue. Their instructor, a retired mountaineer, showed them how to build anchors from snow stakes and ice screws before the first tourists arrive."},
		{"volcano-week", "Volcano Observatory Reports a Quiet Week", "Seismometers around the volcano recorded only three small tremors. Gas readings at the crater rim stayed low, and the observatory lowered its alert level to green for the first time since spring."},
		{"ferry-timetable", "Ferry Timetable Changes for the Island Route", "From Monday the morning ferry leaves at seven instead of half past six. The island council asked for the change so that schoolchildren no longer wait on the pier in the dark during winter."},
		{"ferry-rescue", "Island Ferry Crew Rescues Stranded Kayakers", "Two kayakers caught by a sudden squall were pulled aboard by the crew of the evening ferry. Both were cold but unhurt, and the captain praised the passengers who spotted their orange helmets in the waves."},
	}
	for _, p := range pages {
		if err := ix.Index(p.id, indexer.Document{Title: p.title, URL: "https://valley-news.example/" + p.id, Paragraphs: []string{p.text}}); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// TestBrowserStartExamples: the start page's example queries are made of
// the index's own words — on an index of other pages than the
// repository's, none of the test pages' words — keep the syntax shown
// (AND, a phrase, field:term), and each finds pages when clicked. The
// start page on the test pages is the screenshot.
func TestBrowserStartExamples(t *testing.T) {
	ctx, ts := startBrowser(t)
	browse(t, ctx,
		chromedp.Navigate(ts.URL),
		shows("#examples a.example"),
	)
	saveScreenshot(t, ctx, "search-start.png")

	ctx, ts = serveIndex(t, otherIndex(t))
	browse(t, ctx,
		chromedp.Navigate(ts.URL),
		shows("#examples a.example"),
	)
	examples := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#examples a.example")].map(a => a.textContent)`))
	var finding []string
	for i := range examples {
		browse(t, ctx,
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelectorAll("#examples a.example")[%d].click()`, i)),
			chromedp.Poll[chromedp.Void](`document.querySelector("#status").textContent.startsWith("Results") || document.querySelector("#status").textContent.startsWith("No results") || document.querySelector("#status").className === "error"`),
		)
		if strings.HasPrefix(run(t, ctx, chromedp.Text(chromedp.CSS("#status"))), "Results") {
			finding = append(finding, examples[i])
		}
		browse(t, ctx,
			chromedp.Evaluate[chromedp.Void](`history.back()`),
			shows("#examples a.example"),
		)
	}
	joined := strings.ToLower(strings.Join(examples, "\n"))
	foreign := regexp.MustCompile(`bee|librar|harbo|tide|meadow|图书馆|绿道`).FindAllString(joined, -1)
	has := func(f func(string) bool) bool { return slices.ContainsFunc(examples, f) }
	report(t, []check{
		{"examples", len(examples) >= 6, examples, "6 or more"},
		{"words of the test pages", len(foreign) == 0, foreign, "none"},
		{"AND", has(func(q string) bool { return strings.Contains(q, " AND ") }), examples, "a AND b"},
		{"a phrase", has(func(q string) bool { return strings.HasPrefix(q, `"`) && strings.Count(q, " ") >= 1 }), examples, `"two words"`},
		{"field:term", has(func(q string) bool { return strings.HasPrefix(q, "title:") }), examples, "title:word"},
		{"each finds pages", len(finding) == len(examples), finding, examples},
	})
}

// facetIndex indexes 25 pages on 25 sites and three clusters of copies
// on further sites, two of 3 pages and one of 2 (mark policy: every copy
// searchable): more sites than a facet lists at first, and more clusters
// of 3-5 than of 2.
func facetIndex(t *testing.T) *indexer.Index {
	t.Helper()
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	// Each page's words are its own, so that no two are near-duplicates.
	text := func(n int) []string {
		stems := strings.Fields("river stone cloud maple ember falcon copper meadowlark tundra lantern quarry orchard")
		var ps []string
		for p := range 3 {
			var b strings.Builder
			b.WriteString("Notice")
			for w := range 40 {
				fmt.Fprintf(&b, " %s%d", stems[(w+p)%len(stems)], n*1000+p*100+w)
				if w%8 == 7 {
					b.WriteString(".")
				}
			}
			ps = append(ps, b.String()+".")
		}
		return ps
	}
	n := 0
	add := func(id, url string, paras []string) {
		if err := ix.Index(id, indexer.Document{Title: "Notice " + id, URL: url, Paragraphs: paras}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 25 {
		n++
		add(fmt.Sprintf("site%02d/page", i), fmt.Sprintf("https://site%02d.example/page", i), text(n))
	}
	for c, copies := range []int{3, 3, 2} {
		n++
		paras := text(n)
		for k := range copies {
			add(fmt.Sprintf("copy%d-%d/page", c, k), fmt.Sprintf("https://copies%d-%d.example/page", c, k), paras)
		}
	}
	return ix
}

// TestBrowserFacetOrderAndMore: the copies facet lists its ranges in
// order of size, not of count; a facet with more values than it lists
// opens to show them all, without another search of the results, and
// closes again.
func TestBrowserFacetOrderAndMore(t *testing.T) {
	ctx, ts := serveIndex(t, facetIndex(t))
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q=notice"),
		shows(`#facets fieldset[data-facet="site"] .facet-more`),
	)
	sizes := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#facets fieldset[data-facet="cluster_size"] input')].map(e => e.value)`))
	before := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#facets fieldset[data-facet="site"] .facet-value').length`))
	more := run(t, ctx, chromedp.Text(chromedp.CSS(`#facets fieldset[data-facet="site"] .facet-more`)))
	hitsBefore := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#results > li.hit")].map(e => e.dataset.id)`))
	urlBefore := run(t, ctx, chromedp.Evaluate[string](`location.href`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS(`#facets fieldset[data-facet="site"] .facet-more`)),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('#facets fieldset[data-facet="site"] .facet-value').length > 20`),
	)
	opened := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#facets fieldset[data-facet="site"] .facet-value').length`))
	fewer := run(t, ctx, chromedp.Text(chromedp.CSS(`#facets fieldset[data-facet="site"] .facet-more`)))
	hitsAfter := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#results > li.hit")].map(e => e.dataset.id)`))
	urlAfter := run(t, ctx, chromedp.Evaluate[string](`location.href`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS(`#facets fieldset[data-facet="site"] .facet-more`)),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('#facets fieldset[data-facet="site"] .facet-value').length === 20`),
	)
	report(t, []check{
		{"copies facet in order of size", slices.Equal(sizes, []string{"1", "2", "3-5"}), sizes, "[1 2 3-5]"},
		{"listed at first", before == 20, before, 20},
		{"the button", more == "show 13 more", more, "show 13 more"},
		{"opened", opened == 33, opened, 33},
		{"then offers to close", fewer == "show fewer", fewer, "show fewer"},
		{"results untouched", slices.Equal(hitsBefore, hitsAfter) && urlBefore == urlAfter, urlAfter, urlBefore},
	})
}

// TestBrowserCompareCopies: two copies with their original's title, on
// two sites: the pickers tell every member apart by its site and id
// beside its title, and the measures' table shows each threshold beside
// its value, Pugh's as a count of terms (Pugh votes in this index).
func TestBrowserCompareCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	fo := dedupfilter.DefaultOptions()
	fo.Voters = append(similarity.DefaultVoters(), similarity.Pugh)
	o := indexer.Options{Filter: &fo}
	o.Policy = dedupfilter.Mark
	ix := testindex.PagesWith(t, "", o)
	const orig = "en/bee-archive/library-bees"
	e, err := ix.Doc(orig)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Text string }
	if err := json.Unmarshal(e.Payload, &body); err != nil {
		t.Fatal(err)
	}
	copies := map[string]string{"mirror/library-bees": "https://bees-mirror.example/roof", "garden/roof-bees": "https://garden-news.example/2026/roof-bees"}
	for id, u := range copies {
		if err := ix.Index(id, indexer.Document{Title: e.Title, URL: u, Paragraphs: strings.Split(body.Text, "\n")}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := ix.Doc("mirror/library-bees")
	if err != nil || c.Cluster == "" {
		t.Fatalf("the copy's cluster: %q, %v", c.Cluster, err)
	}
	ctx, ts := serveIndex(t, ix)
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?cluster="+url.QueryEscape(c.Cluster)+"&a=mirror%2Flibrary-bees&b=garden%2Froof-bees"),
		shows("#verdict .scores td.threshold"),
		shows("#right .text .passage"),
	)
	options := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#left-doc option")].map(o => o.textContent)`))
	chosen := run(t, ctx, chromedp.Evaluate[[]string](`["#left-doc", "#right-doc"].map(s => { const e = document.querySelector(s); return e.options[e.selectedIndex].textContent; })`))
	rows := run(t, ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll("#verdict .scores tr[data-measure]")].map(r => [r.dataset.measure, r.querySelector(".value").textContent, r.querySelector(".threshold").textContent])`))
	saveScreenshot(t, ctx, "compare-copies.png")

	distinct := len(slices.Compact(slices.Sorted(slices.Values(options)))) == len(options)
	thresholds := map[string]string{}
	values := map[string]string{}
	for _, r := range rows {
		values[r[0]], thresholds[r[0]] = r[1], r[2]
	}
	var missing []string
	for m, th := range thresholds {
		if !regexp.MustCompile(`^[≥>] \d`).MatchString(th) {
			missing = append(missing, m+": "+th)
		}
	}
	report(t, []check{
		{"members listed", len(options) == 5, options, "5 members"},
		{"every option told apart", distinct, options, "distinct labels"},
		{"left: title, site and id", strings.HasPrefix(chosen[0], e.Title+" — ") && strings.Contains(chosen[0], "bees-mirror.example · mirror/library-bees"), chosen[0], e.Title + " — bees-mirror.example · mirror/library-bees"},
		{"right: title, site and id", strings.HasPrefix(chosen[1], e.Title+" — ") && strings.Contains(chosen[1], "garden-news.example · garden/roof-bees"), chosen[1], e.Title + " — garden-news.example · garden/roof-bees"},
		{"a threshold every measure", len(rows) >= 7 && len(missing) == 0, missing, "≥ or > and a number in every row"},
		{"a share's threshold", thresholds["featurestring"] == "≥ 0.450", thresholds["featurestring"], "≥ 0.450"},
		{"Pugh's threshold, a count", strings.HasPrefix(thresholds["pugh"], "> 50 terms"), thresholds["pugh"], "> 50 terms"},
		{"Pugh's value, a count", regexp.MustCompile(`^\d+ shared terms \(a count\)$`).MatchString(values["pugh"]), values["pugh"], "N shared terms (a count)"},
	})
}

// TestBrowserEnterThenShortcuts: after Enter in the search box the keys
// are shortcuts again: j goes to the first hit and o unfolds it, and
// neither types into the query.
func TestBrowserEnterThenShortcuts(t *testing.T) {
	ctx, ts := startBrowser(t)
	browse(t, ctx,
		chromedp.Navigate(ts.URL),
		shows("#examples a.example"),
		chromedp.SendKeys(chromedp.CSS("#q"), "bees"+kb.Enter),
		shows("#results > li.hit .fold"),
		chromedp.KeyEvent("j"),
		chromedp.KeyEvent("o"),
	)
	q := run(t, ctx, chromedp.Value(chromedp.CSS("#q")))
	focused := run(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#results > li.hit")].findIndex(e => e === document.activeElement)`))
	expanded := run(t, ctx, chromedp.Evaluate[string](`document.querySelector("#results > li.hit .fold").getAttribute("aria-expanded")`))
	report(t, []check{
		{"the query as typed", q == "bees", q, "bees"},
		{"j: the first hit", focused == 0, focused, 0},
		{"o: its copies unfolded", expanded == "true", expanded, "true"},
	})
}
