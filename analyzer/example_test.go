package analyzer_test

import (
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

func Example() {
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	original := a.Analyze([]string{"今天天气很好。我们去公园散步吧！", "It costs 3.14 dollars. Nice."})
	// A reprint: paragraphs merged, full-width and quote style changed.
	reprint := a.Analyze([]string{"今天天气很好。我们去“公园”散步吧! It costs 3.14 dollars. Ｎｉｃｅ."})
	fmt.Println(original.FeatureString())
	fmt.Println(original.FeatureString() == reprint.FeatureString())
	fmt.Printf("%+v\n", original.Structure)
	// Output:
	// 好我吧itcarsnicice
	// true
	// {Paragraphs:2 Length:1 Sentences:4}
}

func ExampleOptions() {
	// The feature-string paper's table 3-1 row "。的": cut at full stops and at 的.
	opts := analyzer.DefaultOptions()
	opts.Delimiters = "。的"
	a, err := analyzer.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", a.Analyze([]string{"我的书很好。他的也好。"}).Pieces)
	// Output:
	// ["我书" "好他" "他也" "好"]
}

func ExampleAppendNormalized() {
	fmt.Printf("%q\n", analyzer.AppendNormalized(nil, "“Ｈｅｌｌｏ”，ｶﾀｶﾅ\u200b！\n\n  Next"))
	fmt.Printf("%q\n", analyzer.AppendNormalized(nil, "臺灣的圖書館"))
	// Output:
	// "\"hello\",カタカナ!\nnext"
	// "台湾的图书馆"
}

func ExampleBands() {
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	sig := a.Analyze([]string{"Some page text to index."}).MinHash
	keys, err := analyzer.Bands(sig, 32) // 32 bands of 4 rows
	fmt.Println(len(keys), err)
	// Output:
	// 32 <nil>
}

// CharIndex names the dimensions of Features.CharFreq: GB2312's
// characters in its order, then the Latin letters.
func ExampleCharIndex() {
	for _, r := range "啊中Bz!" {
		fmt.Printf("%q %d\n", r, analyzer.CharIndex(r))
	}
	// Output:
	// '啊' 0
	// '中' 3619
	// 'B' 6764
	// 'z' 6788
	// '!' -1
}
