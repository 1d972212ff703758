package collapse

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// restricted is a query's matches among a filter's, scored as the query
// alone scores them: the inner-hit pass searches a query within the
// page's groups with it. bleve's Boolean filter tests every match of the
// query, so that pass cost a whole search; its conjunction leapfrogs, but
// normalises its clauses' scores anew. Here the filter, a few documents,
// leads and the query only advances to them.
type restricted struct {
	query, filter query.Query
}

func (q restricted) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	main, err := q.query.Searcher(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	filter, err := q.filter.Searcher(ctx, i, m, search.SearcherOptions{Score: "none"})
	if err != nil {
		main.Close()
		return nil, err
	}
	return &restrictedSearcher{main: main, filter: filter}, nil
}

// restrictedSearcher is restricted's searcher: the matches of main at the
// documents of filter, in order.
type restrictedSearcher struct {
	main, filter search.Searcher
	last         index.IndexInternalID // of the match returned before
}

func (s *restrictedSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	var f *search.DocumentMatch
	var err error
	if s.last == nil {
		f, err = s.filter.Next(ctx)
	} else {
		f, err = s.filter.Advance(ctx, s.last)
		if err == nil && f != nil && f.IndexInternalID.Equals(s.last) {
			ctx.DocumentMatchPool.Put(f)
			f, err = s.filter.Next(ctx)
		}
	}
	return s.from(ctx, f, err)
}

func (s *restrictedSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	f, err := s.filter.Advance(ctx, id)
	return s.from(ctx, f, err)
}

// from returns the first match of main at or after the filter's document
// f, both searchers advancing in turn until they meet.
func (s *restrictedSearcher) from(ctx *search.SearchContext, f *search.DocumentMatch, err error) (*search.DocumentMatch, error) {
	for err == nil && f != nil {
		var d *search.DocumentMatch
		d, err = s.main.Advance(ctx, f.IndexInternalID)
		if err != nil || d == nil {
			ctx.DocumentMatchPool.Put(f)
			return nil, err
		}
		if d.IndexInternalID.Equals(f.IndexInternalID) {
			ctx.DocumentMatchPool.Put(f)
			s.last = append(s.last[:0], d.IndexInternalID...)
			return d, nil
		}
		ctx.DocumentMatchPool.Put(f)
		next := d.IndexInternalID
		f, err = s.filter.Advance(ctx, next)
		if err == nil && f != nil && f.IndexInternalID.Equals(next) {
			s.last = append(s.last[:0], d.IndexInternalID...)
			ctx.DocumentMatchPool.Put(f)
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
	}
	return nil, err
}

func (s *restrictedSearcher) Close() error {
	err := s.main.Close()
	if ferr := s.filter.Close(); err == nil {
		err = ferr
	}
	return err
}

func (s *restrictedSearcher) Weight() float64        { return s.main.Weight() }
func (s *restrictedSearcher) SetQueryNorm(n float64) { s.main.SetQueryNorm(n) }
func (s *restrictedSearcher) Count() uint64          { return min(s.main.Count(), s.filter.Count()) }
func (s *restrictedSearcher) Min() int               { return 0 }
func (s *restrictedSearcher) Size() int              { return s.main.Size() + s.filter.Size() }
func (s *restrictedSearcher) DocumentMatchPoolSize() int {
	return s.main.DocumentMatchPoolSize() + s.filter.DocumentMatchPoolSize() + 1
}
