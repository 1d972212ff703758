package snippet

import (
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

func TestTrimWords(t *testing.T) {
	tests := []struct {
		in, want []Segment
	}{
		{[]Segment{{Text: "…oof Becomes a "}, {Text: "Home", Mark: true}, {Text: " for the volunteers wo…"}},
			[]Segment{{Text: "… Becomes a "}, {Text: "Home", Mark: true}, {Text: " for the volunteers …"}}},
		{[]Segment{{Text: "Library roof "}, {Text: "bees", Mark: true}}, // not cut: left alone
			[]Segment{{Text: "Library roof "}, {Text: "bees", Mark: true}}},
		{[]Segment{{Text: "…书馆将延长"}, {Text: "开放", Mark: true}, {Text: "时间…"}}, // Han: no words to trim
			[]Segment{{Text: "…书馆将延长"}, {Text: "开放", Mark: true}, {Text: "时间…"}}},
		{[]Segment{{Text: "…, and "}, {Text: "bees", Mark: true}}, // cut at punctuation: kept
			[]Segment{{Text: "…, and "}, {Text: "bees", Mark: true}}},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := trimWords(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("trimWords(%+v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestMake(t *testing.T) {
	const text = "The library roof keeps bees. Librarians say the bees make honey. 图书馆的蜜蜂很忙。"
	tests := []struct {
		name  string
		terms []Term
		want  string // the passage, marks in [brackets]
	}{
		{"word", []Term{{Text: "bees"}}, "The library roof keeps [bees]. Librarians say the [bees] make honey. 图书馆的蜜蜂很忙。"},
		{"not inside a word", []Term{{Text: "library"}}, "The [library] roof keeps bees. Librarians say the bees make honey. 图书馆的蜜蜂很忙。"},
		{"prefix", []Term{{Text: "librar", Prefix: true}}, "The [library] roof keeps bees. [Librarians] say the bees make honey. 图书馆的蜜蜂很忙。"},
		{"bigrams marked whole, 30 characters before", []Term{{Text: "图书"}, {Text: "书馆"}}, "… say the bees make honey. [图书馆]的蜜蜂很忙。"},
		{"no term: the beginning", []Term{{Text: "wasps"}}, "The library roof keeps bees. Librarians say the bees make honey. 图书馆的蜜蜂很忙。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := show(Make(text, tt.terms)); got != tt.want {
				t.Errorf("Make = %q, want %q", got, tt.want)
			}
		})
	}
	if got := Make("", []Term{{Text: "bees"}}); got != nil {
		t.Errorf("Make of no text = %v, want nil", got)
	}
}

func TestTerms(t *testing.T) {
	m := bleve.NewIndexMapping()
	neg := query.NewTermQuery("wasps")
	q := query.NewBooleanQuery([]query.Query{query.NewMatchQuery("Library Bees")}, []query.Query{query.NewPrefixQuery("hon")}, []query.Query{neg})
	other := query.NewTermQuery("x")
	other.SetField("url")
	q.AddShould(other)
	got := Terms(q, m, []string{"text"})
	want := []Term{{Text: "library"}, {Text: "bees"}, {Text: "hon", Prefix: true}}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %+v, want %+v (the NOT clause and other fields left out)", got, want)
	}
	// Without a mapping (a bleve alias has none), a match query's text
	// is one term, lower-cased.
	got = Terms(q, nil, []string{"text"})
	want = []Term{{Text: "library bees"}, {Text: "hon", Prefix: true}}
	if !slices.Equal(got, want) {
		t.Errorf("Terms without a mapping = %+v, want %+v", got, want)
	}
}

// show writes segments with marks in brackets.
func show(segs []Segment) string {
	var s string
	for _, g := range segs {
		if g.Mark {
			s += "[" + g.Text + "]"
		} else {
			s += g.Text
		}
	}
	return s
}

func ExampleMake() {
	terms := Terms(query.NewMatchQuery("bees"), bleve.NewIndexMapping(), nil)
	for _, s := range Make("Library roof becomes a home for bees.", terms) {
		fmt.Printf("%q %v\n", s.Text, s.Mark)
	}
	// Output:
	// "… roof becomes a home for " false
	// "bees" true
	// "." false
}
