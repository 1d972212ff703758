package docbody

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"

	"github.com/bleve-dedup/bleve-dedup/analyzer/tokenfilter/cjkchain"
	"github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/unicodewords"
)

// faster returns an analyzer giving exactly a's tokens in less time, or a
// itself when it has no faster form: package unicodewords' tokenizer in
// place of bleve's unicode tokenizer (the "standard" and "cjk"
// analyzers), and package cjkchain's filter in place of the "cjk"
// analyzer's filters (width, lower case, bigrams without unigrams). At
// 100,000 pages bleve's analysis was a fifth of a run's CPU, two thirds
// of it in those three filters and the tokenizer. The result is made once
// for each analyzer.
func faster(a analysis.Analyzer) analysis.Analyzer {
	d, ok := a.(*analysis.DefaultAnalyzer)
	if !ok {
		return a
	}
	if f, ok := fasterOf.Load(d); ok {
		return f.(analysis.Analyzer)
	}
	f, changed := *d, false
	if _, ok := d.Tokenizer.(*unicode.UnicodeTokenizer); ok {
		f.Tokenizer, changed = unicodewords.New(), true
	}
	if isCJKChain(d.TokenFilters) {
		f.TokenFilters, changed = []analysis.TokenFilter{cjkchain.New()}, true
	}
	var out analysis.Analyzer = d
	if changed {
		out = &f
	}
	got, _ := fasterOf.LoadOrStore(d, out)
	return got.(analysis.Analyzer)
}

// fasterOf maps the analyzers faster has seen to their faster forms. A
// program holds few (one per mapping analyzer), for its lifetime.
var fasterOf sync.Map

// isCJKChain reports whether fs are the filters package cjkchain stands
// for: cjk_width, to_lower and cjk_bigram without unigrams, in turn.
func isCJKChain(fs []analysis.TokenFilter) bool {
	if len(fs) != 3 {
		return false
	}
	_, width := fs[0].(*cjk.CJKWidthFilter)
	_, lower := fs[1].(*lowercase.LowerCaseFilter)
	bigram, ok := fs[2].(*cjk.CJKBigramFilter)
	if !width || !lower || !ok {
		return false
	}
	// Two touching characters: one bigram, or with unigrams three tokens
	// (the setting is not exported).
	probe := analysis.TokenStream{
		{Term: []byte("中"), Start: 0, End: 3, Position: 1, Type: analysis.Ideographic},
		{Term: []byte("文"), Start: 3, End: 6, Position: 2, Type: analysis.Ideographic},
	}
	return len(bigram.Filter(probe)) == 1
}
