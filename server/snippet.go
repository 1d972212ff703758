package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/highlight"
	simpleFragmenter "github.com/blevesearch/bleve/v2/search/highlight/fragmenter/simple"
	simpleHighlighter "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// Snippets: a passage of each hit's text with the query's terms marked,
// made by bleve's highlighter in a second search restricted to the page's
// hits (collapse.Searcher returns hits without them). The passage comes
// back as segments, marked or not, so the page shows it through
// textContent like everything else, never as markup.

// Segment is a piece of a snippet; Mark is set on the query's terms.
type Segment struct {
	Text string `json:"text"`
	Mark bool   `json:"mark,omitempty"`
}

// The highlighter: bleve's simple one (best-scoring fragment, overlapping
// term locations merged, so Chinese bigrams mark whole runs) with a
// formatter that brackets terms with two control characters a text field
// cannot hold once they are stripped from it.
const (
	highlighterName = "bleve-dedup-segments"
	markStart       = '\x02'
	markEnd         = '\x03'
	// snippetChars is the fragment size in characters: about 25 English
	// words, or a Chinese sentence or two.
	snippetChars = 140
)

func init() {
	err := registry.RegisterHighlighter(highlighterName, func(map[string]any, *registry.Cache) (highlight.Highlighter, error) {
		return simpleHighlighter.NewHighlighter(simpleFragmenter.NewFragmenter(snippetChars), markFormatter{}, "…"), nil
	})
	if err != nil {
		panic(err) // only a second registration of the name, a programming error
	}
}

// markFormatter formats a fragment with its terms between markStart and
// markEnd.
type markFormatter struct{}

func (markFormatter) Format(f *highlight.Fragment, locs highlight.TermLocations) string {
	var b strings.Builder
	clean := func(p []byte) {
		for _, r := range string(p) {
			if r != markStart && r != markEnd {
				b.WriteRune(r)
			}
		}
	}
	curr := f.Start
	for _, l := range locs {
		if l == nil || !l.ArrayPositions.Equals(f.ArrayPositions) || l.Start < curr {
			continue
		}
		if l.End > f.End {
			break
		}
		clean(f.Orig[curr:l.Start])
		b.WriteRune(markStart)
		clean(f.Orig[l.Start:l.End])
		b.WriteRune(markEnd)
		curr = l.End
	}
	clean(f.Orig[curr:f.End])
	return b.String()
}

// segments splits a formatted fragment into its segments.
func segments(s string) []Segment {
	var out []Segment
	mark := false
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, Segment{Text: s[start:end], Mark: mark})
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case markStart:
			flush(i)
			mark, start = true, i+1
		case markEnd:
			flush(i)
			mark, start = false, i+1
		}
	}
	flush(len(s))
	return out
}

// snippets returns the snippet of each hit of q, by id: one search of the
// hits' ids and q, with highlighting. A hit whose text has none of the
// query's terms (a query of NOT only) gets the beginning of its text.
func (s *Server) snippets(ctx context.Context, q query.Query, hits []collapse.Hit) (map[string][]Segment, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(bleve.NewDocIDQuery(ids), q), len(ids), 0, false)
	req.Highlight = bleve.NewHighlightWithStyle(highlighterName)
	req.Highlight.Fields = []string{indexer.FieldText}
	req.Fields = []string{indexer.FieldText}
	res, err := s.ix.Bleve().SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("server: snippets: %w", err)
	}
	out := make(map[string][]Segment, len(res.Hits))
	for _, h := range res.Hits {
		if fr := h.Fragments[indexer.FieldText]; len(fr) > 0 {
			out[h.ID] = trimWords(segments(fr[0]))
			continue
		}
		if text, ok := h.Fields[indexer.FieldText].(string); ok && text != "" {
			out[h.ID] = []Segment{{Text: prefix(text, snippetChars)}}
		}
	}
	return out, nil
}

// prefix is s cut to at most n characters, with "…" when cut.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// trimWords drops the pieces of words a fragment was cut through at
// either end (the fragmenter counts characters, not words), keeping the
// "…" that says text was left out. Han text has no spaces and is left
// as is.
func trimWords(segs []Segment) []Segment {
	const ellipsis, reach = "…", 16
	if len(segs) == 0 {
		return segs
	}
	if f := &segs[0]; !f.Mark && strings.HasPrefix(f.Text, ellipsis) {
		rest := f.Text[len(ellipsis):]
		if i := strings.IndexByte(rest, ' '); i > 0 && i < reach && isWordByte(rest[0]) {
			f.Text = ellipsis + rest[i:]
		}
	}
	if l := &segs[len(segs)-1]; !l.Mark && strings.HasSuffix(l.Text, ellipsis) {
		rest := l.Text[:len(l.Text)-len(ellipsis)]
		if i := strings.LastIndexByte(rest, ' '); i >= 0 && len(rest)-i < reach && len(rest) > 0 && isWordByte(rest[len(rest)-1]) {
			l.Text = rest[:i+1] + ellipsis
		}
	}
	return segs
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
