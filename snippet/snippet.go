// Package snippet finds the passage of a text that best shows a query's
// terms, with the terms marked, directly in the stored text: the query's
// words and phrases are analysed as bleve analyses them for the field,
// and each token is looked for in the lower-cased text, on word
// boundaries for letters and digits. The analysers bleve-dedup's indexes
// use (cjk, standard, simple) lower-case words and cut Han text into
// bigrams without stemming, so a token as analysed is a piece of the
// text as written; a stemming analyser's stems still match the words
// they begin. Nothing is indexed per text (an index in memory made for
// every page cost 44-65 ms a page on the development pages, against 0.4
// ms without snippets).
//
// The passage comes back as segments, marked or not, so that a page can
// show it as text, never as markup.
package snippet

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Segment is a piece of a snippet; Mark is set on the query's terms.
type Segment struct {
	Text string `json:"text"`
	Mark bool   `json:"mark,omitempty"`
}

// MaxSource is how much of a text is worth searching for its terms, so
// that the cost of a page of hits stays bounded whatever the texts'
// lengths. A text whose matches all lie past it gets its beginning.
const MaxSource = 64 << 10

const (
	// snippetChars is the passage's length in characters: about 25
	// English words, or a Chinese sentence or two.
	snippetChars = 140
	// snippetLead is how much text a passage shows before its first
	// mark, in characters.
	snippetLead = 30
	// maxOccurrences caps the places of one term looked at in a text.
	maxOccurrences = 256
)

// Term is a token to mark: the whole word, or with Prefix, any word it
// begins (a prefix or wildcard query's).
type Term struct {
	Text   string
	Prefix bool
}

// Terms returns the tokens of q's positive clauses (not those under a
// NOT) on the default field or the given text fields, analysed as m
// analyses each field.
func Terms(q query.Query, m mapping.IndexMapping, fields []string) []Term {
	var out []Term
	seen := map[Term]bool{}
	add := func(t Term) {
		if t.Text != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	// textField reports whether a query on field searches the text.
	textField := func(field string) bool {
		return field == "" || field == "_all" || slices.Contains(fields, field)
	}
	analyse := func(field, analyzer, text string) {
		if !textField(field) {
			return
		}
		if m == nil { // no mapping to read analyzers from
			add(Term{Text: strings.ToLower(text)})
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
			add(Term{Text: strings.ToLower(text)})
			return
		}
		for _, tok := range a.Analyze([]byte(text)) {
			add(Term{Text: string(tok.Term)})
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
				add(Term{Text: q.Term})
			}
		case *query.PhraseQuery:
			if textField(q.FieldVal) {
				for _, t := range q.Terms {
					add(Term{Text: t})
				}
			}
		case *query.PrefixQuery:
			if textField(q.FieldVal) {
				add(Term{Text: q.Prefix, Prefix: true})
			}
		case *query.WildcardQuery:
			// The literal text before the first wildcard character.
			if i := strings.IndexAny(q.Wildcard, "*?"); i > 0 && textField(q.FieldVal) {
				add(Term{Text: q.Wildcard[:i], Prefix: true})
			}
		case *query.FuzzyQuery:
			if textField(q.FieldVal) {
				add(Term{Text: q.Term})
			}
		}
	}
	walk(q)
	return out
}

// span is a marked byte range of a text.
type span struct{ start, end, term int }

// findTerms returns where terms occur in text, sorted, overlapping and
// touching ranges merged (so the bigrams of a Chinese word mark it
// whole); each span keeps the lowest term index it covers.
func findTerms(text string, terms []Term) []span {
	lower := lowerSameLength(text, terms)
	var spans []span
	for ti, t := range terms {
		wordy := isWordRune(firstRune(t.Text))
		found := 0
		for at := 0; found < maxOccurrences; {
			i := strings.Index(lower[at:], t.Text)
			if i < 0 {
				break
			}
			start, end := at+i, at+i+len(t.Text)
			at = end
			if wordy && (wordBefore(lower, start) || (!t.Prefix && wordAfter(lower, end))) {
				continue
			}
			if t.Prefix {
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
func lowerSameLength(text string, terms []Term) string {
	for _, t := range terms {
		for _, r := range t.Text {
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

// Make returns the passage of text that holds the most distinct terms
// (ties: the most marks, then the first), with its marks; the text's
// beginning when no term occurs, nil for no text.
func Make(text string, terms []Term) []Segment {
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
