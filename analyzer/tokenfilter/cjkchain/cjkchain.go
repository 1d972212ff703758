// Package cjkchain is a bleve token filter giving exactly the tokens of
// the filters of bleve's "cjk" analyzer applied in turn — cjk_width,
// to_lower and cjk_bigram (without unigrams) — in a fraction of their
// time. bleve's filters turn every token into runes and back, and copy
// it, even when nothing changes, as for most tokens of English text and
// every Han character; this one copies only the terms that change, takes
// bigrams and unigrams from one allocation, and leaves the rare tokens it
// cannot pass over (full-width or half-width forms, upper case outside
// ASCII, invalid UTF-8) to bleve's own filters, so that the result is
// bleve's by construction.
//
// The indexer analyses documents ahead of bleve's batch with it in place
// of those three filters (and package unicodewords' tokenizer in place of
// bleve's): an index holds the terms bleve would have made, which
// queries, analysed by bleve's own "cjk" analyzer, find.
package cjkchain

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/registry"
)

// Name is the filter's registered name.
const Name = "dedup_cjk_chain"

// Filter is the token filter. It is safe for concurrent use.
type Filter struct {
	width *cjk.CJKWidthFilter
	lower *lowercase.LowerCaseFilter
}

// New returns a Filter.
func New() *Filter {
	return &Filter{width: cjk.NewCJKWidthFilter(), lower: lowercase.NewLowerCaseFilter()}
}

// Filter returns the tokens bleve's cjk_width, to_lower and cjk_bigram
// filters return for input. Like them, it changes input's tokens in
// place (their terms and positions) and returns them among its own.
func (f *Filter) Filter(input analysis.TokenStream) analysis.TokenStream {
	b := bigrams{out: make(analysis.TokenStream, 0, len(input)), pos: 1}
	var terms []byte // the changed terms and the bigrams, each a slice of it
	for _, tok := range input {
		terms = f.fold(tok, terms)
		if tok.Type != analysis.Ideographic {
			b.flush()
			tok.Position = b.pos
			b.out = append(b.out, tok)
			b.pos++
			continue
		}
		// Each character as cjk_bigram cuts it: it decodes the term
		// rune by rune but steps through its bytes by each rune's
		// encoded length, which for an invalid byte (U+FFFD) is 3, not
		// 1. Only a term lowered into fewer bytes can be invalid here
		// ("İ" is "i"), which no tokenizer marks ideographic; where
		// bleve's slice would pass the term's capacity and panic, the
		// character is cut short.
		at, sofar, c := 0, 0, cap(tok.Term)
		for at < len(tok.Term) {
			r, size := utf8.DecodeRune(tok.Term[at:])
			n := utf8.RuneLen(r)
			terms = b.add(char{tok.Term[min(sofar, c):min(sofar+n, c)], tok.Start + sofar, tok.Start + sofar + n}, terms)
			at, sofar = at+size, sofar+n
		}
	}
	if b.n == 1 {
		b.emit(b.unigram())
	}
	return b.out
}

// fold sets tok's term to what cjk_width then to_lower make of it: the
// term itself when neither changes it, its ASCII letters lowered into
// terms, else bleve's filters' own result. It returns terms.
func (f *Filter) fold(tok *analysis.Token, terms []byte) []byte {
	switch kept(tok.Term) {
	case keep:
	case lowerASCII:
		from := len(terms)
		for _, c := range tok.Term {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			terms = append(terms, c)
		}
		tok.Term = terms[from:len(terms):len(terms)]
	default:
		one := analysis.TokenStream{tok}
		f.lower.Filter(f.width.Filter(one)) // (width copies the term: lowering in place is safe)
	}
	return terms
}

// What fold does with a term.
const (
	keep       = iota // neither filter changes it
	lowerASCII        // ASCII with upper-case letters
	bleves            // bleve's filters must make it
)

// kept tells what fold does with term: bleve's width filter rewrites
// full-width ASCII (U+FF01-FF5E) and half-width katakana (U+FF65-FF9F),
// and invalid UTF-8 (as U+FFFD); its lowercase filter maps each rune
// through unicode.ToLower.
func kept(term []byte) int {
	how := keep
	for i := 0; i < len(term); {
		c := term[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				how = lowerASCII
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(term[i:])
		if r == utf8.RuneError && n == 1 || r >= 0xFF01 && r <= 0xFF9F || unicode.ToLower(r) != r {
			return bleves
		}
		i += n
	}
	return how
}

// char is one character of an ideographic token, and where it is.
type char struct {
	term       []byte
	start, end int
}

// bigrams is cjk_bigram's state, without unigrams: the last two
// ideographic characters (n of them held), and the tokens so far.
type bigrams struct {
	out        analysis.TokenStream
	pos        int // the next token's position
	prev, last char
	n          int
	made       []analysis.Token // the tokens made, each an element of it
}

// add takes the next ideographic character: a bigram with the one before
// when they touch, and when they do not, the one before alone if it had
// no bigram. It returns terms with the bigram's term appended.
func (b *bigrams) add(c char, terms []byte) []byte {
	if b.n > 0 && c.start != b.last.end {
		b.flush()
	}
	b.prev, b.last = b.last, c
	if b.n < 2 {
		b.n++
	}
	if b.n < 2 {
		return terms
	}
	from := len(terms)
	terms = append(append(terms, b.prev.term...), b.last.term...)
	b.emit(analysis.Token{
		Type:     analysis.Double,
		Term:     terms[from:len(terms):len(terms)],
		Position: b.pos,
		Start:    b.prev.start,
		End:      b.last.end,
	})
	return terms
}

// flush ends a run of ideographic characters: one alone is a unigram.
func (b *bigrams) flush() {
	if b.n == 1 {
		b.emit(b.unigram())
	}
	b.n = 0
}

func (b *bigrams) unigram() analysis.Token {
	return analysis.Token{Type: analysis.Single, Term: b.last.term, Position: b.pos, Start: b.last.start, End: b.last.end}
}

// emit appends a made token to the output, at the next position.
func (b *bigrams) emit(t analysis.Token) {
	if len(b.made) == cap(b.made) {
		b.made = make([]analysis.Token, 0, max(16, cap(b.out)-len(b.out)))
	}
	b.made = append(b.made, t)
	b.out = append(b.out, &b.made[len(b.made)-1])
	b.pos++
}

// Constructor is the token filter registry adapter.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.TokenFilter, error) {
	return New(), nil
}

func init() {
	// A duplicate name is a build defect that must stop the program, as
	// in bleve's own components.
	if err := registry.RegisterTokenFilter(Name, Constructor); err != nil {
		panic(err)
	}
}
