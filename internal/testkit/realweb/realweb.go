// Package realweb builds a web site from the real pages of the shared
// data and serves it on loopback, for measuring a focused crawler on
// pages no one on the project wrote, laid out the way real sites are.
//
// The site has sections, each with a paginated index ("next page"
// chains). Chinese Wikipedia passages (CMRC 2018) are wiki articles in a
// wiki template; English news and blog pages (the extraction sets) and
// Chinese blog pages are served with their own HTML, markup, charset and
// boilerplate as published, with the site's navigation and links
// injected. Every page carries the navigation to its language's sections
// and a footer of boilerplate pages; an article links to its previous and
// next in its section and to six related pages, most of the same topic
// as real "related" boxes do. A topic's pages sit mostly in its own
// section (named for the topic, so its links say so), some in the
// off-topic sections among unrelated pages; each topical section ends in
// a short series reachable only one page after another (a deep chain).
// Topic labels are the hand labels of relevance/testdata/eval_topics.json
// and testdata/topics.json, never a scorer's.
//
// Everything derives from the data and a seed, so a site is
// reproducible.
package realweb

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
)

//go:embed testdata/topics.json
var topicsJSON []byte

// Topic is a hand-written keyword topic: the keywords were written from
// general knowledge of the subject, before any page was scored.
type Topic struct {
	Name     string             `json:"name"`
	Keywords map[string]float64 `json:"keywords"`
}

type topicsFile struct {
	Hand        []Topic `json:"hand"`
	Readability struct {
		Include []string          `json:"include"`
		Labels  map[string]string `json:"labels"`
	} `json:"readability"`
}

func readTopics() (topicsFile, error) {
	var f topicsFile
	if err := json.Unmarshal(topicsJSON, &f); err != nil {
		return f, fmt.Errorf("realweb: testdata/topics.json: %w", err)
	}
	return f, nil
}

// HandTopics returns the hand-written keyword topics of
// testdata/topics.json: fish, rail, football, chemistry (Chinese), space
// and sport (English).
func HandTopics() ([]Topic, error) {
	f, err := readTopics()
	return f.Hand, err
}

// Kind says how a page is made.
type Kind int

const (
	// Article is a wiki passage in the site's template.
	Article Kind = iota
	// Real is a real page's own HTML with the site's links injected.
	Real
	// Index is a page of a section's index.
	Index
	// Boiler is a footer page (about, contact, privacy, terms).
	Boiler
)

// Page is one page of the site.
type Page struct {
	Path    string // escaped path
	Title   string
	Kind    Kind
	Topic   string // hand label; "" for off-topic
	Lang    string // "zh" or "en"
	Section *Section
	// Example reports whether the page is one of its topic's example
	// pages, which a learnt profile is learnt from.
	Example bool

	paras   []string // Article
	html    []byte   // Real: the page as published
	charset string   // Real: the Content-Type charset to send, "" for none
	related []*Page
	prev    *Page
	next    *Page
	series  bool // in a deep chain: not listed in its section's index
	entries []*Page
	more    *Page // Index: the next index page, or the series' head on the last
}

// Section is a part of the site with its own index.
type Section struct {
	Slug, Name, Lang string
	Topic            string // the topic it is named for, "" for a general section
	pages            []*Page
	index            []*Page
}

// Site is the built web. Its Handler is safe for concurrent use.
type Site struct {
	Pages    []*Page // content pages: articles and real pages
	Sections []*Section
	byPath   map[string]*Page
	boiler   []*Page
	home     []*Page
}

// Data are the real pages a site is built from.
type Data struct {
	docs []doc
}

type doc struct {
	key, title, lang, topic, slug string
	example                       bool
	paras                         []string
	html                          []byte
	charset                       string
	kind                          string // "wiki", "news", "blog", "boke"
}

// Load reads the pages of dataDir (../shared/data): the CMRC 2018
// passages, the English extraction benchmark's pages, the listed real
// pages of the Readability test set and the Chinese extraction set's
// pages, labelled by labels (relevance/testdata/eval_topics.json) and
// testdata/topics.json. A missing data file gives an error satisfying
// errors.Is(err, fs.ErrNotExist).
func Load(dataDir string, labels []testweb.Labels) (*Data, error) {
	var d Data
	examples := make(map[string]bool)
	for _, l := range labels {
		for _, e := range l.Examples {
			examples[l.Corpus+"\x00"+e] = true
		}
	}
	zh, err := testweb.LoadCMRC(dataDir, labels)
	if err != nil {
		return nil, err
	}
	for _, z := range zh {
		if z.Title == "" {
			continue
		}
		d.docs = append(d.docs, doc{key: z.ID, title: z.Title, lang: "zh", topic: z.Topic, kind: "wiki",
			paras: strings.Split(z.Body, "\n"), example: examples["cmrc2018\x00"+z.Title]})
	}
	if err := d.loadNews(dataDir, labels, examples); err != nil {
		return nil, err
	}
	if err := d.loadReadability(dataDir); err != nil {
		return nil, err
	}
	if err := d.loadBoke(dataDir); err != nil {
		return nil, err
	}
	return &d, nil
}

func (d *Data) loadNews(dataDir string, labels []testweb.Labels, examples map[string]bool) error {
	dir := filepath.Join(dataDir, "extract/en")
	data, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return err
	}
	var gt map[string]struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(data, &gt); err != nil {
		return fmt.Errorf("realweb: %w", err)
	}
	for _, k := range slices.Sorted(mapKeys(gt)) {
		page, err := gunzip(filepath.Join(dir, "html", k+".html.gz"))
		if err != nil {
			return err
		}
		title, err := testweb.PageTitle(filepath.Join(dir, "html", k+".html.gz"))
		if err != nil {
			return err
		}
		dc := doc{key: k, title: title, lang: "en", kind: "news", html: page, charset: "utf-8", slug: slugOf(gt[k].URL, k)}
		for _, l := range labels {
			if l.Corpus != "articles" {
				continue
			}
			for _, p := range l.Relevant {
				if strings.HasPrefix(k, p) && dc.topic == "" {
					dc.topic = l.Name
				}
			}
			for _, p := range l.Examples {
				if strings.HasPrefix(k, p) {
					dc.example = true
				}
			}
		}
		d.docs = append(d.docs, dc)
	}
	return nil
}

func (d *Data) loadReadability(dataDir string) error {
	tf, err := readTopics()
	if err != nil {
		return err
	}
	for _, name := range tf.Readability.Include {
		file := filepath.Join(dataDir, "extract/readability", name, "source.html.gz")
		page, err := gunzip(file)
		if err != nil {
			return err
		}
		title, err := testweb.PageTitle(file)
		if err != nil {
			return err
		}
		lang := "en"
		if hanShare(title) > 0.3 {
			lang = "zh"
		}
		d.docs = append(d.docs, doc{key: name, title: title, lang: lang, kind: "blog", html: page, slug: name,
			topic: tf.Readability.Labels[name]})
	}
	return nil
}

// loadBoke reads the Chinese extraction set's pages: GBK or UTF-8 pages
// wrapped in <text id=URL title=... encoding=...>, served unwrapped and
// without a charset, as many Chinese sites serve them.
func (d *Data) loadBoke(dataDir string) error {
	dir := filepath.Join(dataDir, "extract/zh/original")
	names, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("realweb: %s: %w", dir, os.ErrNotExist)
	}
	for _, name := range names {
		page, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(page, '>'); bytes.HasPrefix(page, []byte("<text")) && i >= 0 {
			page = page[i+1:]
		}
		page = bytes.TrimSuffix(bytes.TrimSpace(page), []byte("</text>"))
		key := strings.TrimSuffix(filepath.Base(name), ".html")
		d.docs = append(d.docs, doc{key: key, title: key[:8], lang: "zh", kind: "boke", html: page, slug: key[:8]})
	}
	return nil
}

func mapKeys[M ~map[string]V, V any](m M) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func gunzip(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("realweb: %s: %w", name, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("realweb: %s: %w", name, err)
	}
	return b, nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugOf is the last word-bearing segment of a page's original URL,
// extension dropped ("…/nasa-finds-water-plumes.html" ->
// "nasa-finds-water-plumes"), or key when it has none.
func slugOf(raw, key string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return key[:16]
	}
	segs := strings.Split(u.Path, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		s := strings.TrimSuffix(strings.ToLower(segs[i]), path.Ext(segs[i]))
		s = strings.Trim(nonSlug.ReplaceAllString(s, "-"), "-")
		if strings.IndexFunc(s, unicode.IsLetter) >= 0 && len(s) > 3 && s != "index" {
			return s[:min(len(s), 80)]
		}
	}
	return key[:16]
}

func hanShare(s string) float64 {
	han, all := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			all++
			if unicode.Is(unicode.Han, r) {
				han++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(han) / float64(all)
}

// Shape parameters of the site.
const (
	ownSection   = 0.7 // share of a topic's pages in the section named for it
	relatedLinks = 6   // related links per article
	sameTopic    = 0.6 // share of a topical page's related links to its topic
	sameLang     = 0.9 // share of the other related links to its language
	indexSize    = 15  // entries per index page
	seriesLen    = 4   // pages of a deep chain at the end of each topical section
	homeFeatured = 12  // articles linked from the home page
)

// topicSections names the sections of the labelled topics.
var topicSections = map[string][2]string{
	"fish": {"yulei", "鱼类"}, "rail": {"tielu", "铁路与车站"}, "football": {"zuqiu", "足球"},
	"chemistry": {"huaxue", "化学"}, "space": {"science", "Science"}, "sport": {"sport", "Sport"},
}

var generalSections = map[string][]string{
	"zh": {"tiaomu-a", "tiaomu-b", "tiaomu-c", "tiaomu-d", "tiaomu-e", "tiaomu-f", "tiaomu-g", "tiaomu-h"},
	"en": {"world", "business", "culture", "tech"},
}

// Build lays out a site from the data with the generator seed.
func Build(d *Data, seed uint64) *Site {
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	s := &Site{byPath: make(map[string]*Page)}
	sections := make(map[string]*Section)
	section := func(slug, name, lang, topic string) *Section {
		if sec := sections[slug]; sec != nil {
			return sec
		}
		sec := &Section{Slug: slug, Name: name, Lang: lang, Topic: topic}
		sections[slug] = sec
		s.Sections = append(s.Sections, sec)
		return sec
	}
	for _, lang := range []string{"zh", "en"} {
		for _, t := range []string{"fish", "rail", "football", "chemistry", "space", "sport"} {
			if ts := topicSections[t]; (lang == "en") == (t == "space" || t == "sport") {
				section(ts[0], ts[1], lang, t)
			}
		}
		for i, g := range generalSections[lang] {
			name := "条目 " + string(rune('甲'+i))
			if lang == "en" {
				name = strings.ToUpper(g[:1]) + g[1:]
			}
			section(g, name, lang, "")
		}
	}
	section("boke", "博客", "zh", "")
	section("blogs", "Blogs", "en", "")
	for _, dc := range d.docs {
		p := &Page{Title: dc.title, Topic: dc.topic, Lang: dc.lang, Example: dc.example, paras: dc.paras, html: dc.html, charset: dc.charset, Kind: Real}
		switch dc.kind {
		case "wiki":
			p.Kind, p.Path = Article, "/wiki/"+url.PathEscape(dc.key)
		case "news":
			p.Path = "/news/" + dc.slug
		case "blog":
			p.Path = "/blog/" + dc.slug
		default:
			p.Path = "/boke/" + dc.slug + ".html"
		}
		for n := 2; s.byPath[p.Path] != nil; n++ {
			p.Path = strings.TrimSuffix(p.Path, "-"+strconv.Itoa(n-1)) + "-" + strconv.Itoa(n)
		}
		gen := generalSections[dc.lang]
		switch {
		case dc.kind == "boke":
			p.Section = sections["boke"]
		case dc.topic != "" && rng.Float64() < ownSection:
			p.Section = sections[topicSections[dc.topic][0]]
		case dc.kind == "blog" && rng.Float64() < 0.7:
			p.Section = sections["blogs"]
		default:
			p.Section = sections[gen[rng.IntN(len(gen))]]
		}
		p.Section.pages = append(p.Section.pages, p)
		s.Pages = append(s.Pages, p)
		s.byPath[p.Path] = p
	}
	for _, sec := range s.Sections {
		s.layout(sec, rng)
	}
	s.relate(rng)
	for _, b := range [][3]string{{"/about", "关于本站 About", "本站收录百科条目与新闻报道。This site collects encyclopaedia entries and news."},
		{"/contact", "联系我们 Contact", "如有问题请来信。Write to us with any question."},
		{"/privacy", "隐私政策 Privacy", "本站不收集个人信息。We collect no personal data."},
		{"/terms", "使用条款 Terms", "文本依原许可证发布。Texts are published under their original licences."}} {
		p := &Page{Path: b[0], Title: b[1], Kind: Boiler, paras: []string{b[2]}}
		s.boiler = append(s.boiler, p)
		s.byPath[p.Path] = p
	}
	for range homeFeatured {
		s.home = append(s.home, s.Pages[rng.IntN(len(s.Pages))])
	}
	return s
}

// layout shuffles a section, cuts its deep chain, chains prev/next and
// paginates its index.
func (s *Site) layout(sec *Section, rng *rand.Rand) {
	rng.Shuffle(len(sec.pages), func(i, j int) { sec.pages[i], sec.pages[j] = sec.pages[j], sec.pages[i] })
	listed := sec.pages
	var series []*Page
	if sec.Topic != "" && len(sec.pages) > 2*seriesLen {
		listed, series = sec.pages[:len(sec.pages)-seriesLen], sec.pages[len(sec.pages)-seriesLen:]
	}
	for i, p := range listed {
		if i > 0 {
			p.prev = listed[i-1]
		}
		if i+1 < len(listed) {
			p.next = listed[i+1]
		}
	}
	for i, p := range series {
		p.series = true
		if i+1 < len(series) {
			p.next = series[i+1]
		}
	}
	for i := 0; i < len(listed) || i == 0; i += indexSize {
		ip := &Page{Kind: Index, Section: sec, Lang: sec.Lang, Title: sec.Name, Path: "/portal/" + sec.Slug}
		if n := len(sec.index); n > 0 {
			ip.Path += "/" + strconv.Itoa(n+1)
			sec.index[n-1].more = ip
		}
		ip.entries = listed[i:min(i+indexSize, len(listed))]
		sec.index = append(sec.index, ip)
		s.byPath[ip.Path] = ip
	}
	if len(series) > 0 {
		sec.index[len(sec.index)-1].more = series[0]
	}
}

// relate gives every listed content page its related links.
func (s *Site) relate(rng *rand.Rand) {
	byTopic := make(map[string][]*Page)
	byLang := make(map[string][]*Page)
	var all []*Page
	for _, p := range s.Pages {
		if p.series {
			continue
		}
		all = append(all, p)
		byLang[p.Lang] = append(byLang[p.Lang], p)
		if p.Topic != "" {
			byTopic[p.Topic] = append(byTopic[p.Topic], p)
		}
	}
	for _, p := range s.Pages {
		for range relatedLinks {
			var pool []*Page
			switch r := rng.Float64(); {
			case p.Topic != "" && r < sameTopic:
				pool = byTopic[p.Topic]
			case p.Topic == "" && r < sameTopic:
				pool = p.Section.pages
			case rng.Float64() < sameLang:
				pool = byLang[p.Lang]
			default:
				pool = all
			}
			if t := pool[rng.IntN(len(pool))]; t != p && !t.series && !slices.Contains(p.related, t) {
				p.related = append(p.related, t)
			}
		}
	}
}

// Page returns the page served at the escaped path, or nil.
func (s *Site) Page(path string) *Page { return s.byPath[path] }

// Examples returns the example pages of a topic.
func (s *Site) Examples(topic string) []*Page {
	var out []*Page
	for _, p := range s.Pages {
		if p.Example && p.Topic == topic {
			out = append(out, p)
		}
	}
	return out
}

// Handler serves the site: "/" (home, the usual seed), "/robots.txt"
// (which disallows /search), the section indexes under /portal/, the
// pages and the footer pages.
func (s *Site) Handler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		switch {
		case p == "/robots.txt":
			rw.Header().Set("Content-Type", "text/plain")
			io.WriteString(rw, "User-agent: *\nDisallow: /search\n")
		case p == "/":
			s.serve(rw, r, &Page{Kind: Index, Title: "首页 Home", entries: s.home})
		case s.byPath[p] != nil:
			s.serve(rw, r, s.byPath[p])
		case strings.HasPrefix(p, "/search"):
			s.serve(rw, r, &Page{Kind: Boiler, Title: "搜索 Search", paras: []string{"…"}})
		default:
			http.NotFound(rw, r)
		}
	})
}

func (s *Site) serve(rw http.ResponseWriter, r *http.Request, p *Page) {
	base := "http://" + r.Host
	if p.Kind == Real {
		ct := "text/html"
		if p.charset != "" {
			ct += "; charset=" + p.charset
		}
		rw.Header().Set("Content-Type", ct)
		rw.Write(inject(p.html, s.nav(base, p), s.tail(base, p)))
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	suffix := " - 百科"
	if p.Lang == "en" {
		suffix = " - The Daily Site"
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=%q><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n", p.Lang, esc(p.Title+suffix))
	b.WriteString(s.nav(base, p))
	b.WriteString("<main>\n")
	if p.Section != nil && p.Kind == Article {
		fmt.Fprintf(&b, "<div class=\"breadcrumb\"><a href=\"%s/\">首页</a> › <a href=\"%s%s\">%s</a></div>\n", base, base, p.Section.index[0].Path, esc(p.Section.Name))
	}
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(p.Title))
	if p.Kind == Index {
		b.WriteString("<ul class=\"entries\">\n")
		for _, e := range p.entries {
			fmt.Fprintf(&b, "<li><a href=\"%s%s\">%s</a></li>\n", base, e.Path, esc(e.Title))
		}
		b.WriteString("</ul>\n")
	}
	if len(p.paras) > 0 {
		b.WriteString("<article>\n")
		for _, para := range p.paras {
			fmt.Fprintf(&b, "<p>%s</p>\n", esc(para))
		}
		b.WriteString("</article>\n")
	}
	b.WriteString("</main>\n")
	b.WriteString(s.tail(base, p))
	b.WriteString("</body></html>\n")
	io.WriteString(rw, b.String())
}

// nav is the site header: home, the sections of the page's language, the
// other language's home and a search link.
func (s *Site) nav(base string, p *Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<header class=\"site\"><nav><a href=\"%s/\">首页 Home</a>", base)
	for _, sec := range s.Sections {
		if sec.Lang == p.Lang || p.Lang == "" {
			fmt.Fprintf(&b, " <a href=\"%s%s\">%s</a>", base, sec.index[0].Path, esc(sec.Name))
		}
	}
	fmt.Fprintf(&b, " <a href=\"%s/search?q=\">搜索 Search</a></nav></header>\n", base)
	return b.String()
}

// tail is what follows a page's content: its related links, previous and
// next (or an index's next page), and the footer.
func (s *Site) tail(base string, p *Page) string {
	var b strings.Builder
	related, prev, next, more := "相关条目", "上一篇", "下一篇", "下一页"
	if p.Lang == "en" {
		related, prev, next, more = "Related", "Previous", "Next", "Next page"
	}
	if len(p.related) > 0 {
		fmt.Fprintf(&b, "<aside class=\"related\"><h2>%s</h2><ul>\n", related)
		for _, t := range p.related {
			fmt.Fprintf(&b, "<li><a href=\"%s%s\">%s</a></li>\n", base, t.Path, esc(t.Title))
		}
		b.WriteString("</ul></aside>\n")
	}
	if p.prev != nil || p.next != nil || p.more != nil {
		b.WriteString("<div class=\"pager\">")
		if p.prev != nil {
			fmt.Fprintf(&b, "<a href=\"%s%s\">%s：%s</a> ", base, p.prev.Path, prev, esc(p.prev.Title))
		}
		if p.next != nil {
			fmt.Fprintf(&b, "<a href=\"%s%s\">%s：%s</a>", base, p.next.Path, next, esc(p.next.Title))
		}
		if p.more != nil {
			fmt.Fprintf(&b, "<a href=\"%s%s\">%s</a>", base, p.more.Path, more)
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("<footer class=\"site\">")
	for _, f := range s.boiler {
		fmt.Fprintf(&b, "<a href=\"%s%s\">%s</a> ", base, f.Path, esc(f.Title))
	}
	b.WriteString("<p>Texts: CMRC 2018 (CC BY-SA 4.0), article-extraction-benchmark (MIT), Mozilla Readability tests (Apache-2.0), Chinese-Web-Content-Extraction-Dataset (MIT).</p></footer>\n")
	return b.String()
}

// Byte-wise patterns: a page may be GBK, which UTF-8 case folding would
// garble.
var (
	bodyOpen  = regexp.MustCompile(`(?i)<body[^>]*>`)
	bodyClose = regexp.MustCompile(`(?i)</body`)
)

// inject puts head after a real page's <body> tag and tail before its
// </body> (or at the ends when there is none). Both are ASCII (see esc),
// so they read the same in whatever charset the page is.
func inject(page []byte, head, tail string) []byte {
	out := make([]byte, 0, len(page)+len(head)+len(tail))
	at := 0
	if loc := bodyOpen.FindIndex(page); loc != nil {
		at = loc[1]
	}
	out = append(append(out, page[:at]...), head...)
	rest := page[at:]
	end := len(rest)
	if all := bodyClose.FindAllIndex(rest, -1); all != nil {
		end = all[len(all)-1][0]
	}
	out = append(append(append(out, rest[:end]...), tail...), rest[end:]...)
	return out
}

// esc escapes text for HTML, writing every non-ASCII character as a
// numeric character reference: injected into a GBK page it must not
// depend on the page's charset.
func esc(s string) string {
	var b strings.Builder
	for _, r := range html.EscapeString(s) {
		if r < 0x80 {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "&#%d;", r)
		}
	}
	return b.String()
}

// Half splits the content pages in two by a hash of the path: 0 or 1. A
// default chosen on one half is measured on the other.
func (p *Page) Half() int {
	h := fnv.New32a()
	h.Write([]byte(p.Path))
	return int(h.Sum32() & 1)
}
