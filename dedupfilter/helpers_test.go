package dedupfilter

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/store"
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
// storetest.RedisEnv set, the shared store under a fresh key prefix; the
// embedded store derives posting keys from signatures, as the indexer
// opens it. edit may change options.
func openTest(tb testing.TB, edit func(*Options)) *Filter {
	tb.Helper()
	opts := DefaultOptions()
	if edit != nil {
		edit(&opts)
	}
	f, err := New(storetest.OpenDeriving(tb, opts.SignatureKeys), opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return f
}

// openEmbedded opens a filter over an embedded store in dir, its options
// edited by edit (nil: the defaults).
func openEmbedded(dir string, opts Options, edit func(*embedded.Options)) (*Filter, error) {
	eo := embedded.DefaultOptions(dir)
	eo.SignatureKeys = opts.SignatureKeys
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

// decideBatch adds docs in order as one batch: with AddBatch when
// prefetch is set, else prepared and added in one exclusive call without
// a plan of the batch (each document planned alone as it is added).
func decideBatch(tb testing.TB, f *Filter, docs []Doc, prefetch bool) []Decision {
	tb.Helper()
	if prefetch {
		decs, err := f.AddBatch(docs)
		if err != nil {
			tb.Fatal(err)
		}
		return decs
	}
	var ps []*prepared
	for _, d := range docs {
		p, err := f.prepare(d)
		if err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, p)
	}
	var decs []Decision
	err := f.exclusive(func() error {
		for _, p := range ps {
			dec, err := f.addPrepared(p, addOptions{})
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

// pendingOps calls fn with every search-index operation not yet confirmed
// by Applied: for each document, the latest, in document id order. An
// OpIndex carries the document's payload; one whose document is no longer
// stored comes as an OpDelete. It shows tests what a crash left (Replay
// repairs it).
func (f *Filter) pendingOps(fn func(Op) error) error {
	latest := map[string]Op{}
	err := f.backend.Pending(func(seq uint64, b []byte) error {
		ops, err := decodePending(seq, b)
		if err != nil {
			return err
		}
		for _, op := range ops {
			latest[op.ID] = op // mutations come in seq order: later ones win
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dedupfilter: pending: %w", err)
	}
	ops := make([]Op, 0, len(latest))
	for _, op := range latest {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b Op) int { return strings.Compare(a.ID, b.ID) })
	return f.backend.Read(func(st store.Txn) error {
		for _, op := range ops {
			if op.Kind == OpIndex {
				var err error
				op.Payload, err = st.Payload(op.ID)
				if errors.Is(err, ErrNotFound) {
					op = Op{Kind: OpDelete, ID: op.ID, Seq: op.Seq}
				} else if err != nil {
					return fmt.Errorf("dedupfilter: payload of %q: %w", op.ID, err)
				}
			}
			if err := fn(op); err != nil {
				return err
			}
		}
		return nil
	})
}

// candidates returns the ids of the stored documents Add would verify for
// p, in the order it would verify them, without adding p: tests measure
// with it how the candidate sources (Options.Sources, StructureGate...)
// narrow the comparisons.
func (f *Filter) candidates(p *prepared) ([]string, error) {
	var ids []string
	err := f.backend.Read(func(st store.Txn) error {
		pg := &page{sig: p.sig, lookup: p.lookup, skip: map[uint64]bool{}}
		if old, err := st.Record(p.doc.ID, false); err == nil {
			pg.skip[old.Seq] = true
		}
		var err error
		ids, err = newPlanned(f, st).candidateIDs(pg, 0)
		return err
	})
	return ids, err
}
