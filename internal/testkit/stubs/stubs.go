// Package stubs makes a labelled set of templated pages from real
// articles: pages written from one template with other names and numbers
// (species, players, products, results), which share most of their words
// and little of their content, so that a near-duplicate filter must keep
// them apart, and a reprint of some of them, which it must find.
//
// A template is the first sentences of a real article that name or count
// something (two slots or more: numbers, capitalised names, the article's
// title); each of its pages swaps in the slots of another real article,
// in order. Labels are by construction: each page is a cluster of its
// own, but for its reprint (a source line added, one sentence's
// punctuation changed).
package stubs

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Article is a real article: its title and text.
type Article struct {
	Title string
	Text  string
}

// Page is a generated page and its label.
type Page struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	Cluster string `json:"-"`
}

// Options size a set.
type Options struct {
	// PerTemplate is how many pages each template gives. Default 4.
	PerTemplate int
	// Reprinted: every Reprinted-th page is reprinted. Default 3.
	Reprinted int
	// MinSlots: a template sentence names or counts at least this many
	// things, and one every SlotRunes characters. Defaults 2 and 25.
	MinSlots, SlotRunes int
	// MinRunes and MaxRunes bound a template's length. Defaults 150 and 600.
	MinRunes, MaxRunes int
	// Fact: every Fact-th clause of a page states the other article's
	// fact instead (its clause of the same rank), as stubs of one
	// template differ in what they say as well as in names and numbers.
	// Default 3.
	Fact int
}

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options {
	return Options{PerTemplate: 4, Reprinted: 3, MinSlots: 2, SlotRunes: 25, MinRunes: 150, MaxRunes: 600, Fact: 3}
}

// slot matches what a templated page varies, one kind a group: numbers
// (with their separators), capitalised words, and Han names of places,
// bodies and taxa (a few characters before a suffix such as 省, 站 or 科).
var slot = regexp.MustCompile(`([0-9][0-9.,:/-]*[0-9]|[0-9])|(\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*)|(\p{Han}{2}(?:省|市|县|镇|站|江|河|山|湖|岛|队|属|科|港))`)

// kind is the group of slot that m (a submatch index) matched.
func kind(m []int) int {
	for k := 1; 2*k < len(m); k++ {
		if m[2*k] >= 0 {
			return k
		}
	}
	return 0
}

// Make returns the pages of templates from arts, each filled from the
// articles after it (in a ring), named with prefix.
func Make(arts []Article, prefix string, o Options) []Page {
	var pages []Page
	n := 0
	for t, a := range arts {
		tmpl := template(a, o)
		if tmpl == nil {
			continue
		}
		uses := slots(strings.Join(tmpl, " "), a.Title)
		for k := 1; k <= o.PerTemplate; k++ {
			donor := arts[(t+k*7)%len(arts)]
			vals := slots(donor.Text, donor.Title)
			if !fills(uses, vals) {
				continue // it would keep the template's own names or numbers
			}
			text := facts(fill(tmpl, a.Title, donor.Title, vals), donor.Text, uint64(t)<<8|uint64(k), o.Fact)
			id := fmt.Sprintf("%s-%03d-%d", prefix, t, k)
			pages = append(pages, Page{ID: id, Title: donor.Title, Text: text, Cluster: id})
			n++
			if o.Reprinted > 0 && n%o.Reprinted == 0 {
				pages = append(pages, Page{ID: id + "-r", Title: donor.Title, Text: reprint(text), Cluster: id})
			}
		}
	}
	return pages
}

// template returns the sentences of a that make its template, nil when
// too few of them name or count things.
func template(a Article, o Options) []string {
	var out []string
	runes := 0
	for _, s := range sentences(a.Text) {
		if n := count(slots(s, a.Title)); n < o.MinSlots || n*o.SlotRunes < utf8.RuneCountInString(s) {
			continue
		}
		if runes+utf8.RuneCountInString(s) > o.MaxRunes {
			break
		}
		out = append(out, s)
		runes += utf8.RuneCountInString(s)
	}
	if runes < o.MinRunes {
		return nil
	}
	return out
}

// slots are the things text names or counts, by kind, in order: its
// slot matches (a capitalised word at a sentence's start aside) and, as
// kind 0, the occurrences of title.
func slots(text, title string) map[int][]string {
	out := map[int][]string{}
	if title != "" {
		for range strings.Count(text, title) {
			out[0] = append(out[0], title)
		}
	}
	for _, m := range slot.FindAllStringSubmatchIndex(text, -1) {
		if k := kind(m); !(k == 2 && sentenceStart(text, m[0])) {
			out[k] = append(out[k], text[m[0]:m[1]])
		}
	}
	return out
}

// fills reports whether vals has slots of every kind uses has.
func fills(uses, vals map[int][]string) bool {
	for k, v := range uses {
		if len(v) > 0 && len(vals[k]) == 0 {
			return false
		}
	}
	return true
}

// count is how many slots of all kinds ss holds.
func count(ss map[int][]string) int {
	n := 0
	for _, v := range ss {
		n += len(v)
	}
	return n
}

// sentenceStart reports whether byte i of text begins a sentence.
func sentenceStart(text string, i int) bool {
	s := strings.TrimRightFunc(text[:i], unicode.IsSpace)
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?。！？\"“”", r)
}

// fill replaces the slots of tmpl in order by vals of their kind in turn
// (kept where vals has none of it), and the title from by title.
func fill(tmpl []string, from, title string, vals map[int][]string) string {
	next := map[int]int{}
	var b strings.Builder
	for i, s := range tmpl {
		if i > 0 {
			b.WriteByte(' ')
		}
		at := 0
		for _, m := range slot.FindAllStringSubmatchIndex(s, -1) {
			b.WriteString(replaceTitle(s[at:m[0]], from, title))
			k, v := kind(m), s[m[0]:m[1]]
			switch vs := vals[k]; {
			case from != "" && v == from:
				v = title
			case len(vs) > 0 && !(k == 2 && sentenceStart(s, m[0])):
				v = vs[next[k]%len(vs)]
				next[k]++
			}
			b.WriteString(v)
			at = m[1]
		}
		b.WriteString(replaceTitle(s[at:], from, title))
	}
	return b.String()
}

// facts replaces one clause of text in fact, drawn by seed, by the
// clause of the same rank in donor.
func facts(text, donor string, seed uint64, fact int) string {
	if fact < 1 {
		return text
	}
	own, other := clauses(text), clauses(donor)
	var b strings.Builder
	for i, c := range own {
		seed = seed*6364136223846793005 + 1442695040888963407
		if (seed>>33)%uint64(fact) == 0 && i < len(other) {
			c = other[i]
		}
		b.WriteString(c)
	}
	return b.String()
}

// clauses splits text after clause and sentence ends, keeping them.
func clauses(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if strings.ContainsRune("，；。！？,;", r) || r == '.' && i+1 < len(text) && text[i+1] == ' ' {
			end := i + utf8.RuneLen(r)
			out = append(out, text[start:end])
			start = end
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func replaceTitle(s, from, to string) string {
	if from == "" {
		return s
	}
	return strings.ReplaceAll(s, from, to)
}

// reprint is another site's copy of text: a source line, and the first
// sentence's full stop made full-width or the reverse.
func reprint(text string) string {
	switch {
	case strings.Contains(text, "。"):
		text = strings.Replace(text, "。", ".", 1) + "\n\n来源：新华网"
	default:
		text = strings.Replace(text, ". ", "。", 1) + "\n\nSource: Associated Press"
	}
	return text
}

// sentences splits text after sentence ends (Latin and Chinese).
func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if !strings.ContainsRune(".!?。！？", r) {
			continue
		}
		end := i + utf8.RuneLen(r)
		if r == '.' && (end < len(text) && !unicode.IsSpace(rune(text[end])) || i > 0 && unicode.IsDigit(rune(text[i-1])) && end < len(text) && unicode.IsDigit(rune(text[end]))) {
			continue
		}
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
