package dedupfilter

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// testAnalyzer is the real feature computation, so tests exercise the
// features the indexer will store.
func testAnalyzer(tb testing.TB) *analyzer.Analyzer {
	tb.Helper()
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		tb.Fatalf("analyzer.New: %v", err)
	}
	return a
}

// openTest opens a filter in a fresh store: the embedded store, or with
// storetest.RedisEnv set, the shared store under a fresh key prefix.
// edit may change options.
func openTest(tb testing.TB, edit func(*Options)) *Filter {
	tb.Helper()
	opts := DefaultOptions()
	if edit != nil {
		edit(&opts)
	}
	f, err := New(storetest.Open(tb), opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return f
}

// openEmbedded opens a filter over an embedded store in dir, its options
// edited by edit (nil: the defaults).
func openEmbedded(dir string, opts Options, edit func(*embedded.Options)) (*Filter, error) {
	eo := embedded.DefaultOptions(dir)
	if edit != nil {
		edit(&eo)
	}
	b, err := embedded.Open(eo)
	if err != nil {
		return nil, err
	}
	f, err := New(b, opts)
	if err != nil {
		b.Close()
	}
	return f, err
}

// corpus builds synthetic articles: words drawn from a fixed vocabulary, so
// unrelated articles share few shingles, and reprints made by changing a
// few percent of the words and sometimes dropping the last paragraph.
type corpus struct {
	rng   *rand.Rand
	vocab []string
}

func newCorpus(seed uint64) *corpus {
	c := &corpus{rng: rand.New(rand.NewPCG(seed, 1))}
	for i := range 3000 {
		var b strings.Builder
		for n := i + 1; n > 0; n /= 26 {
			b.WriteByte(byte('a' + n%26))
		}
		b.WriteString("or")
		c.vocab = append(c.vocab, b.String())
	}
	return c
}

// article returns paragraphs of sentences ending in ".".
func (c *corpus) article(paragraphs int) []string {
	out := make([]string, paragraphs)
	for p := range out {
		var b strings.Builder
		for s := range 4 {
			if s > 0 {
				b.WriteByte(' ')
			}
			for w := range 10 + c.rng.IntN(6) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(c.vocab[c.rng.IntN(len(c.vocab))])
			}
			b.WriteByte('.')
		}
		out[p] = b.String()
	}
	return out
}

// reprint changes about frac of the words and, if drop, the last paragraph.
func (c *corpus) reprint(src []string, frac float64, drop bool) []string {
	if drop && len(src) > 1 {
		src = src[:len(src)-1]
	}
	out := make([]string, len(src))
	for i, p := range src {
		words := strings.Fields(p)
		for j, w := range words {
			if c.rng.Float64() < frac {
				words[j] = c.vocab[c.rng.IntN(len(c.vocab))]
				if strings.HasSuffix(w, ".") {
					words[j] += "."
				}
			}
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

// labelled is a document with its true cluster.
type labelled struct {
	doc   Doc
	label int
}

// clusters returns n clusters of size members each (an original and
// reprints), analysed, in generation order.
func (c *corpus) clusters(tb testing.TB, a *analyzer.Analyzer, n, size int) []labelled {
	tb.Helper()
	var out []labelled
	for k := range n {
		orig := c.article(5 + c.rng.IntN(8))
		for m := range size {
			text := orig
			if m > 0 {
				text = c.reprint(orig, 0.03, m%2 == 0)
			}
			id := fmt.Sprintf("doc-%03d-%d", k, m)
			out = append(out, labelled{label: k, doc: Doc{
				ID: id, URL: "https://example.com/" + id, Title: id,
				Features: a.Analyze(text), Payload: []byte("payload of " + id),
			}})
		}
	}
	return out
}

// partition maps each document id to the set of ids in its cluster, as a
// sorted, joined string, for comparing clusterings independent of ids.
func partition(tb testing.TB, f *Filter) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := f.Clusters(func(c Cluster) error {
		for _, m := range c.Members {
			out[m] = strings.Join(c.Members, ",")
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("Clusters: %v", err)
	}
	return out
}

func mustAdd(tb testing.TB, f *Filter, d Doc) Decision {
	tb.Helper()
	dec, err := f.Add(d)
	if err != nil {
		tb.Fatalf("Add(%s): %v", d.ID, err)
	}
	return dec
}

// decideBatch prepares docs and adds them in order in one Exclusive
// call, planned with Prefetch first when prefetch is set, as the indexer
// decides a batch.
func decideBatch(tb testing.TB, f *Filter, docs []Doc, prefetch bool) []Decision {
	tb.Helper()
	var ps []*Prepared
	for _, d := range docs {
		p, err := f.Prepare(d)
		if err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, p)
	}
	var decs []Decision
	err := f.Exclusive(func() error {
		if prefetch {
			if err := f.Prefetch(ps); err != nil {
				return err
			}
		}
		for _, p := range ps {
			dec, err := f.AddPrepared(p)
			if err != nil {
				return err
			}
			decs = append(decs, dec)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return decs
}
