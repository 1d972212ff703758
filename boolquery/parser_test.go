package boolquery

import (
	"errors"
	"reflect"
	"testing"
)

func term(s string) Term { return Term{Text: s} }

func TestParse(t *testing.T) {
	a, b, c, d := term("a"), term("b"), term("c"), term("d")
	tests := []struct {
		name, in string
		want     Node
		str      string // want String(); empty means same as in
	}{
		{"term", "a", a, ""},
		{"and", "a AND b", And{a, b}, ""},
		{"and star", "a * b", And{a, b}, "a AND b"},
		{"or", "a OR b", Or{a, b}, ""},
		{"or plus", "a + b", Or{a, b}, "a OR b"},
		{"not binary", "a NOT b", And{a, Not{b}}, "a AND NOT b"},
		{"not binary minus", "a - b", And{a, Not{b}}, "a AND NOT b"},
		{"minus prefix", "a -b", And{a, Not{b}}, "a AND NOT b"},
		{"star and plus prefix", "a *b +c", Or{And{a, b}, c}, "a AND b OR c"},
		{"leading not", "NOT a", Not{a}, ""},
		{"leading minus", "-a", Not{a}, "NOT a"},
		{"double not", "NOT NOT a", Not{Not{a}}, ""},
		{"and not", "a AND NOT b", And{a, Not{b}}, ""},
		{"implicit and", "a b", And{a, b}, "a AND b"},
		{"implicit and phrase paren", `a "b c" (d)`, And{a, Phrase{Text: "b c"}, d}, `a AND "b c" AND d`},
		{"and over or", "a OR b AND c", Or{a, And{b, c}}, ""},
		{"and over or left", "a AND b OR c", Or{And{a, b}, c}, ""},
		{"not over and", "NOT a AND b", And{Not{a}, b}, ""},
		{"not over or", "NOT a OR b", Or{Not{a}, b}, ""},
		{"binary not over or", "a OR b NOT c", Or{a, And{b, Not{c}}}, "a OR b AND NOT c"},
		{"binary not over or left", "a NOT b OR c", Or{And{a, Not{b}}, c}, "a AND NOT b OR c"},
		{"parens", "(a OR b) AND c", And{Or{a, b}, c}, ""},
		{"not group", "NOT (a OR b)", Not{Or{a, b}}, ""},
		{"not and group", "-(a b)", Not{And{a, b}}, "NOT (a AND b)"},
		{"flatten and", "(a AND b) AND (c AND d)", And{a, b, c, d}, "a AND b AND c AND d"},
		{"flatten or", "a OR (b OR c) OR d", Or{a, b, c, d}, "a OR b OR c OR d"},
		{"redundant parens", "((a))", a, "a"},
		{"seed english", "(university OR college) AND (education OR Law) NOT Japan",
			And{Or{term("university"), term("college")}, Or{term("education"), term("Law")}, Not{term("Japan")}},
			"(university OR college) AND (education OR Law) AND NOT Japan"},
		{"seed chinese", "雪花 NOT 啤酒 AND 歌曲 OR 小说",
			Or{And{term("雪花"), Not{term("啤酒")}, term("歌曲")}, term("小说")},
			"雪花 AND NOT 啤酒 AND 歌曲 OR 小说"},
		{"chinese symbols", "雪花 -啤酒 * 歌曲 + 小说",
			Or{And{term("雪花"), Not{term("啤酒")}, term("歌曲")}, term("小说")},
			"雪花 AND NOT 啤酒 AND 歌曲 OR 小说"},
		{"ideographic space", "雪花\u3000啤酒", And{term("雪花"), term("啤酒")}, "雪花 AND 啤酒"},
		{"lowercase keywords are terms", "a and b or not c", And{a, term("and"), b, term("or"), term("not"), c},
			"a AND and AND b AND or AND not AND c"},
		{"keyword glued to word", "ANDy ORb", And{term("ANDy"), term("ORb")}, "ANDy AND ORb"},
		{"hyphen inside term", "e-mail", term("e-mail"), ""},
		{"plus inside term", "C++ OR C#", Or{term("C++"), term("C#")}, ""},
		{"date", "2019-11-19 -2018-01-01", And{term("2019-11-19"), Not{term("2018-01-01")}}, "2019-11-19 AND NOT 2018-01-01"},
		{"star inside term", "wild*card", term("wild*card"), ""},
		{"operator after paren", "(a)-b", And{a, Not{b}}, "a AND NOT b"},
		{"operator after phrase", `"a b"-c`, And{Phrase{Text: "a b"}, Not{c}}, `"a b" AND NOT c`},
		{"field term", "title:college", Term{Field: "title", Text: "college"}, ""},
		{"field phrase", `text:"law college"`, Phrase{Field: "text", Text: "law college"}, ""},
		{"field chinese", "zh:雪花 -zh:啤酒", And{Term{Field: "zh", Text: "雪花"}, Not{Term{Field: "zh", Text: "啤酒"}}}, "zh:雪花 AND NOT zh:啤酒"},
		{"field keyword text", "title:NOT", Term{Field: "title", Text: "NOT"}, ""},
		{"second colon in text", "url:http://x", Term{Field: "url", Text: "http://x"}, ""},
		{"phrase", `"hello world"`, Phrase{Text: "hello world"}, ""},
		{"phrase keeps operators", `"a AND (b"`, Phrase{Text: "a AND (b"}, ""},
		{"phrase escapes", `"say \"hi\" \\ \x"`, Phrase{Text: `say "hi" \ \x`}, `"say \"hi\" \\ \\x"`},
		{"quoted keyword", `"AND"`, Phrase{Text: "AND"}, ""},
		{"spaces", "  a \t\n OR  b ", Or{a, b}, "a OR b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			wantStr := tt.str
			if wantStr == "" {
				wantStr = tt.in
			}
			if s := got.String(); s != wantStr {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, wantStr)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     SyntaxError
		msg      string
	}{
		{"empty", "", SyntaxError{0, `term or "("`, "end of input"},
			`boolquery: at 0: expected term or "(", found end of input`},
		{"blank", "   ", SyntaxError{3, `term or "("`, "end of input"}, ""},
		{"empty parens", "a AND ()", SyntaxError{7, `term or "("`, `")"`},
			`boolquery: at 7: expected term or "(", found ")"`},
		{"dangling and", "a AND", SyntaxError{5, `term or "("`, "end of input"}, ""},
		{"dangling or", "a +", SyntaxError{3, `term or "("`, "end of input"}, ""},
		{"dangling not", "a NOT", SyntaxError{5, `term or "("`, "end of input"}, ""},
		{"leading and", "AND a", SyntaxError{0, `term or "("`, `"AND"`}, ""},
		{"leading plus", "+a", SyntaxError{0, `term or "("`, `"+"`}, ""},
		{"double operator", "a OR AND b", SyntaxError{5, `term or "("`, `"AND"`}, ""},
		{"not then and", "a NOT * b", SyntaxError{6, `term or "("`, `"*"`}, ""},
		{"unclosed paren", "(a OR b", SyntaxError{7, `")" matching "(" at 0`, "end of input"},
			`boolquery: at 7: expected ")" matching "(" at 0, found end of input`},
		{"unclosed inner paren", "(a OR (b)", SyntaxError{9, `")" matching "(" at 0`, "end of input"}, ""},
		{"unmatched close", "a OR b) c", SyntaxError{6, "end of input", `unmatched ")"`}, ""},
		{"unterminated quote", `a "b c`, SyntaxError{6, `closing '"' of phrase at 2`, "end of input"}, ""},
		{"unterminated escaped quote", `"b\"`, SyntaxError{4, `closing '"' of phrase at 0`, "end of input"}, ""},
		{"empty phrase", `a ""`, SyntaxError{2, "phrase text", `empty phrase ""`}, ""},
		{"empty field", "a :b", SyntaxError{2, "field name", `":"`}, ""},
		{"field without term", "title: a", SyntaxError{6, `term or phrase after "title:"`, `' '`}, ""},
		{"field at end", "title:", SyntaxError{6, `term or phrase after "title:"`, "end of input"}, ""},
		{"field before paren", "title:(a)", SyntaxError{6, `term or phrase after "title:"`, `'('`}, ""},
		{"chinese offset is bytes", "雪花 AND", SyntaxError{10, `term or "("`, "end of input"}, ""},
		{"leading close", ") title:x", SyntaxError{0, `term or "("`, `")"`}, ""},
		{"leftmost error wins", `a ) "b`, SyntaxError{2, "end of input", `unmatched ")"`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.in, n)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("errors.Is(%v, ErrSyntax) = false", err)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", tt.in, err)
			}
			if *se != tt.want {
				t.Errorf("Parse(%q) error = %+v, want %+v", tt.in, *se, tt.want)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("Parse(%q) message = %q, want %q", tt.in, err.Error(), tt.msg)
			}
		})
	}
}

func TestParseDepth(t *testing.T) {
	deep := func(n int) string {
		s := "a"
		for i := 0; i < n; i++ {
			s = "(" + s + ")"
		}
		return s
	}
	if _, err := Parse(deep(MaxDepth)); err != nil {
		t.Errorf("Parse(%d nested groups) error: %v", MaxDepth, err)
	}
	_, err := Parse(deep(MaxDepth + 1))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos != MaxDepth {
		t.Errorf("Parse(%d nested groups) error = %v, want SyntaxError at %d", MaxDepth+1, err, MaxDepth)
	}
}
