package segwords

import (
	"slices"
	"testing"

	"github.com/blevesearch/segment"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
)

// reference segments text with the segmenter alone.
func reference(text []byte) []Segment {
	return new(Segmenter).segmented(nil, text, 0, len(text))
}

var seeds = []string{
	"", "a b", "abc", "abc123 123 1_2 x_y", "don't 3.14 e.g. x", "中文 abc\n12 中\u0301文", "a\u0301 b",
	"カタカナ漢字abc ひらがな 한국어", "(word) end. \"quoted\" _a b_ c-d 'tis 3.14. x.y ...z!?",
	"全角，标点。“引号”！ ＡＢＣ１２３", "tab\tsep\r\nCRLF \u00a0nbsp", "\xff\xfe invalid \xe4\xb8 utf8 中\xff", "潷ﾞ 中\u00ad文 中\u200e文 中\u302a 中，文。「引」",
	"a , b -- c\n\t(d) _ e", "a e.g. b", "a ._. b", "中 ，x 。", "“quoted” word’s dogs’ – dash—x ‘tis’ “a,” b…c 中“引”中’s 中·文 x\u3000y éa b’é",
	"don't 3.14 1,000 a.b.c 3.a a.1 a:b a·b x’y 0；0 5，000 a：b a..b a.-b well-known 2-3 a/b x_y.", "中5中 中abc中 中“abc”中 中.5 a中 5.中", "\t9\ta\tb\r\nc\v1\f2\x00x\x1fy\u3000z\u3000",
	"Größe über café naïve 5×3 4÷2 ÀÖØöøÿĀſ ª º µ e\u0301 é\u0301x", "Привет, мир! что-то 3,14 ё Ѐ҂ѐ Ҁ\u0483x ҊӿԀ об’єкт ра:з", "中Привет中 中é 5é 中ÿ",
	"x，‘’；y “a”——《b》… 中（文）！？ 中：「『【】』」·x", "中。文、字。\n“引”", "中。\u3003 中、\u3005 中。\xe3\x80",
}

func TestAppend(t *testing.T) {
	for _, s := range seeds {
		if got, want := new(Segmenter).Append(nil, []byte(s)), reference([]byte(s)); !slices.Equal(got, want) {
			t.Errorf("Append(%q) = %v, the segmenter gives %v", s, got, want)
		}
	}
	got := new(Segmenter).Append(nil, []byte("abc 123 中"))
	want := []Segment{{0, 3, segment.Letter}, {4, 7, segment.Number}, {8, 11, segment.Ideo}}
	if !slices.Equal(got, want) {
		t.Errorf("Append(%q) = %v, want %v", "abc 123 中", got, want)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := new(Segmenter).Append(nil, []byte(s)), reference([]byte(s)); !slices.Equal(got, want) {
			t.Errorf("Append(%q) = %v, the segmenter gives %v", s, got, want)
		}
	})
}

// TestAppendRanges checks every character of the blocks whose letters
// Append cuts itself (Latin-1, Latin Extended-A, Cyrillic) and of the
// punctuation it passes over, beside letters, digits, spaces and Han.
func TestAppendRanges(t *testing.T) {
	var runes []rune
	for r := rune(0x80); r <= 0x52F; r++ {
		runes = append(runes, r)
	}
	for r := rune(0x2000); r <= 0x206F; r++ {
		runes = append(runes, r)
	}
	for r := rune(0x3000); r <= 0x303F; r++ {
		runes = append(runes, r)
	}
	for r := rune(0xFF00); r <= 0xFF65; r++ {
		runes = append(runes, r)
	}
	for _, r := range runes {
		c := string(r)
		for _, s := range []string{c, "a" + c + "b", " " + c + "a ", "a" + c + " ", "1" + c + "2 x", "中" + c + "中", "ab" + c + c + "cd", "я" + c + "я", c + "\u0301 é"} {
			if got, want := new(Segmenter).Append(nil, []byte(s)), reference([]byte(s)); !slices.Equal(got, want) {
				t.Errorf("Append(%q) = %v, the segmenter gives %v", s, got, want)
			}
		}
	}
}

// BenchmarkAppendRealText segments the gold main text of real English
// and Chinese pages as published (what bleve's tokenizer sees), a page an
// op, and reports the share of their bytes given to the segmenter.
func BenchmarkAppendRealText(b *testing.B) {
	for _, c := range []struct {
		name string
		load func(testing.TB) []extracttest.Sample
	}{{"en", extracttest.LoadEN}, {"zh", extracttest.LoadZH}} {
		var texts [][]byte
		for _, s := range c.load(b) {
			texts = append(texts, []byte(s.Gold))
		}
		b.Run(c.name, func(b *testing.B) {
			var s Segmenter
			var dst []Segment
			total := 0
			for i := 0; b.Loop(); i++ {
				text := texts[i%len(texts)]
				dst = s.Append(dst[:0], text)
				total += len(text)
			}
			b.ReportMetric(100*float64(s.passed)/float64(total), "%segmenter")
		})
	}
}
