// Command similarbench measures "similar pages" against bleve's own term
// approach on a labelled corpus. It indexes the pages under the mark
// policy (every copy stays in bleve, so both approaches can find it), and
// for each page of a labelled cluster of two or more asks for its k most
// similar documents two ways:
//
//   - filter: indexer.Index.Similar, the posting lists of the page's
//     features in the filter's store, graded by the filter's measures;
//   - terms: a disjunction of the page's top -terms terms by tf-idf over
//     the text field (analysed by the index mapping's analyzer, document
//     frequencies from the field's dictionary, read once), searched in
//     bleve, the page itself left out: what a bleve user writes for "more
//     like this".
//
// It prints, for each, recall@k of the page's labelled copies (the other
// members of its cluster, averaged over pages), the mean rank of the
// first copy among the pages whose copies one was found for, the share
// of pages with none in the top k, and the latency p50 and p99 of a
// query (for terms: the stored text read, analysed, the query built and
// searched). For the filter it adds how the grades agree with the labels.
//
//	go run ./tools/similarbench -pages ../shared/data/neardup/dev-corpus.jsonl.gz -labels ../shared/data/neardup/dev-labels.jsonl
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

type config struct {
	pages, labels, index string
	k, terms, queries    int
	candidates           int
	seed                 uint64
	cpuprofile           string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var c config
	flag.StringVar(&c.pages, "pages", "../shared/data/neardup/dev-corpus.jsonl.gz", "the corpus: pages as bleve-dedup index reads them")
	flag.StringVar(&c.labels, "labels", "../shared/data/neardup/dev-labels.jsonl", `labels, {"id","cluster"} a line`)
	flag.StringVar(&c.index, "index", "", "index directory: made from -pages when absent, reused when present (default: a temporary one, removed)")
	flag.IntVar(&c.k, "k", 10, "similar documents a query asks for")
	flag.IntVar(&c.terms, "terms", 25, "terms of the term approach's query, the page's top ones by tf-idf")
	flag.IntVar(&c.candidates, "candidates", 0, "documents the filter compares at most a query (0: dedupfilter.DefaultSimilarCandidates)")
	flag.IntVar(&c.queries, "queries", 0, "pages queried, a seeded sample of those in labelled clusters of two or more (0: all)")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the sample")
	flag.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of the queries to this `FILE`")
	flag.Parse()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "similarbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, out io.Writer) error {
	labels, err := readLabels(c.labels)
	if err != nil {
		return err
	}
	dir := c.index
	if dir == "" {
		if dir, err = os.MkdirTemp("", "similarbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	ix, err := openIndex(ctx, dir, c.pages, out)
	if err != nil {
		return err
	}
	defer ix.Close()
	n, err := ix.DocCount()
	if err != nil {
		return err
	}

	// The queries: pages of clusters of two or more that the index holds.
	members := map[string][]string{}
	for id, cl := range labels {
		members[cl] = append(members[cl], id)
	}
	var queries []string
	for id, cl := range labels {
		if len(members[cl]) >= 2 {
			queries = append(queries, id)
		}
	}
	slices.Sort(queries)
	if c.queries > 0 && c.queries < len(queries) {
		rng := rand.New(rand.NewPCG(c.seed, 2))
		rng.Shuffle(len(queries), func(i, j int) { queries[i], queries[j] = queries[j], queries[i] })
		queries = queries[:c.queries]
		slices.Sort(queries)
	}

	terms, err := newTermApproach(ix, c.terms, n)
	if err != nil {
		return err
	}
	if c.cpuprofile != "" {
		f, err := os.Create(c.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var filter, plain tally
	var grades gradeTally
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return err
		}
		copies := map[string]bool{}
		for _, m := range members[labels[q]] {
			if m != q {
				copies[m] = true
			}
		}
		start := time.Now()
		found, err := ix.Similar(ctx, indexer.SimilarRequest{ID: q, K: c.k, Candidates: c.candidates})
		took := time.Since(start)
		if errors.Is(err, dedupfilter.ErrNotFound) {
			continue // not indexed (an error reading the page)
		}
		if err != nil {
			return fmt.Errorf("similar %s: %w", q, err)
		}
		grades.labelled += len(copies)
		ids := make([]string, len(found))
		for i, s := range found {
			ids[i] = s.ID
			grades.add(s.Grade, copies[s.ID])
		}
		filter.add(ids, copies, took)

		start = time.Now()
		ids, err = terms.similar(ctx, q, c.k)
		took = time.Since(start)
		if err != nil {
			return fmt.Errorf("terms %s: %w", q, err)
		}
		plain.add(ids, copies, took)
	}
	fmt.Fprintf(out, "index: %d documents; %d queries (pages of labelled clusters of two or more), k=%d, filter candidates %d\n\n",
		n, filter.queries, c.k, cmp.Or(c.candidates, dedupfilter.DefaultSimilarCandidates))
	fmt.Fprintf(out, "%-8s %10s %16s %12s %10s %10s\n", "approach", "recall@k", "first copy rank", "none found", "p50 ms", "p99 ms")
	for _, x := range []struct {
		name string
		t    *tally
	}{{"filter", &filter}, {"terms", &plain}} {
		fmt.Fprintf(out, "%-8s %10.4f %16.3f %12.4f %10.3f %10.3f\n", x.name, x.t.recall/float64(x.t.queries),
			x.t.rankSum/float64(x.t.withCopy), float64(x.t.queries-x.t.withCopy)/float64(x.t.queries),
			ms(x.t.percentile(0.50)), ms(x.t.percentile(0.99)))
	}
	fmt.Fprintf(out, "\nfilter grades against the labels (documents returned, labelled copy or not):\n")
	for _, g := range []dedupfilter.Grade{dedupfilter.GradeCopy, dedupfilter.GradeRewritten, dedupfilter.GradeRelated} {
		fmt.Fprintf(out, "  %-9s %7d returned, %7d labelled copies (%.4f)\n", g, grades.n[g], grades.copies[g], float64(grades.copies[g])/math.Max(1, float64(grades.n[g])))
	}
	fmt.Fprintf(out, "  of the %d labelled copies of the pages queried, %.4f graded copy\n", grades.labelled, float64(grades.copies[dedupfilter.GradeCopy])/math.Max(1, float64(grades.labelled)))
	fmt.Fprintf(out, "terms approach: top %d terms by tf-idf over %q, a disjunction of term queries\n", c.terms, indexer.FieldText)
	return nil
}

// openIndex opens the index in dir, indexing pages first when it holds
// none.
func openIndex(ctx context.Context, dir, pages string, out io.Writer) (*indexer.Index, error) {
	existed := indexer.Exists(dir)
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil || existed {
		return ix, err
	}
	start := time.Now()
	st, err := ix.IndexPages(ctx, page.Read([]string{pages}, page.DefaultOptions()), indexer.DefaultRunOptions())
	if err != nil {
		return nil, errors.Join(err, ix.Close())
	}
	fmt.Fprintf(out, "indexed %d pages (%d errors) in %.1fs into %s\n", st.Read, st.Errors, time.Since(start).Seconds(), dir)
	return ix, nil
}

func readLabels(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct{ ID, Cluster string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[l.ID] = l.Cluster
	}
	return out, sc.Err()
}

// tally sums one approach's results.
type tally struct {
	queries, withCopy int
	recall, rankSum   float64
	took              []time.Duration
}

func (t *tally) add(ids []string, copies map[string]bool, took time.Duration) {
	t.queries++
	t.took = append(t.took, took)
	found := 0
	first := 0
	for i, id := range ids {
		if copies[id] {
			found++
			if first == 0 {
				first = i + 1
			}
		}
	}
	t.recall += float64(found) / float64(len(copies))
	if first > 0 {
		t.withCopy++
		t.rankSum += float64(first)
	}
}

func (t *tally) percentile(p float64) time.Duration {
	if len(t.took) == 0 {
		return 0
	}
	s := slices.Clone(t.took)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// gradeTally counts the documents the filter returned by grade, and those
// labelled copies of the page queried.
type gradeTally struct {
	n, copies map[dedupfilter.Grade]int
	labelled  int // the labelled copies of the pages queried
}

func (g *gradeTally) add(grade dedupfilter.Grade, labelled bool) {
	if g.n == nil {
		g.n, g.copies = map[dedupfilter.Grade]int{}, map[dedupfilter.Grade]int{}
	}
	g.n[grade]++
	if labelled {
		g.copies[grade]++
	}
}

// termApproach is bleve's "more like this" by terms.
type termApproach struct {
	ix    *indexer.Index
	an    analysis.Analyzer
	df    map[string]uint64
	docs  float64
	terms int
}

func newTermApproach(ix *indexer.Index, terms int, docs uint64) (*termApproach, error) {
	m := ix.Unwrap().Mapping()
	an := m.AnalyzerNamed(m.AnalyzerNameForPath(indexer.FieldText))
	if an == nil {
		return nil, fmt.Errorf("no analyzer for %s", indexer.FieldText)
	}
	dict, err := ix.Unwrap().FieldDict(indexer.FieldText)
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	df := map[string]uint64{}
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		df[e.Term] = e.Count
	}
	return &termApproach{ix: ix, an: an, df: df, docs: float64(docs), terms: terms}, nil
}

// similar returns the ids of the k documents a disjunction of id's top
// terms finds, id left out.
func (a *termApproach) similar(ctx context.Context, id string, k int) ([]string, error) {
	e, err := a.ix.Doc(id)
	if err != nil {
		return nil, err
	}
	var body struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(e.Payload, &body); err != nil {
		return nil, err
	}
	tf := map[string]int{}
	for _, tok := range a.an.Analyze([]byte(body.Text)) {
		tf[string(tok.Term)]++
	}
	type weighted struct {
		term string
		w    float64
	}
	ws := make([]weighted, 0, len(tf))
	for t, n := range tf {
		if d := a.df[t]; d > 0 {
			ws = append(ws, weighted{t, float64(n) * math.Log(a.docs/float64(d))})
		}
	}
	slices.SortFunc(ws, func(x, y weighted) int { return cmp.Or(cmp.Compare(y.w, x.w), cmp.Compare(x.term, y.term)) })
	ws = ws[:min(len(ws), a.terms)]
	if len(ws) == 0 {
		return nil, nil
	}
	qs := make([]query.Query, len(ws))
	for i, w := range ws {
		tq := bleve.NewTermQuery(w.term)
		tq.SetField(indexer.FieldText)
		qs[i] = tq
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), k+1, 0, false)
	res, err := a.ix.Unwrap().SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range res.Hits {
		if h.ID != id && len(ids) < k {
			ids = append(ids, h.ID)
		}
	}
	return ids, nil
}
