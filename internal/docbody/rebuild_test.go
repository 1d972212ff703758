package docbody

import (
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/datetime/timestamp/seconds"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

func TestRebuilds(t *testing.T) {
	stored := func(typ string) *mapping.FieldMapping {
		return &mapping.FieldMapping{Type: typ, Store: true, Index: true}
	}
	tests := []struct {
		name string
		edit func(m *mapping.IndexMappingImpl)
		ok   bool
	}{
		{"bleve's default", func(*mapping.IndexMappingImpl) {}, true},
		{"explicit stored fields", func(m *mapping.IndexMappingImpl) {
			m.DefaultMapping.AddFieldMappingsAt("title", stored("text"))
			m.DefaultMapping.AddFieldMappingsAt("n", stored("number"))
			m.DefaultMapping.AddFieldMappingsAt("when", stored("datetime"))
			sub := bleve.NewDocumentMapping()
			sub.AddFieldMappingsAt("ok", stored("boolean"))
			m.DefaultMapping.AddSubDocumentMapping("meta", sub)
		}, true},
		{"dynamic fields unstored", func(m *mapping.IndexMappingImpl) { m.StoreDynamic = false }, false},
		{"a field unstored", func(m *mapping.IndexMappingImpl) {
			f := stored("text")
			f.Store = false
			m.DefaultMapping.AddFieldMappingsAt("body", f)
		}, false},
		{"a disabled part", func(m *mapping.IndexMappingImpl) {
			m.DefaultMapping.AddSubDocumentMapping("html", bleve.NewDocumentDisabledMapping())
		}, false},
		{"not dynamic", func(m *mapping.IndexMappingImpl) { m.DefaultMapping.Dynamic = false }, false},
		{"type mappings", func(m *mapping.IndexMappingImpl) { m.AddDocumentMapping("article", bleve.NewDocumentMapping()) }, false},
		{"a property mapped twice", func(m *mapping.IndexMappingImpl) {
			exact := stored("text")
			exact.Name, exact.Analyzer = "title_exact", "keyword"
			m.DefaultMapping.AddFieldMappingsAt("title", stored("text"), exact)
		}, false},
		{"a property under another name", func(m *mapping.IndexMappingImpl) {
			f := stored("text")
			f.Name = "heading"
			m.DefaultMapping.AddFieldMappingsAt("title", f)
		}, false},
		{"dates in seconds", func(m *mapping.IndexMappingImpl) {
			f := stored("datetime")
			f.DateFormat = seconds.Name
			m.DefaultMapping.AddFieldMappingsAt("when", f)
		}, false},
		{"an IP field", func(m *mapping.IndexMappingImpl) { m.DefaultMapping.AddFieldMappingsAt("ip", stored("IP")) }, false},
	}
	for _, tt := range tests {
		m := bleve.NewIndexMapping()
		tt.edit(m)
		if err := Rebuilds(m); (err == nil) != tt.ok {
			t.Errorf("%s: Rebuilds = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

// TestRebuildsTerms writes bodies of every kind of value into a bleve
// index whose mapping Rebuilds accepts, rebuilds each from its stored
// fields, and expects the rebuilt body to map to the same fields, terms
// and locations as the original.
func TestRebuildsTerms(t *testing.T) {
	m := bleve.NewIndexMapping()
	m.DefaultMapping.AddFieldMappingsAt("when", &mapping.FieldMapping{Type: "datetime", Store: true, Index: true, DateFormat: "dateTimeOptional"})
	if err := Rebuilds(m); err != nil {
		t.Fatal(err)
	}
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	bodies := []map[string]any{
		{"title": "The Quick brown fox's 2nd jump", "text": "我们的Go语言，全角。\nSecond line, e.g. 3.14"},
		{"n": 2.5, "big": 12345678901.0, "neg": -3.0, "ok": true, "no": false},
		{"when": "2026-03-01", "at": "2026-03-01T12:30:45+02:00", "nanos": "2026-03-01T12:30:45.123456789Z"},
		{"tags": []any{"x", "y z", "x"}, "one": []any{"only"}, "nums": []any{1.0, 2.0}},
		{"a": map[string]any{"b": "x", "c": map[string]any{"d": true, "e": "deep text"}}},
		{"parts": []any{map[string]any{"text": "p1"}, map[string]any{"text": "p2 more"}}},
		{"empty": "", "html": "<p>Some <b>HTML</b></p>"},
	}
	for i, body := range bodies {
		id := fmt.Sprint("d", i)
		if err := idx.Index(id, body); err != nil {
			t.Fatal(err)
		}
		d, err := idx.Document(id)
		if err != nil || d == nil {
			t.Fatalf("%s: %v, %v", id, d, err)
		}
		got, want := fieldTerms(t, m, FromFields(d)), fieldTerms(t, m, body)
		if !slices.Equal(got, want) {
			t.Errorf("body %d rebuilt maps to\n%q\nwant\n%q", i, got, want)
		}
	}
}

// fieldTerms maps body with m and lists each field's name, array
// positions and terms with their locations (a text field's, analysed),
// or value.
func fieldTerms(t *testing.T, m mapping.IndexMapping, body map[string]any) []string {
	t.Helper()
	doc := document.NewDocument("id")
	if err := m.MapDocument(doc, body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range doc.Fields {
		f.Analyze()
		s := fmt.Sprintf("%s %v %T", f.Name(), f.ArrayPositions(), f)
		if tf, ok := f.(*document.TextField); ok {
			freqs := tf.AnalyzedTokenFrequencies()
			terms := make([]string, 0, len(freqs))
			for term, fr := range freqs {
				terms = append(terms, term+": "+locations((*index.TokenFreq)(fr)))
			}
			slices.Sort(terms)
			s += fmt.Sprint(" ", terms)
		} else {
			s += fmt.Sprintf(" %q", f.Value())
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
