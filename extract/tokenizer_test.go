package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// tokenizerCases are pages whose tokens take the tokenizer's less common
// paths: raw text, escaped script data, comments, doctypes, entities in
// text and attributes, duplicate and odd attributes, pages cut short.
var tokenizerCases = []string{
	"",
	"plain text & more",
	`<!DOCTYPE html><html lang=en><head><title>a &amp; b<i>x</title></head><body><p class="A b" ID=x>t</p></body></html>`,
	`<script>if (a<b) {}</script><script><!--<script>x</script>--></script><p>after`,
	`<script><!-- a --> b</script><style>p{}</style><textarea>&lt;</textarea><xmp><b></xmp>`,
	`<!----><!--a--!><!-- b --!x--><!--><!---><!-- c --><!-- d`,
	"<p\r\nclass='x\r\ny' data=\"q&quot;r\" t=a&ampb c=&copy= d=&notin e=&#x41;>a\r\nb\rc</p>",
	`<div a=1 A=2 b b=3 =x /><br/><p a=/><img src=x/><a href=x>y</a></>x</ >y<?php x ?>`,
	"<p>\x00a</p><script>\x00</script><!--\x00--><p \x00=\x00>",
	`<plaintext><p>all text`,
	`<p a="unterminated`,
	`<p a='x`,
	`<div class`,
	`</div`,
	`<!DOCTYP`,
	`<!DOCTYPE`,
	`<!DOCTYPE  `,
	`<!x`,
	`<!>`,
	`<`,
	`</`,
	`<a b c d e f g h i j k l m n o p q r s t u v w x y z a1 b1 B c1 C1 d1 D1 e1>x`,
	`<title>t</title><title>u`,
	`<noscript><p>x</noscript><iframe>y</iframe><noembed>z</noembed><noframes>w</noframes>`,
	`<script>a</SCRIPT >b<script>c</script/>`,
	`<svg><![CDATA[x]]></svg>`,
}

func FuzzTokenizer(f *testing.F) {
	for _, name := range []string{"portal.html", "news.html", "multipost.html", "newsheader.html", "nomatch.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	for _, doc := range tokenizerCases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if msg := compareTokens(doc); msg != "" {
			t.Errorf("doc %q: %s", doc, msg)
		}
	})
}

// TestTokenizer compares the tokens of the test pages and cases with
// html.Tokenizer's.
func TestTokenizer(t *testing.T) {
	docs := tokenizerCases
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	for _, doc := range docs {
		// Every prefix too: pages cut short end in every state.
		for n := 0; n <= len(doc) && n <= 400; n++ {
			if msg := compareTokens(doc[:n]); msg != "" {
				t.Errorf("doc %q: %s", doc[:n], msg)
				break
			}
		}
		if msg := compareTokens(doc); msg != "" {
			t.Errorf("doc %q: %s", doc, msg)
		}
	}
}

// compareTokens returns how tokenizer and html.Tokenizer differ on doc,
// or "".
func compareTokens(doc string) string {
	want := html.NewTokenizer(strings.NewReader(doc))
	got := newTokenizer(doc)
	for i := 0; ; i++ {
		wt, gt := want.Next(), got.next()
		if gt != wt {
			return fmt.Sprintf("token %d: type %v, want %v", i, gt, wt)
		}
		if raw := got.doc[got.start:got.pos]; raw != string(want.Raw()) {
			return fmt.Sprintf("token %d: raw %q, want %q", i, raw, want.Raw())
		}
		switch gt {
		case html.ErrorToken:
			return ""
		case html.TextToken, html.CommentToken, html.DoctypeToken:
			if g, w := got.text(), string(want.Text()); g != w {
				return fmt.Sprintf("token %d: text %q, want %q", i, g, w)
			}
		default:
			gn, ga := got.tagName()
			wn, wa := want.TagName()
			if string(gn) != string(wn) || ga != wa {
				return fmt.Sprintf("token %d: name %q %v, want %q %v", i, gn, ga, wn, wa)
			}
			for j := 0; wa; j++ {
				var k, v []byte
				k, v, wa = want.TagAttr()
				if j >= len(got.attrs) {
					return fmt.Sprintf("token %d: %d attributes, want more", i, len(got.attrs))
				}
				if gk, gv := got.attrKey(j), got.attrVal(j); gk != string(k) || gv != string(v) {
					return fmt.Sprintf("token %d: attribute %q=%q, want %q=%q", i, gk, gv, k, v)
				}
				if !wa && j+1 != len(got.attrs) {
					return fmt.Sprintf("token %d: %d attributes, want %d", i, len(got.attrs), j+1)
				}
			}
		}
	}
}
