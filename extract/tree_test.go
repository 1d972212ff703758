package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// blockTexts returns the texts of t's blocks under element e.
func blockTexts(t *tree, e int32) []string {
	var out []string
	for _, b := range t.blocks[t.els[e].first:t.els[e].end] {
		out = append(out, b.text)
	}
	return out
}

func TestBuildTree(t *testing.T) {
	tests := []struct {
		name, doc string
		title     string
		blocks    []string
	}{
		{"paragraphs", `<title> A  title </title><p>One <b>two</b></p><p>Three`, "A title", []string{"One two", "Three"}},
		{"implied p end", `<p>One<div>Two</div>Three`, "", []string{"One", "Two", "Three"}},
		{"list items", `<ul><li>One<li>Two</ul>`, "", []string{"One", "Two"}},
		{"table cells", `<table><tr><td>One<td>Two<tr><td>Three</table>`, "", []string{"One", "Two", "Three"}},
		{"line breaks", `<p>One<br>Two</br>Three</p>`, "", []string{"One", "Two", "Three"}},
		{"script and style", `<p>One<script>var x = "<p>no</p>";</script><style>p{}</style> two</p>`, "", []string{"One two"}},
		{"head text", `<head><title>T</title><meta name=x>Body text`, "T", []string{"Body text"}},
		{"entities and spaces", "<p>A&amp;B&nbsp; \u3000 C\n\tD</p>", "", []string{"A&B C D"}},
		{"svg title", `<svg><title>Icon</title></svg><title>Page</title><p>x</p>`, "Page", []string{"x"}},
		{"stray end tags", `</div></p><p>One</span></p>Two`, "", []string{"One", "Two"}},
		{"inline image", `<p>One <img src=x> two</p>`, "", []string{"One two"}},
		{"anchor left open over blocks", `<a name=top/><div><p>One <a href=/b>two</a> three</p></div>`, "", []string{"One two three"}},
		{"svg self-closing", `<svg><path/><title>Icon</title></svg><p>One</p>`, "", []string{"One"}},
		{"svg and math inline", `<p>One <SVG viewBox="0 0 1 1"><text>x</text></SVG> two <math><mi>y</mi></math> three</p>`, "", []string{"One two three"}},
		{"nul in svg", "<p>One<svg>\x00</svg> two</p>", "", []string{"One two"}},
		{"entities in the title", `<title>A &amp; B&#x21;</title>`, "A & B!", nil},
		{"noscript is raw text", `<p>One<noscript><p>no</p></div></noscript> two</p>`, "", []string{"One two"}},
		{"self-closing noscript", `<p>One<noscript/></noscript> two</p>`, "", []string{"One two"}},
		{"cdata is a comment", `<p>One<![CDATA[ no ]]> two</p>`, "", []string{"One two"}},
		{"end tag with attributes", `<div><p>One</p x=y></div ><p>Two</p >Three`, "", []string{"One", "Two", "Three"}},
		{"script end tag in a comment", `<script><!--<script>x</script>--></script><p>One`, "", []string{"One"}},
	}
	for _, tt := range tests {
		tr, err := buildTree(context.Background(), tt.doc)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := blockTexts(tr, 0); tr.title != tt.title || !slices.Equal(got, tt.blocks) {
			t.Errorf("%s: title %q, blocks %q; want %q, %q", tt.name, tr.title, got, tt.title, tt.blocks)
		}
	}
}

// TestBuildTreeAttributes checks that the attributes that make a template
// box or hide an element are read unquoted and unescaped, the first of a
// key only.
func TestBuildTreeAttributes(t *testing.T) {
	tests := []struct {
		name, doc string
		box       bool // the element around "x" is a box or hidden
	}{
		{"double-quoted", `<div class="sidebar"><p>x</p></div>`, true},
		{"single-quoted", `<div class='sidebar'><p>x</p></div>`, true},
		{"unquoted", `<div id=nav><p>x</p></div>`, true},
		{"escaped", `<div class="a&#x20;sidebar"><p>x</p></div>`, true},
		{"upper-case key", `<div CLASS="sidebar"><p>x</p></div>`, true},
		{"first of a key", `<div class=content class=sidebar><p>x</p></div>`, false},
		{"hidden style", `<div style="display: none"><p>x</p></div>`, true},
		{"quoted aria-hidden", `<div aria-hidden="true"><p>x</p></div>`, true},
		{"single-quoted role", `<div role='navigation'><p>x</p></div>`, true},
		{"escaped role", `<div role="&#110;avigation"><p>x</p></div>`, true},
		{"first aria-hidden", `<div aria-hidden=false aria-hidden=true><p>x</p></div>`, false},
		{"no attributes", `<div><p>x</p></div>`, false},
	}
	for _, tt := range tests {
		tr, err := buildTree(context.Background(), tt.doc)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(tr.blocks) != 1 {
			t.Fatalf("%s: blocks %q, want [x]", tt.name, blockTexts(tr, 0))
		}
		box := false
		for e := tr.blocks[0].el; e >= 0; e = tr.els[e].parent {
			box = box || tr.els[e].flags&(fBox|fNoise) != 0
		}
		if box != tt.box {
			t.Errorf("%s: box %v, want %v", tt.name, box, tt.box)
		}
	}
}

func TestBuildTreeStructure(t *testing.T) {
	const doc = `<div id=a><p>One</p><table><tr><td><div>Two</td></tr></table>Three</div><p>Four`
	tr, err := buildTree(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	byText := func(s string) []string {
		for i := range tr.els {
			if got := blockTexts(tr, int32(i)); len(got) > 0 && got[0] == s {
				return got
			}
		}
		return nil
	}
	// The outer div holds what its end tag closes, not the paragraph
	// after it; the div in the cell ends with the cell.
	for i, e := range tr.els {
		if e.tag.String() == "div" && tr.els[e.parent].tag.String() == "body" {
			if got, want := blockTexts(tr, int32(i)), []string{"One", "Two", "Three"}; !slices.Equal(got, want) {
				t.Errorf("outer div holds %q, want %q", got, want)
			}
		}
	}
	if got := byText("Four"); !slices.Equal(got, []string{"Four"}) {
		t.Errorf("last paragraph holds %q", got)
	}

	// "<div/>" opens a div, as in a browser: the outer div's end tag is
	// not taken by it.
	tr, err = buildTree(context.Background(), `<body><div><div/><p>One</p></div><p>Two</p></div><p>Three`)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range tr.els {
		if e.tag.String() == "div" && tr.els[e.parent].tag.String() == "body" {
			if got, want := blockTexts(tr, int32(i)), []string{"One", "Two"}; !slices.Equal(got, want) {
				t.Errorf("outer div holds %q, want %q", got, want)
			}
		}
	}
}

func TestBuildTreeLinks(t *testing.T) {
	tr, err := buildTree(context.Background(), `<p>Read <a href=/x>the full story</a> here</p><p><a name=top>Anchor</a></p><p><a href=/a>one<a href=/b>two</a> after`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text  string
		links int
	}{
		{"Read the full story here", len("the full story")},
		{"Anchor", 0},       // no href
		{"onetwo after", 6}, // a new <a> closes the open one
	}
	for i, tt := range tests {
		if b := tr.blocks[i]; b.text != tt.text || b.linkRunes != tt.links {
			t.Errorf("block %d = %q with %d link runes, want %q with %d", i, b.text, b.linkRunes, tt.text, tt.links)
		}
	}
}

func TestBuildTreeDeep(t *testing.T) {
	// Deeper than html.Parse allows: the text stays.
	doc := strings.Repeat("<div>x ", 2000) + "end"
	tr, err := buildTree(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.blocks); n != 2000 {
		t.Errorf("%d blocks, want 2000", n)
	}
	for _, e := range tr.els {
		if e.depth > maxDepth {
			t.Fatalf("element at depth %d, want <= %d", e.depth, maxDepth)
		}
	}
}

func TestBuildTreeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	doc := strings.Repeat("<p>x</p>", 10*checkEvery)
	if _, err := buildTree(ctx, doc); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// checkTree reports the first broken invariant of t, built from a page.
func checkTree(t *tree) string {
	if t.title != collapse(t.title) {
		return "title not collapsed"
	}
	if root := t.els[0]; root.first != 0 || int(root.end) != len(t.blocks) || int(root.last) != len(t.els)-1 {
		return "the document does not hold everything"
	}
	for i := 1; i < len(t.els); i++ {
		e, p := t.els[i], t.els[t.els[i].parent]
		switch {
		case int(e.parent) >= i || e.parent < 0:
			return "parent after child"
		case e.depth != p.depth+1 || e.depth > maxDepth:
			return "wrong depth"
		case e.first > e.end || e.first < p.first || e.end > p.end:
			return "block range outside the parent's"
		case int(e.last) < i || e.last > p.last:
			return "descendants outside the parent's"
		}
	}
	for i, b := range t.blocks {
		e := t.els[b.el]
		switch {
		case b.text == "" || b.text != collapse(b.text):
			return "block not collapsed"
		case b.runes != utf8.RuneCountInString(b.text):
			return "wrong rune count"
		case b.linkRunes < 0 || b.linkRunes > b.runes:
			return "wrong link runes"
		case int(e.first) > i || int(e.end) <= i:
			return "block outside its element"
		}
	}
	return ""
}

func FuzzTree(f *testing.F) {
	for _, name := range []string{"portal.html", "news.html", "multipost.html", "newsheader.html", "nomatch.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`<table><tr><td><a href=x>x</a>来源：y<p><li><dd>z</table></td></tr>`)
	f.Add(`<title>a<b>c</title><svg><title>d</svg><p>e`)
	// The lexer's less common paths: raw text, comments, doctypes,
	// entities, odd attributes, pages cut short.
	for _, doc := range []string{
		`<script><!-- a --> b</script><style>p{}</style><textarea>&lt;</textarea><xmp><b></xmp>`,
		`<!----><!--a--!><!-- b --!x--><!--><!---><!-- c --><!-- d`,
		"<p\r\nclass='x\r\ny' data=\"q&quot;r\" t=a&ampb c=&copy= d=&notin e=&#x41;>a\r\nb\rc</p>",
		`<div a=1 A=2 b b=3 =x /><br/><p a=/><img src=x/><a href=x>y</a></>x</ >y<?php x ?>`,
		"<p>\x00a</p><script>\x00</script><!--\x00--><p \x00=\x00><svg>\x00<p>b",
		`<plaintext><p>all text`, `<p a="unterminated`, `<div class`, `</div`, `<!DOCTYPE`, `<`, `</`,
		`<noscript><p>x</noscript><iframe>y</iframe><noembed>z</noembed><noframes>w</noframes>`,
		`<script>a</SCRIPT >b<script>c</script/>`, `<svg><![CDATA[x]]></svg><math "><p>y`,
	} {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		tr, err := buildTree(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		if msg := checkTree(tr); msg != "" {
			t.Error(msg)
		}
	})
}
