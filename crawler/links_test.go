package crawler

import (
	"slices"
	"strings"
	"testing"
)

func TestParseLinks(t *testing.T) {
	const page = `<html><head><base href="http://other.example/base/"></head><body>
<nav><a href="/a">Alpha</a> <a href="/b">Beta <b>bold</b></a></nav>
<ul><li><a href="/c">Gamma</a></li><li><a href="/d">Delta</a></li><li><a href="/e">Epsilon</a></li></ul>
<p>text <a href="">empty</a> <a name="x">no href</a> <a href="/f">  Zeta
  six </a></p>
</body></html>`
	links, base := parseLinks(strings.NewReader(page), 100)
	if base != "http://other.example/base/" {
		t.Errorf("base = %q", base)
	}
	var got []string
	for _, l := range links {
		got = append(got, l.href+"="+l.anchor)
	}
	want := []string{"/a=Alpha", "/b=Beta bold", "/c=Gamma", "/d=Delta", "/e=Epsilon", "/f=Zeta six"}
	if !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
	sib := siblingAnchors(links)
	tests := []struct {
		i    int
		want []string
	}{
		{0, []string{"Beta bold"}},
		{3, []string{"Gamma", "Epsilon"}}, // same <ul>, nearest first
		{5, nil},                          // alone in its <p>
	}
	for _, tt := range tests {
		if !slices.Equal(sib[tt.i], tt.want) {
			t.Errorf("siblings of %s = %q, want %q", links[tt.i].href, sib[tt.i], tt.want)
		}
	}
	// <li> is not a block: Gamma, Delta, Epsilon share the <ul>.
}

func TestParseLinksBounds(t *testing.T) {
	var b strings.Builder
	for range 10000 {
		b.WriteString(`<a href="/x">` + strings.Repeat("long anchor ", 100) + `</a>`)
	}
	links, _ := parseLinks(strings.NewReader(b.String()), 50)
	if len(links) != 50 {
		t.Errorf("got %d links, want the limit 50", len(links))
	}
	for _, l := range links {
		if n := len([]rune(l.anchor)); n > maxAnchorRunes {
			t.Fatalf("anchor of %d runes, want at most %d", n, maxAnchorRunes)
		}
	}
	// Links after a huge attribute or inline script, as real pages have
	// them, are found.
	for _, tc := range []struct{ name, between string }{
		{"attribute", `<div title="` + strings.Repeat("x", 1<<20) + `"></div>`},
		{"script", `<script>var state = "` + strings.Repeat("x", 1<<20) + `";</script>`},
	} {
		links, _ = parseLinks(strings.NewReader(`<a href="/before">b</a>`+tc.between+`<a href="/after">a</a>`), 50)
		var got []string
		for _, l := range links {
			got = append(got, l.href)
		}
		if want := []string{"/before", "/after"}; !slices.Equal(got, want) {
			t.Errorf("links around a huge %s = %v, want %v", tc.name, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abcdef", 3, "abc"}, {"鲤鱼鲤鱼", 2, "鲤鱼"}, {"", 0, ""}}
	for _, tt := range tests {
		if got := clip(tt.s, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func FuzzParseLinks(f *testing.F) {
	f.Add(`<ul><li><a href="/a">A</a><li><a href="b">B</a></ul><base href="x">`)
	f.Add(`<a href=/x>unterminated`)
	f.Fuzz(func(t *testing.T, page string) {
		links, _ := parseLinks(strings.NewReader(page), 100)
		if len(links) > 100 {
			t.Fatalf("%d links over the limit", len(links))
		}
		for i, s := range siblingAnchors(links) {
			if len(s) > maxSiblings || slices.Contains(s, "") {
				t.Fatalf("link %d siblings %q", i, s)
			}
		}
	})
}
