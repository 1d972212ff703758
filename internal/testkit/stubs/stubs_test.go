package stubs

import (
	"strings"
	"testing"
)

func TestMake(t *testing.T) {
	arts := []Article{
		{Title: "Alpha", Text: "Alpha was founded in 1901 by Anna Berg in Oslo. It had 300 members in 1950 and moved to Bergen. It closed in 1999 after 98 years."},
		{Title: "Beta", Text: "Beta opened in 1822 under Carl Dahl near Rome. It counted 45 rooms by 1870 and served Milan. It burned in 1911, rebuilt in 1913."},
	}
	o := DefaultOptions()
	o.PerTemplate, o.Reprinted, o.MinRunes, o.Fact = 1, 1, 50, 0
	pages := Make(arts, "t", o)
	if len(pages) != 4 {
		t.Fatalf("got %d pages, want 4 (a page and its reprint from each template)", len(pages))
	}
	for i := 0; i < len(pages); i += 2 {
		p, r := pages[i], pages[i+1]
		if r.Cluster != p.Cluster || r.ID != p.ID+"-r" || !strings.Contains(r.Text, "Source:") {
			t.Errorf("reprint %+v of %+v: want its cluster, id %s-r and a source line", r, p, p.ID)
		}
	}
	// Alpha's template with Beta's names and numbers.
	if got := pages[0].Text; !strings.HasPrefix(got, "Beta was founded in 1822 by Carl Dahl in Rome.") || strings.Contains(got, "1901") {
		t.Errorf("page from Alpha's template: %q, want Beta's title, numbers and names in Alpha's sentences", got)
	}
	if pages[0].Cluster == pages[2].Cluster {
		t.Errorf("pages of two templates share cluster %s", pages[0].Cluster)
	}
}
