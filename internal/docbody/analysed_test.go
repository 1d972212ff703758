package docbody

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

func TestAnalysed(t *testing.T) {
	m := bleve.NewIndexMapping()
	doc, err := Analysed(m, "id", map[string]any{"title": "Bees on the roof", "n": 3.0}, "")
	if err != nil {
		t.Fatal(err)
	}
	texts := 0
	for _, f := range doc.Fields {
		a, ok := f.(*analyzedField)
		if !ok {
			if _, text := f.(*document.TextField); text {
				t.Errorf("field %s: a text field not analysed ahead", f.Name())
			}
			continue
		}
		texts++
		if got := a.AnalyzedLength(); got != 2 { // bees, roof: "on" and "the" are stop words
			t.Errorf("field %s: %d tokens, want 2", f.Name(), got)
		}
		if a.TextField.Analyze(); a.Size() != a.TextField.Size() { // bleve's own analysis of the field
			t.Errorf("field %s: size %d, want the text field's %d", f.Name(), a.Size(), a.TextField.Size())
		}
	}
	if texts != 1 {
		t.Errorf("%d text fields analysed ahead, want 1", texts)
	}
}

// TestAnalysedUnindexed: the field named unindexed, and the fields below
// it, are stored but not indexed (nor composed into "_all"); unstored,
// they are left out.
func TestAnalysedUnindexed(t *testing.T) {
	m := bleve.NewIndexMapping()
	body := map[string]any{"html": "<a>navigation</a>", "page": map[string]any{"html": "x"}, "text": "bees"}
	tests := []struct {
		name, unindexed string
		storeDynamic    bool
		want            []string // name:indexed:stored of each field but _all
	}{
		{"stored", "html", true, []string{"html:false:true", "page.html:true:true", "text:true:true"}},
		{"nested", "page", true, []string{"html:true:true", "page.html:false:true", "text:true:true"}},
		{"not stored", "html", false, []string{"page.html:true:false", "text:true:false"}},
	}
	for _, tt := range tests {
		m.StoreDynamic = tt.storeDynamic
		doc, err := Analysed(m, "id", body, tt.unindexed)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range doc.Fields {
			o := f.Options()
			got = append(got, fmt.Sprintf("%s:%v:%v", f.Name(), o.IsIndexed(), o.IsStored()))
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: fields %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestUnstored(t *testing.T) {
	stored := bleve.NewTextFieldMapping()
	unstored := bleve.NewTextFieldMapping()
	unstored.Store = false
	notIndexed := bleve.NewTextFieldMapping()
	notIndexed.Store, notIndexed.Index = false, false

	tests := []struct {
		name string
		m    func() mapping.IndexMapping
		want []string
	}{
		{"bleve's default", func() mapping.IndexMapping { return bleve.NewIndexMapping() }, nil},
		{"fields", func() mapping.IndexMapping {
			m := bleve.NewIndexMapping()
			m.DefaultMapping.AddFieldMappingsAt("title", stored)
			m.DefaultMapping.AddFieldMappingsAt("body", unstored)
			m.DefaultMapping.AddFieldMappingsAt("skip", notIndexed)
			sub := bleve.NewDocumentMapping()
			sub.AddFieldMappingsAt("text", unstored)
			m.DefaultMapping.AddSubDocumentMapping("article", sub)
			return m
		}, []string{"article.text", "body"}},
		{"dynamic", func() mapping.IndexMapping {
			m := bleve.NewIndexMapping()
			m.StoreDynamic = false
			return m
		}, []string{"(dynamic)"}},
		{"a type's", func() mapping.IndexMapping {
			m := bleve.NewIndexMapping()
			dm := bleve.NewDocumentMapping()
			dm.AddFieldMappingsAt("body", unstored)
			m.AddDocumentMapping("article", dm)
			return m
		}, []string{"body"}},
	}
	for _, tt := range tests {
		if got := Unstored(tt.m()); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Unstored = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAnalysedAsBleve checks that the fields analysed ahead hold what
// bleve's own analysis of the mapped document gives: the same term
// frequencies, locations, lengths and options, for the cjk analyzer and
// the standard one, stored or not.
func TestAnalysedAsBleve(t *testing.T) {
	m := bleve.NewIndexMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = cjk.AnalyzerName
	text.Store = false
	m.DefaultMapping.AddFieldMappingsAt("text", text)
	body := map[string]any{
		"text":  "我们的Ｇｏ语言，Go! 全角，标点。“引号” ｶﾞｷﾞ カタカナ 한국어 don't 3.14 e.g.",
		"title": "The Quick brown fox's 2nd jump, 中文标题",
	}
	doc, err := Analysed(m, "id", body, "")
	if err != nil {
		t.Fatal(err)
	}
	want := document.NewDocument("id")
	if err := m.MapDocument(want, body); err != nil {
		t.Fatal(err)
	}
	byName := map[string]*document.TextField{}
	for _, f := range want.Fields {
		if tf, ok := f.(*document.TextField); ok {
			tf.Analyze()
			byName[tf.Name()] = tf
		}
	}
	for _, f := range doc.Fields {
		a, ok := f.(*analyzedField)
		if !ok {
			continue
		}
		w := byName[a.Name()]
		if w == nil {
			t.Fatalf("field %s: not in bleve's document", a.Name())
		}
		if a.AnalyzedLength() != w.AnalyzedLength() || a.Options() != w.Options() || a.NumPlainTextBytes() != w.NumPlainTextBytes() || a.Size() != w.Size() {
			t.Errorf("field %s: length %d, options %v, bytes %d, size %d; bleve's %d, %v, %d, %d", a.Name(),
				a.AnalyzedLength(), a.Options(), a.NumPlainTextBytes(), a.Size(), w.AnalyzedLength(), w.Options(), w.NumPlainTextBytes(), w.Size())
		}
		got, exp := a.AnalyzedTokenFrequencies(), w.AnalyzedTokenFrequencies()
		if len(got) != len(exp) {
			t.Errorf("field %s: %d terms, bleve's %d", a.Name(), len(got), len(exp))
		}
		for term, e := range exp {
			g := got[term]
			if g == nil || g.Frequency() != e.Frequency() || locations(g) != locations(e) {
				t.Errorf("field %s, term %q: %s, bleve's %s", a.Name(), term, locations(g), locations(e))
			}
		}
		delete(byName, a.Name())
	}
	if len(byName) > 0 {
		t.Errorf("fields not analysed ahead: %v", slices.Collect(maps.Keys(byName)))
	}
}

// locations prints a term's locations (nil: none).
func locations(f *index.TokenFreq) string {
	if f == nil {
		return "none"
	}
	var b strings.Builder
	for _, l := range f.Locations {
		fmt.Fprintf(&b, "%s %v %d-%d @%d; ", l.Field, l.ArrayPositions, l.Start, l.End, l.Position)
	}
	return b.String()
}
