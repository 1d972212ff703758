package htmltags

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSequence(t *testing.T) {
	tests := []struct {
		name, html string
		max        int
		want       []string
	}{
		{"empty", "", 0, nil},
		{"text only", "a < b and c > d", 0, nil},
		{"nested", `<HTML><body><div class="x"><p>hi<br/>there</p></div></body></html>`, 0, []string{"html", "body", "div", "p", "br"}},
		{"quoted >", `<a title="x > y" href='>'>link</a><img>`, 0, []string{"a", "img"}},
		{"spaces around =", `<a title = "x > y">link</a><img>`, 0, []string{"a", "img"}},
		{"stray quote", `<script src="a.js""></script><div class="x"><p>`, 0, []string{"script", "div", "p"}},
		{"quote in a name", `<p a"b='c'>x<br>`, 0, []string{"p", "br"}},
		{"comment and doctype", `<!DOCTYPE html><!-- <div> --><?xml x?><p>`, 0, []string{"p"}},
		{"script content", `<script>if (a<b) document.write("<div>")</script><span>`, 0, []string{"script", "span"}},
		{"script end case", `<SCRIPT>x</Script ><em>`, 0, []string{"script", "em"}},
		{"unknown element", `<my-widget><p>`, 0, []string{"", "p"}},
		{"max", `<p><p><p><p>`, 2, []string{"p", "p"}},
		{"unclosed", `<div class="a`, 0, []string{"div"}},
		{"unclosed script", `<script>var x = "<p>";`, 0, []string{"script"}},
	}
	for _, tt := range tests {
		got := Sequence(tt.html, tt.max)
		var names []string
		for _, c := range got {
			names = append(names, Name(c))
		}
		if strings.Join(names, ",") != strings.Join(tt.want, ",") || len(names) != len(tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, names, tt.want)
		}
	}
}

func TestCodes(t *testing.T) {
	if len(names) > 255 {
		t.Fatalf("%d names do not fit a byte", len(names))
	}
	for i, n := range names {
		if got := Code(n); got != byte(i+1) || Name(got) != n {
			t.Errorf("Code(%q) = %d, Name = %q", n, got, Name(got))
		}
	}
	if Name(0) != "" || Name(255) != "" {
		t.Error("Name of 0 or 255 is not empty")
	}
}

// levenshtein is the plain dynamic-programming table, the reference.
func levenshtein(a, b []byte) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"abc", "abc", 0},
		{"abc", "xyz", 3},
	}
	for _, tt := range tests {
		if got := Distance([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// Lengths around the word size and several blocks, with small and
	// large alphabets, against the plain table.
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 63, 64, 65, 127, 128, 129, 300} {
		for _, alpha := range []int{2, 4, 200} {
			a := make([]byte, n)
			for i := range a {
				a[i] = byte(r.IntN(alpha))
			}
			b := mutate(r, a, alpha)
			if got, want := Distance(a, b), levenshtein(a, b); got != want {
				t.Errorf("n=%d alphabet=%d: Distance = %d, want %d", n, alpha, got, want)
			}
		}
	}
}

// mutate returns a copy of a with some codes changed, inserted and
// deleted.
func mutate(r *rand.Rand, a []byte, alpha int) []byte {
	var b []byte
	for _, c := range a {
		switch r.IntN(10) {
		case 0: // delete
		case 1:
			b = append(b, byte(r.IntN(alpha)))
		case 2:
			b = append(b, c, byte(r.IntN(alpha)))
		default:
			b = append(b, c)
		}
	}
	return b
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 0},
		{"abcd", "abcd", 1},
		{"abcd", "abcx", 0.75},
		{"ab", "xyzw", 0},
	}
	for _, tt := range tests {
		if got := Similarity([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("Similarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func FuzzSequence(f *testing.F) {
	for _, s := range []string{"", "<", "<a", "<!--", "<script>", "<p a='>'>", "<a><b></b><c/>", "<\xff>"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, html string, max int) {
		max %= 100
		got := Sequence(html, max)
		if max > 0 && len(got) > max {
			t.Errorf("%d codes, want at most %d", len(got), max)
		}
		if len(got) > strings.Count(html, "<") {
			t.Errorf("%d codes from %d '<'", len(got), strings.Count(html, "<"))
		}
		for _, c := range got {
			if int(c) > len(names) {
				t.Errorf("code %d out of range", c)
			}
		}
	})
}

func FuzzDistance(f *testing.F) {
	f.Add([]byte("kitten"), []byte("sitting"))
	f.Add([]byte(strings.Repeat("ab", 40)), []byte(strings.Repeat("ba", 33)))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 300 || len(b) > 300 {
			return
		}
		if got, want := Distance(a, b), levenshtein(a, b); got != want {
			t.Errorf("Distance = %d, want %d", got, want)
		}
	})
}

// tagPair returns two sequences of about 4,000 tags, one an edit of the
// other.
func tagPair() ([]byte, []byte) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]byte, 4000)
	for i := range x {
		x[i] = byte(r.IntN(40))
	}
	return x, mutate(r, x, 40)
}

// BenchmarkDistance compares two sequences of about 4,000 tags.
func BenchmarkDistance(b *testing.B) {
	x, y := tagPair()
	for b.Loop() {
		Distance(x, y)
	}
}

// BenchmarkLevenshteinTable is the plain table on the same sequences.
func BenchmarkLevenshteinTable(b *testing.B) {
	x, y := tagPair()
	for b.Loop() {
		levenshtein(x, y)
	}
}
