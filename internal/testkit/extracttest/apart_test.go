package extracttest

import (
	"strings"
	"testing"
)

// TestMarkedText: L3S-GN1's gold is the text of the spans labelled
// headline and full text, the innermost label deciding (white space
// collapsed: the score reads words only).
func TestMarkedText(t *testing.T) {
	for _, c := range []struct {
		name, doc, want string
	}{
		{"labels", `<p><span class="x-nc-sel1">Head</span></p><p><span class="x-nc-sel0">Menu</span></p><p><span class="x-nc-sel2">Body text</span></p>`, "Head Body text"},
		{"innermost wins", `<div><span class="x-nc-sel2">kept <span class="x-nc-sel4">related</span> again</span></div>`, "kept again"},
		{"unlabelled text", `<p>plain</p><span class="other">x</span>`, ""},
		{"inline keeps words whole", `<p><span class="x-nc-sel2">un<b>like</b></span></p>`, "unlike"},
		{"script dropped", `<span class="x-nc-sel2">a<script>var x</script>b</span>`, "ab"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(strings.Fields(markedText(c.doc, l3sContent)), " "); got != c.want {
				t.Errorf("markedText = %q, want %q", got, c.want)
			}
		})
	}
}

// TestCommentsMark: the variants of Dragnet's comments separator that its
// gold files hold, and lines that only mention comments.
func TestCommentsMark(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"!@#$%^&*()  COMMENTS", true},
		{"!@ $%^&*()  COMMENTS", true},
		{"  #$%^&*()  COMMENTS", true},
		{"!@#$%^&*()  \tCOMMENTS\t", true},
		{"COMMENTS", false},
		{"  COMMENTS", false},
		{"12 COMMENTS on this post", false},
	} {
		if got := commentsMark.MatchString("article\n" + c.line + "\nthread"); got != c.want {
			t.Errorf("%q: match %v, want %v", c.line, got, c.want)
		}
	}
}

// TestBOMText: UTF-16 gold files with a byte-order mark, and UTF-8 ones.
func TestBOMText(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"utf-8", []byte("héllo"), "héllo"},
		{"utf-16le", []byte{0xff, 0xfe, 'h', 0, 0xe9, 0, '\n', 0}, "hé\n"},
		{"utf-16be", []byte{0xfe, 0xff, 0, 'h', 0, 0xe9}, "hé"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := bomText(c.in)
			if err != nil || got != c.want {
				t.Errorf("bomText = %q, %v, want %q", got, err, c.want)
			}
		})
	}
}

// TestDiff: the lines that lower precision and recall.
func TestDiff(t *testing.T) {
	want := "the quick brown fox jumps over the lazy dog\nsecond line of the article text"
	got := "the quick brown fox jumps over the lazy dog\nshare this story on your favourite network"
	extra, missing := Diff(got, want)
	if len(extra) != 1 || !strings.HasPrefix(extra[0].Line, "share") {
		t.Errorf("extra = %v", extra)
	}
	if len(missing) != 1 || !strings.HasPrefix(missing[0].Line, "second") {
		t.Errorf("missing = %v", missing)
	}
}
