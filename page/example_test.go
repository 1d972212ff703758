package page_test

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/bleve-dedup/bleve-dedup/page"
)

func ExampleRead() {
	for p, err := range page.Read([]string{filepath.Join("testdata", "pages.jsonl")}, page.DefaultOptions()) {
		if errors.Is(err, page.ErrSyntax) {
			continue // count or log it
		}
		if err != nil {
			fmt.Println("skip:", err)
			continue
		}
		fmt.Println(p.ID, p.Source)
	}
	// Output:
	// j1 testdata/pages.jsonl:1
	// j1 testdata/pages.jsonl:6
	// j3 testdata/pages.jsonl:7
	// skip: page: testdata/pages.jsonl:8 (j4): empty document
}

func ExampleDecode() {
	gbk := []byte("<meta charset=gb2312><p>\xd6\xd0\xce\xc4</p>")
	d, err := page.Decode(gbk, "")
	fmt.Println(d.Text, d.Charset, d.Source, err)
	// Output: <meta charset=gb2312><p>中文</p> gb18030 meta <nil>
}
