package synth

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token ids 0 and 1 are reserved: a sentence's start context and its end.
const (
	tokStart int32 = 0
	tokEnd   int32 = 1
)

// chain is an order-2 Markov chain over tokens (English words or Chinese
// characters) with an order-1 fallback. Generating from the order-2 table
// alone would copy long runs of the small training text verbatim, so that
// whole real sentences would recur in thousands of generated pages;
// switching to the order-1 table now and then keeps sentences unique per
// article while the local statistics stay those of real text.
type chain struct {
	vocab   []string         // id -> token
	ids     map[string]int32 // token -> id
	next2   map[uint64][]int32
	next1   map[int32][]int32
	stream  []int32 // every training token, for frequency-weighted draws
	backoff float64 // probability of an order-1 step
	join    string  // between tokens when rendering: " " or ""
}

func newChain(backoff float64, join string) *chain {
	return &chain{
		vocab:   []string{"", ""},
		ids:     map[string]int32{},
		next2:   map[uint64][]int32{},
		next1:   map[int32][]int32{},
		backoff: backoff,
		join:    join,
	}
}

func (c *chain) id(tok string) int32 {
	if id, ok := c.ids[tok]; ok {
		return id
	}
	id := int32(len(c.vocab))
	c.vocab = append(c.vocab, tok)
	c.ids[tok] = id
	return id
}

func key2(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// add trains the chain on one sentence.
func (c *chain) add(sentence []string) {
	a, b := tokStart, tokStart
	for _, tok := range sentence {
		id := c.id(tok)
		c.next2[key2(a, b)] = append(c.next2[key2(a, b)], id)
		c.next1[b] = append(c.next1[b], id)
		c.stream = append(c.stream, id)
		a, b = b, id
	}
	c.next2[key2(a, b)] = append(c.next2[key2(a, b)], tokEnd)
	c.next1[b] = append(c.next1[b], tokEnd)
}

// sentence generates the tokens of one sentence of minLen to maxLen
// tokens; a sentence cut at maxLen gets end punctuation from end.
func (c *chain) sentence(r *rand.Rand, minLen, maxLen int, end func([]string) []string) []string {
	var out []string
	for try := 0; try < 8; try++ {
		out = out[:0]
		a, b := tokStart, tokStart
		for len(out) < maxLen {
			var succ []int32
			if b != tokStart && r.Float64() < c.backoff {
				succ = c.next1[b]
			} else {
				succ = c.next2[key2(a, b)]
			}
			if len(succ) == 0 {
				succ = c.next1[b]
			}
			if len(succ) == 0 {
				break
			}
			n := succ[r.IntN(len(succ))]
			if n == tokEnd {
				break
			}
			out = append(out, c.vocab[n])
			a, b = b, n
		}
		if len(out) >= minLen {
			break
		}
	}
	if len(out) >= maxLen {
		out = end(out)
	}
	return out
}

// token draws a training token, weighted by frequency.
func (c *chain) token(r *rand.Rand) string {
	return c.vocab[c.stream[r.IntN(len(c.stream))]]
}

// English: words split at white space, punctuation left attached.

// abbreviations end in a period without ending a sentence.
var abbreviations = map[string]bool{
	"Mr.": true, "Mrs.": true, "Ms.": true, "Dr.": true, "St.": true, "Jr.": true, "Sr.": true,
	"Inc.": true, "Co.": true, "Corp.": true, "Ltd.": true, "vs.": true, "No.": true, "Gov.": true,
	"Sen.": true, "Rep.": true, "Gen.": true, "Prof.": true, "Jan.": true, "Feb.": true, "Aug.": true,
	"Sept.": true, "Oct.": true, "Nov.": true, "Dec.": true, "a.m.": true, "p.m.": true, "e.g.": true,
	"i.e.": true, "U.S.": true, "U.K.": true,
}

// endsSentence reports whether an English word closes a sentence.
func endsSentence(w string) bool {
	if abbreviations[w] {
		return false
	}
	w = strings.TrimRight(w, `"'”’)]`)
	if w == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(w)
	if last != '.' && last != '!' && last != '?' {
		return false
	}
	// A single capital and a period is an initial ("John F. Kennedy").
	core := strings.TrimRight(w, ".!?")
	return !(utf8.RuneCountInString(core) == 1 && unicode.IsUpper([]rune(core)[0]))
}

// trainEnglish adds the sentences of an article body (paragraphs on
// lines) to c.
func trainEnglish(c *chain, body string) {
	for para := range strings.SplitSeq(body, "\n") {
		var sent []string
		for _, w := range strings.Fields(para) {
			sent = append(sent, w)
			if endsSentence(w) {
				if len(sent) >= 3 {
					c.add(sent)
				}
				sent = sent[:0]
			}
		}
		if len(sent) >= 3 {
			c.add(sent)
		}
	}
}

// endEnglish closes a sentence cut short: a period on its last word.
func endEnglish(ws []string) []string {
	last := strings.TrimRight(ws[len(ws)-1], ",;:—-")
	if last == "" {
		ws = ws[:len(ws)-1]
		if len(ws) == 0 {
			return ws
		}
		last = ws[len(ws)-1]
	}
	if !endsSentence(last) {
		last += "."
	}
	ws[len(ws)-1] = last
	return ws
}

// Chinese: one token per character.

// zhEnd are the characters that end a Chinese sentence.
const zhEnd = "。！？"

// trainChinese adds the sentences of a Chinese text to c. Line breaks
// are dropped: the hand-cleaned texts are hard-wrapped inside sentences.
func trainChinese(c *chain, text string) {
	text = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\u3000' {
			return -1
		}
		return r
	}, text)
	var sent []string
	for _, r := range text {
		if unicode.IsSpace(r) && len(sent) > 0 && sent[len(sent)-1] == " " {
			continue
		}
		if unicode.IsSpace(r) {
			r = ' '
		}
		sent = append(sent, string(r))
		if strings.ContainsRune(zhEnd, r) {
			if len(sent) >= 4 {
				c.add(sent)
			}
			sent = sent[:0]
		}
	}
	if len(sent) >= 4 {
		c.add(sent)
	}
}

// endChinese closes a sentence cut short with a full stop.
func endChinese(cs []string) []string {
	for len(cs) > 0 && strings.ContainsAny(cs[len(cs)-1], "，、；：,;: （(“\"") {
		cs = cs[:len(cs)-1]
	}
	return append(cs, "。")
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }
