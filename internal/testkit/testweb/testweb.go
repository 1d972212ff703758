// Package testweb builds a small web site from real texts and serves it
// on loopback, so crawler tests and measurements never leave the machine.
//
// Pages come from Docs (title, body, topic label). Links follow topic
// homophily: a topical page sends each of its links to a page of its own
// topic with probability SameTopic and to a random page otherwise; an
// off-topic page links at random, so relevant pages link to relevant
// pages more often than not, as on the real web. Anchor texts are the
// linked pages' titles. Some articles are served twice (a "mirror" copy
// with a reprint line and its last paragraph dropped); some links carry
// fragments or tracking parameters; and, with Hostile, the site has a
// link trap, a page with thousands of links, a huge attribute, an
// oversized page, a redirect loop, an image, a slow page, a server error
// and a robots.txt-disallowed section. Everything is generated from
// Options.Seed, so a web is reproducible.
package testweb

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Doc is a text to publish as a page.
type Doc struct {
	ID    string // unique; names the page's path
	Title string
	Body  string // paragraphs separated by "\n"
	Topic string // label; "" for off-topic
	Lang  string // "zh" or "en"
}

// Options shape a generated web.
type Options struct {
	Seed       uint64        // generator seed
	OutLinks   int           // links per page; default 8
	SameTopic  float64       // share of a topical page's links to its own topic; default 0.6
	HomeLinks  int           // random pages linked from "/"; default 20
	Duplicates int           // mirror copies of random articles; default 30
	Decorate   float64       // share of links given a fragment, tracking parameter or absolute form; default 0.1, negative for none
	Hostile    bool          // add the hostile pages
	SlowDelay  time.Duration // how long /hostile/slow stalls; default 3 s
}

func (o *Options) defaults() {
	if o.OutLinks == 0 {
		o.OutLinks = 8
	}
	if o.SameTopic == 0 {
		o.SameTopic = 0.6
	}
	if o.HomeLinks == 0 {
		o.HomeLinks = 20
	}
	if o.Duplicates == 0 {
		o.Duplicates = 30
	}
	if o.Decorate == 0 {
		o.Decorate = 0.1
	}
	if o.SlowDelay == 0 {
		o.SlowDelay = 3 * time.Second
	}
}

// Page is one generated article page.
type Page struct {
	Path       string // escaped path, "/wiki/%E9%B2%A4"
	Title      string
	Paragraphs []string
	Topic      string
	Lang       string
	Links      []string // hrefs (decorated ones included)
	DupOf      string   // path of the original, for mirror copies
}

// Web is a generated site. Its Handler is safe for concurrent use.
type Web struct {
	Pages  []*Page
	byPath map[string]*Page
	home   []string
	opts   Options

	mu   sync.Mutex
	hits map[string]int
	log  []Hit
}

// Hit is one request the site served.
type Hit struct {
	Path string
	At   time.Time
}

// Build generates a web from docs.
func Build(docs []Doc, opts Options) *Web {
	opts.defaults()
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	w := &Web{byPath: make(map[string]*Page), opts: opts, hits: make(map[string]int)}
	byTopic := make(map[string][]int)
	for _, d := range docs {
		prefix := "/wiki/"
		if d.Lang == "en" {
			prefix = "/news/"
		}
		p := &Page{Path: prefix + url.PathEscape(d.ID), Title: d.Title, Topic: d.Topic, Lang: d.Lang}
		for para := range strings.SplitSeq(d.Body, "\n") {
			if para = strings.TrimSpace(para); para != "" {
				p.Paragraphs = append(p.Paragraphs, para)
			}
		}
		if _, dup := w.byPath[p.Path]; dup || len(p.Paragraphs) == 0 {
			continue
		}
		if p.Topic != "" {
			byTopic[p.Topic] = append(byTopic[p.Topic], len(w.Pages))
		}
		w.byPath[p.Path] = p
		w.Pages = append(w.Pages, p)
	}
	n := len(w.Pages)
	if n == 0 {
		return w
	}
	decorate := func(path string) string {
		if rng.Float64() >= opts.Decorate {
			return path
		}
		switch rng.IntN(3) {
		case 0:
			return path + "#section-" + strconv.Itoa(rng.IntN(5))
		case 1:
			return path + "?utm_source=feed&utm_medium=rss"
		default:
			return "http://" + "HOST" + path // absolute, host filled in when served
		}
	}
	for _, p := range w.Pages {
		same := byTopic[p.Topic]
		for range opts.OutLinks {
			var t *Page
			if p.Topic != "" && len(same) > 1 && rng.Float64() < opts.SameTopic {
				t = w.Pages[same[rng.IntN(len(same))]]
			} else {
				t = w.Pages[rng.IntN(n)]
			}
			if t != p {
				p.Links = append(p.Links, decorate(t.Path))
			}
		}
	}
	// Mirrors: the same article at a second URL, slightly changed.
	for i := range opts.Duplicates {
		orig := w.Pages[rng.IntN(n)]
		if orig.DupOf != "" || len(orig.Paragraphs) < 2 {
			continue
		}
		m := &Page{
			Path:  fmt.Sprintf("/mirror/%d%s", i, orig.Path),
			Title: orig.Title, Topic: orig.Topic, Lang: orig.Lang, DupOf: orig.Path,
			Paragraphs: append([]string{reprint(orig.Lang)}, orig.Paragraphs[:len(orig.Paragraphs)-1]...),
			Links:      slices.Clone(orig.Links),
		}
		w.Pages = append(w.Pages, m)
		w.byPath[m.Path] = m
		// Linked from a random page and from one that links to the original.
		src := w.Pages[rng.IntN(n)]
		src.Links = append(src.Links, m.Path)
		for k, start := 0, rng.IntN(n); k < n; k++ {
			if q := w.Pages[(start+k)%n]; slices.Contains(q.Links, orig.Path) {
				q.Links = append(q.Links, m.Path)
				break
			}
		}
	}
	for range opts.HomeLinks {
		w.home = append(w.home, w.Pages[rng.IntN(n)].Path)
	}
	if opts.Hostile {
		for _, h := range hostileLinks {
			src := w.Pages[rng.IntN(n)]
			src.Links = append(src.Links, h)
			w.home = append(w.home, h)
		}
	}
	return w
}

var hostileLinks = []string{
	"/hostile/trap/1", "/hostile/links", "/hostile/attr", "/hostile/big", "/hostile/loop/a",
	"/hostile/image.png", "/hostile/slow", "/hostile/error", "/private/secret", "/hostile/offsite",
}

func reprint(lang string) string {
	if lang == "en" {
		return "This article first appeared elsewhere and is reprinted with permission."
	}
	return "本文转载自其他网站，版权归原作者所有。"
}

// Page returns the page served at the escaped path, or nil.
func (w *Web) Page(path string) *Page { return w.byPath[path] }

// Hits returns how many requests the path (escaped, without query)
// received.
func (w *Web) Hits(path string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits[path]
}

// Log returns the requests served so far, in order.
func (w *Web) Log() []Hit {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.log)
}

// Handler serves the site. Paths: "/" (home, the usual seed),
// "/robots.txt", the pages, and the hostile pages.
func (w *Web) Handler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		path := r.URL.EscapedPath()
		w.mu.Lock()
		w.hits[path]++
		w.log = append(w.log, Hit{path, time.Now()})
		w.mu.Unlock()
		host := r.Host
		switch {
		case path == "/robots.txt":
			rw.Header().Set("Content-Type", "text/plain")
			io.WriteString(rw, "User-agent: *\nDisallow: /private/\n")
		case path == "/":
			w.write(rw, host, &Page{Title: "Home 首页", Paragraphs: []string{"Welcome."}, Links: w.home})
		case strings.HasPrefix(path, "/hostile/") || strings.HasPrefix(path, "/private/"):
			w.hostile(rw, r, path)
		default:
			p := w.byPath[path]
			if p == nil {
				http.NotFound(rw, r)
				return
			}
			w.write(rw, host, p)
		}
	})
}

func (w *Web) write(rw http.ResponseWriter, host string, p *Page) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n", html.EscapeString(p.Title))
	b.WriteString("<header><nav><a href=\"/\">Home 首页</a></nav></header>\n<article>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(p.Title))
	for _, para := range p.Paragraphs {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(para))
	}
	b.WriteString("</article>\n<aside><h2>See also 相关条目</h2>\n<ul>\n")
	for _, l := range p.Links {
		target := l
		if i := strings.IndexAny(target, "?#"); i >= 0 {
			target = target[:i]
		}
		target = strings.TrimPrefix(target, "http://HOST")
		anchor := target
		if t := w.byPath[target]; t != nil {
			anchor = t.Title
		}
		href := strings.Replace(l, "HOST", host, 1)
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(href), html.EscapeString(anchor))
	}
	b.WriteString("</ul></aside>\n<footer><p>Test web. Texts: CMRC 2018 (CC BY-SA 4.0), article-extraction-benchmark (MIT).</p></footer>\n</body></html>\n")
	io.WriteString(rw, b.String())
}

func (w *Web) hostile(rw http.ResponseWriter, r *http.Request, path string) {
	html := func(body string) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, "<!DOCTYPE html><html><head><title>hostile</title></head><body>"+body+"</body></html>")
	}
	switch {
	case strings.HasPrefix(path, "/hostile/trap/"):
		// An endless calendar: every page links to two new ones.
		n, _ := strconv.Atoi(strings.TrimPrefix(path, "/hostile/trap/"))
		html(fmt.Sprintf(`<p>Day %d of an endless calendar.</p><a href="/hostile/trap/%d">next</a> <a href="/hostile/trap/%d">jump</a>`, n, n+1, 2*n+7))
	case path == "/hostile/links":
		var b strings.Builder
		for i := range 20000 {
			fmt.Fprintf(&b, `<a href="/hostile/gen/%d">link %d</a> `, i, i)
		}
		html(b.String())
	case strings.HasPrefix(path, "/hostile/gen/"):
		html("<p>generated</p>")
	case path == "/hostile/attr":
		html(`<div title="` + strings.Repeat("x", 3<<20) + `"><p>huge attribute</p><a href="/hostile/after-attr">after</a></div>`)
	case path == "/hostile/big":
		rw.Header().Set("Content-Type", "text/html")
		chunk := []byte(strings.Repeat("<p>big page</p>", 1000))
		for range 64 << 20 / len(chunk) {
			if _, err := rw.Write(chunk); err != nil {
				return
			}
		}
	case path == "/hostile/loop/a":
		http.Redirect(rw, r, "/hostile/loop/b", http.StatusFound)
	case path == "/hostile/loop/b":
		http.Redirect(rw, r, "/hostile/loop/a", http.StatusFound)
	case path == "/hostile/offsite":
		http.Redirect(rw, r, "http://example.invalid/", http.StatusFound)
	case path == "/hostile/image.png":
		rw.Header().Set("Content-Type", "image/png")
		rw.Write(make([]byte, 1<<20))
	case path == "/hostile/slow":
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusOK)
		rw.(http.Flusher).Flush()
		select {
		case <-time.After(w.opts.SlowDelay):
			io.WriteString(rw, "<p>finally</p>")
		case <-r.Context().Done():
		}
	case path == "/hostile/error":
		http.Error(rw, "boom", http.StatusInternalServerError)
	default:
		html("<p>secret</p>")
	}
}

// Labels are the topic labels of relevance/testdata/eval_topics.json.
type Labels struct {
	Name, Corpus, Rule string
	Examples, Relevant []string
}

// ReadLabels reads relevance/testdata/eval_topics.json.
func ReadLabels(name string) ([]Labels, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var ls []Labels
	if err := json.Unmarshal(data, &ls); err != nil {
		return nil, fmt.Errorf("testweb: %s: %w", name, err)
	}
	return ls, nil
}

// LoadCMRC reads the Chinese Wikipedia passages of dataDir
// (text/zh/cmrc2018_dev.json), labelled with the cmrc2018 topics of
// labels (first match wins). Sentences are grouped three to a paragraph.
func LoadCMRC(dataDir string, labels []Labels) ([]Doc, error) {
	data, err := os.ReadFile(filepath.Join(dataDir, "text/zh/cmrc2018_dev.json"))
	if err != nil {
		return nil, err
	}
	var raw []struct {
		ID    string `json:"context_id"`
		Title string `json:"title"`
		Text  string `json:"context_text"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("testweb: cmrc: %w", err)
	}
	topic := make(map[string]string)
	for _, l := range labels {
		if l.Corpus == "cmrc2018" {
			for _, t := range l.Relevant {
				if _, ok := topic[t]; !ok {
					topic[t] = l.Name
				}
			}
		}
	}
	docs := make([]Doc, 0, len(raw))
	for _, r := range raw {
		id := r.Title
		if id == "" {
			id = r.ID
		}
		docs = append(docs, Doc{ID: id, Title: r.Title, Body: paragraphsZH(r.Text), Topic: topic[r.Title], Lang: "zh"})
	}
	return docs, nil
}

var sentenceEnd = regexp.MustCompile(`[。！？]`)

func paragraphsZH(text string) string {
	var paras []string
	var cur strings.Builder
	count := 0
	last := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		cur.WriteString(text[last:m[1]])
		last = m[1]
		if count++; count == 3 {
			paras = append(paras, cur.String())
			cur.Reset()
			count = 0
		}
	}
	cur.WriteString(text[last:])
	if cur.Len() > 0 {
		paras = append(paras, cur.String())
	}
	return strings.Join(paras, "\n")
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// LoadArticles reads the English articles of dataDir
// (extract/en/ground-truth.json, titles from html/<key>.html.gz),
// labelled with the "articles" topics of labels (key prefixes).
func LoadArticles(dataDir string, labels []Labels) ([]Doc, error) {
	dir := filepath.Join(dataDir, "extract/en")
	data, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return nil, err
	}
	var raw map[string]struct {
		Body string `json:"articleBody"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("testweb: articles: %w", err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range raw {
			if !yield(k) {
				return
			}
		}
	})
	var docs []Doc
	for _, k := range keys {
		title, err := PageTitle(filepath.Join(dir, "html", k+".html.gz"))
		if err != nil {
			return nil, err
		}
		d := Doc{ID: k[:16], Title: title, Body: raw[k].Body, Lang: "en"}
		for _, l := range labels {
			if l.Corpus == "articles" && slices.ContainsFunc(l.Relevant, func(p string) bool { return strings.HasPrefix(k, p) }) {
				d.Topic = l.Name
				break
			}
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// PageTitle returns the <title> of a gzipped HTML page, entities decoded
// and spaces collapsed ("" when it has none).
func PageTitle(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("testweb: %s: %w", name, err)
	}
	page, err := io.ReadAll(io.LimitReader(zr, 8<<20))
	if err != nil {
		return "", fmt.Errorf("testweb: %s: %w", name, err)
	}
	if m := titleRE.FindSubmatch(page); m != nil {
		return strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " "), nil
	}
	return "", nil
}

// Generated returns n English articles of invented words, ten
// paragraphs of about forty words each, every third one labelled with
// topic "t": long enough for the near-duplicate filter to tell mirrors
// from other pages, and available without the shared data.
func Generated(n int, seed uint64) []Doc {
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	syllables := []string{"ka", "lo", "mi", "ren", "tu", "sa", "vel", "no", "dri", "pa", "ost", "ne", "quo", "bi", "lan", "fe", "gor", "ix", "tha", "mu"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var w strings.Builder
		for range 2 + rng.IntN(2) {
			w.WriteString(syllables[rng.IntN(len(syllables))])
		}
		vocab[i] = w.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		var paras []string
		for range 10 {
			var p strings.Builder
			for k := range 30 + rng.IntN(20) {
				if k > 0 {
					p.WriteByte(' ')
				}
				p.WriteString(vocab[rng.IntN(len(vocab))])
				if rng.IntN(10) == 0 {
					p.WriteByte('.')
				}
			}
			paras = append(paras, p.String()+".")
		}
		docs[i] = Doc{ID: fmt.Sprintf("a%03d", i), Title: fmt.Sprintf("Article %d: %s %s", i, vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]),
			Body: strings.Join(paras, "\n"), Lang: "en"}
		if i%3 == 0 {
			docs[i].Topic = "t"
		}
	}
	return docs
}
