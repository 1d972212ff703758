package main

import (
	"maps"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[rune]rune
	}{
		{"one to one", "圖\t图\n後\t后\n", map[rune]rune{'圖': '图', '後': '后'}},
		{"first candidate", "乾\t干 乾\n", map[rune]rune{'乾': '干'}},
		{"identity dropped", "台\t台\n瞭\t瞭 了\n", map[rune]rune{}},
		{"chain resolved", "薴\t苧\n苧\t苎\n", map[rune]rune{'薴': '苎', '苧': '苎'}},
		{"phrases and blank lines skipped", "\n圖書\t图书\n館\t馆\n", map[rune]rune{'館': '馆'}},
		{"multi-rune candidate skipped", "館\t馆子\n", map[rune]rune{}},
	} {
		got, err := parse(strings.NewReader(tc.in))
		if err != nil {
			t.Errorf("%s: parse: %v", tc.name, err)
			continue
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: parse(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"A\ta\n", "圖\t1\n", "甲\t乙\n乙\t甲\n"} {
		if got, err := parse(strings.NewReader(in)); err == nil {
			t.Errorf("parse(%q) = %q, want an error", in, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"圖\t图\n", "乾\t干 乾\n薴\t苧\n苧\t苎\n", "甲\t乙\n乙\t甲\n", "\t\n \t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := parse(strings.NewReader(in))
		if err != nil {
			return
		}
		for k, v := range m {
			if k == v {
				t.Errorf("identity %q kept", k)
			}
			if w, ok := m[v]; ok {
				t.Errorf("chain %q -> %q -> %q left unresolved", k, v, w)
			}
		}
	})
}
