package analyzer

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/segment"
)

func FuzzAnalyze(f *testing.F) {
	for _, s := range append(goldenText, "", "。", "3.14.", "a.b.c", "\xff\xfe", "！？。\n\n的的", "ｶﾞ\u200b“x”") {
		f.Add(s)
	}
	a := mustNew(f, func(o *Options) { o.Delimiters = "。！？.!?的," })
	f.Fuzz(func(t *testing.T, s string) {
		paragraphs := strings.Split(s, "\n")
		got := a.Analyze(paragraphs)
		if len(got.MinHash) != a.Options().MinHashSize {
			t.Errorf("len(MinHash) = %d, want %d", len(got.MinHash), a.Options().MinHashSize)
		}
		text := AppendNormalized(nil, s)
		delims := 0
		for _, r := range string(text) {
			if strings.ContainsRune("。!?.的,", r) {
				delims++
			}
		}
		if len(got.Pieces) > delims {
			t.Errorf("%d pieces from %d delimiters", len(got.Pieces), delims)
		}
		for _, p := range got.Pieces {
			if p == "" || !utf8.ValidString(p) {
				t.Errorf("piece %q is empty or invalid UTF-8", p)
			}
		}
		st := got.Structure
		if st.Paragraphs < 1 || st.Paragraphs > MaxParagraphs || st.Length < 1 || st.Length > MaxLength ||
			st.Sentences < 1 || st.Sentences > MaxSentences {
			t.Errorf("Structure %+v out of range", st)
		}
		if len(got.Blocks) > a.Options().Blocks {
			t.Errorf("%d blocks, want at most %d", len(got.Blocks), a.Options().Blocks)
		}
		for term, n := range got.Terms {
			if term == "" || n < 1 {
				t.Errorf("term %q with frequency %d", term, n)
			}
		}
		if got.Runes > utf8.RuneCount(text) {
			t.Errorf("Runes = %d, more than the %d characters of the text", got.Runes, utf8.RuneCount(text))
		}
	})
}

func FuzzAppendNormalized(f *testing.F) {
	for _, s := range append(goldenText, "", " \n ", "\xff", "ＡＢＣ　ｄ", "a\u2028b", "圖書館裡的學習，薴苧𡻕㑯") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := AppendNormalized(nil, s)
		if !utf8.Valid(once) {
			t.Fatalf("AppendNormalized(%q) = %q, invalid UTF-8", s, once)
		}
		if twice := AppendNormalized(nil, string(once)); !bytes.Equal(once, twice) {
			t.Errorf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if bytes.HasPrefix(once, []byte(" ")) || bytes.HasSuffix(once, []byte("\n")) ||
			bytes.Contains(once, []byte("  ")) || bytes.Contains(once, []byte("\n\n")) {
			t.Errorf("AppendNormalized(%q) = %q: whitespace not collapsed", s, once)
		}
	})
}

// segmentWords is the reference for appendWords: the segmenter alone,
// its ideographic and kana tokens split into characters.
func segmentWords(text []byte) []word {
	toks, types, _, _ := segment.SegmentWordsDirect(text, nil, nil)
	var out []word
	start := int32(0)
	for i, tok := range toks {
		end := start + int32(len(tok))
		switch types[i] {
		case segment.Letter, segment.Number:
			out = append(out, word{Start: start, End: end, Type: types[i]})
		case segment.Ideo, segment.Kana:
			for j := 0; j < len(tok); {
				_, n := utf8.DecodeRune(tok[j:])
				out = append(out, word{Start: start + int32(j), End: start + int32(j+n), Type: types[i]})
				j += n
			}
		}
		start = end
	}
	return out
}

func FuzzAppendWords(f *testing.F) {
	for _, s := range append(goldenText, "", "a b", "abc", "don't 3.14 e.g. x", "中文 abc\n12 中\u0301文", "a\u0301 b", "x_y 1_2", "カタカナ漢字abc", "(word) end. \"quoted\" _a b_ c-d 'tis 3.14. x.y ...z!?") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := AppendNormalized(nil, s)
		got, want := appendWords(nil, text, nil), segmentWords(text)
		if !slices.Equal(got, want) {
			t.Errorf("appendWords(%q) = %v, the segmenter gives %v", text, got, want)
		}
	})
}
