package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
	"github.com/bleve-dedup/bleve-dedup/recluster"
)

type reclusterCmd struct {
	index       indexFlags
	dryRun      bool
	minST       float64
	maxPairwise int
	policy      policyFlags
	format      formatFlag
	filter      filterFlags
	methods     methodFlags
}

func (o *reclusterCmd) AddFlags(fs *pflag.FlagSet) {
	def := recluster.DefaultOptions()
	o.index.addIndex(fs, "the index directory `DIR`, or a plain bleve index adopted with bleve-dedup adopt, its store beside it (required)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "report the merges and splits without making them")
	fs.Float64Var(&o.minST, "min-st", def.MinST, "lower end of the range t of ST_m (shared block fingerprints over m) within which documents of different clusters are verified")
	fs.IntVar(&o.maxPairwise, "max-pairwise", def.MaxPairwise, "check clusters of at most this many members for a split (every pair is verified)")
	o.policy.AddFlags(fs)
	o.format.AddFlags(fs, `{"op":"merge"|"split"|"summary",...} a line`)
	o.filter.AddFlags(fs)
	o.methods.AddFlags(fs)
}

func newReclusterCmd() *cobra.Command {
	var o reclusterCmd
	cmd := &cobra.Command{
		Use:   "recluster --index DIR [--dry-run] [--format table|jsonl]",
		Short: "Merge and split the clusters incremental indexing built",
		Long: `recluster refines an index's clusters in one pass over its store (the
fingerprint paper's clustering): documents of different clusters that share
block fingerprints, with ST_m at least --min-st, are verified with the
filter's verdict, and each verified pair merges their clusters; the members
of each cluster are verified pairwise, and a cluster whose members fall into
groups with no verified pair between them is split. Incremental indexing
never splits (a deleted page may have been the only link), and on a shared
store (--store redis://...) never merges (a page linking two clusters
joins the first it matches); recluster does both.

The verdict is the filter's under the index's own settings (its measure,
voters and policy, as it was built; flags that differ are refused). Each
merge and split is printed with its evidence, then applied unless
--dry-run: a cluster that survives keeps its id, parts split off get new
ones, and the search index follows (under mark every moved document is
indexed again with its new cluster id; under suppress and replace each
cluster keeps one indexed copy). --format jsonl prints one
{"op":"merge"|"split"|"summary",...} object a line. SIGINT or SIGTERM stop
it while it plans, with nothing changed; changes once begun are finished.`,
		Example: `  # What recluster would change in the shipped pages' index (a mark index)
  bleve-dedup index --index /tmp/idx-mark --policy mark testdata/pages
  bleve-dedup recluster --index /tmp/idx-mark --dry-run

  # Apply it, verifying across clusters from a lower ST_m, as JSON lines
  bleve-dedup recluster --index /tmp/idx-mark --min-st 0.2 --format jsonl`,
		Args: needArgs(0, 0, "no arguments (the index is --index)"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// linkJSON is a verified pair in the output.
type linkJSON struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	ST         float64 `json:"st_m"`
	Duplicate  bool    `json:"duplicate"`
	Measure    string  `json:"measure"`
	Similarity float64 `json:"similarity"`
	Votes      int     `json:"votes"`
}

func toLink(l recluster.Link) linkJSON {
	return linkJSON{l.A, l.B, l.ST, l.Verdict.Duplicate, l.Verdict.Measure.String(), l.Verdict.Similarity, l.Verdict.Votes}
}

type mergeLine struct {
	Op       string     `json:"op"`
	Into     string     `json:"into"`
	From     []string   `json:"from"`
	Members  int        `json:"members"`
	Evidence []linkJSON `json:"evidence"`
}

type splitLine struct {
	Op      string     `json:"op"`
	Cluster string     `json:"cluster"`
	Parts   [][]string `json:"parts"`
	Closest linkJSON   `json:"closest"`
}

type reclusterSummary struct {
	Op        string  `json:"op"`
	Docs      int     `json:"docs"`
	Clusters  int     `json:"clusters"`
	Classes   int     `json:"classes"`
	Pairs     int     `json:"pairs_verified"`
	Unchecked int     `json:"unchecked"`
	Merges    int     `json:"merges"`
	Splits    int     `json:"splits"`
	Applied   bool    `json:"applied"`
	Seconds   float64 `json:"seconds"`
	// Peak resident anonymous memory and live heap, MiB, sampled every
	// 1,000 documents.
	RSSAnonMiB uint64 `json:"rss_anon_mib"`
	HeapMiB    uint64 `json:"heap_mib"`
}

func (o *reclusterCmd) run(cmd *cobra.Command) error {
	if err := need(cmd, "recluster: name the index to refine: --index DIR", "index"); err != nil {
		return err
	}
	dir, err := o.index.dir()
	if err != nil {
		return err
	}
	if err := findIndex(dir); err != nil {
		return err
	}
	// The index's own settings, and over them the flags given.
	set := func(iopts *indexer.Options, writable bool) error {
		if err := o.filter.apply(iopts); err != nil {
			return err
		}
		if err := o.methods.apply(iopts.Filter); err != nil {
			return err
		}
		if err := o.policy.apply(iopts); err != nil {
			return err
		}
		iopts.ReadOnly = o.dryRun && !writable
		return nil
	}
	ix, err := o.open(dir, set)
	if err != nil {
		return err
	}
	defer ix.Close()
	ro := recluster.DefaultOptions()
	ro.MinST, ro.MaxPairwise = o.minST, o.maxPairwise
	var peak procmem.Memory
	ro.Progress = func(string, int) { peak = maxMemory(peak, procmem.Read()) }
	ctx := cmd.Context()
	start := time.Now()
	plan, err := ix.Recluster(ctx, ro, o.dryRun)
	if plan == nil {
		return err
	}
	peak = maxMemory(peak, procmem.Read())
	if perr := o.print(cmd, plan, time.Since(start), peak); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	return ix.Close()
}

// open opens the index in dir with the options set makes of its own: an
// index of bleve-dedup's own, or a plain bleve index adopted with
// bleve-dedup adopt (with the store beside it).
func (o *reclusterCmd) open(dir string, set func(*indexer.Options, bool) error) (*indexer.Index, error) {
	if isPlainBleve(dir) {
		ix, _, err := openAdopted(dir, "", set)
		return ix, err
	}
	iopts, err := savedOptions(dir)
	if err != nil {
		return nil, err
	}
	if err := set(&iopts, canWrite(dir)); err != nil {
		return nil, err
	}
	ix, err := indexer.Open(dir, iopts)
	if err != nil {
		verb := "write"
		if iopts.ReadOnly {
			verb = "read"
		}
		return nil, accessError(dir, err, verb)
	}
	return ix, nil
}

// maxMemory is the larger of each of a's and b's resident anonymous
// memory and live heap.
func maxMemory(a, b procmem.Memory) procmem.Memory {
	a.RSSAnon, a.HeapLive = max(a.RSSAnon, b.RSSAnon), max(a.HeapLive, b.HeapLive)
	return a
}

func (o *reclusterCmd) print(cmd *cobra.Command, p *recluster.Plan, took time.Duration, peak procmem.Memory) error {
	out := cmd.OutOrStdout()
	sum := reclusterSummary{"summary", p.Docs, p.Clusters, p.Classes, p.Pairs, p.Unchecked, len(p.Merges), len(p.Splits), !o.dryRun, took.Seconds(),
		peak.RSSAnon >> 20, peak.HeapLive >> 20}
	if o.format.jsonl {
		enc := jsonLines(out)
		for _, m := range p.Merges {
			ev := make([]linkJSON, len(m.Evidence))
			for i, l := range m.Evidence {
				ev[i] = toLink(l)
			}
			if err := enc.Encode(mergeLine{"merge", m.Into, m.From, m.Members, ev}); err != nil {
				return err
			}
		}
		for _, s := range p.Splits {
			if err := enc.Encode(splitLine{"split", s.Cluster, s.Parts, toLink(s.Closest)}); err != nil {
				return err
			}
		}
		return enc.Encode(sum)
	}
	for _, m := range p.Merges {
		into := m.Into
		if into == "" {
			into = "(new cluster)"
		}
		fmt.Fprintf(out, "merge %s <- %s (%d members)\n", into, strings.Join(m.From, " "), m.Members)
		for _, l := range m.Evidence {
			fmt.Fprintf(out, "  %s ~ %s: ST_m %.3f, %s %.3f, %d votes\n", l.A, l.B, l.ST, l.Verdict.Measure, l.Verdict.Similarity, l.Verdict.Votes)
		}
	}
	for _, s := range p.Splits {
		fmt.Fprintf(out, "split %s:", s.Cluster)
		for i, part := range s.Parts {
			fmt.Fprintf(out, " part %d [%s]", i+1, strings.Join(part, " "))
		}
		l := s.Closest
		fmt.Fprintf(out, "\n  closest pair across: %s ~ %s: ST_m %.3f, %d votes (not a duplicate)\n", l.A, l.B, l.ST, l.Verdict.Votes)
	}
	verb := "applied"
	if o.dryRun {
		verb = "dry run, nothing changed"
	}
	fmt.Fprintf(out, "%d documents in %d clusters, %d pairs verified, %d classes (%d clusters too large to check): %d merges, %d splits (%s) in %.1fs, peak RssAnon %d MiB, heap %d MiB\n",
		sum.Docs, sum.Clusters, sum.Pairs, sum.Classes, sum.Unchecked, sum.Merges, sum.Splits, verb, sum.Seconds, sum.RSSAnonMiB, sum.HeapMiB)
	return nil
}
