package extract

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/golden"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// TestHTMLGolden extracts the pages in testdata and compares the text with
// the .golden files; run with -update to rewrite them after a reviewed change.
func TestHTMLGolden(t *testing.T) {
	for _, tt := range []struct{ name, title string }{
		{"portal", "城市公园改造完成"},
		{"news", "Library extends opening hours"},
		{"multipost", "Noctis"},
		{"newsheader", "Council approves new footbridge"},
		{"nomatch", "Noctis"}, // go-trafilatura takes a lone <h1> for the title
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
	if got := paragraphs(bs); !slices.Equal(got, want) {
		t.Errorf("paragraphs = %q, want %q", got, want)
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
