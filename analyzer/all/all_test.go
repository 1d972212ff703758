package all_test

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/all"
	"github.com/bleve-dedup/bleve-dedup/analyzer/char/normalize"
	"github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/featurestring"
)

const text = "“Ｇｏ语言”很好，我们用它写搜索引擎的核心。\nIt indexes 3.14 million pages. Fast!"

// newIndex returns an in-memory index whose mapping names every registered
// dedup analyzer, plus custom ones configured through the registry.
func newIndex(tb testing.TB) bleve.Index {
	tb.Helper()
	im := bleve.NewIndexMapping()
	if err := im.AddCustomTokenizer("fs_de", map[string]interface{}{
		"type":         featurestring.Name,
		"delimiters":   "的",
		"latin_window": 4.0, // JSON numbers are float64
	}); err != nil {
		tb.Fatal(err)
	}
	if err := im.AddCustomAnalyzer("fs_de", map[string]interface{}{"type": custom.Name, "tokenizer": "fs_de"}); err != nil {
		tb.Fatal(err)
	}
	if err := im.AddCustomAnalyzer("normalized_words", map[string]interface{}{
		"type":         custom.Name,
		"char_filters": []string{normalize.Name},
		"tokenizer":    unicode.Name,
	}); err != nil {
		tb.Fatal(err)
	}
	doc := bleve.NewDocumentMapping()
	for _, field := range []string{"dedup_featurestring", "dedup_terms", "dedup_blocks", "dedup_minhash", "fs_de", "normalized_words"} {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = field
		doc.AddFieldMappingsAt(field, fm)
	}
	im.DefaultMapping = doc
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	body := map[string]interface{}{}
	for _, field := range []string{"dedup_featurestring", "dedup_terms", "dedup_blocks", "dedup_minhash", "fs_de", "normalized_words"} {
		body[field] = text
	}
	if err := idx.Index("doc1", body); err != nil {
		tb.Fatal(err)
	}
	return idx
}

func TestIndexMapping(t *testing.T) {
	idx := newIndex(t)
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	norm := analyzer.AppendNormalized(nil, text)
	fp := a.Blocks(norm)[0]
	keys, err := analyzer.Bands(a.MinHash(norm), 32)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field, term string
		want        uint64
	}{
		{"dedup_terms", "语言", 1},
		{"dedup_terms", "go", 1},
		{"dedup_terms", "3.14", 1},
		{"dedup_terms", "absent", 0},
		{"dedup_featurestring", "好我", 1},
		{"dedup_featurestring", "心iti", 1},
		{"dedup_featurestring", "gesfas", 1},
		{"dedup_featurestring", "擎核", 0}, // "的" is not a default delimiter
		{"dedup_blocks", hex.EncodeToString(fp[:]), 1},
		{"dedup_blocks", hex.EncodeToString(make([]byte, sha1.Size)), 0},
		{"dedup_minhash", fmt.Sprintf("%016x", keys[0]), 1},
		{"dedup_minhash", fmt.Sprintf("%016x", keys[31]), 1},
		{"fs_de", "擎核", 1},
		{"fs_de", "好我", 0},
		{"normalized_words", "go", 1},
	} {
		q := bleve.NewTermQuery(tc.term)
		q.SetField(tc.field)
		res, err := idx.Search(bleve.NewSearchRequest(q))
		if err != nil {
			t.Fatalf("search %s:%s: %v", tc.field, tc.term, err)
		}
		if res.Total != tc.want {
			t.Errorf("search %s:%q: %d hits, want %d", tc.field, tc.term, res.Total, tc.want)
		}
	}
}

// BenchmarkAnalyzers measures each registered analyzer on about 5 KB of
// mixed text, the cost bleve pays per field.
func BenchmarkAnalyzers(b *testing.B) {
	input := []byte(strings.Repeat(text+"\n", 5*1024/len(text)+1))
	cache := registry.NewCache()
	for _, name := range []string{"dedup_featurestring", "dedup_terms", "dedup_blocks", "dedup_minhash"} {
		a, err := cache.AnalyzerNamed(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			b.ReportAllocs()
			for b.Loop() {
				a.Analyze(input)
			}
		})
	}
}
