package align

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// testSeed hashes the words of the tests' passages.
var testSeed = maphash.MakeSeed()

func TestDiff(t *testing.T) {
	tests := []struct {
		name        string
		a, b        string
		left, right string // see render
	}{
		{
			name:  "identical",
			a:     "One. Two.",
			b:     "One. Two.",
			left:  "=One. =Two.|",
			right: "=One. =Two.|",
		},
		{
			name:  "changed word",
			a:     "The hive is on the roof. It has bees.\nVolunteers help.",
			b:     "The hive is on the roof! It has wasps.\nVolunteers help.",
			left:  "=The hive is on the roof. ~It has [~bees].| =Volunteers help.|",
			right: "=The hive is on the roof! ~It has [~wasps].| =Volunteers help.|",
		},
		{
			name:  "lines re-wrapped into one paragraph",
			a:     "The library stays open\nuntil ten at night\nfrom Monday.",
			b:     "The library stays open until ten at night from Monday.",
			left:  "=The library stays open| =until ten at night| =from Monday.|",
			right: "=The library stays open until ten at night from Monday.|",
		},
		{
			name:  "paragraphs merged, full-width punctuation",
			a:     "图书馆开放到十点。\n志愿者值班。",
			b:     "图书馆开放到十点.  志愿者值班!",
			left:  "=图书馆开放到十点。| =志愿者值班。|",
			right: "=图书馆开放到十点. =志愿者值班!|",
		},
		{
			name:  "a word inserted, a word deleted",
			a:     "Bees like the old roof garden very much.",
			b:     "Bees like the roof garden on the library very much.",
			left:  "=Bees like the [-old] roof garden very much.|",
			right: "~Bees like the roof garden [+on the library] very much.|",
		},
		{
			name:  "Chinese characters changed",
			a:     "将近三百人参加。",
			b:     "接近三百人参加。",
			left:  "=[~将]近三百人参加。|",
			right: "=[~接]近三百人参加。|",
		},
		{
			name:  "nothing in common",
			a:     "Alpha beta.",
			b:     "Gamma delta.",
			left:  "-[~Alpha beta].|",
			right: "-[~Gamma delta].|",
		},
		{
			name:  "punctuation only",
			a:     "... !",
			b:     "... !",
			left:  "-... -!|",
			right: "-... -!|",
		},
		{
			name:  "empty",
			a:     "",
			b:     "One.",
			left:  "",
			right: "-[+One].|",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, r, _ := Diff(tt.a, tt.b, 100)
			if got := render(l); got != tt.left {
				t.Errorf("left:  got %q, want %q", got, tt.left)
			}
			if got := render(r); got != tt.right {
				t.Errorf("right: got %q, want %q", got, tt.right)
			}
		})
	}
}

// TestDiffReflowedLong: a long Chinese text whose copy has its lines
// merged, its punctuation made half-width and a few characters changed
// (the gaps are too large for the subsequence table, so the anchors
// align it) shows almost all shared.
func TestDiffReflowedLong(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	han := []rune("图书馆开放时间延长到晚上十点志愿者值班读者借阅新书社区居民活动周末安排")
	var a, b strings.Builder
	for line := range 300 {
		for range 20 + r.IntN(20) {
			c := han[r.IntN(len(han))]
			a.WriteRune(c)
			if r.IntN(200) == 0 {
				c = '变'
			}
			b.WriteRune(c)
		}
		a.WriteString("，\n")
		b.WriteString(",")
		if line%10 == 9 {
			b.WriteString("\n")
		}
	}
	_, _, st := Diff(a.String(), b.String(), 100000)
	if st.LeftShare < 0.98 || st.RightShare < 0.98 {
		t.Errorf("shared %.3f left, %.3f right; want both >= 0.98", st.LeftShare, st.RightShare)
	}
	if st.LeftSharedPassages < st.LeftPassages*9/10 {
		t.Errorf("%d of %d passages shared on the left, want 9 in 10", st.LeftSharedPassages, st.LeftPassages)
	}
}

func TestDiffMaxSentences(t *testing.T) {
	a := strings.Repeat("Sentence here. ", 10) + "\nNext paragraph."
	l, _, _ := Diff(a, "", 3)
	if len(l) != 3 || !strings.HasPrefix(l[2].Text, "Sentence here. Sentence here.") {
		t.Errorf("got %d passages %q, want 3, the last holding the rest of the paragraph", len(l), render(l))
	}
}

// render writes passages as "=" shared, "~" changed or "-" differing,
// then the text with the words not shared in brackets, "[~changed]",
// "[-deleted]", "[+inserted]", then "|" at a paragraph's end.
func render(ps []Passage) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(map[string]string{"shared": "=", "changed": "~", "differs": "-"}[p.Status])
		for _, pc := range p.Pieces {
			switch pc.Op {
			case opChanged:
				b.WriteString("[~" + pc.Text + "]")
			case opDeleted:
				b.WriteString("[-" + pc.Text + "]")
			case opInserted:
				b.WriteString("[+" + pc.Text + "]")
			default:
				b.WriteString(pc.Text)
			}
		}
		if p.Break {
			b.WriteByte('|')
		}
	}
	return b.String()
}

// FuzzDiff checks that splitting loses no text, that the pieces make up
// their passage, and that the two sides share as many words.
func FuzzDiff(f *testing.F) {
	f.Add("One. Two!\nThree？", "Two! One.")
	f.Add("图书馆。\n\n志愿者", "3.5 x. \"y.\" z")
	f.Add("a b c d e f g h i j", "a b x c d e f g h i j")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			// Stored texts come from JSON and are valid UTF-8; with stray
			// bytes, dropping a newline can join two into one rune.
			t.Skip()
		}
		l, r, st := Diff(a, b, 1000)
		if got, want := squeeze(join(l)), squeeze(a); got != want {
			t.Errorf("left text %q, want %q", got, want)
		}
		if got, want := squeeze(join(r)), squeeze(b); got != want {
			t.Errorf("right text %q, want %q", got, want)
		}
		for _, p := range append(l, r...) {
			var sb strings.Builder
			for _, pc := range p.Pieces {
				sb.WriteString(pc.Text)
			}
			if sb.String() != p.Text {
				t.Errorf("pieces %q make %q, want %q", p.Pieces, sb.String(), p.Text)
			}
		}
		if sl, sr := sharedWords(l), sharedWords(r); sl != sr {
			t.Errorf("shared words %d left, %d right", sl, sr)
		}
		if st.LeftShare < 0 || st.LeftShare > 1 || st.RightShare < 0 || st.RightShare > 1 {
			t.Errorf("shares %v %v out of [0, 1]", st.LeftShare, st.RightShare)
		}
	})
}

func join(ps []Passage) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text)
	}
	return b.String()
}

func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// sharedWords counts the words in shared pieces.
func sharedWords(ps []Passage) int {
	n := 0
	for _, p := range ps {
		for _, pc := range p.Pieces {
			if pc.Op == opShared {
				n += len(tokens([]Passage{{Text: pc.Text}}, testSeed))
			}
		}
	}
	return n
}

func ExampleDiff() {
	left, right, stats := Diff("The roof has hives.\nBees like it.", "The roof has hives! Wasps like it.", 100)
	for _, p := range left {
		fmt.Printf("left %s %q\n", p.Status, p.Text)
	}
	for _, p := range right {
		fmt.Printf("right %s %q\n", p.Status, p.Text)
	}
	fmt.Printf("shared: %.2f of the left's words, %.2f of the right's\n", stats.LeftShare, stats.RightShare)
	// Output:
	// left shared "The roof has hives."
	// left changed "Bees like it."
	// right shared "The roof has hives!"
	// right changed "Wasps like it."
	// shared: 0.86 of the left's words, 0.86 of the right's
}
