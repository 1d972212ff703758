package canon_test

import (
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/canon"
)

func ExampleURL() {
	for _, ref := range []string{
		"HTTP://Example.COM:80/a/./b/?z=1&utm_source=news&a=2#part",
		"http://example.com/news/index.html?utm_medium=rss",
	} {
		u, _ := canon.URL(nil, ref, nil)
		fmt.Println(u)
	}
	// Output:
	// http://example.com/a/b/?a=2&z=1
	// http://example.com/news/
}
