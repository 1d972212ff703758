package server

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// Snippets: a passage of each hit's text with the query's terms marked.
// The texts come from the filter's store (the payload /api/doc shows:
// the default mapping does not store them in bleve), and the terms are
// found in them directly: the query's words and phrases are analysed as
// bleve analyses them for the field, and each token is looked for in the
// lower-cased text, on word boundaries for letters and digits. The
// analysers this package's indexes use (cjk, standard, simple) lower-case
// words and cut Han text into bigrams without stemming, so a token as
// analysed is a piece of the text as written; a stemming analyser's
// stems still match the words they begin. Nothing is indexed per request
// (an index in memory made for every page cost 44-65 ms a page on the
// development pages, against 0.4 ms without snippets).
//
// The passage comes back as segments, marked or not, so the page shows
// it through textContent like everything else, never as markup.

// Segment is a piece of a snippet; Mark is set on the query's terms.
type Segment struct {
	Text string `json:"text"`
	Mark bool   `json:"mark,omitempty"`
}

const (
	// snippetChars is the passage's length in characters: about 25
	// English words, or a Chinese sentence or two.
	snippetChars = 140
	// snippetLead is how much text a passage shows before its first
	// mark, in characters.
	snippetLead = 30
	// snippetSource is how much of a hit's text is searched for its
	// terms, so the cost of a page stays bounded whatever the pages'
	// lengths. A hit whose matches all lie past it gets the beginning of
	// its text.
	snippetSource = 64 << 10
	// maxOccurrences caps the places of one term looked at in a text.
	maxOccurrences = 256
)

// snippetTerm is a token to mark: the whole word, or with prefix, any
// word it begins (a prefix or wildcard query's).
type snippetTerm struct {
	text   string
	prefix bool
}

// queryTerms returns the tokens of q's positive clauses (not those under
// a NOT) on the text fields, analysed as m analyses each field.
func queryTerms(q query.Query, m mapping.IndexMapping) []snippetTerm {
	var out []snippetTerm
	seen := map[snippetTerm]bool{}
	add := func(t snippetTerm) {
		if t.text != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	analyse := func(field, analyzer, text string) {
		if !textField(field) {
			return
		}
		if analyzer == "" {
			if field == "" {
				field = m.DefaultSearchField()
			}
			analyzer = m.AnalyzerNameForPath(field)
		}
		a := m.AnalyzerNamed(analyzer)
		if a == nil {
			add(snippetTerm{text: strings.ToLower(text)})
			return
		}
		for _, tok := range a.Analyze([]byte(text)) {
			add(snippetTerm{text: string(tok.Term)})
		}
	}
	var walk func(q query.Query)
	walk = func(q query.Query) {
		switch q := q.(type) {
		case *query.BooleanQuery:
			walk(q.Must)
			walk(q.Should)
			walk(q.Filter)
		case *query.ConjunctionQuery:
			for _, c := range q.Conjuncts {
				walk(c)
			}
		case *query.DisjunctionQuery:
			for _, c := range q.Disjuncts {
				walk(c)
			}
		case *query.QueryStringQuery:
			if p, err := q.Parse(); err == nil {
				walk(p)
			}
		case *query.MatchQuery:
			analyse(q.FieldVal, q.Analyzer, q.Match)
		case *query.MatchPhraseQuery:
			analyse(q.FieldVal, q.Analyzer, q.MatchPhrase)
		case *query.TermQuery:
			if textField(q.FieldVal) {
				add(snippetTerm{text: q.Term})
			}
		case *query.PhraseQuery:
			if textField(q.FieldVal) {
				for _, t := range q.Terms {
					add(snippetTerm{text: t})
				}
			}
		case *query.PrefixQuery:
			if textField(q.FieldVal) {
				add(snippetTerm{text: q.Prefix, prefix: true})
			}
		case *query.WildcardQuery:
			// The literal text before the first wildcard character.
			if i := strings.IndexAny(q.Wildcard, "*?"); i > 0 && textField(q.FieldVal) {
				add(snippetTerm{text: q.Wildcard[:i], prefix: true})
			}
		case *query.FuzzyQuery:
			if textField(q.FieldVal) {
				add(snippetTerm{text: q.Term})
			}
		}
	}
	walk(q)
	return out
}

// textField reports whether a query on field searches the text: the
// default field ("", _all) or one of the indexer's text fields.
func textField(field string) bool {
	return field == "" || field == "_all" || slices.Contains(indexer.TextFields(), field)
}

// span is a marked byte range of a text.
type span struct{ start, end, term int }

// findTerms returns where terms occur in text, sorted, overlapping and
// touching ranges merged (so the bigrams of a Chinese word mark it
// whole); each span keeps the lowest term index it covers.
func findTerms(text string, terms []snippetTerm) []span {
	lower := lowerSameLength(text, terms)
	var spans []span
	for ti, t := range terms {
		wordy := isWordRune(firstRune(t.text))
		found := 0
		for at := 0; found < maxOccurrences; {
			i := strings.Index(lower[at:], t.text)
			if i < 0 {
				break
			}
			start, end := at+i, at+i+len(t.text)
			at = end
			if wordy && (wordBefore(lower, start) || (!t.prefix && wordAfter(lower, end))) {
				continue
			}
			if t.prefix {
				for end < len(lower) {
					r, w := utf8.DecodeRuneInString(lower[end:])
					if !isWordRune(r) {
						break
					}
					end += w
				}
			}
			spans = append(spans, span{start, end, ti})
			found++
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			merged[n-1].term = min(merged[n-1].term, s.term)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// lowerSameLength is text in lower case with its byte offsets kept:
// ASCII letters folded, and other letters too when a term has a cased
// letter beyond ASCII (é, ß) and lower-casing keeps the text's length.
// Han text has no case, so most texts need the cheap loop only.
func lowerSameLength(text string, terms []snippetTerm) string {
	for _, t := range terms {
		for _, r := range t.text {
			if r >= utf8.RuneSelf && unicode.ToUpper(r) != r {
				if l := strings.ToLower(text); len(l) == len(text) {
					return l
				}
			}
		}
	}
	b := []byte(text)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// isWordRune reports whether r belongs to a word that spaces delimit:
// letters and digits other than Han, kana and Hangul, whose tokens are
// bigrams found anywhere.
func isWordRune(r rune) bool {
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func wordBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && isWordRune(r)
}

func wordAfter(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return i < len(s) && isWordRune(r)
}

// snippet returns the passage of text that holds the most distinct terms
// (ties: the most marks, then the first), with its marks; the text's
// beginning when no term occurs.
func snippet(text string, terms []snippetTerm) []Segment {
	spans := findTerms(text, terms)
	if len(spans) == 0 {
		if text == "" {
			return nil
		}
		return []Segment{{Text: prefix(text, snippetChars)}}
	}
	// Each window starts snippetLead characters before a span and runs
	// snippetChars characters.
	best, bestTerms, bestMarks := 0, -1, 0
	for i, s := range spans {
		start := back(text, s.start, snippetLead)
		end := forward(text, start, snippetChars)
		distinct := map[int]bool{}
		marks := 0
		for _, o := range spans[i:] {
			if o.end > end {
				break
			}
			distinct[o.term] = true
			marks++
		}
		if len(distinct) > bestTerms || (len(distinct) == bestTerms && marks > bestMarks) {
			best, bestTerms, bestMarks = i, len(distinct), marks
		}
	}
	start := back(text, spans[best].start, snippetLead)
	end := forward(text, start, snippetChars)
	var segs []Segment
	if start > 0 {
		segs = append(segs, Segment{Text: "…"})
	}
	at := start
	for _, s := range spans[best:] {
		if s.start >= end {
			break
		}
		if s.start > at {
			segs = append(segs, Segment{Text: text[at:s.start]})
		}
		e := min(s.end, end)
		segs = append(segs, Segment{Text: text[s.start:e], Mark: true})
		at = e
	}
	if end > at {
		segs = append(segs, Segment{Text: text[at:end]})
	}
	if end < len(text) {
		segs = append(segs, Segment{Text: "…"})
	}
	return trimWords(joinPlain(segs))
}

// joinPlain merges neighbouring unmarked segments.
func joinPlain(segs []Segment) []Segment {
	out := segs[:0]
	for _, s := range segs {
		if n := len(out); n > 0 && !s.Mark && !out[n-1].Mark {
			out[n-1].Text += s.Text
			continue
		}
		out = append(out, s)
	}
	return out
}

// back returns the byte offset n characters before i in s (0 at most),
// moved forward past white space.
func back(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// forward returns the byte offset n characters after i in s (len(s) at
// most).
func forward(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// snippets returns the snippet of each hit of q, by id, from the texts
// the filter's store keeps. A hit whose text has none of the query's
// terms (a query of NOT only) gets the beginning of its text.
func (s *Server) snippets(q query.Query, hits []collapse.Hit) (map[string][]Segment, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	terms := queryTerms(q, s.ix.Bleve().Mapping())
	out := make(map[string][]Segment, len(hits))
	for _, h := range hits {
		e, err := s.ix.Doc(h.ID)
		if err != nil || len(e.Payload) == 0 {
			continue // removed since the search, or stored by another shard: no snippet
		}
		text, err := payloadText(e.Payload, snippetSource)
		if err != nil {
			return nil, fmt.Errorf("server: snippets: document %q: %w", h.ID, err)
		}
		if segs := snippet(text, terms); segs != nil {
			out[h.ID] = segs
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

// trimWords drops the pieces of words a passage was cut through at
// either end (it is cut by characters, not words), keeping the "…" that
// says text was left out. Han text has no spaces and is left as is.
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
