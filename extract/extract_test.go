package extract

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
	"github.com/bleve-dedup/bleve-dedup/page"
	"golang.org/x/net/html"
)

// TestHTMLGolden extracts the pages in testdata and compares the text with
// the .golden files; run with -update to rewrite them after a reviewed change.
func TestHTMLGolden(t *testing.T) {
	for _, tt := range []struct{ name, title string }{
		{"portal", "城市公园改造完成"},
		{"news", "Library extends opening hours"},
		{"multipost", "Noctis"},
		{"newsheader", "Council approves new footbridge"},
		{"nomatch", "Mary's corner"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join("testdata", tt.name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			c, err := HTML(string(doc), "http://example.com/"+tt.name)
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			golden.Check(t, tt.name+".golden", c.Text()+"\n")
			if !strings.HasPrefix(c.Title, tt.title) {
				t.Errorf("title %q, want prefix %q", c.Title, tt.title)
			}
		})
	}
}

func TestHTMLNoContent(t *testing.T) {
	for _, doc := range []string{"", "<html><head><title>Only a title</title></head><body></body></html>"} {
		c, err := HTML(doc, "")
		if !errors.Is(err, ErrNoContent) || len(c.Paragraphs) != 0 {
			t.Errorf("HTML(%q) = %+v, %v; want no paragraphs and ErrNoContent", doc, c, err)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"one\ntwo\n\nthree", []string{"one two", "three"}},
		{"one\r\ntwo\n", []string{"one", "two"}},
		{"  \n\n ", nil},
		{"第一段。\n第二段。", []string{"第一段。", "第二段。"}},
	}
	for _, tt := range tests {
		if got := Text(tt.in).Paragraphs; !slices.Equal(got, tt.want) {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFromPage(t *testing.T) {
	tests := []struct {
		p         page.Page
		wantTitle string
		wantText  string
		wantErr   error
	}{
		{page.Page{ID: "t", Title: "Given", Text: "a\n\nb"}, "Given", "a\nb", nil},
		{page.Page{ID: "e", Text: " "}, "", "", ErrNoContent},
		{page.Page{ID: "h", HTML: "<title>T</title><p>" + strings.Repeat("Long enough sentence here. ", 5) + "</p>"}, "T", "Long enough", nil},
	}
	for _, tt := range tests {
		c, err := FromPage(tt.p)
		if !errors.Is(err, tt.wantErr) || c.Title != tt.wantTitle || !strings.HasPrefix(c.Text(), tt.wantText) {
			t.Errorf("FromPage(%s) = %q %q, %v; want %q %q..., %v", tt.p.ID, c.Title, c.Text(), err, tt.wantTitle, tt.wantText, tt.wantErr)
		}
	}
}

func TestIsBoilerplate(t *testing.T) {
	tests := []struct {
		b    block
		want bool
	}{
		{block{text: "来源：新华网"}, true},
		{block{text: "本文转载自zh.wikipedia.org"}, true},
		{block{text: "（责任编辑：王明）"}, true},
		{block{text: "版权所有 zh.wikipedia.org 未经授权禁止转载"}, true},
		{block{text: "第1页/共1页 << 上一页 | 下一页 >>"}, true},
		{block{text: "由某某张贴 @ 2005-03-21 01:20:44 (359)"}, true},
		{block{text: "------"}, true},
		{block{text: "Source: Town Council press office"}, true},
		{block{text: "Home News Sport", runes: 15, linkRunes: 13}, true},
		{block{text: "来源不明的消息在网上流传，警方提醒市民不要轻信。"}, false},
		{block{text: "Sources of energy differ widely between the regions studied."}, true},
		{block{text: "The council met on Tuesday.", runes: 27, linkRunes: 7}, false},
		{block{text: "编辑部的故事"}, false},
		{block{text: "By Jeff Foust"}, true},
		{block{text: "BY JERUSALEM POST STAFF"}, true},
		{block{text: "by Lars Brandle and Ann Lee"}, true},
		{block{text: "By then the river had burst its banks."}, false},
		{block{text: "Updated at 1:23 p.m."}, true},
		{block{text: "Published 18 November 2019"}, true},
		{block{text: "Updated guidance is expected from the council."}, false},
		{block{text: "NOVEMBER 20, 2019 10:43"}, true},
		{block{text: "Tue., Nov. 19, 2019 at 4:05 p.m."}, true},
		{block{text: "5:45 AM PST 11/19/2019 by Patrick Shanley"}, true},
		{block{text: "— Dele (@dele_official) November 19, 2019"}, false},
		{block{text: "Kommentare (12)"}, true},
		{block{text: "12 Kommentare:"}, true},
		{block{text: "Share:"}, true},
		{block{text: "【相关文章】"}, true},
		{block{text: "Udostępnij"}, true},
		{block{text: "関連記事"}, true},
		{block{text: "Kommentare von Lesern zeigen, wie umstritten der Bau ist."}, false},
		{block{text: "Share prices fell."}, false},
		{block{text: "Foto: dpa"}, true},
		{block{text: "Źródło: PAP"}, true},
		{block{text: "Crédits : AFP"}, true},
		{block{text: "Fotografen aus aller Welt zeigten ihre Bilder."}, false},
		{block{text: "Von Anna Schmidt und Jan Berg"}, true},
		{block{text: "Von Anfang an war klar, dass es schwierig wird."}, false},
		{block{text: "Aleš Vávra před 2 hodinami"}, true},
		{block{text: "vor 3 Stunden"}, true},
		{block{text: "2 godziny temu"}, true},
		{block{text: "il y a 5 minutes"}, true},
		{block{text: "3時間前"}, true},
		{block{text: "31.10.2021, 14:35 Uhr"}, true},
		{block{text: "31. Oktober 2021 um 14:35 Uhr"}, true},
		{block{text: "Vor 3 Jahren zog sie nach Berlin."}, false},
		{block{text: "Vor 3 Tagen hat die Polizei den Mann gefasst."}, false},
	}
	for _, tt := range tests {
		if tt.b.runes == 0 {
			tt.b.runes = len([]rune(tt.b.text))
		}
		if got := isBoilerplate(tt.b); got != tt.want {
			t.Errorf("isBoilerplate(%q) = %v, want %v", tt.b.text, got, tt.want)
		}
	}
}

func TestParagraphsDropsBoxHeading(t *testing.T) {
	bs := []block{
		{text: "热点推荐", runes: 4},
		{text: "今日天气预报 球赛直播时间表", runes: 14, linkRunes: 13},
		{text: "经过一年多的施工，人民公园改造工程于本月完成。", runes: 23},
		{text: "Short", runes: 5},
		{text: "A sentence long enough to stay in the article text.", runes: 51},
	}
	want := []string{bs[2].text, bs[3].text, bs[4].text}
	if got := paragraphs(nil, bs); !slices.Equal(got, want) {
		t.Errorf("paragraphs = %q, want %q", got, want)
	}
}

func TestParagraphsDropsTailPromos(t *testing.T) {
	article := []string{
		"The council approved the footbridge on Tuesday after a long debate.",
		"Work starts in spring and should take a year.",
	}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"newsletter prompt", append(slices.Clone(article), "Get the latest updates right in your inbox. Subscribe to our newsletters."), article},
		{"contact and credit", append(slices.Clone(article),
			"Email Jo Bloggs at jo@example.com or follow her on Twitter @jo.",
			"Reuters contributed to this report."), article},
		{"share prompt", append(slices.Clone(article), "Like this story? Share it with a friend!"), article},
		{"wire credits", append(slices.Clone(article), "(Reporting by Will Dunham; Editing by Tom Brown)",
			"paul.smith@example.com twitter.com/paulsmith"), article},
		{"handle glued to a link", append(slices.Clone(article), "Our bundle is out https://t.co/y5Wn5Sby@trevor"), nil},
		{"not in the tail", append([]string{"Readers can subscribe to the service for five pounds a month."},
			append(slices.Clone(article), "One.", "Two.", "Three.", "Four.", "Five.")...), nil},
		{"other languages", append(slices.Clone(article), "Jetzt den Newsletter abonnieren!", "Folgen Sie uns auf Facebook.",
			"Zapisz się do naszego newslettera.", "Suivez-nous sur Twitter."), article},
		{"erfolg is no follow", append(slices.Clone(article), "Der Erfolg kam spät."), nil},
		{"plain ending", slices.Clone(article), article},
		{"quote ending", append(slices.Clone(article), `"People work later, and the library has to follow them," she said.`), nil},
	}
	for _, tt := range tests {
		want := tt.want
		if want == nil {
			want = tt.in // nothing dropped
		}
		var bs []block
		for _, p := range tt.in {
			bs = append(bs, block{text: p, runes: len([]rune(p))})
		}
		if got := paragraphs(nil, bs); !slices.Equal(got, want) {
			t.Errorf("%s: paragraphs = %q, want %q", tt.name, got, want)
		}
	}
}

func TestJoinBroken(t *testing.T) {
	tests := []struct {
		in   []block
		want []block
	}{
		{ // a paragraph split at a link
			[]block{{text: "Kuo predicted that Apple will", runes: 29, linkRunes: 0}, {text: "transition its lineup in 2020, he said.", runes: 39, linkRunes: 28}},
			[]block{{text: "Kuo predicted that Apple will transition its lineup in 2020, he said.", runes: 69, linkRunes: 28}},
		},
		{ // after a comma
			[]block{{text: "Sticky keys,", runes: 12, linkRunes: 0}, {text: "repeating keys", runes: 14, linkRunes: 14}},
			[]block{{text: "Sticky keys, repeating keys", runes: 27, linkRunes: 14}},
		},
		{ // a sentence ended: separate paragraphs
			[]block{{text: "It ended.", runes: 9, linkRunes: 0}, {text: "iPhone sales rose.", runes: 18, linkRunes: 0}},
			[]block{{text: "It ended.", runes: 9, linkRunes: 0}, {text: "iPhone sales rose.", runes: 18, linkRunes: 0}},
		},
		{ // a capital starts a new paragraph
			[]block{{text: "Keyboard", runes: 8, linkRunes: 0}, {text: "The new keyboard", runes: 16, linkRunes: 0}},
			[]block{{text: "Keyboard", runes: 8, linkRunes: 0}, {text: "The new keyboard", runes: 16, linkRunes: 0}},
		},
		{ // no case in Chinese
			[]block{{text: "第一段", runes: 3, linkRunes: 0}, {text: "第二段", runes: 3, linkRunes: 0}},
			[]block{{text: "第一段", runes: 3, linkRunes: 0}, {text: "第二段", runes: 3, linkRunes: 0}},
		},
	}
	for _, tt := range tests {
		if got := joinBroken(nil, slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("joinBroken(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestPageLinks(t *testing.T) {
	const doc = `<body>
<a href="/a"><h3>Card headline elsewhere</h3></a>
<a name="top"><p>A named anchor is not a link.</p></a>
<ul><li><a href="/b">Repeated headline</a></li></ul>
<p>Repeated headline</p>
</body>`
	tr, err := buildTree(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	links := tr.links()
	tests := []struct {
		text string
		own  int // link runes go-trafilatura's output gave the block
		want int
	}{
		{"Card headline elsewhere", 0, 23},      // <a> dropped by go-trafilatura: the page tells
		{"A named anchor is not a link.", 0, 0}, // no href
		{"Repeated headline", 0, 0},             // prose somewhere on the page
		{"Not on the page", 3, 3},               // unknown text keeps its own count
		{"Card headline elsewhere", 23, 23},
	}
	for _, tt := range tests {
		bs := []block{{text: tt.text, runes: len([]rune(tt.text)), linkRunes: tt.own}}
		links.mark(bs)
		if got := bs[0].linkRunes; got != tt.want {
			t.Errorf("mark(%q, %d): link runes %d, want %d", tt.text, tt.own, got, tt.want)
		}
	}
}

func FuzzHTML(f *testing.F) {
	for _, name := range []string{"portal.html", "news.html", "multipost.html", "newsheader.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("<table><tr><td><a>x</a>来源：y<p>")
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := HTML(doc, "http://example.com/")
		if err == nil && len(c.Paragraphs) == 0 {
			t.Error("no error and no paragraphs")
		}
		for _, p := range c.Paragraphs {
			if p == "" || p != collapse(p) {
				t.Errorf("paragraph %q is not collapsed", p)
			}
		}
	})
}

// TestHTMLConcurrent runs extractions in parallel; run with -race.
func TestHTMLConcurrent(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("testdata", "portal.html"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := HTML(string(doc), "")
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			got, err := HTML(string(doc), "")
			if err == nil && got.Text() != want.Text() {
				err = errors.New("concurrent extraction differs: " + got.Text())
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// FuzzGates checks that the gate of each gated expression passes every
// text the expression matches, so that gating never changes a result.
func FuzzGates(f *testing.F) {
	for _, s := range []string{
		"来源：新华网", "【责任编辑：王明】", "Source: x", "  (Updated at 1:23 p.m.", "版权所有 ©", "2019-11-20 10:43",
		"NOVEMBER 20, 2019 10:43", "11/19/2019 by Pat", "By Jeff Foust", "Subscribe to our newsletters",
		"follow her on Twitter", "jo@example.com", "Reuters contributed to this report.", "Citation: x",
		"Quelle: dpa", "31.10.2021, 14:35", "2 de marzo de 2021 a las 10:15", "vor 2 Stunden", "2小时前",
		"Nov. 3rd, 2019 at 9:05", "2019年11月20日 10:43",
	} {
		f.Add(s)
	}
	gates := map[string]gated{"boilerplateLine": boilerplateLine, "creditLine": creditLine, "boilerplateMark": boilerplateMark,
		"dateTimeMark": dateTimeMark, "relativeTimeMark": relativeTimeMark, "byline": byline, "promo": promo}
	f.Fuzz(func(t *testing.T, s string) {
		for name, g := range gates {
			if g.re.MatchString(s) && !g.match(s, strings.ToLower(s)) {
				t.Errorf("%s matches %q but its gate is closed", name, s)
			}
		}
	})
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Options)
		ok     bool
	}{
		{"default", func(*Options) {}, true},
		{"no engine", func(o *Options) { o.Engine = 0 }, false},
		{"unknown engine", func(o *Options) { o.Engine = 3 }, false},
		{"native ignores trafilatura fields", func(o *Options) { o.MinArticleRunes, o.MaxTrafilaturaRunes = 0, 0 }, true},
		// Valid Trafilatura options are tested in extract/trafilatura,
		// which links the engine.
		{"trafilatura not linked", func(o *Options) { o.Engine = Trafilatura }, false},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		tt.change(&o)
		_, err := o.HTML("<p>text</p>", "")
		if got := !errors.Is(err, ErrInvalidOptions); got != tt.ok {
			t.Errorf("%s: err %v, want valid %v", tt.name, err, tt.ok)
		}
	}
	o := DefaultOptions()
	o.Engine = Trafilatura
	if _, err := o.HTML("<p>text</p>", ""); err == nil || !strings.Contains(err.Error(), "import github.com/bleve-dedup/bleve-dedup/extract/trafilatura") {
		t.Errorf("Trafilatura not linked: err %v, want one naming the package to import", err)
	}
}

func TestRegisterEngine(t *testing.T) {
	for _, e := range []Engine{Native, 3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterEngine(%v) did not panic", e)
				}
			}()
			RegisterEngine(e, func(string, *url.URL, Options) (string, *html.Node, error) { return "", nil, nil })
		}()
	}
}
