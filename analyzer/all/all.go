// Package all registers every dedup bleve analysis component by importing
// them: the "dedup_normalize" char filter and the "dedup_featurestring",
// "dedup_terms", "dedup_blocks" and "dedup_minhash" tokenizers and
// analyzers. Import it for its side effects before building an index
// mapping that names them:
//
//	import _ "github.com/bleve-dedup/bleve-dedup/analyzer/all"
package all

import (
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/char/normalize"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/blocks"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/featurestring"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/minhash"
	_ "github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/terms"
)
