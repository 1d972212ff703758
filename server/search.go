package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bleve-dedup/bleve-dedup/api"
	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/snippet"
)

// Sort orders of /api/search.
const (
	sortRelevance = "relevance"
	sortNewest    = "newest"
	sortOldest    = "oldest"
)

// searchResponse is the body of /api/search.
type searchResponse struct {
	Query         string `json:"query"`
	Syntax        string `json:"syntax"`
	Collapse      bool   `json:"collapse"`
	Sort          string `json:"sort"`
	From          int    `json:"from"`
	Size          int    `json:"size"`
	Total         uint64 `json:"total"`
	Clusters      int    `json:"clusters"`
	ClustersExact bool   `json:"clusters_exact"`
	// CollapseField and FoldCopies are the search's grouping by a field
	// (collapse.Request), Groups its number of groups (exact).
	CollapseField string  `json:"collapse_field,omitempty"`
	FoldCopies    bool    `json:"fold_copies,omitempty"`
	Groups        int     `json:"groups,omitempty"`
	TookMS        float64 `json:"took_ms"`
	Hits          []hit   `json:"hits"`
	// Facets, with facets=true or facet_field: counts by facet name;
	// Filters the facet values the search was narrowed to.
	Facets  map[string]facet `json:"facets,omitempty"`
	Filters selection        `json:"filters"`
	// Parsed, for the boolean syntax, is the query as the parser read
	// it, every group in parentheses: a search that finds nothing often
	// grouped otherwise than its writer meant, or took a lower-case
	// "and" for a word.
	Parsed string `json:"parsed,omitempty"`
	// ShardErrors names the shards on other machines that did not
	// answer, and why: the result is the other shards'. Notice says
	// what the search left out.
	ShardErrors map[string]string `json:"shard_errors,omitempty"`
	Notice      string            `json:"notice,omitempty"`
}

// hit is a search hit with its snippet and what the catalog knows of it.
type hit struct {
	api.Hit
	Snippet     []snippet.Segment `json:"snippet"`
	Site        string            `json:"site"`
	Lang        string            `json:"lang"`
	Date        time.Time         `json:"date"`
	ClusterSize int               `json:"cluster_size"`
	// CopyTitle, for a hit without a title, is the title of a folded
	// copy that has one.
	CopyTitle string `json:"copy_title,omitempty"`
}

// search serves GET /api/search?q=QUERY[&syntax=boolean|querystring]
// [&collapse=true][&from=0][&size=10][&sort=relevance|newest|oldest]
// [&facets=true][&expand=FACET][&site=HOST][&lang=LANG][&cluster_size=BUCKET]
// [&date=YYYY-MM][&collapse_field=FIELD][&fold_copies=true][&inner_size=N]
// [&inner_sort=SORT][&facet_field=FIELD].
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	qs, err := stringParam(r, "q")
	if err != nil {
		return err
	}
	p := r.URL.Query()
	syntax := boolquery.Boolean
	if v := p.Get("syntax"); v != "" {
		if syntax, err = boolquery.ParseSyntax(v); err != nil {
			return badRequest("parameter syntax: want boolean or querystring, got %q", v)
		}
	}
	fold, err := boolParam(r, "collapse", true)
	if err != nil {
		return err
	}
	withFacets, err := boolParam(r, "facets", false)
	if err != nil {
		return err
	}
	field := p.Get("collapse_field")
	foldCopies, err := boolParam(r, "fold_copies", false)
	if err != nil {
		return err
	}
	innerSize, err := intParam(r, "inner_size", 0, 0, collapse.MaxInner)
	if err != nil {
		return err
	}
	if !fold && (field != "" || foldCopies || innerSize > 0) {
		return badRequest("parameters collapse_field, fold_copies and inner_size need collapse=true")
	}
	facetFields := p["facet_field"]
	for _, f := range facetFields {
		if f == "" || slices.Contains(facetNames, f) {
			return badRequest("parameter facet_field: want an index field other than %s, got %q", strings.Join(facetNames, ", "), f)
		}
	}
	expand, err := parseExpand(p, facetFields)
	if err != nil {
		return err
	}
	order := p.Get("sort")
	switch order {
	case "":
		order = sortRelevance
	case sortRelevance, sortNewest, sortOldest:
	default:
		return badRequest("parameter sort: want relevance, newest or oldest, got %q", order)
	}
	size, err := intParam(r, "size", collapse.DefaultSize, 1, s.opts.MaxPageSize)
	if err != nil {
		return err
	}
	from, err := intParam(r, "from", 0, 0, collapse.MaxWindow-size)
	if err != nil {
		return err
	}
	bounded, err := s.opts.CheckQuery(r.Context(), qs)
	if err != nil {
		return badRequest("parameter q: %d bytes, longer than %d", len(qs), s.opts.MaxQueryLen)
	}
	q, err := boolquery.Query(qs, boolquery.Options{Fields: s.ix.SearchFields(), Syntax: syntax})
	if err != nil {
		he := &httpError{status: http.StatusBadRequest, msg: err.Error()}
		if se, ok := errors.AsType[*boolquery.SyntaxError](err); ok {
			he.extra = map[string]any{"pos": se.Pos, "expected": se.Expected, "found": se.Found}
		}
		return he
	}
	ctx, cancel := context.WithTimeout(bounded, s.opts.SearchTimeout)
	defer cancel()
	start := time.Now()
	sel := parseSelection(p)
	req := collapse.Request{Query: q, From: from, Size: size, Collapse: fold, Field: field, FoldCopies: foldCopies,
		Inner: collapse.Inner{Size: innerSize, Sort: p.Get("inner_sort")}, Facets: searchFacets(withFacets, facetFields)}
	if field != "" {
		req.ClusterBound = -1 // groups counted exactly, as the Go API's
	}
	var cat *catalog
	if withFacets || order != sortRelevance || len(sel) > 0 {
		if cat, err = s.catalog(ctx, true); err != nil {
			return err
		}
		req.Visit = func(m *collapse.Match) bool {
			vals := s.values(cat, m)
			if !sel.passes(vals) {
				return false
			}
			// The catalog's facets come first (searchFacets); the
			// inner-hit pass counts none.
			if withFacets && len(m.Values) >= len(vals) {
				copy(m.Values, vals[:])
			}
			if order != sortRelevance {
				m.Score = dateScore(s.info(cat, m.ID).time, order == sortNewest)
			}
			return true
		}
	}
	res, err := s.searcher.Search(ctx, req)
	var notice string
	if errors.Is(err, collapse.ErrNotSent) && withFacets && len(sel) == 0 && order == sortRelevance {
		// Shards on other machines count no facets of the catalog's:
		// answer without them, saying so.
		req.Visit, req.Facets = nil, searchFacets(false, facetFields)
		res, err = s.searcher.Search(ctx, req)
		notice = "facets of site, language and date are not counted over shards on other machines (serve --remote)"
	}
	if errors.Is(err, collapse.ErrNotSent) {
		return badRequest("%v: filters, date order and facets of site, language and date are searched only over shards in this process, not over serve --remote ones", err)
	}
	if err != nil {
		return searchError(err, s.opts.MaxQueryTerms)
	}
	var snips map[string][]snippet.Segment
	if s.opts.Snippets {
		if snips, err = s.snippets(q, res.Hits); err != nil {
			return err
		}
	}
	if cat == nil && len(res.Hits) > 0 {
		if cat, err = s.catalog(ctx, false); err != nil {
			return err
		}
	}
	hits := make([]hit, len(res.Hits))
	for i, h := range res.Hits {
		d := s.info(cat, h.ID)
		hits[i] = hit{Hit: h, Snippet: snips[h.ID], Site: d.site, Lang: d.lang, Date: d.time,
			ClusterSize: s.clusterSize(cat, h.Cluster)}
		if h.Title == "" {
			for _, m := range h.Members {
				if m.Title != "" {
					hits[i].CopyTitle = m.Title
					break
				}
			}
		}
	}
	out := searchResponse{
		Query: qs, Syntax: syntax.String(), Collapse: fold, Sort: order, From: from, Size: size,
		Total: res.Total, Clusters: res.Clusters, ClustersExact: res.ClustersExact,
		CollapseField: field, FoldCopies: foldCopies, Groups: res.Groups,
		TookMS: float64(time.Since(start).Microseconds()) / 1000, Hits: hits, Filters: sel,
		ShardErrors: res.ShardErrors, Notice: notice,
	}
	if res.Facets != nil {
		out.Facets = facets(res.Facets, expand, field == "", facetFields)
	}
	if syntax == boolquery.Boolean {
		if n, err := boolquery.Parse(qs); err == nil { // it parsed above
			out.Parsed = parsedQuery(n)
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// parsedQuery renders n with every group inside another in parentheses
// (n.String() leaves them out where precedence alone groups), so that
// the reader sees how the parser grouped the query: NOT before AND
// before OR.
func parsedQuery(n boolquery.Node) string {
	switch n := n.(type) {
	case boolquery.And:
		return joinParsed(n, " AND ")
	case boolquery.Or:
		return joinParsed(n, " OR ")
	case boolquery.Not:
		return "NOT " + groupParsed(n.X)
	}
	return n.String()
}

func joinParsed(xs []boolquery.Node, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = groupParsed(x)
	}
	return strings.Join(parts, sep)
}

func groupParsed(x boolquery.Node) string {
	switch x.(type) {
	case boolquery.And, boolquery.Or:
		return "(" + parsedQuery(x) + ")"
	}
	return parsedQuery(x)
}

// dateScore ranks by time, the newest highest (the oldest with newest
// false), to the microsecond; a document without a time comes last.
func dateScore(t time.Time, newest bool) float64 {
	switch {
	case t.IsZero():
		return -1 << 62
	case newest:
		return float64(t.UnixMicro())
	}
	return -float64(t.UnixMicro())
}

// boolParam parses the boolean parameter name, def when absent.
func boolParam(r *http.Request, name string, def bool) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("parameter %s: want true or false, got %q", name, v)
	}
	return b, nil
}

// searchError is the answer to a search that failed: the request's
// fault, a timeout, or the server's.
func searchError(err error, maxTerms int) error {
	switch {
	case errors.Is(err, collapse.ErrInvalidRequest):
		return badRequest("%v", err)
	case errors.Is(err, context.DeadlineExceeded):
		return &httpError{status: http.StatusServiceUnavailable, msg: "search timed out"}
	case tooManyTerms(err):
		return badRequest("query opens more than %d term searchers: use fewer terms, or wildcards that match fewer words", maxTerms)
	}
	return err
}
