package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"
)

// Probabilities of the edits a copy gets, one draw each (the kinds of the
// development set's reprints). Word or character changes always happen,
// at a rate between minChange and maxChange.
const (
	pDropLast  = 0.25
	pSplit     = 0.35
	pMerge     = 0.35
	pPunct     = 0.3
	pNewTitle  = 0.5
	pSource    = 0.5
	minChange  = 0.005
	maxChange  = 0.04
	pSourceTop = 0.4
)

// edit makes a reprint of a on site to (from is a's own site): its title,
// body paragraphs, and a source line (empty for none) with its place.
func (g *gen) edit(r *rand.Rand, a article, from, to *site) (title string, paras []string, source string, top bool) {
	ps := make([][]string, len(a.paras))
	for i, p := range a.paras {
		ps[i] = slices.Clone(p)
	}
	if r.Float64() < pDropLast && len(ps) >= 3 {
		ps = ps[:len(ps)-1]
	}
	if r.Float64() < pSplit {
		var long []int
		for i, p := range ps {
			if len(p) >= 2 {
				long = append(long, i)
			}
		}
		if len(long) > 0 {
			i := long[r.IntN(len(long))]
			at := 1 + r.IntN(len(ps[i])-1)
			head, tail := ps[i][:at:at], ps[i][at:]
			ps = slices.Insert(ps, i+1, tail)
			ps[i] = head
		}
	}
	if r.Float64() < pMerge && len(ps) >= 2 {
		i := r.IntN(len(ps) - 1)
		ps[i] = append(ps[i], ps[i+1]...)
		ps = slices.Delete(ps, i+1, i+2)
	}
	paras = joinSentences(ps, a.lang)
	rate := minChange + (maxChange-minChange)*r.Float64()
	c := g.chain(a.lang)
	for i := range paras {
		paras[i] = changeTokens(r, c, paras[i], a.lang, rate)
	}
	if r.Float64() < pPunct {
		for i := range paras {
			paras[i] = swapPunct(paras[i], a.lang)
		}
	}

	title = a.title
	if r.Float64() < pNewTitle {
		switch x := r.Float64(); {
		case x < 0.35: // the reprinting site's name appended
			if a.lang == "zh" {
				title = title + []string{"_", "-", "｜"}[r.IntN(3)] + to.name
			} else {
				title = title + []string{" - ", " | "}[r.IntN(2)] + to.name
			}
		case x < 0.55: // a kicker
			if a.lang == "zh" {
				title = []string{"转载：", "【转】", "独家：", "关注："}[r.IntN(4)] + title
			} else {
				title = []string{"Opinion: ", "Analysis: ", "Update: ", "Report: "}[r.IntN(4)] + title
			}
		case x < 0.8: // reworded
			title = changeTokens(r, c, title, a.lang, 0.2)
		default: // a headline of its own
			title = g.title(r, a.lang)
		}
	}

	if r.Float64() < pSource {
		top = r.Float64() < pSourceTop
		year := 2015 + r.IntN(10)
		if a.lang == "zh" {
			source = []string{
				"来源：" + from.name,
				"本文转载自" + from.name + "，版权归原作者所有，如有侵权请联系删除。",
				"（来源：" + from.name + "　作者：" + from.people[r.IntN(len(from.people))] + "）",
			}[r.IntN(3)]
		} else {
			source = []string{
				"This article originally appeared on " + from.name + ".",
				"Source: " + from.name,
				fmt.Sprintf("Reprinted with permission from %s. © %d %s.", from.name, year, from.name),
			}[r.IntN(3)]
		}
	}
	return title, paras, source, top
}

// changeTokens replaces, deletes or inserts words (English) or Han
// characters (Chinese) of s, each with probability rate.
func changeTokens(r *rand.Rand, c *chain, s, lang string, rate float64) string {
	if lang == "zh" {
		var b strings.Builder
		for _, ch := range s {
			if !isHan(ch) || r.Float64() >= rate {
				b.WriteRune(ch)
				continue
			}
			switch x := r.Float64(); {
			case x < 0.7:
				b.WriteString(hanToken(r, c))
			case x < 0.85: // deleted
			default:
				b.WriteRune(ch)
				b.WriteString(hanToken(r, c))
			}
		}
		return b.String()
	}
	ws := strings.Fields(s)
	out := make([]string, 0, len(ws)+4)
	for _, w := range ws {
		if r.Float64() >= rate {
			out = append(out, w)
			continue
		}
		nw := strings.Trim(c.token(r), `.,;:!?"'“”‘’()`)
		if nw == "" {
			nw = "the"
		}
		switch x := r.Float64(); {
		case x < 0.7:
			// keep the replaced word's trailing punctuation: sentence ends
			// stay where they were
			trimmed := strings.TrimRight(w, `.,;:!?"'“”‘’)`)
			out = append(out, nw+w[len(trimmed):])
		case x < 0.85:
		default:
			out = append(out, w, nw)
		}
	}
	return strings.Join(out, " ")
}

// hanToken draws a Han character by its frequency in the training text.
func hanToken(r *rand.Rand, c *chain) string {
	for range 20 {
		t := c.token(r)
		if ch := []rune(t); len(ch) == 1 && isHan(ch[0]) {
			return t
		}
	}
	return "的"
}

// Full-width punctuation of Chinese text made half-width, and English
// curly quotes made straight: the style changes reprints show.
var (
	zhHalf     = strings.NewReplacer("，", ",", "。", ".", "：", ":", "；", ";", "！", "!", "？", "?", "（", "(", "）", ")", "“", "\"", "”", "\"", "、", ",")
	enStraight = strings.NewReplacer("“", "\"", "”", "\"", "‘", "'", "’", "'", "—", "--")
)

func swapPunct(s, lang string) string {
	if lang == "zh" {
		return zhHalf.Replace(s)
	}
	return enStraight.Replace(s)
}

// splitSentences cuts paragraphs back into sentences at their ends, the
// inverse of joinSentences for a copy that is reprinted again.
func splitSentences(paras []string, lang string) [][]string {
	out := make([][]string, 0, len(paras))
	for _, p := range paras {
		var sents []string
		start := 0
		for i, ch := range p {
			end := false
			if lang == "zh" {
				end = ch == '。' || ch == '！' || ch == '？'
			} else {
				end = (ch == '.' || ch == '!' || ch == '?') && (i+1 == len(p) || p[i+1] == ' ')
			}
			if end {
				stop := i + utf8.RuneLen(ch)
				if s := strings.TrimSpace(p[start:stop]); s != "" {
					sents = append(sents, s)
				}
				start = stop
			}
		}
		if s := strings.TrimSpace(p[start:]); s != "" {
			sents = append(sents, s)
		}
		if len(sents) > 0 {
			out = append(out, sents)
		}
	}
	return out
}
