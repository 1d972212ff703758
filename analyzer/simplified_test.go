package analyzer

import (
	"testing"
	"unicode"
)

func TestAppendNormalizedTraditional(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"圖書館", "图书馆"},
		{"後", "后"},
		{"裡", "里"},
		{"裏", "里"},
		{"學習", "学习"},
		{"關於這個問題，我們會繼續討論。", "关于这个问题,我们会继续讨论。"},
		{"乾淨", "干净"},        // several candidates: the first
		{"薴", "苎"},          // chain 薴 -> 苧 -> 苎 resolved
		{"㑯", "㑔"},          // extension A
		{"\U00021ED5", "岁"}, // extension B to the main block
		{"台灣", "台湾"},        // 台 is the same in both scripts
		{"图书馆里学习中文", "图书馆里学习中文"}, // simplified text unchanged
		{"“自然语言处理”是人工智能的一个重要方向", `"自然语言处理"是人工智能的一个重要方向`},
		{"The Library, 3.14 ｍｉｌｅｓ", "the library, 3.14 miles"},
		{"English 與 中文", "english 与 中文"},
		{"カタカナ、한국어", "カタカナ、한국어"},
	} {
		if got := string(AppendNormalized(nil, tc.in)); got != tc.want {
			t.Errorf("AppendNormalized(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSimplifiedTable checks the invariants the fast path relies on: every
// mapping is Han to Han, no simplified form is itself mapped (so folding is
// idempotent), and the keys outside the main block lie in the ranges
// simplifiedRare looks at.
func TestSimplifiedTable(t *testing.T) {
	n := len(simplifiedOther)
	check := func(trad, simp rune) {
		if !unicode.Is(unicode.Han, trad) || !unicode.Is(unicode.Han, simp) || trad == simp {
			t.Errorf("%U %q -> %U %q: want a different Han character", trad, trad, simp, simp)
		}
		if again := simplifiedRune(simp); again != simp {
			t.Errorf("%q -> %q -> %q: not idempotent", trad, simp, again)
		}
	}
	for i, simp := range simplifiedHan {
		if simp != 0 {
			n++
			check(rune(hanLo+i), simp)
		}
	}
	for trad, simp := range simplifiedOther {
		if simplifiedRare(trad) != simp {
			t.Errorf("%U %q is outside the ranges simplifiedRare looks up", trad, trad)
		}
		check(trad, simp)
	}
	// 4113 lines in TSCharacters.txt, 8 of them identities (彷 牴 瞭 祇 藉 衹 覆 阪).
	if n != 4105 {
		t.Errorf("table holds %d mappings, want 4105", n)
	}
}

// simplifiedRune is the simplified form of any rune, or the rune itself.
func simplifiedRune(r rune) rune {
	if r >= hanLo && r <= hanHi {
		if s := simplifiedHan[r-hanLo]; s != 0 {
			return s
		}
		return r
	}
	return simplifiedRare(r)
}
