package boolquery

import (
	"reflect"
	"sort"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/search/query"
)

// testDocs has English pages in title/body (standard analyzer) and
// Chinese pages in zh (cjk analyzer: overlapping bigrams).
var testDocs = map[string]map[string]string{
	"e1": {"title": "University education in Japan", "body": "Studying abroad at a Tokyo university."},
	"e2": {"title": "College of Law", "body": "Admission to law college in France. Send an e-mail to apply."},
	"e3": {"title": "University research", "body": "Physics laboratories and grants."},
	"e4": {"title": "Education policy", "body": "Schools in Japan and Korea."},
	"e5": {"title": "College education reforms", "body": "Published 2019-11-19 in the United States."},
	"e6": {"title": "College education", "body": "Campus life in Kyoto, Japan."},
	"e7": {"title": "Mail delivery", "body": "The mail arrives 2019-12-01."},
	"z1": {"zh": "雪花飘飘的冬天"},
	"z2": {"zh": "雪花啤酒很好喝"},
	"z3": {"zh": "雪花这首歌曲很好听"},
	"z4": {"zh": "一本武侠小说"},
	"z5": {"zh": "雪花啤酒的广告歌曲"},
	"z6": {"zh": "歌曲小说合集"},
	"z7": {"zh": "这首歌曲改编自小说"},
}

func newTestIndex(tb testing.TB) bleve.Index {
	tb.Helper()
	en := bleve.NewTextFieldMapping()
	en.Analyzer = standard.Name
	zh := bleve.NewTextFieldMapping()
	zh.Analyzer = cjk.AnalyzerName
	doc := bleve.NewDocumentMapping()
	doc.AddFieldMappingsAt("title", en)
	doc.AddFieldMappingsAt("body", en)
	doc.AddFieldMappingsAt("zh", zh)
	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = standard.Name
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = idx.Close() })
	b := idx.NewBatch()
	for id, d := range testDocs {
		if err := b.Index(id, d); err != nil {
			tb.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		tb.Fatal(err)
	}
	return idx
}

func hits(tb testing.TB, idx bleve.Index, q query.Query) []string {
	tb.Helper()
	res, err := idx.Search(bleve.NewSearchRequestOptions(q, len(testDocs)+1, 0, false))
	if err != nil {
		tb.Fatal(err)
	}
	ids := []string{}
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	sort.Strings(ids)
	return ids
}

// allBut lists the test documents not in except, sorted.
func allBut(except ...string) []string {
	ids := []string{}
	for id := range testDocs {
		if !contains(except, id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func TestQueryEndToEnd(t *testing.T) {
	idx := newTestIndex(t)
	en := Options{Fields: []string{"title", "body"}}
	zh := Options{Fields: []string{"zh"}}
	qs := Options{Fields: en.Fields, Syntax: QueryString}
	tests := []struct {
		name, in string
		opts     Options
		want     []string
	}{
		{"seed english", "(university OR college) AND (education OR Law) NOT Japan", en, []string{"e2", "e5"}},
		{"seed english symbols", "(university + college) * (education + Law) -Japan", en, []string{"e2", "e5"}},
		{"seed chinese", "雪花 NOT 啤酒 AND 歌曲 OR 小说", zh, []string{"z3", "z4", "z6", "z7"}},
		{"chinese not", "雪花 -啤酒", zh, []string{"z1", "z3"}},
		// 歌曲小说 analyses to 歌曲 曲小 小说; all three must match, so
		// z7 (歌曲 ... 小说, no 曲小) is out.
		{"chinese multi-token term", "歌曲小说", zh, []string{"z6"}},
		// The cjk analyzer indexes only bigrams, so a lone character
		// (a unigram at query time) finds nothing: a documented caveat.
		{"single chinese character", "雪", zh, []string{}},
		{"chinese phrase", `"啤酒的广告"`, zh, []string{"z5"}},
		{"chinese field", "zh:雪花 zh:歌曲", en, []string{"z3", "z5"}},
		{"hyphenated term", "e-mail", en, []string{"e2"}},
		{"date term", "2019-11-19", en, []string{"e5"}},
		{"phrase", `"law college"`, en, []string{"e2"}},
		{"phrase order", `"college law"`, en, []string{}},
		{"field", "title:university", en, []string{"e1", "e3"}},
		{"field and default", "title:college -japan", en, []string{"e2", "e5"}},
		{"any default field", "tokyo OR korea", en, []string{"e1", "e4"}},
		{"leading not", "NOT japan", en, allBut("e1", "e4", "e6")},
		{"not group", "-(雪花 OR 歌曲)", zh, allBut("z1", "z2", "z3", "z5", "z6", "z7")},
		{"double not", "NOT NOT japan", en, []string{"e1", "e4", "e6"}},
		{"not in or", "japan OR NOT education", en, allBut("e5")},
		// A stop word analyses to no tokens and matches nothing; it must
		// not turn "x NOT y" into "everything except y".
		{"stop word and not", "the NOT japan", en, []string{}},
		{"stop word or", "japan OR the", en, []string{"e1", "e4", "e6"}},
		{"stop word and", "the AND japan", en, []string{}},
		{"excluding a stop word", "japan NOT the", en, []string{"e1", "e4", "e6"}},
		{"default field _all", "college AND NOT japan", Options{}, []string{"e2", "e5"}},
		{"lowercase keyword is a term", "mail and delivery", en, []string{}},
		// The query-string syntax spreads over the fields too: a required
		// term may match in any of them, an excluded one in none.
		{"query string required", "+college", qs, []string{"e2", "e5", "e6"}},
		{"query string excluded in any field", "+college -law -kyoto", qs, []string{"e5"}},
		{"query string field kept", "+title:education -japan", qs, []string{"e5"}},
		{"query string phrase", `"law college"`, qs, []string{"e2"}},
		{"query string wildcard", "+univ*", qs, []string{"e1", "e3"}},
		{"query string fields only", "+japan", Options{Fields: []string{"body"}, Syntax: QueryString}, []string{"e4", "e6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Query(tt.in, tt.opts)
			if err != nil {
				t.Fatalf("Query(%q) error: %v", tt.in, err)
			}
			if got := hits(t, idx, q); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Query(%q, %v) hits = %v, want %v", tt.in, tt.opts.Fields, got, tt.want)
			}
		})
	}
}

func TestCompileEmpty(t *testing.T) {
	idx := newTestIndex(t)
	for _, tt := range []struct {
		name string
		n    Node
		want []string
	}{
		{"empty and matches all", And{}, allBut()},
		{"empty or matches none", Or{}, []string{}},
	} {
		q, err := Compile(tt.n, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: Compile error: %v", tt.name, err)
		}
		if got := hits(t, idx, q); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: hits = %v, want %v", tt.name, got, tt.want)
		}
	}
	if _, err := Compile(nil, DefaultOptions()); err == nil {
		t.Error("Compile(nil) error = nil, want error")
	}
}
