package server_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bleve-dedup/bleve-dedup/server"
)

// chromiumPath is where Debian's chromium package installs the browser.
const chromiumPath = "/usr/bin/chromium"

// newBrowser starts a headless Chromium with a fresh profile and extra
// options, and returns its context.
func newBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no browser: %v (install with: apt-get install -y chromium chromium-driver)", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	opts = append(opts, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	return bctx
}

// startBrowser starts Chromium and a server of the test pages on
// 127.0.0.1, both stopped when the test ends; it skips the test under
// -short.
func startBrowser(t *testing.T) (context.Context, *httptest.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, fixture(t), server.DefaultOptions()))
	t.Cleanup(ts.Close)
	return ctx, ts
}

// TestBrowser drives the page in Chromium: search, unfold a collapsed
// hit, open the cluster view, and check what the page shows.
func TestBrowser(t *testing.T) {
	ctx, ts := startBrowser(t)

	browse(t, ctx,
		chromedp.Navigate(ts.URL),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "bees"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#results li.hit")),
	)
	status := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	hits := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#results li.hit").length`))
	firstTitle := run(t, ctx, chromedp.Text(chromedp.CSS("#results li.hit h3")))
	foldLabel := run(t, ctx, chromedp.Text(chromedp.CSS("#results li.hit .fold")))
	members := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#results li.hit:first-child .members li.member").length`))
	hiddenBefore := run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#results li.hit .members").hidden`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#results li.hit .fold")),
		chromedp.WaitVisible(chromedp.CSS("#results li.hit .members li.member")),
	)
	expanded := run(t, ctx, chromedp.AttributeValue(chromedp.CSS("#results li.hit .fold"), "aria-expanded")).Value
	saveScreenshot(t, ctx, "results-unfolded.png")
	visibleMembers := run(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#results li.hit .members li.member")].filter(e => e.offsetParent !== null).length`))
	browse(t, ctx,
		chromedp.Click(chromedp.CSS("#results li.hit .members .compare")),
		chromedp.WaitVisible(chromedp.CSS("#cluster-view #left .text span")),
	)
	leftTitle := run(t, ctx, chromedp.Text(chromedp.CSS("#left h3")))
	rightTitle := run(t, ctx, chromedp.Text(chromedp.CSS("#right h3")))
	shared := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#left .text span.shared").length`))
	differing := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#left .text .changed, #left .text .deleted, #right .text .changed, #right .text .inserted").length`))
	resultsHidden := run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#search-view").hidden`))
	saveScreenshot(t, ctx, "cluster-view.png")
	checks := []struct {
		what      string
		ok        bool
		got, want any
	}{
		{"status", strings.Contains(status, "of 3 clusters (5 matching documents"), status, "Results 1–3 of 3 clusters (5 matching documents, …)"},
		{"hits", hits == 3, hits, 3},
		{"first title", firstTitle == "Library Roof Becomes a Home for Bees, and for Volunteers", firstTitle, "Library Roof Becomes a Home for Bees, and for Volunteers"},
		{"fold label", foldLabel == "2 copies", foldLabel, "2 copies"},
		{"members", members == 2, members, 2},
		{"members folded at first", hiddenBefore, hiddenBefore, true},
		{"results hidden in the cluster view", resultsHidden, resultsHidden, true},
		{"visible members", visibleMembers == 2, visibleMembers, 2},
		{"aria-expanded", expanded == "true", expanded, "true"},
		{"left title", leftTitle == firstTitle, leftTitle, firstTitle},
		{"right title", strings.Contains(rightTitle, "Bees") || strings.Contains(rightTitle, "Hives"), rightTitle, "another copy's title"},
		{"shared passages", shared > 0, shared, "> 0"},
		{"differing words", differing > 0, differing, "> 0"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestBrowserEscapes checks that a hostile title shows as text and a
// javascript: URL is not linked, and that a syntax error shows its place.
func TestBrowserEscapes(t *testing.T) {
	ctx, ts := startBrowser(t)

	browse(t, ctx,
		chromedp.Navigate(ts.URL),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "zebras"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#results li.hit")),
	)
	title := run(t, ctx, chromedp.Text(chromedp.CSS("#results li.hit h3")))
	injected := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#results script, #results img").length`))
	// The hit links to its page and cluster here, but not to its URL.
	links := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#results h3 a[href], #results a[href^="javascript"]').length`))
	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#q").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#q"), "bees AND (tide"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#status.error")),
	)
	status := run(t, ctx, chromedp.Text(chromedp.CSS("#status")))
	saveScreenshot(t, ctx, "syntax-error.png")
	if title != xssTitle || injected != 0 || links != 0 {
		t.Errorf("hostile page: title %q, %d elements injected, %d links; want the title as text, 0, 0", title, injected, links)
	}
	if !strings.Contains(status, "at 14: expected") || !strings.Contains(status, "              ^") {
		t.Errorf("status %q, want the error at 14 with a caret under it", status)
	}
}

// saveScreenshot writes the page to t.TempDir() and, when SCREENSHOT_DIR
// is set, there too.
func saveScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := run(t, ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	dirs := []string{t.TempDir()}
	if d := os.Getenv("SCREENSHOT_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshot %s: %d bytes", name, len(png))
}

// browse runs steps in the browser, failing t on error.
func browse(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// run runs a in the browser and returns its result, failing t on error.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
