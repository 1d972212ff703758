package testtext

import (
	"slices"
	"strings"
	"testing"
)

func TestArticle(t *testing.T) {
	a, again, b := Article("river", 3), Article("river", 3), Article("bridge", 3)
	if !slices.Equal(a, again) {
		t.Errorf("Article(river) twice: %q and %q, want the same", a, again)
	}
	if len(a) != 3 || slices.Equal(a, b) {
		t.Errorf("Article(river) %d paragraphs, equal to Article(bridge) %v; want 3, different", len(a), slices.Equal(a, b))
	}
	for _, p := range a {
		if n := len(strings.Fields(p)); n != 40 {
			t.Errorf("a paragraph of %d words, want 40", n)
		}
	}
	head, tail := Template("Site A")
	if len(head) != 6 || len(tail) != 1 || !strings.HasPrefix(head[0], "Site A ") {
		t.Errorf("Template(Site A) = %q, %q; want 6 head paragraphs and 1 tail, naming the site", head, tail)
	}
}
