package boolquery

import "github.com/blevesearch/bleve/v2/search/query"

// spread gives every clause of a parsed bleve query string that names no
// field the fields given, as a disjunction of one copy per field, so that
// "+bees -rooftop" requires bees in some field and rooftop in none. bleve
// would search the mapping's single default field instead. It rewrites
// the tree in place: bleve's boolean query carries an unexported
// query-string flag that a rebuilt one would lose.
func spread(q query.Query, fields []string) query.Query {
	switch q := q.(type) {
	case *query.BooleanQuery:
		q.Must = spread(q.Must, fields)
		q.Should = spread(q.Should, fields)
		q.MustNot = spread(q.MustNot, fields)
		q.Filter = spread(q.Filter, fields)
	case *query.ConjunctionQuery:
		for i, c := range q.Conjuncts {
			q.Conjuncts[i] = spread(c, fields)
		}
	case *query.DisjunctionQuery:
		for i, c := range q.Disjuncts {
			q.Disjuncts[i] = spread(c, fields)
		}
	case *query.MatchQuery:
		return copies(q, fields)
	case *query.MatchPhraseQuery:
		return copies(q, fields)
	case *query.RegexpQuery:
		return copies(q, fields)
	case *query.WildcardQuery:
		return copies(q, fields)
	}
	return q // ranges apply to numeric and date fields; nil stays nil
}

// copies returns q for each of fields when q names none.
func copies[T any, P interface {
	*T
	query.FieldableQuery
}](q P, fields []string) query.Query {
	if q.Field() != "" {
		return q
	}
	return perField("", fields, func(f string) query.Query {
		c := P(new(T))
		*c = *q
		c.SetField(f)
		return c
	})
}
