package dedupfilter_test

import (
	"fmt"
	"log"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

func Example() {
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	opts := dedupfilter.DefaultOptions("")
	opts.InMemory = true // a real indexer passes a directory
	f, err := dedupfilter.Open(opts)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	article := []string{
		"The city council approved the new budget on Tuesday after a long debate. Spending on parks rises by ten percent.",
		"Opponents said the plan ignores rising rents. The mayor promised a housing review before the summer recess.",
		"The budget takes effect in January. Officials expect the first park projects to begin in the spring.",
	}
	reprint := append([]string{"Reprinted from City News."}, article...)

	for _, d := range []dedupfilter.Doc{
		{ID: "citynews/1", Features: an.Analyze(article), Payload: []byte(`{"title":"Budget approved"}`)},
		{ID: "aggregator/77", Features: an.Analyze(reprint), Payload: []byte(`{"title":"Council budget"}`)},
	} {
		dec, err := f.Add(d)
		if err != nil {
			log.Fatal(err)
		}
		// Apply dec.Ops to the search index here, then confirm them.
		if err := f.Applied(dec.Ops...); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: duplicate=%v of=%q action=%v\n", d.ID, dec.Duplicate, dec.Of, dec.Action)
	}
	c, err := f.ClusterOf("aggregator/77")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("representative:", c.Representative, "members:", c.Members)
	// Output:
	// citynews/1: duplicate=false of="" action=index
	// aggregator/77: duplicate=true of="citynews/1" action=skip
	// representative: citynews/1 members: [aggregator/77 citynews/1]
}

// ExampleCompare explains why two texts are (not) duplicates.
func ExampleCompare() {
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	a := an.Analyze([]string{"北京今天发布暴雨预警。市民出行请注意安全。地铁部分线路将延长运营时间。"})
	b := an.Analyze([]string{"北京今天发布暴雨预警。", "市民出行请务必注意安全。地铁部分线路将延长运营时间。"})
	v := dedupfilter.Compare(a, b, dedupfilter.DefaultOptions(""))
	fmt.Printf("duplicate=%v decided by %v (%.2f), %d votes\n", v.Duplicate, v.Measure, v.Similarity, v.Votes)
	for _, s := range v.Scores {
		fmt.Printf("%-13s %6.2f %v\n", s.Measure, s.Value, s.Duplicate)
	}
	fmt.Println("shared pieces:", v.SharedPieces, "blocks:", v.SharedBlocks, "terms:", v.SharedTerms)
	// Output:
	// duplicate=true decided by featurestring (1.00), 6 votes
	// featurestring   1.00 true
	// minhash         0.79 true
	// blocks          0.67 true
	// boolean         0.87 true
	// jaccard         0.88 true
	// conrad          0.90 true
	// pugh           28.00 false
	// charfreq        0.97 true
	// tagedit         0.00 false
	// sameurl         0.00 false
	// shared pieces: 3 blocks: 2 terms: 28
}
