package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
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
// hits (collapse.Searcher returns hits without them), over their texts as
// the filter's store keeps them. The passage comes
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

// snippetSource is how much of a hit's text storedSnippets looks for its
// snippet in: it indexes the text again for every search page, so the
// cost of a page stays bounded whatever the pages' lengths. A hit whose
// matches all lie past it gets the beginning of its text.
const snippetSource = 64 << 10

// snippets returns the snippet of each hit of q, by id: one search of
// the hits' ids and q, with highlighting. The highlighter needs each hit's
// text and its terms' positions: when the search index stores them (the
// text field stored, with term vectors: indexes made before
// indexer.NewMapping stopped storing the text) the search runs there;
// otherwise over the hits' texts as the filter's store keeps them (see
// storedSnippets). A hit whose text has
// none of the query's terms (a query of NOT only) gets the beginning of
// its text.
func (s *Server) snippets(ctx context.Context, q query.Query, hits []collapse.Hit) (map[string][]Segment, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	if s.snippetMapping != nil {
		return s.storedSnippets(ctx, q, hits)
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

// storedSnippets is snippets for a search index that does not keep the
// text or its term vectors: the hits' texts come from the filter's store
// (the payload /api/doc shows), are indexed in a small index in memory
// with the search index's analysers, the text stored with its term
// vectors, and q runs there. It costs more (BenchmarkSnippets: about
// 20 ms a page of the test pages' hits, against 0.6 ms when the index
// keeps the text), and looks only at the first snippetSource bytes of each
// text.
func (s *Server) storedSnippets(ctx context.Context, q query.Query, hits []collapse.Hit) (map[string][]Segment, error) {
	mem, err := bleve.NewMemOnly(s.snippetMapping)
	if err != nil {
		return nil, fmt.Errorf("server: snippets: %w", err)
	}
	defer mem.Close()
	b := mem.NewBatch()
	texts := make(map[string]string, len(hits))
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		e, err := s.ix.Doc(h.ID)
		if err != nil || len(e.Payload) == 0 {
			continue // removed since the search, or stored by another shard: no snippet
		}
		body := map[string]any{}
		if err := json.Unmarshal(e.Payload, &body); err != nil {
			return nil, fmt.Errorf("server: snippets: document %q: stored payload: %w", h.ID, err)
		}
		text, _ := body[indexer.FieldText].(string)
		if len(text) > snippetSource {
			text = strings.ToValidUTF8(text[:snippetSource], "")
			body[indexer.FieldText] = text
		}
		body[indexer.FieldCluster] = e.Cluster
		if err := b.Index(h.ID, body); err != nil {
			return nil, fmt.Errorf("server: snippets: %w", err)
		}
		texts[h.ID] = text
		ids = append(ids, h.ID)
	}
	if err := mem.Batch(b); err != nil {
		return nil, fmt.Errorf("server: snippets: %w", err)
	}
	out := make(map[string][]Segment, len(ids))
	if len(ids) > 0 {
		req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(bleve.NewDocIDQuery(ids), q), len(ids), 0, false)
		req.Highlight = bleve.NewHighlightWithStyle(highlighterName)
		req.Highlight.Fields = []string{indexer.FieldText}
		res, err := mem.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("server: snippets: %w", err)
		}
		for _, h := range res.Hits {
			if fr := h.Fragments[indexer.FieldText]; len(fr) > 0 {
				out[h.ID] = trimWords(segments(fr[0]))
			}
		}
	}
	for id, text := range texts {
		if _, ok := out[id]; !ok && text != "" {
			out[id] = []Segment{{Text: prefix(text, snippetChars)}}
		}
	}
	return out, nil
}

// snippetMapping is nil when m (the search index's mapping) stores the
// text field with its term vectors, which is what the highlighter reads;
// otherwise m (indexer.NewMapping when m is nil) with the text fields
// stored and their term vectors kept, for storedSnippets.
func snippetMapping(m mapping.IndexMapping) (*mapping.IndexMappingImpl, error) {
	if keepsText(m) {
		return nil, nil
	}
	out := indexer.NewMapping()
	if m != nil {
		j, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("server: the index mapping: %w", err)
		}
		out = bleve.NewIndexMapping()
		if err := json.Unmarshal(j, out); err != nil {
			return nil, fmt.Errorf("server: the index mapping: %w", err)
		}
	}
	for _, name := range indexer.TextFields() {
		p := out.DefaultMapping.Properties[name]
		if p == nil || len(p.Fields) == 0 {
			f := bleve.NewTextFieldMapping()
			f.Analyzer = out.DefaultAnalyzer
			out.DefaultMapping.AddFieldMappingsAt(name, f)
			continue
		}
		for _, f := range p.Fields {
			f.Store, f.IncludeTermVectors = true, true
		}
	}
	return out, nil
}

// keepsText reports whether m stores the text field with its term
// vectors.
func keepsText(m mapping.IndexMapping) bool {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok || im.DefaultMapping == nil || len(im.TypeMapping) > 0 {
		return false
	}
	p := im.DefaultMapping.Properties[indexer.FieldText]
	if p == nil || len(p.Fields) == 0 {
		return false
	}
	for _, f := range p.Fields {
		if !f.Store || !f.IncludeTermVectors {
			return false
		}
	}
	return true
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
