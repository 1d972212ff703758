package synth

import (
	"math/rand/v2"
	"slices"
)

// Text shared between distinct articles: block quotes (Options.QuoteShare)
// and whole articles quoted (Options.WholeShare). Every choice is drawn
// from the quoting article's own streams and the quoted text is
// regenerated from its article, so article j stays a pure function of
// (seed, j).
const (
	// pReuse is the probability that a block quote repeats the block of a
	// random earlier quoting article rather than take a new one: a block
	// is then picked in proportion to the times it was quoted already
	// (Simon's model). The oldest blocks gather the most: with seed 1 the
	// most quoted is in 31 articles at 20,000 pages, 57 at 100,000 and
	// 158 at a million, while most blocks are quoted once.
	pReuse = 0.4
	// pParagraph is the share of new blocks that are a whole paragraph;
	// the others are one to three of its consecutive sentences.
	pParagraph = 0.3
	// maxTries bounds the draws that look for an earlier article of the
	// right kind; the search fails only among a corpus's first articles.
	maxTries = 64
	// shortOf is the number of earlier articles a whole-article quote
	// takes the shortest of: a short news item, from about the shortest
	// tenth.
	shortOf = 8
)

// quote is text an article takes from article src.
type quote struct {
	src   int
	paras [][]string // sentences
}

// article generates article j from (seed, j) alone: its own text with
// the text it quotes. Articles that quote nothing are their base.
func (g *gen) article(j int) article {
	a := g.base(j)
	whole, r, quotesWhole := g.wholeQuote(j, a.lang)
	if quotesWhole {
		// Text of its own at least twice as long as the quote (a
		// 300-character item quoted inside 600 characters of comment),
		// so that the quoting page is not a copy of the quoted one; a
		// fuller reprint adds much less to its original.
		for bodySize(a.paras, a.lang) < 2*bodySize(whole.paras, a.lang) {
			p, _ := g.paragraph(r, a.lang)
			a.paras = append(a.paras, p)
		}
	}
	if q, at, ok := g.blockQuote(j, a.lang); ok {
		a.paras = slices.Insert(a.paras, int(at*float64(len(a.paras)+1)), q.paras[0])
	}
	if quotesWhole {
		// Inside its own text: after the first paragraph and, with two or
		// more, before the last.
		at := 1 + r.IntN(max(1, len(a.paras)-1))
		a.paras = slices.Insert(a.paras, at, whole.paras...)
	}
	return a
}

// quoting returns article j's stream of block quote draws, the place of
// its quote (a fraction of its paragraphs) and whether it quotes a block.
func (g *gen) quoting(j int) (r *rand.Rand, at float64, ok bool) {
	if g.o.QuoteShare == 0 {
		return nil, 0, false
	}
	r = rng(g.o.Seed, saltQuote, uint64(j))
	ok = r.Float64() < g.o.QuoteShare
	return r, r.Float64(), ok
}

// blockQuote returns the block article j (in language lang) quotes, if
// any, and where it goes. A block reused from an earlier quoting article
// i is found by replaying i's draws, so no pool is held.
func (g *gen) blockQuote(j int, lang string) (quote, float64, bool) {
	r, at, ok := g.quoting(j)
	if !ok {
		return quote{}, 0, false
	}
	quotes := func(i int) bool { _, _, q := g.quoting(i); return q }
	for {
		if r.Float64() < pReuse {
			if i, ok := g.earlier(r, j, lang, quotes); ok {
				j = i
				r, _, _ = g.quoting(i)
				continue
			}
		}
		src, ok := g.earlier(r, j, lang, nil)
		if !ok {
			return quote{}, 0, false
		}
		paras := g.base(src).paras
		p := paras[r.IntN(len(paras))]
		if r.Float64() >= pParagraph {
			n := min(len(p), 1+r.IntN(3))
			from := r.IntN(len(p) - n + 1)
			p = p[from : from+n]
		}
		return quote{src: src, paras: [][]string{p}}, at, true
	}
}

// wholeRand returns article j's stream of whole-article quote draws and
// whether it quotes a whole article.
func (g *gen) wholeRand(j int) (*rand.Rand, bool) {
	if g.o.WholeShare == 0 {
		return nil, false
	}
	r := rng(g.o.Seed, saltWhole, uint64(j))
	return r, r.Float64() < g.o.WholeShare
}

// wholeQuote returns the short earlier article that article j quotes in
// full, if any, with j's stream for the rest of the quote's draws. The
// quoted article is the shortest of shortOf earlier ones, and one that
// does not quote a whole article itself, which bounds the regeneration;
// it may hold a block quote.
func (g *gen) wholeQuote(j int, lang string) (quote, *rand.Rand, bool) {
	r, ok := g.wholeRand(j)
	if !ok {
		return quote{}, nil, false
	}
	notWhole := func(i int) bool { _, w := g.wholeRand(i); return !w }
	var q quote
	for range shortOf {
		i, ok := g.earlier(r, j, lang, notWhole)
		if !ok {
			break
		}
		if paras := g.article(i).paras; q.paras == nil || bodySize(paras, lang) < bodySize(q.paras, lang) {
			q = quote{src: i, paras: paras}
		}
	}
	return q, r, q.paras != nil
}

// earlier draws articles before j until one is in language lang and
// satisfies ok (if set), giving up after maxTries draws.
func (g *gen) earlier(r *rand.Rand, j int, lang string, ok func(int) bool) (int, bool) {
	if j == 0 {
		return 0, false
	}
	for range maxTries {
		if i := r.IntN(j); g.lang(i) == lang && (ok == nil || ok(i)) {
			return i, true
		}
	}
	return 0, false
}

// bodySize is the bytes of paragraphs once their sentences are joined.
func bodySize(paras [][]string, lang string) int {
	sep := 1
	if lang == "zh" {
		sep = 0
	}
	n := 0
	for _, p := range paras {
		for _, s := range p {
			n += len(s) + sep
		}
		n -= sep
	}
	return n
}
