package server

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage is a sentence of a document's main text in a comparison.
type Passage struct {
	Text string `json:"text"`
	// Shared says whether the other document has the same sentence (up to
	// case, white space, punctuation and full-width forms).
	Shared bool `json:"shared"`
	// Break says whether a paragraph ends after this passage.
	Break bool `json:"break,omitempty"`
}

// Diff splits the texts a and b (paragraphs separated by newlines) into
// sentences and marks the sentences the two share, by a longest common
// subsequence over normalised sentences, so reordered copies show their
// common run and paragraph splits or merges do not matter.
//
// The LCS table is len(a)*len(b) sentences; callers bound the inputs
// (see Options.MaxCompareSentences).
func Diff(a, b string, maxSentences int) (left, right []Passage) {
	left, right = sentences(a, maxSentences), sentences(b, maxSentences)
	ka, kb := keys(left), keys(right)
	// lcs[i][j] is the LCS length of ka[i:] and kb[j:].
	lcs := make([][]int, len(ka)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(kb)+1)
	}
	for i := len(ka) - 1; i >= 0; i-- {
		for j := len(kb) - 1; j >= 0; j-- {
			if ka[i] == kb[j] && ka[i] != "" {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	for i, j := 0, 0; i < len(ka) && j < len(kb); {
		switch {
		case ka[i] == kb[j] && ka[i] != "":
			left[i].Shared, right[j].Shared = true, true
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return left, right
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

// keys normalises passages for comparison: letters and digits only,
// lower case, full-width forms folded to ASCII.
func keys(ps []Passage) []string {
	ks := make([]string, len(ps))
	var b strings.Builder
	for i, p := range ps {
		b.Reset()
		for _, r := range p.Text {
			if r >= 0xFF01 && r <= 0xFF5E { // full-width ASCII
				r -= 0xFEE0
			}
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(unicode.ToLower(r))
			}
		}
		ks[i] = b.String()
	}
	return ks
}
