package realweb

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
)

const dataDir = "../../../../shared/data"

func loadSite(tb testing.TB, seed uint64) *Site {
	tb.Helper()
	labels, err := testweb.ReadLabels("../../../relevance/testdata/eval_topics.json")
	if err != nil {
		tb.Fatal(err)
	}
	d, err := Load(dataDir, labels)
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("shared data absent: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return Build(d, seed)
}

func TestBuildDeterministic(t *testing.T) {
	a, b := loadSite(t, 3), loadSite(t, 3)
	paths := func(s *Site) (out []string) {
		for _, p := range s.Pages {
			out = append(out, p.Path, p.Section.Slug)
			for _, r := range p.related {
				out = append(out, r.Path)
			}
		}
		return out
	}
	if !reflect.DeepEqual(paths(a), paths(b)) {
		t.Error("two sites from one seed differ")
	}
	if reflect.DeepEqual(paths(a), paths(loadSite(t, 4))) {
		t.Error("sites from different seeds are equal")
	}
}

// TestReachable walks the site from "/" as a crawler would (robots.txt
// aside) and checks that every content page is reachable, that the deep
// chains are deep and that the labelled topics are all there.
func TestReachable(t *testing.T) {
	s := loadSite(t, 7)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	depth := map[string]int{"/": 0}
	queue := []string{"/"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, l := range links(t, srv.URL+p) {
			if !strings.HasPrefix(l, srv.URL+"/") {
				continue
			}
			l = strings.TrimPrefix(l, srv.URL)
			if _, ok := depth[l]; !ok && s.Page(l) != nil {
				depth[l] = depth[p] + 1
				queue = append(queue, l)
			}
		}
	}
	topics := make(map[string]int)
	deepest := 0
	for _, p := range s.Pages {
		d, ok := depth[p.Path]
		if !ok {
			t.Errorf("%s (%s) is not reachable from /", p.Path, p.Title)
		}
		if p.Topic != "" {
			topics[p.Topic]++
		}
		deepest = max(deepest, d)
	}
	for _, name := range []string{"fish", "rail", "football", "chemistry", "space", "sport"} {
		if topics[name] < 10 || len(s.Examples(name)) < 3 {
			t.Errorf("topic %s: %d pages, %d examples; want >= 10 and >= 3", name, topics[name], len(s.Examples(name)))
		}
	}
	if deepest < 6 {
		t.Errorf("deepest page at depth %d, want deep chains (>= 6)", deepest)
	}
	t.Logf("%d content pages, %d pages served in all, deepest at %d", len(s.Pages), len(depth), deepest)
}

// TestInject checks a real page keeps its own markup and charset and
// gets the site's links as ASCII.
func TestInject(t *testing.T) {
	got := string(inject([]byte("<html><BODY class=x><p>正文</p></Body></html>"), "<nav>N&#39318;</nav>", "<footer>F</footer>"))
	want := "<html><BODY class=x><nav>N&#39318;</nav><p>正文</p><footer>F</footer></Body></html>"
	if got != want {
		t.Errorf("inject = %q, want %q", got, want)
	}
	if got := string(inject([]byte("<p>bare</p>"), "H", "T")); got != "H<p>bare</p>T" {
		t.Errorf("inject without body = %q", got)
	}
	if got := esc("鱼 & <b>"); got != "&#40060; &amp; &lt;b&gt;" {
		t.Errorf("esc = %q", got)
	}
}

func links(tb testing.TB, u string) []string {
	tb.Helper()
	resp, err := http.Get(u)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	z := html.NewTokenizer(strings.NewReader(string(body)))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "a" {
				for {
					k, v, more := z.TagAttr()
					if string(k) == "href" {
						out = append(out, string(v))
					}
					if !more {
						break
					}
				}
			}
		}
	}
}
