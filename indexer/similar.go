package indexer

import (
	"context"
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// SimilarRequest asks for the documents most similar to one page: a
// document of the index (ID) or a text (Paragraphs), not both.
type SimilarRequest struct {
	// ID is a document the index holds; it is left out of the answer.
	ID string
	// Paragraphs are a page's main text, for a page the index need not
	// hold; URL is its address (optional: the SameURL measure's).
	Paragraphs []string
	URL        string
	// K is how many documents to return (0: dedupfilter.DefaultSimilarK,
	// 10), and Candidates how many to compare at most (0:
	// dedupfilter.DefaultSimilarCandidates): see dedupfilter.SimilarOptions.
	K, Candidates int
}

// Similar returns the documents most similar to r's page, copies first,
// each with the filter's evidence and its grade (dedupfilter.GradeCopy,
// GradeRewritten, GradeRelated): see dedupfilter.Filter.SimilarTo. It
// reads the store's posting lists of the page's features, not the bleve
// index: a bounded number of reads whatever the index's size; a document
// suppressed from bleve as a copy is found too (Entry.Indexed false). Over an Alias
// it reads the store the shards share. A text is analysed as the index
// analyses its documents, within Options.MaxTextBytes, without its
// site's template text left out.
//
// An ID the index does not hold is dedupfilter.ErrNotFound; a request
// with neither or both of ID and Paragraphs, or with a text of no
// features, ErrInvalidDocument; K or Candidates out of range,
// ErrInvalidOptions, as is a query of an index built with
// Options.NoDedup, which keeps no features.
func (w *Index) Similar(ctx context.Context, r SimilarRequest) ([]dedupfilter.Similar, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("indexer: similar: %w", err)
	}
	if w.ix.noDedup {
		return nil, fmt.Errorf("indexer: similar: an index without the filter keeps no features: %w", ErrInvalidOptions)
	}
	o := dedupfilter.SimilarOptions{K: r.K, Candidates: r.Candidates}
	switch {
	case (r.ID == "") == (len(r.Paragraphs) == 0):
		return nil, fmt.Errorf("indexer: similar: want a document id or a text, not both or neither: %w", ErrInvalidDocument)
	case r.ID != "":
		return w.ix.filter.SimilarTo(r.ID, o)
	}
	paras, _ := capText(r.Paragraphs, w.ix.maxText)
	feat := w.ix.analyzer.Analyze(paras)
	if len(feat.Terms) == 0 {
		return nil, fmt.Errorf("indexer: similar: the text has no words: %w", ErrInvalidDocument)
	}
	return w.ix.filter.SimilarToFeatures(feat, r.URL, o)
}
