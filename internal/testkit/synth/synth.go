// Package synth generates a synthetic crawl for scale benchmarks: any
// number of realistic English and Chinese text pages on many sites, with a
// labelled share of near-duplicate copies, streamed one page at a time and
// deterministic for a seed.
//
// Article text comes from Markov chains trained on the project's shared
// data (words of English news bodies, characters of Chinese prose), so
// every article's sentences are its own, as in a real crawl; reshuffling a
// pool of real sentences would repeat each sentence in thousands of pages.
// Each site wraps its pages in its own template (navigation, breadcrumb,
// bylines, "related" lines, footer), the text a dedup filter must see
// past. Near-duplicates are reprints of an earlier article with the edits
// of the labelled development set (see ../shared/data/README.md): another
// site's template, a new title, a source or copyright line, paragraphs
// split or merged, the last paragraph dropped, a few percent of the words
// or characters changed, full-/half-width punctuation or quote style
// changed. Most copies reprint a recent article, some one far back.
//
// Distinct articles share text too if asked (QuoteShare, WholeShare), as
// real pages do: a quoted sentence, a press release paragraph or a wire
// service's notice repeated in many articles, a short news item quoted in
// full inside a longer post. A filter that clusters pages by single link
// chains such articles together; these corpora measure its precision. A
// quoting article is a cluster of its own, and its copies reprint the
// quote with the rest of it.
//
// Streaming without holding the pages: article j is a pure function of
// (seed, j), so a copy regenerates its original instead of remembering it,
// and the generator's state is a few counters per site.
package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// Options configure a generated corpus.
type Options struct {
	Pages int    // number of pages
	Seed  uint64 // the same seed gives the same pages
	// DupShare is the share of pages that are near-duplicate copies of an
	// earlier page's article.
	DupShare float64
	// ZhShare is the share of articles in Chinese.
	ZhShare float64
	// Sites is the number of sites, half English and half Chinese.
	Sites int
	// TextBytes is the mean size of a page's text (template included).
	TextBytes int
	// RecentShare is the share of copies that reprint one of the last
	// Recent articles; the others reprint any earlier article, so that
	// lookups reach across the whole index.
	RecentShare float64
	Recent      int
	// SameSiteShare is the share of copies re-posted on their original's
	// own site (same template); the others are reprints on another site.
	SameSiteShare float64
	// ChainShare is the share of copies of a recent article that reprint
	// one of its earlier copies (with that copy's edits, and more of their
	// own) rather than the original: chains of copies of copies, whose
	// later links may be far from the first. Default 0.
	ChainShare float64
	// Skew makes some articles far more copied than others while they are
	// recent: each article draws a popularity u^-Skew (u uniform in (0, 1],
	// at most 1000), and a copy picks a recent article in proportion to it,
	// so that clusters grow to tens of copies. Default 0: every recent
	// article alike.
	Skew float64
	// QuoteShare is the share of articles that quote a block of another:
	// one to three consecutive sentences or a whole paragraph of an
	// earlier article, as a paragraph of its own at a random place. Blocks
	// are reused with rich-get-richer popularity (see blockQuote), so that
	// some recur in dozens to hundreds of articles at a million pages, as
	// boilerplate and press releases do. Default 0.
	QuoteShare float64
	// WholeShare is the share of articles that quote a whole short earlier
	// article, every paragraph of it, inside text of their own at least
	// twice as long. Default 0.
	WholeShare float64
}

// DefaultOptions returns the options of the scale benchmark for n pages.
func DefaultOptions(n int) Options {
	return Options{
		Pages:         n,
		Seed:          1,
		DupShare:      0.3,
		ZhShare:       0.5,
		Sites:         128,
		TextBytes:     2048,
		RecentShare:   0.8,
		Recent:        200,
		SameSiteShare: 0.05,
	}
}

// ErrOptions is wrapped by Pages for invalid options.
var ErrOptions = errors.New("synth: invalid options")

func (o Options) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrOptions, fmt.Sprintf(format, args...))
	}
	share := func(x float64) bool { return x >= 0 && x <= 1 }
	switch {
	case o.Pages < 0:
		return bad("pages %d < 0", o.Pages)
	case !share(o.DupShare) || !share(o.ZhShare) || !share(o.RecentShare) || !share(o.SameSiteShare) || !share(o.ChainShare) ||
		!share(o.QuoteShare) || !share(o.WholeShare):
		return bad("shares must lie in [0, 1]")
	case o.Sites < 2:
		return bad("sites %d < 2 (one per language at least)", o.Sites)
	case o.TextBytes < 200:
		return bad("text bytes %d < 200", o.TextBytes)
	case o.Recent < 1:
		return bad("recent %d < 1", o.Recent)
	case o.Skew < 0:
		return bad("skew %v < 0", o.Skew)
	}
	return nil
}

// Page is one generated page with its label.
type Page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"` // paragraphs separated by blank lines

	Cluster string `json:"-"` // the article: pages sharing it are near-duplicates
	Lang    string `json:"-"` // "en" or "zh"
	Site    string `json:"-"` // host
	Copy    bool   `json:"-"` // a near-duplicate of an earlier page

	body []string // the article's paragraphs without the template
}

// Label is a page's line in the labels file, as eval.ReadLabels reads it.
type Label struct {
	ID      string `json:"id"`
	Cluster string `json:"cluster"`
}

// Salts separate the random streams of the generator's parts.
const (
	saltSite uint64 = iota + 1
	saltArticle
	saltPage
	saltRelated
	saltQuery
	saltQuote
	saltWhole
)

// rng returns the random stream number i of one part of the generator.
func rng(seed, salt, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(mix(seed^mix(salt)), mix(i^mix(salt<<32|0x5eed))))
}

// mix is splitmix64's finaliser: nearby inputs give unrelated outputs.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Pages returns the pages of the corpus o describes. Each iteration
// generates them afresh, in the same order.
func (m *Model) Pages(o Options) (iter.Seq[Page], error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	return func(yield func(Page) bool) {
		g := newGen(m, o)
		for k := range o.Pages {
			if !yield(g.page(k)) {
				return
			}
		}
	}, nil
}

// gen is the state of one pass over a corpus.
type gen struct {
	m         *Model
	o         Options
	sites     []*site
	byLang    map[string][]int     // site indexes per language
	cum       map[string][]float64 // their cumulative weights
	originals int                  // articles emitted so far
	epoch     time.Time
	// copies are the copies made of each recent article (ChainShare), so
	// that a later copy can reprint one of them.
	copies map[int][]copyText
}

// copyText is what a copy of an article says: its title and paragraphs.
type copyText struct {
	title string
	paras []string
}

func newGen(m *Model, o Options) *gen {
	g := &gen{m: m, o: o, sites: newSites(o.Sites, o.Seed), byLang: map[string][]int{}, cum: map[string][]float64{},
		epoch: time.Date(2024, 1, 1, 6, 0, 0, 0, time.UTC)}
	for i, s := range g.sites {
		g.byLang[s.lang] = append(g.byLang[s.lang], i)
	}
	for lang, idx := range g.byLang {
		g.cum[lang] = siteWeights(len(idx))
	}
	if o.ChainShare > 0 {
		g.copies = map[int][]copyText{}
	}
	return g
}

// popularity is article j's weight among the recent articles (Skew).
func (g *gen) popularity(j int) float64 {
	u := 1 - rng(g.o.Seed, saltArticle, uint64(j)^0x9090).Float64() // (0, 1]
	return min(1000, math.Pow(u, -g.o.Skew))
}

// pickRecent picks one of the recent articles lo..g.originals-1, in
// proportion to their popularity.
func (g *gen) pickRecent(r *rand.Rand, lo int) int {
	if g.o.Skew == 0 {
		return lo + r.IntN(g.originals-lo)
	}
	total := 0.0
	for j := lo; j < g.originals; j++ {
		total += g.popularity(j)
	}
	x := r.Float64() * total
	for j := lo; j < g.originals; j++ {
		if x -= g.popularity(j); x < 0 {
			return j
		}
	}
	return g.originals - 1
}

func (g *gen) chain(lang string) *chain {
	if lang == "zh" {
		return g.m.zh
	}
	return g.m.en
}

// article is an original article before it is placed in a template.
type article struct {
	j     int
	lang  string
	site  int // index into gen.sites
	sect  int // index into the site's sections
	title string
	paras [][]string // sentences
}

// base generates article j's own text from (seed, j) alone: the article
// without what it quotes (see article).
func (g *gen) base(j int) article {
	r := rng(g.o.Seed, saltArticle, uint64(j))
	a := article{j: j, lang: pickLang(r, g.o.ZhShare)}
	a.site = g.byLang[a.lang][pickWeighted(r, g.cum[a.lang])]
	a.sect = r.IntN(len(g.sites[a.site].sections))
	a.title = g.title(r, a.lang)
	// Body size: log-normal around 70% of the page (the template is the
	// rest), clipped so that no page is tiny or huge.
	spread := math.Exp(r.NormFloat64() * 0.35)
	target := int(float64(g.o.TextBytes) * 0.7 * min(max(spread, 0.3), 3))
	size := 0
	for size < target {
		para, n := g.paragraph(r, a.lang)
		a.paras = append(a.paras, para)
		size += n
	}
	return a
}

// lang is article j's language, the first draw of its stream.
func (g *gen) lang(j int) string {
	return pickLang(rng(g.o.Seed, saltArticle, uint64(j)), g.o.ZhShare)
}

func pickLang(r *rand.Rand, zhShare float64) string {
	if r.Float64() < zhShare {
		return "zh"
	}
	return "en"
}

// paragraph generates a paragraph of one to four sentences and returns
// it with the bytes of its sentences.
func (g *gen) paragraph(r *rand.Rand, lang string) ([]string, int) {
	c := g.chain(lang)
	n := 1 + r.IntN(4)
	para := make([]string, 0, n)
	size := 0
	for range n {
		var s string
		if lang == "zh" {
			s = strings.Join(c.sentence(r, 8, 90, endChinese), "")
		} else {
			s = strings.Join(c.sentence(r, 5, 40, endEnglish), " ")
		}
		para = append(para, s)
		size += len(s)
	}
	return para, size
}

// title generates a headline.
func (g *gen) title(r *rand.Rand, lang string) string {
	c := g.chain(lang)
	if lang == "zh" {
		cs := c.sentence(r, 8, 40, endChinese)
		if n := 8 + r.IntN(16); len(cs) > n {
			cs = cs[:n]
		}
		return strings.TrimRightFunc(strings.Join(cs, ""), isPunctOrSpace)
	}
	ws := c.sentence(r, 5, 30, endEnglish)
	if n := 5 + r.IntN(8); len(ws) > n {
		ws = ws[:n]
	}
	t := strings.TrimRightFunc(strings.Join(ws, " "), isPunctOrSpace)
	if first, size := utf8.DecodeRuneInString(t); size > 0 {
		t = string(unicode.ToUpper(first)) + t[size:]
	}
	return t
}

func isPunctOrSpace(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) }

// page generates page k: a new article, or with probability DupShare a
// copy of an earlier one.
func (g *gen) page(k int) Page {
	r := rng(g.o.Seed, saltPage, uint64(k))
	var a article
	copied := g.originals > 0 && r.Float64() < g.o.DupShare
	var from *copyText // the earlier copy this one reprints, if any
	if copied {
		var j int
		if r.Float64() < g.o.RecentShare {
			j = g.pickRecent(r, max(0, g.originals-g.o.Recent))
			if cs := g.copies[j]; len(cs) > 0 && r.Float64() < g.o.ChainShare {
				from = &cs[r.IntN(len(cs))]
			}
		} else {
			j = r.IntN(g.originals)
		}
		a = g.article(j)
	} else {
		a = g.article(g.originals)
		g.originals++
		delete(g.copies, g.originals-1-g.o.Recent) // out of the recent window
	}
	s := g.sites[a.site]
	title, paras := a.title, joinSentences(a.paras, a.lang)
	var source string
	sourceTop := false
	sect := s.sections[a.sect]
	if copied {
		if r.Float64() >= g.o.SameSiteShare && len(g.byLang[a.lang]) > 1 {
			for {
				i := g.byLang[a.lang][pickWeighted(r, g.cum[a.lang])]
				if i != a.site {
					s = g.sites[i]
					break
				}
			}
			sect = s.sections[r.IntN(len(s.sections))]
		}
		if from != nil {
			a.title, a.paras = from.title, splitSentences(from.paras, a.lang)
		}
		title, paras, source, sourceTop = g.edit(r, a, g.sites[a.site], s)
		if g.copies != nil && a.j >= g.originals-g.o.Recent {
			g.copies[a.j] = append(g.copies[a.j], copyText{title, slices.Clone(paras)})
		}
	}
	p := Page{
		ID:      fmt.Sprintf("p%08d", k),
		Title:   title,
		Cluster: fmt.Sprintf("a%08d", a.j),
		Lang:    a.lang,
		Site:    s.host,
		Copy:    copied,
		body:    paras,
	}
	at := g.epoch.Add(time.Duration(k)*37*time.Second + time.Duration(r.IntN(30))*time.Second)
	p.URL = fmt.Sprintf("https://%s/%s/%s/%d.html", s.host, sect.slug, at.Format("20060102"), 100000+k)
	p.Text = g.render(r, s, sect, at, paras, source, sourceTop)
	return p
}

func joinSentences(paras [][]string, lang string) []string {
	sep := " "
	if lang == "zh" {
		sep = ""
	}
	out := make([]string, len(paras))
	for i, p := range paras {
		out[i] = strings.Join(p, sep)
	}
	return out
}

// render places the body paragraphs in site s's template.
func (g *gen) render(r *rand.Rand, s *site, sect section, at time.Time, body []string, source string, sourceTop bool) string {
	s.pages++
	if w := s.pages / relatedEvery; s.related == nil || w != s.window {
		s.window = w
		s.related = s.related[:0]
		for i := range relatedPool {
			s.related = append(s.related, g.title(rng(s.seed, saltRelated, uint64(w+i)), s.lang))
		}
	}
	person := s.people[r.IntN(len(s.people))]
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	add(s.nav)
	if s.lang == "zh" {
		add("当前位置：首页 > " + sect.name + " > 正文")
		if s.dated {
			add("发布时间：" + at.Format("2006-01-02 15:04"))
		}
	} else {
		add("Home > " + sect.name)
		if s.dated {
			add("Published " + at.Format("January 2, 2006 3:04 PM"))
		}
		add("By " + person)
	}
	if source != "" && sourceTop {
		add(source)
	}
	add(body...)
	if source != "" && !sourceTop {
		add(source)
	}
	if s.lang == "zh" {
		add("（责任编辑：" + person + "）")
	}
	label := "Related: "
	if s.lang == "zh" {
		label = "相关阅读："
	}
	for _, i := range r.Perm(relatedPool)[:relatedShown] {
		add(label + s.related[i])
	}
	add(s.footer...)
	return strings.Join(lines, "\n\n")
}

// ToPage converts p to the project's page form.
func (p Page) ToPage() page.Page {
	return page.Page{ID: p.ID, URL: p.URL, Title: p.Title, Text: p.Text, Source: "synth"}
}

// PageSeq adapts generated pages to the input of indexer.IndexPages.
func PageSeq(pages iter.Seq[Page]) iter.Seq2[page.Page, error] {
	return func(yield func(page.Page, error) bool) {
		for p := range pages {
			if !yield(p.ToPage(), nil) {
				return
			}
		}
	}
}

// Stats describe a written corpus.
type Stats struct {
	Pages     int   `json:"pages"`
	Copies    int   `json:"copies"`
	Chinese   int   `json:"chinese"`
	Sites     int   `json:"sites"`      // distinct hosts with at least one page
	Clusters  int   `json:"clusters"`   // distinct articles
	TextBytes int64 `json:"text_bytes"` // total size of the text fields
}

// Count accumulates p into s; hosts tracks the distinct sites.
func (s *Stats) Count(p Page, hosts map[string]bool) {
	s.Pages++
	if p.Copy {
		s.Copies++
	} else {
		s.Clusters++
	}
	if p.Lang == "zh" {
		s.Chinese++
	}
	if !hosts[p.Site] {
		hosts[p.Site] = true
		s.Sites++
	}
	s.TextBytes += int64(len(p.Text))
}

// WriteJSONL writes pages as JSONL ({"id","url","title","text"} a line,
// the form page.Read reads) to w and their labels ({"id","cluster"} a
// line) to labels. Each page passes to each, if set, in order.
func WriteJSONL(pages iter.Seq[Page], w, labels io.Writer, each func(Page)) (Stats, error) {
	var st Stats
	hosts := map[string]bool{}
	pe, le := json.NewEncoder(w), json.NewEncoder(labels)
	pe.SetEscapeHTML(false)
	le.SetEscapeHTML(false)
	for p := range pages {
		if err := pe.Encode(p); err != nil {
			return st, fmt.Errorf("synth: write page %s: %w", p.ID, err)
		}
		if err := le.Encode(Label{ID: p.ID, Cluster: p.Cluster}); err != nil {
			return st, fmt.Errorf("synth: write label %s: %w", p.ID, err)
		}
		st.Count(p, hosts)
		if each != nil {
			each(p)
		}
	}
	return st, nil
}

// Version changes whenever the generator's output for given options
// changes, so that cached corpora are not mistaken for current ones.
const Version = "v1"
