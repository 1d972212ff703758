package server

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// The start page's example queries are made of the index's own words, so
// that each of them finds pages whatever the index holds: a fixed list
// written for one set of pages finds nothing on another. The words come
// from two cheap, bounded sources, read once a catalog walk: the most
// frequent terms of the title field's dictionary (a bounded read of it,
// see titleTerms) and the titles of a few documents the walk meets (the
// largest clusters' first). Two words of one title occur together, two
// adjacent ones form a phrase, and every example is searched before it
// is offered; one that finds nothing is left out.

// Bounds of what the examples are drawn from.
const (
	// dictPrefixScan is how many terms of the dictionary are read under
	// each leading letter (a-z) or leading byte of the CJK ideographs: a
	// dictionary is sorted, so reading its start alone would offer only
	// words in "a".
	dictPrefixScan = 1000
	// exampleTerms is how many frequent terms of each script are kept.
	exampleTerms = 20
	// exampleTitles is how many titles the catalog walk keeps.
	exampleTitles = 64
)

// stopWords are English words too common to show what a query does; the
// CJK analyzer keeps them, so they top the title dictionary.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out has him his how its
		may new now old see two way who did get got let say she too use with from that this have will your what when where
		which their there then them they been were into over than more most some such only also after before about under
		just like very each other these those would could should here while does done being www com http https html`) {
		stopWords[w] = true
	}
}

// word is a word of a title or a term of the dictionary, lower case.
type word struct {
	text  string
	count uint64 // documents whose title holds it (dictionary terms)
	han   bool
}

// classify returns w as a word fit for an example and whether it is:
// Latin letters only, at least 3, and no stop word; or 2 to 6 Han
// characters (a word of a Chinese title; the CJK analyzer indexes Han text
// as bigrams, which such a run matches in order).
func classify(w string) (word, bool) {
	w = strings.ToLower(w)
	n := utf8.RuneCountInString(w)
	switch {
	case allRunes(w, func(r rune) bool { return unicode.Is(unicode.Han, r) }):
		return word{text: w, han: true}, n >= 2 && n <= 6
	case allRunes(w, func(r rune) bool { return unicode.Is(unicode.Latin, r) && unicode.IsLetter(r) }):
		return word{text: w}, n >= 3 && !stopWords[w]
	}
	return word{}, false
}

func allRunes(s string, f func(rune) bool) bool {
	for _, r := range s {
		if !f(r) {
			return false
		}
	}
	return s != ""
}

// titleWords splits a title into its words: runs of letters and digits.
func titleWords(title string) []string {
	return strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// titleTerms returns the most frequent terms of field's dictionary, Latin
// and Han apart, reading at most dictPrefixScan terms under each leading
// letter: bounded whatever the index's size. It returns nothing when the
// index cannot list a dictionary (an alias of several shards cannot).
func titleTerms(ix bleve.Index, field string) (latin, han []word) {
	prefixes := make([][]byte, 0, 32)
	for c := byte('a'); c <= 'z'; c++ {
		prefixes = append(prefixes, []byte{c})
	}
	for b := byte(0xe4); b <= 0xe9; b++ { // U+4E00–U+9FFF, the common ideographs
		prefixes = append(prefixes, []byte{b})
	}
	for _, p := range prefixes {
		d, err := ix.FieldDictPrefix(field, p)
		if err != nil {
			return nil, nil
		}
		for range dictPrefixScan {
			e, err := d.Next()
			if err != nil || e == nil {
				break
			}
			if w, ok := classify(e.Term); ok && (!w.han || utf8.RuneCountInString(w.text) == 2) {
				w.count = e.Count
				if w.han {
					han = append(han, w)
				} else {
					latin = append(latin, w)
				}
			}
		}
		d.Close()
	}
	byCount := func(a, b word) int { return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.text, b.text)) }
	slices.SortFunc(latin, byCount)
	slices.SortFunc(han, byCount)
	return latin[:min(len(latin), exampleTerms)], han[:min(len(han), exampleTerms)]
}

// exampleField returns the field the examples' words are read from, and
// whether it is the title (which a title:word example then names).
func (s *Server) exampleField() (string, bool) {
	fields := s.ix.SearchFields()
	if slices.Contains(fields, indexer.FieldTitle) {
		return indexer.FieldTitle, true
	}
	if len(fields) > 0 {
		return fields[0], false
	}
	return "", false
}

// finds reports whether q, in syntax, finds a document of the index.
func (s *Server) finds(ctx context.Context, q string, syntax boolquery.Syntax) bool {
	ctx, err := s.opts.CheckQuery(ctx, q)
	if err != nil {
		return false
	}
	bq, err := boolquery.Query(q, boolquery.Options{Fields: s.ix.SearchFields(), Syntax: syntax})
	if err != nil {
		return false
	}
	res, err := s.ix.Unwrap().SearchInContext(ctx, bleve.NewSearchRequestOptions(bq, 0, 0, false))
	return err == nil && res.Total > 0
}

// indexExamples returns the start page's examples made of the words of
// the index (see the top of this file), each found searching; titles are
// titles of documents in the search index, the most telling first. It
// returns nil when it can make none (an empty index).
func (s *Server) indexExamples(ctx context.Context, titles []string) []syntaxHelp {
	field, isTitle := s.exampleField()
	if field == "" {
		return nil
	}
	latin, han := titleTerms(s.ix.Unwrap(), field)
	// Words of titles: a pair of one title (AND), an adjacent pair
	// (a phrase), a Chinese word.
	var pair, phrase [2]string
	var hanWord string
	for _, t := range titles {
		var words []word
		var adjacent []string
		for _, w := range titleWords(t) {
			x, ok := classify(w)
			if !ok {
				adjacent = adjacent[:0]
				continue
			}
			if x.han {
				if hanWord == "" && utf8.RuneCountInString(x.text) >= 3 {
					hanWord = x.text
				}
				adjacent = adjacent[:0]
				continue
			}
			if !slices.ContainsFunc(words, func(y word) bool { return y.text == x.text }) {
				words = append(words, x)
			}
			adjacent = append(adjacent, x.text)
			if phrase[0] == "" && len(adjacent) >= 2 {
				phrase = [2]string{adjacent[len(adjacent)-2], adjacent[len(adjacent)-1]}
			}
		}
		if pair[0] == "" && len(words) >= 2 {
			pair = [2]string{words[0].text, words[1].text}
		}
		// Without a dictionary, the titles' words stand for its terms.
		for _, w := range words {
			if len(latin) < exampleTerms && !slices.ContainsFunc(latin, func(y word) bool { return y.text == w.text }) {
				latin = append(latin, w)
			}
		}
	}
	if hanWord == "" && len(han) > 0 {
		hanWord = han[0].text
	}

	var out []syntaxHelp
	add := func(q, syntax, says string) bool {
		syn, _ := boolquery.ParseSyntax(syntax)
		if q == "" || !s.finds(ctx, q, syn) {
			return false
		}
		out = append(out, syntaxHelp{Query: q, Syntax: syntax, Says: says})
		return true
	}
	terms := func(ws []word, skip ...string) []string {
		var out []string
		for _, w := range ws {
			if !slices.Contains(skip, w.text) {
				out = append(out, w.text)
			}
		}
		return out
	}
	var first string
	if len(latin) > 0 {
		first = latin[0].text
		add(first, "boolean", "pages with the word")
	}
	if pair[0] != "" {
		add(pair[0]+" AND "+pair[1], "boolean", "both words (AND, or *)")
	}
	others := terms(latin, first)
	if first != "" && len(others) > 0 {
		add(first+" OR "+others[0], "boolean", "either word (OR, or +)")
		for _, o := range others[:min(len(others), 5)] {
			if add(first+" NOT "+o, "boolean", "the first but not the second (NOT, or -)") {
				break
			}
		}
	}
	if pair[0] != "" {
		if o := terms(latin, pair[0], pair[1]); len(o) > 0 {
			add("("+o[0]+" OR "+pair[0]+") AND "+pair[1], "boolean", "parentheses group")
		}
	}
	if phrase[0] != "" {
		add(`"`+phrase[0]+" "+phrase[1]+`"`, "boolean", "a phrase, words in this order")
	}
	if isTitle {
		w := pair[0]
		if w == "" {
			w = first
		}
		if w != "" {
			add(field+":"+w, "boolean", "a word in the title only")
		}
	}
	if hanWord != "" {
		add(hanWord, "boolean", "Chinese: characters in this order, no spaces needed")
		for _, w := range han {
			if !strings.Contains(hanWord, w.text) {
				add(w.text+" OR "+hanWord, "boolean", "Chinese words combined like English ones")
				break
			}
		}
	}
	if first != "" {
		r := []rune(first)
		add(string(r[:max(3, len(r)*2/3)])+"*", "querystring", "bleve's query string: wildcards, +must -not, field:value")
	}
	return out
}
