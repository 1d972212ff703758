// Package align compares two texts word by word (a Han, kana or Hangul
// character counts as a word), not passage by passage: paragraphs merged
// or split, lines re-wrapped and punctuation changed leave the words in
// their order, so a reflowed copy shows as shared. The alignment is a
// patience diff: word runs (shingles) that occur once in each text
// anchor it, their longest increasing sequence fixes the order, and the
// gaps between anchors are aligned again the same way, with shorter
// shingles, down to a longest common subsequence when a gap is small.
// Its cost grows with the texts' length and their differences, not with
// the product of their lengths. The search page's comparison shows it.
package align

import (
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage is a sentence of a document's main text in a comparison.
type Passage struct {
	Text string `json:"text"`
	// Status is "shared" when at least sharedPassage of its words have
	// their counterpart in the other text, "changed" when some do,
	// "differs" when none do; Shared is Status == "shared".
	Status string `json:"status"`
	Shared bool   `json:"shared"`
	// Break says whether a paragraph ends after this passage.
	Break bool `json:"break,omitempty"`
	// Pieces are the passage's text cut where its words' status changes.
	Pieces []Piece `json:"pieces"`
}

// Piece is a run of a passage's text. Op is "shared" (the other text has
// the same words there), "changed" (it has other words there), "deleted"
// on the left or "inserted" on the right (it has nothing there), or ""
// for the spaces and punctuation between runs of different ops.
type Piece struct {
	Text string `json:"text"`
	Op   string `json:"op,omitempty"`
}

// Piece ops.
const (
	opShared   = "shared"
	opChanged  = "changed"
	opDeleted  = "deleted"
	opInserted = "inserted"
)

// sharedPassage is the share of a passage's words that must be shared
// for the passage to count as shared.
const sharedPassage = 0.8

// Stats sums a comparison up: the share of each text's words that
// are shared, and of its passages.
type Stats struct {
	LeftShare           float64 `json:"left_share"`
	RightShare          float64 `json:"right_share"`
	LeftPassages        int     `json:"left_passages"`
	RightPassages       int     `json:"right_passages"`
	LeftSharedPassages  int     `json:"left_shared_passages"`
	RightSharedPassages int     `json:"right_shared_passages"`
}

// token is a word of a passage: its normalised form's hash and where it
// lies in the passage's text.
type token struct {
	key        uint64
	pass       int // passage index
	start, end int // byte offsets in the passage's text
}

// Diff splits the texts a and b (paragraphs separated by newlines) into
// at most maxSentences sentences each and aligns their words.
func Diff(a, b string, maxSentences int) (left, right []Passage, stats Stats) {
	left, right = sentences(a, maxSentences), sentences(b, maxSentences)
	seed := maphash.MakeSeed()
	ta, tb := tokens(left, seed), tokens(right, seed)
	x := &aligner{a: keys(ta), b: keys(tb), seed: seed}
	x.ma, x.mb = filled(len(ta)), filled(len(tb))
	x.align(0, len(ta), 0, len(tb))
	opsA := ops(x.ma, len(tb), opDeleted)
	opsB := ops(x.mb, len(ta), opInserted)
	stats.LeftShare, stats.LeftSharedPassages = mark(left, ta, opsA)
	stats.RightShare, stats.RightSharedPassages = mark(right, tb, opsB)
	stats.LeftPassages, stats.RightPassages = len(left), len(right)
	return left, right, stats
}

func filled(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// tokens returns the words of the passages, in order.
func tokens(ps []Passage, seed maphash.Seed) []token {
	var out []token
	var b strings.Builder
	for pi, p := range ps {
		text := p.Text
		for i := 0; i < len(text); {
			r, w := utf8.DecodeRuneInString(text[i:])
			r = fold(r)
			switch {
			case oneCharWord(r):
				b.Reset()
				b.WriteRune(r)
				out = append(out, token{key: maphash.String(seed, b.String()), pass: pi, start: i, end: i + w})
				i += w
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				b.Reset()
				start := i
				for i < len(text) {
					r, w := utf8.DecodeRuneInString(text[i:])
					r = fold(r)
					if oneCharWord(r) || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
						break
					}
					b.WriteRune(unicode.ToLower(r))
					i += w
				}
				out = append(out, token{key: maphash.String(seed, b.String()), pass: pi, start: start, end: i})
			default:
				i += w
			}
		}
	}
	return out
}

// oneCharWord reports whether r is a word by itself: Han, kana and
// Hangul, which spaces do not delimit.
func oneCharWord(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// fold maps full-width ASCII to ASCII.
func fold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		return r - 0xFEE0
	}
	return r
}

func keys(ts []token) []uint64 {
	ks := make([]uint64, len(ts))
	for i, t := range ts {
		ks[i] = t.key
	}
	return ks
}

// aligner aligns two word sequences: ma[i] is the word of b matched to
// a's word i, or -1; mb likewise.
type aligner struct {
	a, b   []uint64
	ma, mb []int
	seed   maphash.Seed
}

// lcsCells bounds the table of a gap aligned by longest common
// subsequence.
const lcsCells = 1 << 18

// shingleLengths are the run lengths anchors are looked for with, in
// turn, in a gap.
var shingleLengths = []int{8, 4, 2, 1}

func (x *aligner) match(i, j int) { x.ma[i], x.mb[j] = j, i }

// align aligns a[alo:ahi] with b[blo:bhi].
func (x *aligner) align(alo, ahi, blo, bhi int) {
	for alo < ahi && blo < bhi && x.a[alo] == x.b[blo] {
		x.match(alo, blo)
		alo, blo = alo+1, blo+1
	}
	for alo < ahi && blo < bhi && x.a[ahi-1] == x.b[bhi-1] {
		ahi, bhi = ahi-1, bhi-1
		x.match(ahi, bhi)
	}
	if alo == ahi || blo == bhi {
		return
	}
	if (ahi-alo)*(bhi-blo) <= lcsCells {
		x.lcs(alo, ahi, blo, bhi)
		return
	}
	for _, k := range shingleLengths {
		anchors := x.anchors(alo, ahi, blo, bhi, k)
		if len(anchors) == 0 {
			continue
		}
		ca, cb := alo, blo
		for _, an := range anchors {
			i, j := an[0], an[1]
			if i < ca || j < cb { // inside the run matched before
				continue
			}
			x.align(ca, i, cb, j)
			for i < ahi && j < bhi && x.a[i] == x.b[j] {
				x.match(i, j)
				i, j = i+1, j+1
			}
			ca, cb = i, j
		}
		x.align(ca, ahi, cb, bhi)
		return
	}
	// Nothing in common that occurs once: the gap stays unaligned.
}

// anchors returns the positions (i, j) of the k-word runs that occur
// once in a[alo:ahi] and once in b[blo:bhi], the longest sequence of them
// increasing in both.
func (x *aligner) anchors(alo, ahi, blo, bhi, k int) [][2]int {
	if ahi-alo < k || bhi-blo < k {
		return nil
	}
	type seen struct{ pos, n int }
	runs := func(s []uint64, lo, hi int) map[uint64]*seen {
		m := make(map[uint64]*seen, hi-lo)
		var h maphash.Hash
		h.SetSeed(x.seed)
		var buf [8]byte
		for i := lo; i+k <= hi; i++ {
			h.Reset()
			for _, v := range s[i : i+k] {
				for b := range 8 {
					buf[b] = byte(v >> (8 * b))
				}
				h.Write(buf[:])
			}
			key := h.Sum64()
			if e := m[key]; e != nil {
				e.n++
			} else {
				m[key] = &seen{pos: i, n: 1}
			}
		}
		return m
	}
	ra, rb := runs(x.a, alo, ahi), runs(x.b, blo, bhi)
	var pairs [][2]int
	for key, ea := range ra {
		if eb := rb[key]; ea.n == 1 && eb != nil && eb.n == 1 && slices.Equal(x.a[ea.pos:ea.pos+k], x.b[eb.pos:eb.pos+k]) {
			pairs = append(pairs, [2]int{ea.pos, eb.pos})
		}
	}
	slices.SortFunc(pairs, func(p, q [2]int) int { return p[0] - q[0] })
	return increasing(pairs)
}

// increasing returns the longest subsequence of pairs (sorted by their
// first element) whose second elements increase (patience sorting).
func increasing(pairs [][2]int) [][2]int {
	if len(pairs) == 0 {
		return nil
	}
	var tails []int // index in pairs of the smallest tail of each length
	prev := make([]int, len(pairs))
	for i, p := range pairs {
		n := sort.Search(len(tails), func(t int) bool { return pairs[tails[t]][1] >= p[1] })
		if n > 0 {
			prev[i] = tails[n-1]
		} else {
			prev[i] = -1
		}
		if n == len(tails) {
			tails = append(tails, i)
		} else {
			tails[n] = i
		}
	}
	out := make([][2]int, len(tails))
	for i, k := len(tails)-1, tails[len(tails)-1]; i >= 0; i, k = i-1, prev[k] {
		out[i] = pairs[k]
	}
	return out
}

// lcs aligns a small gap by a longest common subsequence.
func (x *aligner) lcs(alo, ahi, blo, bhi int) {
	n, m := ahi-alo, bhi-blo
	// t[i*(m+1)+j] is the LCS length of a[alo+i:ahi] and b[blo+j:bhi].
	t := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x.a[alo+i] == x.b[blo+j] {
				t[i*(m+1)+j] = t[(i+1)*(m+1)+j+1] + 1
			} else {
				t[i*(m+1)+j] = max(t[(i+1)*(m+1)+j], t[i*(m+1)+j+1])
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case x.a[alo+i] == x.b[blo+j]:
			x.match(alo+i, blo+j)
			i, j = i+1, j+1
		case t[(i+1)*(m+1)+j] >= t[i*(m+1)+j+1]:
			i++
		default:
			j++
		}
	}
}

// ops returns each word's op given its match in the other text (m[i],
// -1 for none) and that text's length: an unmatched word is changed when
// the other text has unmatched words between the same matched ones,
// else lone (deleted or inserted).
func ops(m []int, other int, lone string) []string {
	out := make([]string, len(m))
	for i := 0; i < len(m); {
		if m[i] >= 0 {
			out[i] = opShared
			i++
			continue
		}
		j := i
		for j < len(m) && m[j] < 0 {
			j++
		}
		before, after := -1, other
		if i > 0 {
			before = m[i-1]
		}
		if j < len(m) {
			after = m[j]
		}
		op := lone
		if after-before > 1 {
			op = opChanged
		}
		for k := i; k < j; k++ {
			out[k] = op
		}
		i = j
	}
	return out
}

// mark sets the passages' pieces and status from their words' ops, and
// returns the share of words shared and the passages counted shared.
func mark(ps []Passage, ts []token, wordOps []string) (share float64, shared int) {
	words := make([]int, len(ps))
	same := make([]int, len(ps))
	for i := range ps {
		ps[i].Pieces = []Piece{}
	}
	last := make([]int, len(ps)) // the byte after each passage's last piece
	for i, t := range ts {
		p := &ps[t.pass]
		op := wordOps[i]
		words[t.pass]++
		if op == opShared {
			same[t.pass]++
		}
		gap := p.Text[last[t.pass]:t.start]
		n := len(p.Pieces)
		switch {
		case n > 0 && p.Pieces[n-1].Op == op:
			p.Pieces[n-1].Text += gap + p.Text[t.start:t.end]
		default:
			if gap != "" {
				p.Pieces = append(p.Pieces, Piece{Text: gap})
			}
			p.Pieces = append(p.Pieces, Piece{Text: p.Text[t.start:t.end], Op: op})
		}
		last[t.pass] = t.end
	}
	all, sharedWords := 0, 0
	for i := range ps {
		p := &ps[i]
		if rest := p.Text[last[i]:]; rest != "" {
			p.Pieces = append(p.Pieces, Piece{Text: rest})
		}
		all += words[i]
		sharedWords += same[i]
		switch {
		case words[i] > 0 && float64(same[i]) >= sharedPassage*float64(words[i]):
			p.Status = opShared
		case same[i] > 0:
			p.Status = opChanged
		default:
			p.Status = "differs"
		}
		p.Shared = p.Status == opShared
		if p.Shared {
			shared++
		}
	}
	if all > 0 {
		share = float64(sharedWords) / float64(all)
	}
	return share, shared
}

// sentences splits text into at most max sentences, ending each at
// . ! ? 。！？ (and what closes them) or at a newline. The last one takes
// the rest of its paragraph; later paragraphs are dropped.
func sentences(text string, max int) []Passage {
	var ps []Passage
	for para := range strings.SplitSeq(text, "\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		start := len(ps)
		for para != "" {
			n := sentenceEnd(para)
			if len(ps) == max-1 {
				n = len(para)
			}
			if s := strings.TrimSpace(para[:n]); s != "" {
				ps = append(ps, Passage{Text: s})
			}
			para = para[n:]
		}
		if len(ps) > start {
			ps[len(ps)-1].Break = true
		}
		if len(ps) >= max {
			break
		}
	}
	return ps
}

// sentenceEnd returns the byte length of s's first sentence.
func sentenceEnd(s string) int {
	for i, r := range s {
		if !strings.ContainsRune(".!?。！？", r) {
			continue
		}
		end := i + utf8.RuneLen(r)
		// Closing quotes and brackets belong to the sentence.
		for end < len(s) {
			c, w := utf8.DecodeRuneInString(s[end:])
			if !strings.ContainsRune(`"'”’」』)）`, c) && !strings.ContainsRune(".!?。！？", c) {
				break
			}
			end += w
		}
		// An ASCII full stop ends a sentence only before white space (not
		// in 3.5 or example.com).
		if r == '.' && end < len(s) && !unicode.IsSpace(rune(s[end])) {
			continue
		}
		return end
	}
	return len(s)
}
