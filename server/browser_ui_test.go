package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/server"
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
