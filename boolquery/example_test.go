package boolquery_test

import (
	"errors"
	"fmt"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
)

func ExampleParse() {
	n, err := boolquery.Parse("雪花 NOT 啤酒 AND 歌曲 OR 小说")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n)

	_, err = boolquery.Parse("(university OR college) AND )")
	fmt.Println(err, errors.Is(err, boolquery.ErrSyntax))
	// Output:
	// 雪花 AND NOT 啤酒 AND 歌曲 OR 小说
	// boolquery: at 28: expected term or "(", found ")" true
}

func ExampleQuery() {
	zh := bleve.NewTextFieldMapping()
	zh.Analyzer = cjk.AnalyzerName
	m := bleve.NewIndexMapping()
	m.DefaultMapping.AddFieldMappingsAt("title", zh)
	m.DefaultMapping.AddFieldMappingsAt("text", zh)
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer idx.Close()
	for id, d := range map[string]map[string]string{
		"beer":  {"title": "雪花啤酒", "text": "广告歌曲"},
		"song":  {"title": "雪花", "text": "一首歌曲"},
		"novel": {"title": "武侠小说", "text": "金庸"},
		"snow":  {"title": "雪花", "text": "冬天"},
	} {
		if err := idx.Index(id, d); err != nil {
			fmt.Println(err)
			return
		}
	}

	// A term without "field:" may match in title or in text.
	q, err := boolquery.Query("雪花 NOT 啤酒 AND 歌曲 OR 小说",
		boolquery.Options{Fields: []string{"title", "text"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := idx.Search(bleve.NewSearchRequest(q))
	if err != nil {
		fmt.Println(err)
		return
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	sort.Strings(ids)
	fmt.Println(ids)
	// Output:
	// [novel song]
}
