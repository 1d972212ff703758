package extract

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTitleAnchor extracts pages with and without title-anchored narrowing
// and checks which sentences come out.
func TestTitleAnchor(t *testing.T) {
	const (
		article   = "Noctis is a lunar impact crater"
		otherPost = "My hair had grown very long"
		newsBody  = "Work on the foundations is to start in March"
	)
	tests := []struct {
		name    string
		file    string
		want    []string // in the narrowed text
		notWant []string // absent from the narrowed text
		before  []string // in the text without narrowing, so that the test can fail
	}{
		// The article is the first of three blog posts; its heading names the title.
		{"multi-post blog", "multipost.html", []string{"Noctis", article, "slumping has occurred"}, []string{otherPost, "radio hour"}, []string{article, otherPost}},
		// The title heading sits in a header box with a standfirst and a
		// byline; the body is a sibling box and must stay.
		{"news header box", "newsheader.html", []string{"The town council on Tuesday", newsBody}, nil, []string{newsBody}},
		// No heading names the title: go-trafilatura's result stays.
		{"no matching heading", "nomatch.html", []string{article, otherPost}, nil, []string{article, otherPost}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			off := DefaultOptions()
			off.TitleAnchor = false
			before, err := off.HTML(string(doc), "")
			if err != nil {
				t.Fatalf("HTML without narrowing: %v", err)
			}
			for _, s := range tt.before {
				if !strings.Contains(before.Text(), s) {
					t.Fatalf("without narrowing the text lacks %q, the fixture no longer tests narrowing:\n%s", s, before.Text())
				}
			}
			got, err := HTML(string(doc), "")
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			for _, s := range tt.want {
				if !strings.Contains(got.Text(), s) {
					t.Errorf("text lacks %q:\n%s", s, got.Text())
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(got.Text(), s) {
					t.Errorf("text has %q:\n%s", s, got.Text())
				}
			}
		})
	}
}

func TestTitleKeys(t *testing.T) {
	tests := []struct {
		title string
		want  []string
	}{
		{"Noctis - zh.wikipedia.org", []string{"noctiszhwikipediaorg", "noctis", "zhwikipediaorg"}},
		{"南京大学校友列表_博客_文学城", []string{"南京大学校友列表博客文学城", "南京大学校友列表", "博客", "文学城"}},
		{"ＢＣＰＬ｜站", []string{"bcpl站", "bcpl"}}, // width folded; one-rune parts dropped
		{"A", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := titleKeys(tt.title); !slices.Equal(got, tt.want) {
			t.Errorf("titleKeys(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// words returns n distinct words starting with prefix, as a sentence.
func words(prefix string, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = prefix + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	return strings.Join(ws, " ") + "."
}

func TestAnchorSection(t *testing.T) {
	long := words("body", 60)
	tests := []struct {
		name, doc   string
		wantHeading string
		want        []string
	}{
		{
			"next post ends the section, a nested subheading does not",
			`<title>Alpha - site</title><div class=post><h2>Alpha</h2><div class=entry><p>` + long + `</p><h2>Sub</h2><p>After sub.</p></div></div>` +
				`<div class=post><h2>Beta</h2><p>` + words("other", 60) + `</p></div>`,
			"Alpha", []string{long, "Sub", "After sub."},
		},
		{
			"a header element is climbed over",
			`<title>Alpha | site</title><article><header><h1>Alpha</h1><p>` + words("stand", 55) + `</p></header><p>` + long + `</p></article>`,
			"Alpha", []string{words("stand", 55), long},
		},
		{
			"a similar heading anchors when none is equal",
			`<title>The Alpha Centauri system - site</title><h1>Alpha Centauri system</h1><p>` + long + `</p>`,
			"Alpha Centauri system", []string{long},
		},
		{
			"an exact heading comes before a similar one that precedes it",
			`<title>Alpha Centauri - site</title><div class=side><h3>Alpha Centauri system</h3><p>Side.</p></div><h1>Alpha Centauri</h1><p>` + long + `</p>`,
			"Alpha Centauri", []string{long},
		},
		{
			"a subheading of the title's rank beside it does not end the section",
			`<title>Alpha - site</title><div class=post><h2>Alpha</h2><p>` + long + `</p><h2>Sub</h2><p>After sub.</p></div>` +
				`<div class=post><h2>Beta</h2><p>` + words("other", 60) + `</p></div>`,
			"Alpha", []string{long, "Sub", "After sub."},
		},
		{
			"a heading of a higher rank beside it does",
			`<title>Alpha - site</title><div class=post><h3>Alpha</h3><p>` + long + `</p><h2>Comments</h2><p>` + words("reply", 60) + `</p></div>`,
			"Alpha", []string{long},
		},
		{"no heading", `<title>Alpha - site</title><p>` + long + `</p>`, "", nil},
	}
	for _, tt := range tests {
		tr, err := buildTree(context.Background(), tt.doc)
		if err != nil {
			t.Fatal(err)
		}
		var heading string
		var got []string
		if hs := tr.anchors(titleKeys(tr.title)); len(hs) > 0 {
			heading = tr.text(hs[0])
			got, _ = tr.section(hs[0])
		}
		if heading != tt.wantHeading || !slices.Equal(got, tt.want) {
			t.Errorf("%s: first anchor %q, section %q; want %q, %q", tt.name, heading, got, tt.wantHeading, tt.want)
		}
	}
}

func TestNarrow(t *testing.T) {
	article, other := words("art", 60), words("oth", 200)
	page := `<title>Alpha - site</title><div class=post><h1>Alpha</h1><p>` + article + `</p></div>`
	tests := []struct {
		name      string
		doc       string
		extracted []string
		want      []string
		story     bool // the engine took its result from the page's last two blocks only
	}{
		{"result holds the section and much more", page, []string{"Alpha", article, other}, []string{"Alpha", article}, false},
		{"result is about the section", page, []string{article, words("oth", 10)}, []string{article, words("oth", 10)}, false},
		{"result does not hold the section", page, []string{other}, []string{other}, false},
		{"section far down the result", page, []string{other, article}, []string{other, article}, false},
		{"no anchor", `<title>Beta</title>` + page[len(`<title>Alpha - site</title>`):], []string{article, other}, []string{article, other}, false},
		{"too little text after the heading", `<title>Alpha - site</title><h1>Alpha</h1><p>Short.</p>`, []string{"Short.", other}, []string{"Short.", other}, false},
		{
			"section outside the engine's part of the page",
			`<title>Alpha - site</title><div class=teaser><h3>Alpha</h3><p>` + article + `</p></div><div class=story><p>` + article + `</p><p>` + other + `</p></div>`,
			[]string{article, other}, []string{article, other}, true,
		},
		{
			"heading in the first part of an <article>",
			`<title>Alpha - site</title><article><div class=part><h1>Alpha</h1><p>` + article + `</p></div><div class=part><p>` + other + `</p></div></article>`,
			[]string{"Alpha", article, other}, []string{"Alpha", article, other}, false,
		},
		{
			"the first heading's section fails, the second's passes",
			`<title>Alpha - site</title><div class=side><h2>Alpha</h2><p>` + words("side", 60) + `</p></div>` + page[len(`<title>Alpha - site</title>`):],
			[]string{"Alpha", article, other}, []string{"Alpha", article}, false,
		},
	}
	for _, tt := range tests {
		tr, err := buildTree(context.Background(), tt.doc)
		if err != nil {
			t.Fatal(err)
		}
		first, end := int32(0), int32(len(tr.blocks))
		if tt.story {
			first = end - 2
		}
		if got := narrow(tr, tt.extracted, first, end); !slices.Equal(got, tt.want) {
			t.Errorf("%s: narrow = %.60q, want %.60q", tt.name, got, tt.want)
		}
	}
}

// FuzzNarrow checks narrowing's promise on arbitrary markup: it returns
// the engine's paragraphs untouched, or collapsed paragraphs that are
// mostly text of those.
func FuzzNarrow(f *testing.F) {
	for _, name := range []string{"multipost.html", "newsheader.html", "nomatch.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b), "Noctis is a lunar impact crater.\nMy hair had grown very long.")
		}
	}
	f.Add("<title>A - b</title><h1>A</h1><p>"+words("w", 60)+"</p>", words("w", 60)+"\n"+words("v", 200))
	f.Fuzz(func(t *testing.T, doc, extractedText string) {
		tr, err := buildTree(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		extracted := Text(extractedText).Paragraphs
		got := narrow(tr, extracted, 0, int32(len(tr.blocks)))
		if slices.Equal(got, extracted) {
			return
		}
		for _, p := range got {
			if p == "" || p != collapse(p) {
				t.Errorf("paragraph %q is not collapsed", p)
			}
		}
		if c := containment(shinglesOf(nil, strings.Join(got, "\n")), shinglesOf(nil, strings.Join(extracted, "\n"))); c < minContained {
			t.Errorf("narrowed text is %.2f in the extracted text, want >= %.2f", c, minContained)
		}
	})
}
