package server

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name        string
		a, b        string
		left, right string // passages, + shared and - not, "|" a paragraph break
	}{
		{
			name:  "identical",
			a:     "One. Two.",
			b:     "One. Two.",
			left:  "+One. +Two.|",
			right: "+One. +Two.|",
		},
		{
			name:  "changed sentence",
			a:     "The hive is on the roof. It has bees.\nVolunteers help.",
			b:     "The hive is on the roof! It has wasps.\nVolunteers help.",
			left:  "+The hive is on the roof. -It has bees.| +Volunteers help.|",
			right: "+The hive is on the roof! -It has wasps.| +Volunteers help.|",
		},
		{
			name:  "paragraphs merged, full-width punctuation",
			a:     "图书馆开放到十点。\n志愿者值班。",
			b:     "图书馆开放到十点.  志愿者值班!",
			left:  "+图书馆开放到十点。| +志愿者值班。|",
			right: "+图书馆开放到十点. +志愿者值班!|",
		},
		{
			name:  "decimal and domain are not sentence ends",
			a:     "It costs 3.5 dollars at example.com today. Next.",
			b:     "Next.",
			left:  "-It costs 3.5 dollars at example.com today. +Next.|",
			right: "+Next.|",
		},
		{
			name:  "closing quote stays with its sentence",
			a:     `He said "go." Then left.`,
			b:     `Then left.`,
			left:  `-He said "go." +Then left.|`,
			right: `+Then left.|`,
		},
		{
			name:  "punctuation-only sentences are never shared",
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
			right: "-One.|",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, r := Diff(tt.a, tt.b, 100)
			if got := render(l); got != tt.left {
				t.Errorf("left:  got %q, want %q", got, tt.left)
			}
			if got := render(r); got != tt.right {
				t.Errorf("right: got %q, want %q", got, tt.right)
			}
		})
	}
}

func TestDiffMaxSentences(t *testing.T) {
	a := strings.Repeat("Sentence here. ", 10) + "\nNext paragraph."
	l, _ := Diff(a, "", 3)
	if len(l) != 3 || !strings.HasPrefix(l[2].Text, "Sentence here. Sentence here.") {
		t.Errorf("got %d passages %q, want 3, the last holding the rest of the paragraph", len(l), render(l))
	}
}

func render(ps []Passage) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		if p.Shared {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(p.Text)
		if p.Break {
			b.WriteByte('|')
		}
	}
	return b.String()
}

// FuzzDiff checks that splitting loses no text and that the shared
// passages of both sides pair up.
func FuzzDiff(f *testing.F) {
	f.Add("One. Two!\nThree？", "Two! One.")
	f.Add("图书馆。\n\n志愿者", "3.5 x. \"y.\" z")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			// Stored texts come from JSON and are valid UTF-8; with stray
			// bytes, dropping a newline can join two into one rune.
			t.Skip()
		}
		l, r := Diff(a, b, 1000)
		if got, want := squeeze(join(l)), squeeze(a); got != want {
			t.Errorf("left text %q, want %q", got, want)
		}
		if got, want := squeeze(join(r)), squeeze(b); got != want {
			t.Errorf("right text %q, want %q", got, want)
		}
		if sl, sr := shared(l), shared(r); sl != sr {
			t.Errorf("shared %d left, %d right", sl, sr)
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

func shared(ps []Passage) int {
	n := 0
	for _, p := range ps {
		if p.Shared {
			n++
		}
	}
	return n
}

func ExampleDiff() {
	left, right := Diff("The roof has hives. Bees like it.", "The roof has hives! Wasps like it.", 100)
	for i := range left {
		fmt.Printf("%v %q | %v %q\n", left[i].Shared, left[i].Text, right[i].Shared, right[i].Text)
	}
	// Output:
	// true "The roof has hives." | true "The roof has hives!"
	// false "Bees like it." | false "Wasps like it."
}
