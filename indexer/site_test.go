package indexer

import (
	"fmt"
	"strings"
	"testing"
)

// article makes n paragraphs of pseudo-random words seeded by topic, so
// two topics share no more than common words would.
func article(topic string, n int) []string {
	words := strings.Fields("river bridge school market harbour council budget teacher farmer winter storm railway museum library doctor nurse festival election court police garden factory engineer student village mountain forest lake island ferry airport tunnel highway bakery theatre concert painter writer novel poem science rocket planet ocean whale forest desert camel tiger panda")
	seed := uint64(14695981039346656037)
	for _, c := range topic {
		seed = (seed ^ uint64(c)) * 1099511628211
	}
	ps := make([]string, n)
	for i := range ps {
		var b strings.Builder
		for w := range 40 {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(words[(seed>>33)%uint64(len(words))])
			if w%10 == 9 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		ps[i] = b.String()
	}
	return ps
}

// template is a site's shared text: long, so it dominates short articles.
func template(site string) (head, tail []string) {
	for i := range 6 {
		head = append(head, fmt.Sprintf("%s other post number %d: a long diary entry about the weather, the garden, the neighbours and the long walk to the market on a windy day in autumn.", site, i))
	}
	tail = []string{site + " copyright notice, all rights reserved, contact the webmaster for reprint permission and advertising rates."}
	return head, tail
}

func TestSiteTemplateText(t *testing.T) {
	headA, tailA := template("Site A")
	headB, tailB := template("Site B")
	wrap := func(head, body, tail []string) []string {
		return append(append(append([]string{}, head...), body...), tail...)
	}
	reprint := append([]string{"Source: Site A"}, article("river", 3)...)
	reprint[2] = strings.Replace(reprint[2], " ", "  ", 1) + " Edited."
	docs := []Document{
		{ID: "a1", URL: "https://a.example/1", Paragraphs: wrap(headA, article("river", 3), tailA)},
		{ID: "a2", URL: "https://a.example/2", Paragraphs: wrap(headA, article("bridge", 3), tailA)},
		{ID: "a3", URL: "https://a.example/3", Paragraphs: wrap(headA, article("school", 3), tailA)},
		{ID: "b1", URL: "https://b.example/x", Paragraphs: wrap(headB, reprint, tailB)},
		// b2 reveals site B's template, so b1 is decided again without it.
		{ID: "b2", URL: "https://b.example/y", Paragraphs: wrap(headB, article("harbour", 3), tailB)},
		{ID: "a1-copy", URL: "https://a.example/1?print=1", Paragraphs: wrap(headA, article("river", 3), tailA)},
	}
	ix := openWith(t, docs, DefaultOptions())
	cluster := func(id string) string {
		c, err := ix.Filter().ClusterOf(id)
		if err != nil {
			t.Fatalf("ClusterOf(%s): %v", id, err)
		}
		return c.ID
	}
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"a1", "a2", false}, // one template, different articles
		{"a2", "a3", false},
		{"a1", "b1", true}, // reprint on another site
		{"b1", "b2", false},
		{"a1", "a1-copy", true}, // same-site copy: nothing of its own
	} {
		if got := cluster(tt.a) == cluster(tt.b); got != tt.same {
			t.Errorf("%s and %s in one cluster = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// TestSiteTemplateTextOff shows what the site rule prevents: analysed
// whole, pages of one template look alike.
func TestSiteTemplateTextOff(t *testing.T) {
	head, tail := template("Site A")
	opts := DefaultOptions()
	opts.KeepSiteText = true
	ix := openWith(t, []Document{
		{ID: "a1", URL: "https://a.example/1", Paragraphs: append(append(append([]string{}, head...), article("river", 1)...), tail...)},
		{ID: "a2", URL: "https://a.example/2", Paragraphs: append(append(append([]string{}, head...), article("bridge", 1)...), tail...)},
	}, opts)
	c1, _ := ix.Filter().ClusterOf("a1")
	c2, _ := ix.Filter().ClusterOf("a2")
	if c1.ID != c2.ID {
		t.Errorf("with KeepSiteText, a1 and a2 in clusters %s and %s, want one (template dominates)", c1.ID, c2.ID)
	}
}

func openWith(tb testing.TB, docs []Document, opts Options) *Index {
	tb.Helper()
	ix, err := Open(tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := ix.Batch(docs); err != nil {
		tb.Fatal(err)
	}
	return ix
}
