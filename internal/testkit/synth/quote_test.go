package synth

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestZeroSharesUnchanged pins the corpora of the options without shared
// text to their output before QuoteShare and WholeShare existed: cached
// corpora of this Version stay valid.
func TestZeroSharesUnchanged(t *testing.T) {
	m := testModel(t)
	chains := DefaultOptions(600)
	chains.Seed, chains.DupShare, chains.ChainShare, chains.Skew = 3, 0.5, 0.5, 1.2
	tests := []struct {
		name          string
		o             Options
		pages, labels string // SHA-256
	}{
		{"default", DefaultOptions(600),
			"2c66cfe0fee9c5805e01fa64e68f9268932c3ce87c7ebfd487133ee516666a3f",
			"efc2eca97a26a0e0e456c88113fc2761ad0516378e82c85140e873696cf7c1de"},
		{"chains and skew", chains,
			"ab6a005b19ceacc5e2d22494f58ddf3ab79b071da03efea47072882d906e9925",
			"7050ae04811949b7704f42dd82773a5c4c766d2d9614bffda42b5bfe703e86e8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, err := m.Pages(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			var pages, labels bytes.Buffer
			if _, err := WriteJSONL(seq, &pages, &labels, nil); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(pages.Bytes())); got != tt.pages {
				t.Errorf("pages: SHA-256 %s, want %s", got, tt.pages)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(labels.Bytes())); got != tt.labels {
				t.Errorf("labels: SHA-256 %s, want %s", got, tt.labels)
			}
		})
	}
}

// articleOf is the index of the article a page belongs to.
func articleOf(t *testing.T, p Page) int {
	t.Helper()
	var j int
	if _, err := fmt.Sscanf(p.Cluster, "a%d", &j); err != nil {
		t.Fatalf("%s: cluster %q: %v", p.ID, p.Cluster, err)
	}
	return j
}

// TestQuotes checks that a quoting article holds the block or the whole
// article it quotes, verbatim, that the quoted text is the other
// article's, and that the quoting article is a cluster of its own.
func TestQuotes(t *testing.T) {
	m := testModel(t)
	tests := []struct {
		name         string
		quote, whole float64
	}{
		{"blocks", 0.5, 0},
		{"whole articles", 0, 0.3},
		{"both", 0.3, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions(1500)
			o.QuoteShare, o.WholeShare = tt.quote, tt.whole
			ps := generate(t, m, o)
			orig := map[int]Page{}
			for _, p := range ps {
				if !p.Copy {
					orig[articleOf(t, p)] = p
				}
			}
			g := newGen(m, o)
			blocks, wholes := 0, 0
			quotedBytes, plainBytes, plain := 0, 0, 0 // of the whole articles quoted, of the articles quoting none
			for j, p := range orig {
				_, _, quotesBlock := g.blockQuote(j, p.Lang)
				_, _, quotesWhole := g.wholeQuote(j, p.Lang)
				if !quotesBlock && !quotesWhole {
					plainBytes += len(strings.Join(p.body, ""))
					plain++
				}
				if q, _, ok := g.blockQuote(j, p.Lang); ok {
					blocks++
					text := joinSentences(q.paras, p.Lang)[0]
					if !slices.Contains(p.body, text) {
						t.Errorf("%s: no paragraph %q of the block it quotes", p.ID, text)
					}
					src := orig[q.src]
					if !strings.Contains(strings.Join(src.body, "\n"), text) || src.Cluster == p.Cluster || q.src >= j {
						t.Errorf("%s (%s) quotes %q, not a block of the earlier article %s (%s)", p.ID, p.Cluster, text, src.ID, src.Cluster)
					}
				}
				if q, _, ok := g.wholeQuote(j, p.Lang); ok {
					wholes++
					src := orig[q.src]
					quoted := joinSentences(q.paras, p.Lang)
					if !slices.Equal(quoted, src.body) || src.Cluster == p.Cluster || q.src >= j {
						t.Fatalf("%s (%s) quotes a whole article that is not the earlier %s (%s)", p.ID, p.Cluster, src.ID, src.Cluster)
					}
					at := slices.Index(p.body, quoted[0])
					if at < 0 || at+len(quoted) > len(p.body) || !slices.Equal(p.body[at:at+len(quoted)], quoted) {
						t.Fatalf("%s: the paragraphs of %s are not all in it, in order", p.ID, src.ID)
					}
					own := slices.Concat(p.body[:at], p.body[at+len(quoted):])
					if len(strings.Join(own, "")) < 2*len(strings.Join(quoted, ""))*9/10 || at == 0 {
						t.Errorf("%s: own text %d bytes (first quoted paragraph %d), quoted %d: want own text first and about twice as long at least",
							p.ID, len(strings.Join(own, "")), at, len(strings.Join(quoted, "")))
					}
					quotedBytes += len(strings.Join(quoted, ""))
				}
			}
			if wholes > 0 && quotedBytes*plain > plainBytes*wholes*3/4 {
				t.Errorf("whole articles quoted: %d bytes on average, other articles %d; want short ones, under 3/4",
					quotedBytes/wholes, plainBytes/plain)
			}
			// Copies reprint the quote with the rest of the article, edited.
			kept, copies := 0, 0
			for _, p := range ps {
				q, _, ok := g.blockQuote(articleOf(t, p), p.Lang)
				if !p.Copy || !ok {
					continue
				}
				copies++
				quoted, in := shingles(Page{Lang: p.Lang, body: joinSentences(q.paras, p.Lang)}), shingles(p)
				found := 0
				for s := range quoted {
					if in[s] {
						found++
					}
				}
				if found*2 >= len(quoted) {
					kept++
				}
			}
			if tt.quote > 0 && copies == 0 || kept*10 < copies*8 {
				t.Errorf("%d of %d copies of block-quoting articles keep half their quote or more, want some copies and 80%%", kept, copies)
			}
			share := func(n int) float64 { return float64(n) / float64(len(orig)) }
			if got := share(blocks); got < tt.quote-0.05 || got > tt.quote+0.05 {
				t.Errorf("block quotes in %.3f of the articles, want %.2f ± 0.05", got, tt.quote)
			}
			if got := share(wholes); got < tt.whole-0.05 || got > tt.whole+0.05 {
				t.Errorf("whole-article quotes in %.3f of the articles, want %.2f ± 0.05", got, tt.whole)
			}
		})
	}
}

// TestQuotePopularity: a few blocks recur in many articles, most in one.
func TestQuotePopularity(t *testing.T) {
	m := testModel(t)
	o := DefaultOptions(0)
	o.QuoteShare = 0.3
	g := newGen(m, o)
	n := map[string]int{}
	for j := range 4000 {
		if q, _, ok := g.blockQuote(j, g.lang(j)); ok {
			n[fmt.Sprint(q.src, q.paras)]++
		}
	}
	most, once := 0, 0
	for _, c := range n {
		most = max(most, c)
		if c == 1 {
			once++
		}
	}
	if most < 8 || once*2 < len(n) {
		t.Errorf("the most quoted block in %d articles, %d of %d blocks in one; want 8 or more, and most in one", most, once, len(n))
	}
}

func TestQuotesDeterministic(t *testing.T) {
	m := testModel(t)
	o := DefaultOptions(500)
	o.QuoteShare, o.WholeShare = 0.3, 0.05
	a := generate(t, m, o)
	if got, want := fingerprint(generate(t, m, o)), fingerprint(a); got != want {
		t.Errorf("second pass: fingerprint %x, want %x (the same pages)", got, want)
	}
	o.Pages = 200
	if got, want := fingerprint(generate(t, m, o)), fingerprint(a[:200]); got != want {
		t.Errorf("first 200 pages of 200: fingerprint %x, want %x (those of 500)", got, want)
	}
	if fingerprint(generate(t, m, DefaultOptions(200))) == fingerprint(a[:200]) {
		t.Error("quotes changed no page")
	}
}
