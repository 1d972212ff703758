// Package extracttest holds what the tests of package extract and of its
// engine packages share: the pages and gold texts of the extraction
// benchmarks and the near-duplicate corpus, their shingle scoring, and the
// tests and benchmarks that run an extractor over them. It does not import
// extract, so that extract's own tests can import it; an extractor is any
// function of a page with extract.Options.FromPageContext's shape.
package extracttest

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/page"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ModuleRoot returns the module's root directory, found by walking up
// from the test's working directory to go.mod, so that packages at any
// depth find the repository's testdata and ../shared/data.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("extracttest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// dataDir returns the shared data directory, ../shared/data from the
// module root.
func dataDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(ModuleRoot(tb), "..", "shared", "data")
}

// Path is the path of parts under ../shared/data; the test skips where it
// is absent.
func Path(tb testing.TB, parts ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{dataDir(tb)}, parts...)...)
	skipWithout(tb, p)
	return p
}

func skipWithout(tb testing.TB, path string) {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("benchmark data absent (%v)", err)
	}
}

// Sample is one benchmark page with its gold main text.
type Sample struct {
	Name, URL, HTML, Gold string
}

// Site is the host of the sample's URL without "www.", or "" when the URL
// is unknown: the unit of a split by site, so that no site's template is
// on both sides.
func (s Sample) Site() string {
	u, err := url.Parse(s.URL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// page returns the sample as a page to extract.
func (s Sample) page() page.Page {
	return page.Page{ID: s.Name, URL: s.URL, HTML: s.HTML}
}

// LoadEN reads extract/en: gzipped pages and ground-truth.json.
func LoadEN(tb testing.TB) []Sample {
	dir := filepath.Join(dataDir(tb), "extract", "en")
	skipWithout(tb, dir)
	b, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var gt map[string]struct{ ArticleBody, URL string }
	if err := json.Unmarshal(b, &gt); err != nil {
		tb.Fatal(err)
	}
	var out []Sample
	for p, err := range page.Read([]string{filepath.Join(dir, "html")}, page.DefaultOptions()) {
		if err != nil {
			tb.Fatal(err)
		}
		g, ok := gt[p.ID]
		if !ok {
			tb.Fatalf("%s: no ground truth", p.ID)
		}
		out = append(out, Sample{Name: p.ID, URL: g.URL, HTML: p.HTML, Gold: g.ArticleBody})
	}
	if len(out) != len(gt) {
		tb.Fatalf("read %d pages, ground truth has %d", len(out), len(gt))
	}
	return out
}

var wrapperURL = regexp.MustCompile(`^\s*<text id="([^"]*)"`)

// LoadZH reads extract/zh: raw pages in <text id=URL ...> wrappers, decoded
// with page.Decode alone (the wrapper's encoding attribute is not used, so
// charset detection is exercised too), and cleaned/<uuid>.txt gold.
func LoadZH(tb testing.TB) []Sample {
	dir := filepath.Join(dataDir(tb), "extract", "zh")
	skipWithout(tb, dir)
	names, err := filepath.Glob(filepath.Join(dir, "original", "*.html"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no pages in %s: %v", dir, err)
	}
	var out []Sample
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		d, err := page.Decode(raw, "")
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		doc := d.Text
		uuid := strings.TrimSuffix(filepath.Base(name), ".html")
		gold, err := os.ReadFile(filepath.Join(dir, "cleaned", uuid+".txt"))
		if err != nil {
			tb.Fatal(err)
		}
		var url string
		if m := wrapperURL.FindStringSubmatch(doc); m != nil {
			url = m[1]
		}
		out = append(out, Sample{Name: uuid, URL: url, HTML: doc, Gold: string(gold)})
	}
	return out
}

// LoadNeardup reads the near-duplicate development corpus.
func LoadNeardup(tb testing.TB) []page.Page {
	path := filepath.Join(dataDir(tb), "neardup", "dev-corpus.jsonl.gz")
	skipWithout(tb, path)
	var pages []page.Page
	for p, err := range page.Read([]string{path}, page.DefaultOptions()) {
		if err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, p)
	}
	return pages
}

// neardupGold maps the clusters of the near-duplicate corpus to the article
// their pages reprint, where the corpus ids tell: "en-<key prefix>" to
// extract/en, "zh-<uuid prefix>" to extract/zh, "wk-dev_<n>" to the CMRC
// passage DEV_<n> (its title, then its text).
func neardupGold(tb testing.TB) map[string]string {
	gold := map[string]string{}
	for _, s := range LoadEN(tb) {
		gold["en-"+s.Name[:12]] = s.Gold
	}
	for _, s := range LoadZH(tb) {
		gold["zh-"+s.Name[:12]] = s.Gold
	}
	for _, p := range LoadCMRC(tb) {
		gold["wk-dev_"+strings.TrimPrefix(p.ID, "DEV_")] = p.Title + "\n" + p.Text
	}
	return gold
}

// Passage is one of cmrc2018's Wikipedia passages (../shared/data/text/zh).
type Passage struct {
	ID    string `json:"context_id"`
	Title string `json:"title"`
	Text  string `json:"context_text"`
}

// LoadCMRC returns cmrc2018's passages, each once (the file repeats a
// passage for each of its questions), in file order.
func LoadCMRC(tb testing.TB) []Passage {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, "text", "zh", "cmrc2018_dev.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var all []Passage
	if err := json.Unmarshal(b, &all); err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	var out []Passage
	for _, p := range all {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	return out
}

// copySuffix is the copy suffix ("-r2") of a corpus id, stripped to get
// its cluster.
var copySuffix = regexp.MustCompile(`-r\d+$`)

// LoadReadability reads extract/readability: <name>/source.html.gz, decoded
// with page.Decode (charset detection), and the text of
// <name>/expected.html.gz, the main content Mozilla's Readability keeps,
// as gold (see htmlText). Pages whose expected content has fewer than
// minGoldTokens tokens are left out: they test Readability's HTML
// handling ("Test" in a bare body), not main-content extraction.
func LoadReadability(tb testing.TB) []Sample {
	dir := filepath.Join(dataDir(tb), "extract", "readability")
	skipWithout(tb, dir)
	names, err := filepath.Glob(filepath.Join(dir, "*", "source.html.gz"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no pages in %s: %v", dir, err)
	}
	var out []Sample
	for _, name := range names {
		pageDir := filepath.Dir(name)
		raw, err := readGzip(name)
		if err != nil {
			tb.Fatal(err)
		}
		d, err := page.Decode(raw, "")
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		expected, err := readGzip(filepath.Join(pageDir, "expected.html.gz"))
		if err != nil {
			tb.Fatal(err)
		}
		gold := htmlText(string(expected))
		if len(tokens(gold)) < minGoldTokens {
			tb.Logf("%s: skipped: expected content has fewer than %d tokens", filepath.Base(pageDir), minGoldTokens)
			continue
		}
		out = append(out, Sample{Name: filepath.Base(pageDir), HTML: d.Text, Gold: gold})
	}
	return out
}

// minGoldTokens is the shortest expected content LoadReadability scores:
// one shingle.
const minGoldTokens = shingleLen

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(zr)
}

// htmlText returns the text of an HTML fragment, a line per block-level
// element (inline elements continue the line, so "<b>un</b>like" stays one
// word), without script and style.
func htmlText(doc string) string {
	return markedText(doc, nil)
}

// markedText is htmlText limited, when keep is not nil, to the text inside
// <span> elements whose class keep holds (the innermost such class
// decides): the way L3S-GN1 marks the blocks its assessors labelled.
func markedText(doc string, keep map[string]bool) string {
	var sb strings.Builder
	z := html.NewTokenizer(strings.NewReader(doc))
	skip := 0
	var spans []string // the label in force inside each open <span>
	label := func() string {
		if len(spans) == 0 {
			return ""
		}
		return spans[len(spans)-1]
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return sb.String()
		case html.TextToken:
			if skip == 0 && (keep == nil || keep[label()]) {
				sb.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if keep != nil && a == atom.Span {
				switch tt {
				case html.StartTagToken:
					l := label()
					for hasAttr {
						var k, v []byte
						k, v, hasAttr = z.TagAttr()
						if string(k) == "class" {
							for c := range strings.FieldsSeq(string(v)) {
								if strings.HasPrefix(c, "x-nc-sel") {
									l = c
								}
							}
						}
					}
					spans = append(spans, l)
				case html.EndTagToken:
					if len(spans) > 0 {
						spans = spans[:len(spans)-1]
					}
				}
			}
			switch {
			case a == atom.Script || a == atom.Style:
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case !inline[a]:
				sb.WriteByte('\n')
			}
		}
	}
}

// inline elements continue the line of text around them.
var inline = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Big: true, atom.Cite: true,
	atom.Code: true, atom.Em: true, atom.Font: true, atom.I: true, atom.Kbd: true,
	atom.Mark: true, atom.Q: true, atom.S: true, atom.Small: true, atom.Span: true,
	atom.Strike: true, atom.Strong: true, atom.Sub: true, atom.Sup: true,
	atom.Time: true, atom.Tt: true, atom.U: true, atom.Var: true, atom.Del: true,
	atom.Ins: true, atom.Label: true, atom.Nobr: true, atom.Img: true, atom.Wbr: true,
}
