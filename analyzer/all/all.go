// Package all registers every bleve analysis component an index of
// bleve-dedup names, by importing them: the "dedup_normalize" char filter,
// the "dedup_featurestring", "dedup_terms", "dedup_blocks",
// "dedup_minhash" and "dedup_unicode" tokenizers and analyzers, the
// "dedup_cjk_chain" token filter, and bleve's "cjk" analyzer, which
// indexer.NewMapping gives the title and text fields. Import it for
// its side effects before opening an index of bleve-dedup with plain
// bleve (bleve.Open(DIR + "/bleve")) or building a mapping that names
// them:
//
//	import _ "github.com/bleve-dedup/bleve-dedup/analyzer/all"
package all

import (
	_ "github.com/blevesearch/bleve/v2/analysis/lang/cjk"

	_ "github.com/bleve-dedup/bleve-dedup/analyzer/char/normalize"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenfilter/cjkchain"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/blocks"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/featurestring"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/minhash"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/terms"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/unicodewords"
)
