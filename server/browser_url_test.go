package server_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSnippetsAndURL opens a search from its URL, as a link or a
// bookmark would, checks the snippets' marks (English and Chinese), and
// walks two searches and a comparison with back and forward.
func TestBrowserSnippetsAndURL(t *testing.T) {
	ctx, ts := startBrowser(t)

	// A linked search: the page runs it on load, with its options.
	browse(t, ctx,
		chromedp.Navigate(ts.URL+"/?q="+url.QueryEscape("bees OR tide")+"&collapse=false"),
		chromedp.WaitVisible(chromedp.CSS("#results li.hit .snippet mark")),
	)
	q := run(t, ctx, chromedp.Value(chromedp.CSS("#q")))
	collapsed := run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#collapse").checked`))
	status := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	marks := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#results .snippet mark")].map(m => m.textContent.toLowerCase())`))
	snippets := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#results li.hit .snippet").length`))
	hits := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#results li.hit").length`))
	injected := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#results .snippet *:not(mark)").length`))
	saveScreenshot(t, ctx, "snippets.png")

	// A second search from the form, then a Chinese one: each a history
	// entry with its URL.
	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#q").value = ""; document.querySelector("#collapse").checked = true`),
		chromedp.SendKeys(chromedp.CSS("#q"), "图书馆"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
		shows(`#results li.hit[data-id^="zh/"] .snippet mark`),
	)
	zhURL := run(t, ctx, chromedp.Evaluate[string](`location.search`))
	zhMarks := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#results .snippet mark")].map(m => m.textContent)`))
	saveScreenshot(t, ctx, "snippets-zh.png")

	// Back: the first search again, its query in the form.
	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`history.back()`),
		shows(`#results li.hit[data-id^="en/"]`),
	)
	backQ := run(t, ctx, chromedp.Value(chromedp.CSS("#q")))
	backCollapsed := run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#collapse").checked`))
	// Forward: the Chinese search.
	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`history.forward()`),
		shows(`#results li.hit[data-id^="zh/"]`),
	)
	fwdQ := run(t, ctx, chromedp.Value(chromedp.CSS("#q")))

	// A comparison opened from a hit has a URL of its own, which opens it
	// again when loaded.
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#results li.hit .fold")),
		chromedp.Click(chromedp.CSS("#results li.hit .members .compare")),
		shows("#cluster-view #left .text span"),
	)
	cmpURL := run(t, ctx, chromedp.Evaluate[string](`location.href`))
	browse(t, ctx,
		chromedp.Navigate(cmpURL),
		shows("#cluster-view #left .text span"),
	)
	reopened := run(t, ctx, chromedp.Text(chromedp.CSS("#cluster-title")))
	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`history.back()`),
		shows("#results li.hit"),
	)
	afterBack := run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#cluster-view").hidden`))

	checks := []struct {
		what      string
		ok        bool
		got, want any
	}{
		{"query from the URL", q == "bees OR tide", q, "bees OR tide"},
		{"collapse from the URL", !collapsed, collapsed, false},
		{"status of the linked search", strings.Contains(status, "documents"), status, "Results … of N documents"},
		{"a snippet a hit", snippets == hits && hits > 0, snippets, hits},
		{"marks", allIn(marks, "bees", "tide"), marks, "bees or tide"},
		{"nothing but marks in snippets", injected == 0, injected, 0},
		{"Chinese search in the URL", zhURL == "?q="+url.QueryEscape("图书馆"), zhURL, "?q=" + url.QueryEscape("图书馆")},
		{"Chinese marks", len(zhMarks) > 0 && allIn(zhMarks, "图书", "书馆", "圖書", "書館"), zhMarks, "runs of 图书馆's bigrams"},
		{"back: the first query", backQ == "bees OR tide" && !backCollapsed, backQ, "bees OR tide, not collapsed"},
		{"forward: the Chinese query", fwdQ == "图书馆", fwdQ, "图书馆"},
		{"comparison URL", strings.Contains(cmpURL, "cluster="), cmpURL, "…&cluster=…"},
		{"comparison reopened from its URL", strings.HasPrefix(reopened, "Cluster "), reopened, "Cluster …"},
		{"back from the comparison", afterBack, afterBack, true},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// shows waits until an element matching selector is displayed. The page
// replaces its results at every search, and going back and forward
// redraws them with the same selectors, so the wait polls the page
// rather than following chromedp's node ids, which go stale.
func shows(selector string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e !== null && e.offsetParent !== null; })()`, selector))
}

// allIn reports whether every mark contains one of words.
func allIn(marks []string, words ...string) bool {
	for _, m := range marks {
		ok := false
		for _, w := range words {
			ok = ok || strings.Contains(m, w)
		}
		if !ok {
			return false
		}
	}
	return true
}
