package boolquery

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics, that failures are located
// *SyntaxErrors, and that String renders a successful parse into a query
// that parses back to the same tree and renders identically.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"(university OR college) AND (education OR Law) NOT Japan",
		"雪花 NOT 啤酒 AND 歌曲 OR 小说",
		`title:"a \"b\" \\" -x +y *z`,
		"e-mail C++ 2019-11-19 a:b:c",
		"NOT NOT -(a b)", "((a)", `"x`, "a :b", "title:", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) error %v is not a *SyntaxError", s, err)
			}
			if se.Pos < 0 || se.Pos > len(s) {
				t.Fatalf("Parse(%q) error position %d outside [0, %d]", s, se.Pos, len(s))
			}
			return
		}
		str := n.String()
		n2, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, str, err)
		}
		if !reflect.DeepEqual(n, n2) {
			t.Fatalf("Parse(%q) = %#v, but its String %q parses to %#v", s, n, str, n2)
		}
		if str2 := n2.String(); str2 != str {
			t.Fatalf("String not stable: %q then %q", str, str2)
		}
		if _, err := Compile(n, Options{Fields: []string{"title", "text"}}); err != nil {
			t.Fatalf("Compile(Parse(%q)) error: %v", s, err)
		}
	})
}
