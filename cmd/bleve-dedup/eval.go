package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/recluster"
)

type evalCmd struct {
	labels    string
	keepIndex string
	recluster bool
	format    formatFlag
	store     indexFlags // --store only: eval makes its own index
	filter    filterFlags
	methods   methodFlags
	ingest    ingestFlags
}

func (o *evalCmd) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.labels, "labels", "", `labels file, {"id","cluster"} a line (required)`)
	fs.BoolVar(&o.recluster, "recluster", false, "after indexing, refine the clusters as recluster does and score them again")
	fs.StringVar(&o.keepIndex, "keep-index", "", "build the index in this new directory and keep it (default: a temporary one, removed)")
	o.format.AddFlags(fs, "the scores as one JSON object")
	o.filter.AddFlags(fs)
	o.methods.AddFlags(fs)
	o.ingest.AddFlags(fs, indexer.DefaultRunOptions(), bulkBatches)
	o.store.addStore(fs)
}

func newEvalCmd() *cobra.Command {
	var o evalCmd
	cmd := &cobra.Command{
		Use:   "eval --labels LABELS.jsonl INPUT...",
		Short: "Score the filter against labelled near-duplicates",
		Long: `eval indexes the inputs into a temporary index with the given settings and
compares the clusters it finds with the labels ({"id","cluster"} a line):
pairwise precision, recall and F1 over duplicate pairs, the adjusted Rand
index, the indexing rate, and the content lost: of the pages the index
leaves out (suppress and replace: members kept out for their cluster's
representative; mark: none), how many have under 60% of their distinct
terms in their cluster's kept page. Indexed documents the
labels do not know are left out of the scores and counted; labelled
documents that could not be indexed count as clusters of their own. The
index is removed afterwards unless --keep-index; a run that fails or is
stopped removes that one too.`,
		Example: `  # The shipped pages against their labels (precision and recall 1)
  bleve-dedup eval --labels testdata/pages-labels.jsonl testdata/pages

  # Another measure, and the clusters after recluster, as JSON
  bleve-dedup eval --labels testdata/pages-labels.jsonl --measure featurestring --recluster --format jsonl testdata/pages

  # The development set, keeping the index to look at its clusters
  bleve-dedup eval --labels ../shared/data/neardup/dev-labels.jsonl --keep-index /tmp/dev-idx ../shared/data/neardup/dev-corpus.jsonl.gz
  bleve-dedup dups --index /tmp/dev-idx`,
		Args: needArgs(1, -1, "the pages to index: directories, .jsonl or .warc files"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// evalLine is the JSON-lines form of an evaluation.
type evalLine struct {
	eval.Scores
	Measure    string  `json:"measure"`
	Delimiters string  `json:"delimiters"`
	Unlabelled int     `json:"unlabelled"`
	Errors     int     `json:"errors"`
	DocsPerSec float64 `json:"docs_per_sec"`
	// The pages the index leaves out (none under mark), those of them
	// whose terms are under eval.LostShare in their kept page, the lowest
	// share, and the lost pages with the lowest shares.
	LeftOut      int      `json:"left_out"`
	Lost         int      `json:"lost"`
	LostMinShare float64  `json:"lost_min_share"`
	LostIDs      []string `json:"lost_ids,omitempty"`
	// Recluster: the scores after recluster (--recluster).
	Recluster *reclusterScores `json:"recluster,omitempty"`
}

type reclusterScores struct {
	After   eval.Scores `json:"after"`
	Merges  int         `json:"merges"`
	Splits  int         `json:"splits"`
	Seconds float64     `json:"seconds"`
}

func (o *evalCmd) run(cmd *cobra.Command, inputs []string) (err error) {
	if err := need(cmd, "eval: name the labels to score against: --labels LABELS.jsonl ({\"id\",\"cluster\"} a line)", "labels"); err != nil {
		return err
	}
	lf, err := os.Open(o.labels)
	if err != nil {
		return fmt.Errorf("--labels: %w", err)
	}
	gold, err := eval.ReadLabels(lf, o.labels)
	lf.Close()
	if err != nil {
		return err
	}
	in, err := openInputs(inputs)
	if err != nil {
		return err
	}
	in.warnNotRead(cmd.ErrOrStderr())
	opts, err := indexOptions("", &o.store, &o.filter, &o.ingest)
	if err != nil {
		return err
	}
	if err := o.methods.apply(opts.Filter); err != nil {
		return err
	}
	dir := o.keepIndex
	if dir == "" {
		tmp, err := os.MkdirTemp("", "bleve-dedup-eval-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("--keep-index %s: exists already (eval builds a new index)", dir)
	}
	ix, discard, err := openIndex(dir, opts)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && discard != nil {
			err = errors.Join(err, discard())
		}
	}()
	defer ix.Close()
	st, err := runIndex(cmd.Context(), ix, in, &o.ingest, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	pred, err := eval.Predicted(ix.Filter())
	if err != nil {
		return err
	}
	r := eval.ScoreRun(pred, gold)
	line := evalLine{Scores: r.Scores, Measure: o.filter.measure, Delimiters: o.filter.delimiters, Unlabelled: r.Unlabelled, Errors: st.Errors, DocsPerSec: st.DocsPerSecond()}
	// The main text only: the title is not content, and reprints change it.
	lost, err := eval.LostContent(ix.Filter(), eval.TextFields(indexer.FieldText), eval.LostShare)
	if err != nil {
		return err
	}
	line.LeftOut, line.Lost, line.LostMinShare = lost.LeftOut, lost.Lost, lost.MinShare
	for _, p := range lost.Worst {
		line.LostIDs = append(line.LostIDs, p.ID)
	}
	if o.recluster {
		start := time.Now()
		plan, err := ix.Recluster(cmd.Context(), recluster.DefaultOptions(), false)
		if err != nil {
			return err
		}
		if pred, err = eval.Predicted(ix.Filter()); err != nil {
			return err
		}
		after := eval.ScoreRun(pred, gold).Scores
		line.Recluster = &reclusterScores{after, len(plan.Merges), len(plan.Splits), time.Since(start).Seconds()}
	}
	out := cmd.OutOrStdout()
	if o.format.jsonl {
		if err := jsonLines(out).Encode(line); err != nil {
			return err
		}
		return notIndexed(st.Errors)
	}
	fmt.Fprintf(out, "measure %s, delimiters %q\n", o.filter.measure, o.filter.delimiters)
	fmt.Fprintf(out, "docs %d (unlabelled %d, errors %d), gold pairs %d, predicted pairs %d, true pairs %d\n",
		r.Docs, r.Unlabelled, st.Errors, r.GoldPairs, r.PredPairs, r.TruePairs)
	fmt.Fprintf(out, "precision %.4f  recall %.4f  F1 %.4f  ARI %.4f  %.1f docs/s\n",
		r.Precision, r.Recall, r.F1, r.ARI, st.DocsPerSecond())
	fmt.Fprintf(out, "lost content: %d of %d pages left out (lowest share %.2f)\n", lost.Lost, lost.LeftOut, lost.MinShare)
	for _, p := range lost.Worst {
		fmt.Fprintf(out, "  lost %s: share %.2f in kept %s\n", p.ID, p.Share, p.Kept)
	}
	if rc := line.Recluster; rc != nil {
		a := rc.After
		fmt.Fprintf(out, "after recluster (%d merges, %d splits, %.1fs): predicted pairs %d, true pairs %d\n", rc.Merges, rc.Splits, rc.Seconds, a.PredPairs, a.TruePairs)
		fmt.Fprintf(out, "precision %.4f  recall %.4f  F1 %.4f  ARI %.4f\n", a.Precision, a.Recall, a.F1, a.ARI)
	}
	return notIndexed(st.Errors)
}
