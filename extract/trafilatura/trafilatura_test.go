package trafilatura_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/bleve-dedup/bleve-dedup/extract"
	_ "github.com/bleve-dedup/bleve-dedup/extract/trafilatura"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// options returns extract's DefaultOptions with the Trafilatura engine.
func options() extract.Options {
	o := extract.DefaultOptions()
	o.Engine = extract.Trafilatura
	return o
}

// TestF1 and TestNeardup guard the engine's figures (F1 0.965 and 0.925,
// precision 0.948 and recall 0.960); package extract's guard Native's.

func TestF1(t *testing.T) {
	extracttest.F1(t, options().FromPageContext, 0.96, 0.92)
}

func TestNeardup(t *testing.T) {
	extracttest.Neardup(t, options().FromPageContext, 0.945, 0.955)
}

func BenchmarkF1EN(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadEN, extract.Trafilatura.String(), options().FromPageContext)
}

func BenchmarkF1ZH(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadZH, extract.Trafilatura.String(), options().FromPageContext)
}

func BenchmarkNeardup(b *testing.B) {
	extracttest.BenchmarkNeardup(b, extract.Trafilatura.String(), options().FromPageContext)
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*extract.Options)
		ok     bool
	}{
		{"trafilatura", func(*extract.Options) {}, true},
		{"trafilatura without MinArticleRunes", func(o *extract.Options) { o.MinArticleRunes = 0 }, false},
		{"trafilatura without element limit", func(o *extract.Options) { o.MaxTrafilaturaElements = 0 }, false},
		{"trafilatura without rune limit", func(o *extract.Options) { o.MaxTrafilaturaRunes = -1 }, false},
		{"trafilatura unknown focus", func(o *extract.Options) { o.Focus = 9 }, false},
		{"trafilatura negative focus", func(o *extract.Options) { o.Focus = -1 }, false},
	}
	for _, tt := range tests {
		o := options()
		tt.change(&o)
		_, err := o.HTML("<p>text</p>", "")
		if got := !errors.Is(err, extract.ErrInvalidOptions); got != tt.ok {
			t.Errorf("%s: err %v, want valid %v", tt.name, err, tt.ok)
		}
	}
}

func TestRegisteredOnce(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second RegisterEngine(Trafilatura) did not panic")
		}
	}()
	extract.RegisterEngine(extract.Trafilatura, func(string, *url.URL, extract.Options) (string, *html.Node, error) { return "", nil, nil })
}

func TestEngines(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "testdata", "news.html"))
	if err != nil {
		t.Fatal(err)
	}
	const want = "Library extends opening hours"
	deep := strings.Repeat("<div>", 600) + `<p>` + strings.Repeat("A sentence of the article text. ", 10) + `</p>`
	tests := []struct {
		name   string
		engine extract.Engine
		limit  int // MaxTrafilaturaElements
		doc    string
		want   string // in the text
	}{
		{"native", extract.Native, 0, string(doc), want},
		{"trafilatura", extract.Trafilatura, 10000, string(doc), want},
		{"trafilatura past its element limit", extract.Trafilatura, 10, string(doc), want},
		{"trafilatura on a page html.Parse cannot read", extract.Trafilatura, 10000, deep, "A sentence of the article text."},
	}
	for _, tt := range tests {
		o := extract.DefaultOptions()
		o.Engine = tt.engine
		if tt.limit > 0 {
			o.MaxTrafilaturaElements = tt.limit
		}
		c, err := o.HTML(tt.doc, "http://example.com/")
		if err != nil || !strings.Contains(c.Text(), tt.want) {
			t.Errorf("%s: %q, %v; want text with %q", tt.name, c.Text(), err, tt.want)
		}
	}
	if got, want := extract.Trafilatura.String(), "trafilatura"; got != want {
		t.Errorf("Trafilatura.String() = %q, want %q", got, want)
	}
}

func TestHTMLContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, engine := range []extract.Engine{extract.Native, extract.Trafilatura} {
		o := extract.DefaultOptions()
		o.Engine = engine
		if _, err := o.HTMLContext(ctx, "<title>T</title><p>Some text of the page.</p>", ""); !errors.Is(err, context.Canceled) {
			t.Errorf("%v: err %v, want context.Canceled", engine, err)
		}
		if _, err := o.FromPageContext(ctx, page.Page{HTML: "<p>x</p>"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%v: FromPageContext err %v, want context.Canceled", engine, err)
		}
	}
}
