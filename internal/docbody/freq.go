package docbody

import (
	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// frequencies returns what analysis.TokenFrequency returns for tokens, in
// a few allocations where bleve's makes one or more a term: the terms'
// records come from a few arrays and their locations from one, each
// term's list cut to size once its occurrences are counted.
func frequencies(tokens analysis.TokenStream, arrayPositions []uint64, options index.FieldIndexingOptions) index.TokenFrequencies {
	freqs := make(index.TokenFrequencies, len(tokens)/2)
	of := make([]*index.TokenFreq, len(tokens)) // each token's term
	var recs []index.TokenFreq
	for i, tok := range tokens {
		tf := freqs[string(tok.Term)]
		if tf == nil {
			if len(recs) == cap(recs) { // (a new array: the records handed out keep theirs)
				recs = make([]index.TokenFreq, 0, max(16, len(tokens)/2-len(freqs)))
			}
			recs = append(recs, index.TokenFreq{Term: tok.Term})
			tf = &recs[len(recs)-1]
			freqs[string(tok.Term)] = tf
		}
		tf.SetFrequency(tf.Frequency() + 1) // (the count, for the locations' lists)
		of[i] = tf
	}
	if options.IncludeTermVectors() {
		locs := make([]index.TokenLocation, len(tokens))
		ptrs := make([]*index.TokenLocation, len(tokens))
		at := 0
		for i, tok := range tokens {
			tf := of[i]
			if tf.Locations == nil {
				n := tf.Frequency()
				tf.Locations, at = ptrs[at:at:at+n], at+n
			}
			locs[i] = index.TokenLocation{ArrayPositions: arrayPositions, Start: tok.Start, End: tok.End, Position: tok.Position}
			tf.Locations = append(tf.Locations, &locs[i])
		}
	}
	if options.SkipFreqNorm() {
		for _, tf := range freqs {
			tf.SetFrequency(0)
		}
	}
	return freqs
}
