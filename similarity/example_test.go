package similarity_test

import (
	"fmt"
	"log"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// ExampleCompareFeatures explains why two texts are (not) duplicates.
func ExampleCompareFeatures() {
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	a := an.Analyze([]string{"北京今天发布暴雨预警。市民出行请注意安全。地铁部分线路将延长运营时间。"})
	b := an.Analyze([]string{"北京今天发布暴雨预警。", "市民出行请务必注意安全。地铁部分线路将延长运营时间。"})
	v := similarity.CompareFeatures(a, b, similarity.DefaultOptions())
	fmt.Printf("duplicate=%v decided by %v (%.2f), %d votes\n", v.Duplicate, v.Measure, v.Similarity, v.Votes)
	for _, s := range v.Scores {
		fmt.Printf("%-13s %6.2f %v\n", s.Measure, s.Value, s.Duplicate)
	}
	fmt.Println("shared pieces:", v.SharedPieces, "blocks:", v.SharedBlocks, "terms:", v.SharedTerms)
	fmt.Printf("each holds of the other's terms: %.2f, %.2f\n", v.InB, v.InA)
	// Output:
	// duplicate=true decided by featurestring (1.00), 4 votes
	// featurestring   1.00 true
	// minhash         0.79 true
	// blocks          0.67 true
	// boolean         0.87 true
	// jaccard         0.88 true
	// conrad          0.90 true
	// pugh           28.00 false
	// containment     0.97 true
	// charfreq        0.97 true
	// tagedit         0.00 false
	// sameurl         0.00 false
	// shared pieces: 3 blocks: 2 terms: 28
	// each holds of the other's terms: 0.97, 0.90
}
