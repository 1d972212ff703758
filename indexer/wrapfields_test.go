package indexer_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// taggedPage is a user's page type whose fields bleve names by their JSON
// tags: html, title, url.
type taggedPage struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	HTML  string `json:"html"`
}

// samplePage is a page with enough text to be decided on its paragraphs.
const samplePage = `<html><head><title>Library hours</title></head><body><article>
<p>The council approved the library's new opening hours on Tuesday, after a long debate about costs and staff.</p>
<p>Readers can now borrow books until ten at night on weekdays, and the reading room stays open on Sundays.</p>
<p>The change follows a survey of two thousand residents last spring, most of whom wanted later hours.</p>
</article></body></html>`

// TestWrapMisnamedField is the user's program: pages of a type with JSON
// tags url, title, html wrapped with HTMLField "HTML". Each batch fails,
// naming the field and the fields the pages have, and nothing is written.
func TestWrapMisnamedField(t *testing.T) {
	tests := []struct {
		name string
		o    indexer.Options
		want string
	}{
		{"HTML", indexer.Options{HTMLField: "HTML", TitleField: "title", URLField: "url"},
			`indexer: p0 (and 2 more documents of the batch): no field "HTML" (Options.HTMLField) in the document; its fields, as bleve names them: html, title, url: invalid document`},
		{"all three", indexer.Options{HTMLField: "HTML", TitleField: "Title", URLField: "URL"},
			`indexer: p0 (and 2 more documents of the batch): no fields "HTML" (Options.HTMLField), "Title" (Options.TitleField), "URL" (Options.URLField) in the document; its fields, as bleve names them: html, title, url: invalid document`},
		{"title only", indexer.Options{HTMLField: "html", TitleField: "Title", URLField: "url"},
			`indexer: p0 (and 2 more documents of the batch): no field "Title" (Options.TitleField) in the document; its fields, as bleve names them: html, title, url: invalid document`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wrapNew(t, tt.o)
			b := w.NewBatch()
			for i := range 3 {
				if err := b.Index(fmt.Sprint("p", i), taggedPage{URL: fmt.Sprintf("https://example.com/%d", i), Title: "Library hours", HTML: samplePage}); err != nil {
					t.Fatal(err)
				}
			}
			err := w.Batch(b)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Batch:\n got %v\nwant %s", err, tt.want)
			}
			if !errors.Is(err, indexer.ErrInvalidDocument) {
				t.Errorf("Batch: %v, want ErrInvalidDocument", err)
			}
			if n, err := w.DocCount(); err != nil || n != 0 {
				t.Errorf("DocCount = %d, %v; want nothing written", n, err)
			}
			if got := clustersOfFilter(t, w.Filter()); len(got) != 0 {
				t.Errorf("the filter holds %q, want nothing", got)
			}
			// Index alone names the document without a count.
			err = w.Index("one", taggedPage{HTML: samplePage})
			if want := strings.Replace(tt.want, "p0 (and 2 more documents of the batch)", "one", 1); err == nil || err.Error() != want {
				t.Errorf("Index:\n got %v\nwant %s", err, want)
			}
		})
	}
	// Named as bleve names them, the copies are found.
	w := wrapNew(t, indexer.Options{HTMLField: "html", TitleField: "title", URLField: "url", Policy: dedupfilter.Mark})
	for i := range 2 {
		dec, err := w.IndexDecision(fmt.Sprint("p", i), taggedPage{URL: fmt.Sprintf("https://example.com/%d", i), Title: "Library hours", HTML: samplePage})
		if err != nil {
			t.Fatal(err)
		}
		if dec.Duplicate != (i == 1) {
			t.Errorf("p%d: duplicate %v, want %v", i, dec.Duplicate, i == 1)
		}
	}
}

// TestWrapDocumentFields: a field Options name is an error where a
// document does not have it, and not where it has it empty; documents as
// structs, maps and nested values.
func TestWrapDocumentFields(t *testing.T) {
	type article struct {
		Body string `json:"body"`
	}
	type nested struct {
		Title   string  `json:"title"`
		Article article `json:"article"`
	}
	type optional struct {
		Title string   `json:"title"`
		HTML  string   `json:"html,omitempty"`
		Art   *article `json:"article,omitempty"`
		Tags  []any    `json:"tags,omitempty"`
		Raw   []byte   `json:"raw,omitempty"`
		Any   any      `json:"any,omitempty"`
	}
	type node struct {
		Text string `json:"text"`
		Next *node  `json:"next"`
	}
	type Base struct{ Body string }
	type embedding struct {
		Base
		Title string
	}
	type withTime struct {
		Body string
		When time.Time
	}
	text := "Readers can now borrow books until ten at night on weekdays."
	tests := []struct {
		name string
		o    indexer.Options
		doc  any
		want string // the error's text after "indexer: d: "; "" for none
	}{
		{"struct", indexer.Options{HTMLField: "html", TitleField: "title"}, taggedPage{HTML: samplePage}, ""},
		{"struct, empty html", indexer.Options{HTMLField: "html", TitleField: "title", URLField: "url"}, taggedPage{}, ""},
		{"struct pointer", indexer.Options{HTMLField: "html"}, &taggedPage{HTML: samplePage}, ""},
		{"struct pointer, misnamed", indexer.Options{HTMLField: "Html"}, &taggedPage{HTML: samplePage},
			`no field "Html" (Options.HTMLField) in the document; its fields, as bleve names them: html, title, url: invalid document`},
		{"omitempty, empty", indexer.Options{HTMLField: "html", TitleField: "title"}, optional{}, ""},
		{"omitempty, nil nested", indexer.Options{TextFields: []string{"article.body"}}, optional{}, ""},
		{"omitempty, misnamed", indexer.Options{HTMLField: "HTML"}, optional{},
			`no field "HTML" (Options.HTMLField) in the document; its fields, as bleve names them: article.body, html, raw, tags, title: invalid document`},
		{"omitempty, empty slices", indexer.Options{TextFields: []string{"tags", "raw"}}, optional{}, ""},
		{"a type holding itself", indexer.Options{TextFields: []string{"next.next.text"}}, node{Text: text}, ""},
		{"a type holding itself, misnamed", indexer.Options{TextFields: []string{"next.body"}}, node{Text: text},
			`no field "next.body" (Options.TextFields) in the document; its fields, as bleve names them: next, text: invalid document`},
		{"map", indexer.Options{TextFields: []string{"body"}, URLField: "url"}, map[string]any{"body": text, "url": "https://example.com/"}, ""},
		{"map, empty", indexer.Options{TextFields: []string{"body"}}, map[string]string{"body": ""}, ""},
		{"map, null", indexer.Options{TextFields: []string{"body"}}, map[string]any{"body": nil}, ""},
		{"map, empty array", indexer.Options{TextFields: []string{"body"}}, map[string]any{"body": []string{}}, ""},
		{"map, misnamed", indexer.Options{TextFields: []string{"Body"}, URLField: "url"}, map[string]any{"body": text, "url": "u", "n": 3},
			`no field "Body" (Options.TextFields) in the document; its fields, as bleve names them: body, n, url: invalid document`},
		{"map, two text fields, one absent", indexer.Options{TextFields: []string{"title", "body"}}, map[string]any{"title": "T"},
			`no field "body" (Options.TextFields) in the document; its fields, as bleve names them: title: invalid document`},
		{"map, no fields", indexer.Options{TextFields: []string{"body"}}, map[string]any{},
			`no field "body" (Options.TextFields) in the document; its fields, as bleve names them: none: invalid document`},
		{"nested path", indexer.Options{TextFields: []string{"article.body"}, TitleField: "title"}, nested{Title: "T", Article: article{text}}, ""},
		{"nested path, empty", indexer.Options{TextFields: []string{"article.body"}}, nested{}, ""},
		{"nested path, misnamed", indexer.Options{TextFields: []string{"article.text"}}, nested{Article: article{text}},
			`no field "article.text" (Options.TextFields) in the document; its fields, as bleve names them: article.body, title: invalid document`},
		{"nested path to an object", indexer.Options{TextFields: []string{"article"}}, nested{Article: article{text}},
			`no field "article" (Options.TextFields) in the document; its fields, as bleve names them: article.body, title: invalid document`},
		{"nested map", indexer.Options{TextFields: []string{"article.body"}}, map[string]any{"article": map[string]any{"body": text}}, ""},
		{"path through an array", indexer.Options{TextFields: []string{"parts.text"}},
			map[string]any{"parts": []any{map[string]any{"text": "p1"}, map[string]any{"text": "p2"}}}, ""},
		{"path through an array, misnamed", indexer.Options{TextFields: []string{"parts.body"}},
			map[string]any{"parts": []any{map[string]any{"text": "p1"}, map[string]any{"text": "p2"}}},
			`no field "parts.body" (Options.TextFields) in the document; its fields, as bleve names them: parts.text: invalid document`},
		{"path beyond a value", indexer.Options{TextFields: []string{"body.text"}}, map[string]any{"body": text},
			`no field "body.text" (Options.TextFields) in the document; its fields, as bleve names them: body: invalid document`},
		{"embedded struct", indexer.Options{TextFields: []string{"Body"}, TitleField: "Title"}, embedding{Base{text}, "T"}, ""},
		{"embedded struct, misnamed", indexer.Options{TextFields: []string{"Base.Body"}}, embedding{Base{text}, "T"},
			`no field "Base.Body" (Options.TextFields) in the document; its fields, as bleve names them: Body, Title: invalid document`},
		{"a time is a value", indexer.Options{TextFields: []string{"Body"}, TitleField: "When"}, withTime{Body: text}, ""},
		{"TextFields unread beside an HTMLField", indexer.Options{HTMLField: "html", TextFields: []string{"Body"}}, taggedPage{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wrapNew(t, tt.o)
			err := w.Index("d", tt.doc)
			if tt.want == "" {
				if err != nil {
					t.Errorf("Index = %v, want no error", err)
				} else if n, _ := w.DocCount(); n != 1 {
					t.Errorf("DocCount = %d, want 1", n)
				}
				return
			}
			want := "indexer: d: " + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("Index:\n got %v\nwant %s", err, want)
			}
			if !errors.Is(err, indexer.ErrInvalidDocument) {
				t.Errorf("Index = %v, want ErrInvalidDocument", err)
			}
		})
	}
}

// TestWrapBatchFailsWhole: a batch with a document without the field is
// written not at all, its deletes neither; the error names its first
// such document in the order added.
func TestWrapBatchFailsWhole(t *testing.T) {
	w := wrapNew(t, indexer.Options{TextFields: []string{"body"}})
	if err := w.Index("keep", map[string]string{"body": "kept"}); err != nil {
		t.Fatal(err)
	}
	b := w.NewBatch()
	b.Delete("keep")
	for _, d := range []struct {
		id  string
		doc map[string]string
	}{{"z1", map[string]string{"body": "fine"}}, {"z2", map[string]string{"text": "no body"}}, {"a3", map[string]string{"body": ""}}, {"a4", map[string]string{}}} {
		if err := b.Index(d.id, d.doc); err != nil {
			t.Fatal(err)
		}
	}
	err := w.Batch(b)
	want := `indexer: z2 (and 1 more document of the batch): no field "body" (Options.TextFields) in the document; its fields, as bleve names them: text: invalid document`
	if err == nil || err.Error() != want {
		t.Errorf("Batch:\n got %v\nwant %s", err, want)
	}
	if n, _ := w.DocCount(); n != 1 {
		t.Errorf("DocCount = %d, want 1: nothing of the batch written", n)
	}
	if _, err := w.Filter().Meta("keep"); err != nil {
		t.Errorf("the batch's delete was done: %v", err)
	}
	if _, err := w.Filter().Meta("z1"); !errors.Is(err, dedupfilter.ErrNotFound) {
		t.Errorf("the batch's good document was written: %v", err)
	}
}

// TestWrapUnwrappedBatch: a batch of the wrapped index's own (its
// documents mapped by bleve, their data gone) is checked by the fields
// bleve mapped.
func TestWrapUnwrappedBatch(t *testing.T) {
	w := wrapNew(t, indexer.Options{HTMLField: "html", TitleField: "title"})
	tests := []struct {
		name string
		doc  any
		want string
	}{
		{"present", taggedPage{HTML: samplePage, Title: "T"}, ""},
		{"empty", taggedPage{}, ""},
		{"absent", map[string]string{"HTML": samplePage, "title": "T"},
			`indexer: d: no field "html" (Options.HTMLField) in the document; its fields, as bleve names them: HTML, title: invalid document`},
	}
	for _, tt := range tests {
		b := w.Unwrap().NewBatch()
		if err := b.Index("d", tt.doc); err != nil {
			t.Fatal(err)
		}
		err := w.Batch(b)
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
			t.Errorf("%s: Batch = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestWrapMappingFields: Wrap refuses a text field an explicit mapping
// cannot hold, naming it and the mapping's fields; a dynamic mapping, or
// one dynamic where the field would be, cannot tell and is taken; a raw
// HTML, title or URL field is the documents' to have.
func TestWrapMappingFields(t *testing.T) {
	static := func() *mapping.IndexMappingImpl {
		m := bleve.NewIndexMapping()
		m.DefaultMapping = bleve.NewDocumentStaticMapping()
		for _, f := range []string{"html", "title", "url"} {
			m.DefaultMapping.AddFieldMappingsAt(f, bleve.NewTextFieldMapping())
		}
		indexer.AddFilterFields(m)
		return m
	}
	pages := indexer.Options{HTMLField: "html", TitleField: "title", URLField: "url"}
	tests := []struct {
		name string
		m    func() *mapping.IndexMappingImpl
		o    indexer.Options
		want string // "" for none
	}{
		{"static, named", static, pages, ""},
		{"static, misnamed", static, indexer.Options{TextFields: []string{"Body", "title"}, URLField: "URL"},
			`indexer: wrap: no field "Body" (Options.TextFields) in the index's mapping, which takes no other fields (not dynamic); its fields: cluster, html, text, title, url: invalid options`},
		{"static, raw HTML left out of it", static, indexer.Options{HTMLField: "raw"}, ""},
		{"dynamic (bleve's default)", bleve.NewIndexMapping, indexer.Options{HTMLField: "HTML"}, ""},
		{"static with a dynamic part", func() *mapping.IndexMappingImpl {
			m := static()
			m.DefaultMapping.AddSubDocumentMapping("article", bleve.NewDocumentMapping())
			return m
		}, indexer.Options{TextFields: []string{"article.body"}, TitleField: "title"}, ""},
		{"static nested, misnamed", func() *mapping.IndexMappingImpl {
			m := static()
			sub := bleve.NewDocumentStaticMapping()
			sub.AddFieldMappingsAt("body", bleve.NewTextFieldMapping())
			m.DefaultMapping.AddSubDocumentMapping("article", sub)
			return m
		}, indexer.Options{TextFields: []string{"article.text"}},
			`indexer: wrap: no field "article.text" (Options.TextFields) in the index's mapping, which takes no other fields (not dynamic); its fields: article.body, cluster, html, text, title, url: invalid options`},
		{"named but disabled: read, not indexed", func() *mapping.IndexMappingImpl {
			m := static()
			m.DefaultMapping.AddSubDocumentMapping("raw", bleve.NewDocumentDisabledMapping())
			return m
		}, indexer.Options{HTMLField: "raw"}, ""},
		{"a static type, the default dynamic", func() *mapping.IndexMappingImpl {
			m := bleve.NewIndexMapping()
			m.AddDocumentMapping("page", bleve.NewDocumentStaticMapping())
			return m
		}, indexer.Options{HTMLField: "html"}, ""},
		{"a static type, the default disabled", func() *mapping.IndexMappingImpl {
			m := bleve.NewIndexMapping()
			page := bleve.NewDocumentStaticMapping()
			page.AddFieldMappingsAt("html", bleve.NewTextFieldMapping())
			m.AddDocumentMapping("page", page)
			m.DefaultMapping = bleve.NewDocumentDisabledMapping()
			return m
		}, indexer.Options{TextFields: []string{"body"}},
			`indexer: wrap: no field "body" (Options.TextFields) in the index's mapping, which takes no other fields (not dynamic); its fields: html: invalid options`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			idx, err := bleve.New(filepath.Join(dir, "idx"), tt.m())
			if err != nil {
				t.Fatal(err)
			}
			o := tt.o
			o.Store = filepath.Join(dir, "dedup")
			w, err := indexer.Wrap(idx, o)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Wrap = %v, want no error", err)
				}
				w.Close()
				return
			}
			defer idx.Close()
			if err == nil || err.Error() != tt.want {
				t.Errorf("Wrap:\n got %v\nwant %s", err, tt.want)
			}
			if !errors.Is(err, indexer.ErrInvalidOptions) {
				t.Errorf("Wrap = %v, want ErrInvalidOptions", err)
			}
			if _, err := os.Stat(o.Store); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused Wrap made its store (%v)", err)
			}
		})
	}
	// A static mapping's documents are checked too: one of them may lack
	// a field the mapping has.
	dir := t.TempDir()
	idx, err := bleve.New(filepath.Join(dir, "idx"), static())
	if err != nil {
		t.Fatal(err)
	}
	pages.Store = filepath.Join(dir, "dedup")
	w, err := indexer.Wrap(idx, pages)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Index("d", map[string]string{"html": samplePage, "title": "T"}); !errors.Is(err, indexer.ErrInvalidDocument) || !strings.Contains(err.Error(), `"url" (Options.URLField)`) {
		t.Errorf("a document without its url: %v, want ErrInvalidDocument naming url", err)
	}
}
