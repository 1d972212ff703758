// Command methods measures candidate settings and lists missed pairs on
// an index built by bleve-dedup index, for docs/methods.md:
//
//	go run ./cmd/bleve-dedup index --index /tmp/dev-index DEV.jsonl
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS candidates
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS missed
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS wrong
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS score
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS snippets
//	go run ./tools/methods -index /tmp/dev-index-copy -labels LABELS splits
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS sizes
//	go run ./tools/methods -index /tmp/dev-index -labels LABELS votes
//
// candidates replays candidate gathering (dedupfilter.EarlierCandidates)
// under today's settings and under structure-cell gates and the
// feature-string-only sources, and prints per setting the candidates per
// page, the share of today's candidate pairs it keeps, and the share of
// pages with an earlier labelled duplicate that have one among their
// candidates. missed prints the labelled pairs the index's clusters miss,
// and wrong the pairs its clusters hold that the labels do not, with the
// verdict of each. splits changes the index: in every cluster whose
// members' verified pairs hang on one member (the only link between two
// halves), it deletes that member, runs recluster, and checks that each
// such cluster is split into the halves. sizes prints, by the size of the
// labelled clusters, how many the index splits, and why each document
// that does not sit with the earliest copy of its article is apart: no
// earlier copy among its candidates, earlier copies among them that
// verification turns down, or a verified one in another part already.
// votes prints which kinds of evidence agree on the labelled pairs that
// verify.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/recluster"
	"github.com/bleve-dedup/bleve-dedup/server"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

func main() {
	dir := flag.String("index", "", "index directory")
	labels := flag.String("labels", "", "labels file")
	measure := flag.String("measure", "combined", "the measure the index was built with (eval --measure)")
	flag.Parse()
	if err := run(*dir, *labels, *measure, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "methods:", err)
		os.Exit(1)
	}
}

func run(dir, labels, measure, what string) error {
	lf, err := os.Open(labels)
	if err != nil {
		return err
	}
	gold, err := eval.ReadLabels(lf, labels)
	lf.Close()
	if err != nil {
		return err
	}
	o, err := indexer.SavedOptions(dir)
	if err != nil {
		return err
	}
	o.ReadOnly = what != "splits"
	if o.Filter.Measure, err = similarity.ParseMeasure(measure); err != nil {
		return err
	}
	ix, err := indexer.Open(dir, o)
	if err != nil {
		return err
	}
	defer ix.Close()
	switch what {
	case "candidates":
		return candidates(ix.Filter(), gold)
	case "missed":
		return missed(ix.Filter(), gold)
	case "wrong":
		return wrong(ix.Filter(), gold)
	case "snippets":
		return snippetCost(ix)
	case "splits":
		return splits(ix)
	case "sizes":
		return sizes(ix.Filter(), gold)
	case "votes":
		return votes(ix.Filter(), gold)
	case "score":
		pred, err := eval.Predicted(ix.Filter())
		if err != nil {
			return err
		}
		r := eval.ScoreRun(pred, gold)
		fmt.Printf("docs %d, gold pairs %d, predicted %d, true %d: precision %.4f recall %.4f F1 %.4f ARI %.4f\n",
			r.Docs, r.GoldPairs, r.PredPairs, r.TruePairs, r.Precision, r.Recall, r.F1, r.ARI)
		return nil
	}
	return fmt.Errorf("want candidates, missed, wrong, score, snippets, splits, sizes or votes, got %q", what)
}

type setting struct {
	name string
	edit func(*dedupfilter.Options)
}

func candidates(f *dedupfilter.Filter, gold eval.Clustering) error {
	settings := []setting{{"today (all sources)", nil}}
	for _, r := range []int{0, 1, 2, 3, 5} {
		settings = append(settings, setting{fmt.Sprintf("structure gate r=%d", r), func(o *dedupfilter.Options) { o.StructureGate = r }})
	}
	fs := func(radius, minShared int) func(*dedupfilter.Options) {
		return func(o *dedupfilter.Options) {
			o.Sources = []dedupfilter.Source{dedupfilter.PieceSource, dedupfilter.StructureSource}
			o.StructureRadius, o.MinShared = radius, minShared
		}
	}
	settings = append(settings,
		setting{"pieces+cell r=0, min-shared 2", fs(0, 2)},
		setting{"pieces+cell r=0, min-shared 1", fs(0, 1)},
		setting{"pieces+cell r=1, min-shared 1", fs(1, 1)},
	)
	var today map[[2]string]bool
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tpages\tcandidates/page\tof today's pairs\tpages with an earlier duplicate\tof them with one among candidates\t")
	for _, s := range settings {
		o := f.Options()
		if s.edit != nil {
			s.edit(&o)
		}
		pairs := map[[2]string]bool{}
		pages, total, withDup, found := 0, 0, 0, 0
		// earlier[c] counts the labelled documents of cluster c seen so
		// far: a page has an earlier duplicate when its cluster's count is
		// positive when it comes. The walk is in cluster order, not seq
		// order, so "earlier" is decided by the candidates' own rule: the
		// documents stored before it. Those are the same for every
		// setting, so the shares compare.
		err := f.EarlierCandidates(o, func(id string, cands []string) error {
			pages++
			total += len(cands)
			for _, c := range cands {
				pairs[[2]string{id, c}] = true
			}
			g, ok := gold[id]
			if !ok {
				return nil
			}
			hit := slices.ContainsFunc(cands, func(c string) bool { return gold[c] == g })
			if hit {
				found++
			}
			return nil
		})
		if err != nil {
			return err
		}
		withDup = earlierDuplicates(f, gold)
		kept := 1.0
		if today == nil {
			today = pairs
		} else {
			n := 0
			for p := range today {
				if pairs[p] {
					n++
				}
			}
			kept = float64(n) / float64(len(today))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.4f\t%d\t%.4f\t\n", s.name, pages, float64(total)/float64(pages), kept, withDup, float64(found)/float64(withDup))
	}
	return tw.Flush()
}

// earlierDuplicates counts the pages stored after another page of their
// labelled cluster.
func earlierDuplicates(f *dedupfilter.Filter, gold eval.Clustering) int {
	type doc struct {
		seq   uint64
		label string
	}
	var docs []doc
	f.Clusters(func(c dedupfilter.Cluster) error {
		for _, m := range c.Members {
			if g, ok := gold[m]; ok {
				e, err := f.Meta(m)
				if err == nil {
					docs = append(docs, doc{e.Seq, g})
				}
			}
		}
		return nil
	})
	slices.SortFunc(docs, func(a, b doc) int { return int(a.seq) - int(b.seq) })
	seen := map[string]bool{}
	n := 0
	for _, d := range docs {
		if seen[d.label] {
			n++
		}
		seen[d.label] = true
	}
	return n
}

// missed prints the labelled pairs whose documents the index holds in
// different clusters, with the filter's verdict for the pair.
func missed(f *dedupfilter.Filter, gold eval.Clustering) error {
	pred, err := eval.Predicted(f)
	if err != nil {
		return err
	}
	byLabel := map[string][]string{}
	for id, g := range gold {
		byLabel[g] = append(byLabel[g], id)
	}
	for _, g := range slices.Sorted(maps.Keys(byLabel)) {
		ids := byLabel[g]
		slices.Sort(ids)
		for i, a := range ids {
			for _, b := range ids[i+1:] {
				if pred[a] == pred[b] {
					continue
				}
				if err := printPair(f, a, b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// wrong prints the pairs the index's clusters hold that the labels do
// not, with the filter's verdict for each.
func wrong(f *dedupfilter.Filter, gold eval.Clustering) error {
	return f.Clusters(func(c dedupfilter.Cluster) error {
		for i, a := range c.Members {
			for _, b := range c.Members[i+1:] {
				ga, oka := gold[a]
				gb, okb := gold[b]
				if !oka || !okb || ga == gb {
					continue
				}
				if err := printPair(f, a, b); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// votes prints, for the labelled pairs that verify as duplicates, which
// kinds of evidence agreed, and for those whose only in-order evidence is
// the feature strings, how their MinHash and blocks values fall: the
// pairs a rule against templated pages would cost.
func votes(f *dedupfilter.Filter, gold eval.Clustering) error {
	byCluster := map[string][]string{}
	for id, c := range gold {
		byCluster[c] = append(byCluster[c], id)
	}
	kinds := map[string]int{}
	weak := map[string]int{}
	pairs := 0
	for _, c := range slices.Sorted(maps.Keys(byCluster)) {
		ms := byCluster[c]
		slices.Sort(ms)
		for i, a := range ms {
			for _, b := range ms[i+1:] {
				v, err := f.CompareStored(a, b)
				if errors.Is(err, dedupfilter.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				pairs++
				if !v.Duplicate {
					continue
				}
				var ks []string
				var fs, mh, bl float64
				for _, s := range v.Scores {
					switch s.Measure {
					case similarity.FeatureString:
						fs = s.Value
					case similarity.MinHash:
						mh = s.Value
					case similarity.Blocks:
						bl = s.Value
					}
					k := s.Measure.String()
					switch s.Measure {
					case similarity.Boolean, similarity.Jaccard, similarity.Conrad, similarity.Pugh, similarity.Containment:
						k = "terms" // one kind of evidence (similarity.Options.Votes)
					}
					if s.Duplicate && !slices.Contains(ks, k) {
						ks = append(ks, k)
					}
				}
				slices.Sort(ks)
				k := strings.Join(ks, "+")
				kinds[k]++
				if mh < similarity.DefaultOptions().MinHashMin && bl < similarity.DefaultOptions().BlocksMin {
					tenth := func(x float64) float64 { return math.Floor(x*10) / 10 }
					weak[fmt.Sprintf("fs %.1f minhash %.1f blocks %.1f", tenth(fs), tenth(mh), tenth(bl))]++
				}
			}
		}
	}
	fmt.Printf("labelled pairs %d; verified duplicates by the kinds that agreed:\n", pairs)
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Printf("  %-40s %d\n", k, kinds[k])
	}
	fmt.Println("verified without MinHash or blocks, by feature strings, MinHash and blocks (rounded down to a tenth):")
	for _, k := range slices.Sorted(maps.Keys(weak)) {
		fmt.Printf("  %-40s %d\n", k, weak[k])
	}
	return nil
}

func printPair(f *dedupfilter.Filter, a, b string) error {
	v, err := f.CompareStored(a, b)
	if err != nil {
		return err
	}
	var scores []string
	for _, s := range v.Scores {
		mark := ""
		if s.Duplicate {
			mark = "*"
		}
		scores = append(scores, fmt.Sprintf("%s %.2f%s", s.Measure, s.Value, mark))
	}
	fmt.Printf("%s ~ %s: %d votes; %s\n", a, b, v.Votes, strings.Join(scores, ", "))
	return nil
}

// snippetCost times /api/search pages with and without snippets, on
// queries made of the first word (or first two Han characters) of the
// titles of the index's first 300 clusters' representatives, in
// alternating rounds.
func snippetCost(ix *indexer.Index) error {
	var queries []string
	err := ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		if len(queries) == 300 {
			return errEnough
		}
		e, err := ix.Filter().Meta(c.Representative)
		if err != nil {
			return err
		}
		if q := firstWord(e.Title); q != "" {
			queries = append(queries, q)
		}
		return nil
	})
	if err != nil && err != errEnough {
		return err
	}
	handlers := map[bool]http.Handler{}
	for _, on := range []bool{false, true} {
		o := server.DefaultOptions()
		o.Snippets = on
		if handlers[on], err = server.New(ix, o); err != nil {
			return err
		}
	}
	times := map[bool][]time.Duration{}
	for round := range 6 {
		on := round%2 == 1
		for _, q := range queries {
			rec := httptest.NewRecorder()
			start := time.Now()
			handlers[on].ServeHTTP(rec, httptest.NewRequest("GET", "/api/search?q="+url.QueryEscape(q), nil))
			if round >= 2 { // the first two rounds warm the caches
				times[on] = append(times[on], time.Since(start))
			}
			if rec.Code != 200 {
				return fmt.Errorf("%q: %d %s", q, rec.Code, rec.Body)
			}
		}
	}
	for _, on := range []bool{false, true} {
		ts := times[on]
		slices.Sort(ts)
		var sum time.Duration
		for _, t := range ts {
			sum += t
		}
		fmt.Printf("snippets %-5v %d searches: mean %.2f ms, p50 %.2f ms, p99 %.2f ms\n", on, len(ts),
			ms(sum/time.Duration(len(ts))), ms(ts[len(ts)/2]), ms(ts[len(ts)*99/100]))
	}
	return nil
}

var errEnough = errors.New("enough")

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// firstWord is the first Latin word of at least four letters of title, or
// its first two Han characters.
func firstWord(title string) string {
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) }) {
		rs := []rune(w)
		if unicode.Is(unicode.Han, rs[0]) && len(rs) >= 2 {
			return string(rs[:2])
		}
		if len(rs) >= 4 && rs[0] < 0x80 {
			return strings.ToLower(w)
		}
	}
	return ""
}

// link is a cluster whose verified pairs all pass through one member:
// without it the others fall into halves (two or more groups).
type link struct {
	cluster, member string
	halves          [][]string
}

// splits deletes the linking member of every cluster that has one (the
// first in id order), runs recluster, and reports whether each of those
// clusters was split into its halves, and what else recluster changed.
func splits(ix *indexer.Index) error {
	f := ix.Filter()
	var links []link
	err := f.Clusters(func(c dedupfilter.Cluster) error {
		if len(c.Members) < 3 || len(c.Members) > 50 {
			return nil
		}
		dup := map[[2]string]bool{}
		for i, a := range c.Members {
			for _, b := range c.Members[i+1:] {
				v, err := f.CompareStored(a, b)
				if err != nil {
					return err
				}
				dup[[2]string{a, b}], dup[[2]string{b, a}] = v.Duplicate, v.Duplicate
			}
		}
		for _, m := range c.Members {
			rest := slices.DeleteFunc(slices.Clone(c.Members), func(x string) bool { return x == m })
			if halves := components(rest, dup); len(halves) > 1 {
				links = append(links, link{c.ID, m, halves})
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, l := range links {
		if err := ix.Delete(l.member); err != nil {
			return err
		}
	}
	plan, err := ix.Recluster(context.Background(), recluster.DefaultOptions(), false)
	if err != nil {
		return err
	}
	found := map[string][][]string{}
	for _, s := range plan.Splits {
		found[s.Cluster] = s.Parts
	}
	ok := 0
	for _, l := range links {
		after := map[string]bool{} // one cluster id per half after the pass
		for _, h := range l.halves {
			c, err := f.ClusterOf(h[0])
			if err != nil {
				return err
			}
			for _, m := range h[1:] {
				if cm, err := f.ClusterOf(m); err != nil || cm.ID != c.ID {
					return fmt.Errorf("%s: half %v not kept together", l.cluster, h)
				}
			}
			after[c.ID] = true
		}
		split := len(after) == len(l.halves)
		if split {
			ok++
		}
		fmt.Printf("%s: deleted %s, halves %v: split %v (parts leaving: %v)\n", l.cluster, l.member, l.halves, split, found[l.cluster])
	}
	fmt.Printf("clusters with a linking member %d, deleted %d, split into their halves %d; recluster: %d splits, %d merges, %d pairs verified\n",
		len(links), len(links), ok, len(plan.Splits), len(plan.Merges), plan.Pairs)
	return nil
}

// components are the connected groups of ids under the pairs in dup,
// each sorted, in the order of their first member.
func components(ids []string, dup map[[2]string]bool) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		group, queue := []string{id}, []string{id}
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			for _, b := range ids {
				if !seen[b] && dup[[2]string{a, b}] {
					seen[b] = true
					group = append(group, b)
					queue = append(queue, b)
				}
			}
		}
		slices.Sort(group)
		out = append(out, group)
	}
	return out
}

// sizes reports the labelled clusters the index splits, by size, and the
// cause for each document apart from its article's first copy.
func sizes(f *dedupfilter.Filter, gold eval.Clustering) error {
	pred, err := eval.Predicted(f)
	if err != nil {
		return err
	}
	seqs := map[string]uint64{}
	byLabel := map[string][]string{}
	for id, g := range gold {
		e, err := f.Meta(id)
		if err != nil {
			continue // not indexed
		}
		seqs[id] = e.Seq
		byLabel[g] = append(byLabel[g], id)
	}
	type row struct{ clusters, split int }
	bySize := map[int]*row{}
	apart := map[string]bool{} // documents not with their article's first copy
	for _, ids := range byLabel {
		slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(seqs[a], seqs[b]) })
		r := bySize[len(ids)]
		if r == nil {
			r = &row{}
			bySize[len(ids)] = r
		}
		r.clusters++
		first, isSplit := pred[ids[0]], false
		for _, id := range ids[1:] {
			if pred[id] != first {
				isSplit, apart[id] = true, true
			}
		}
		if isSplit {
			r.split++
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "copies\tclusters\tsplit\tshare\t")
	for _, n := range slices.Sorted(maps.Keys(bySize)) {
		r := bySize[n]
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.4f\t\n", n, r.clusters, r.split, float64(r.split)/float64(r.clusters))
	}
	tw.Flush()
	// Why each document apart is apart: its candidates (replayed) and
	// their verdicts against the earlier copies of its article.
	var noCandidate, turnedDown, elsewhere int
	err = f.EarlierCandidates(f.Options(), func(id string, cands []string) error {
		if !apart[id] {
			return nil
		}
		var earlier []string
		for _, c := range cands {
			if gold[c] == gold[id] {
				earlier = append(earlier, c)
			}
		}
		switch {
		case len(earlier) == 0:
			noCandidate++
		default:
			verified := false
			for _, c := range earlier {
				if v, err := f.CompareStored(id, c); err == nil && v.Duplicate {
					verified = true
					break
				}
			}
			if verified {
				elsewhere++
			} else {
				turnedDown++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("documents apart from their article's first copy: %d: no earlier copy among the candidates %d, earlier copies turned down by verification %d, a verified earlier copy in another part %d\n",
		len(apart), noCandidate, turnedDown, elsewhere)
	return nil
}
