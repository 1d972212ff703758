package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

type evalCmd struct {
	labels string
	format format
	filter filterFlags
	ingest ingestFlags
}

func (o *evalCmd) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.labels, "labels", "", `labels file, {"id","cluster"} a line (required)`)
	o.format = newFormat("table", "table", "jsonl")
	o.format.addFlag(fs)
	o.filter.AddFlags(fs)
	o.ingest.AddFlags(fs)
	addStoreFlag(fs, &o.ingest.store)
}

func newEvalCmd() *cobra.Command {
	var o evalCmd
	cmd := &cobra.Command{
		Use:   "eval --labels LABELS.jsonl INPUT...",
		Short: "Score the filter against labelled near-duplicates",
		Long: `eval indexes the inputs into a temporary index with the given settings and
compares the clusters it finds with the labels ({"id","cluster"} a line):
pairwise precision, recall and F1 over duplicate pairs, the adjusted Rand
index, and the indexing rate. Indexed documents the labels do not know are
left out of the scores and counted; labelled documents that could not be
indexed count as clusters of their own.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	o.AddFlags(cmd.Flags())
	cmd.MarkFlagRequired("labels")
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
}

func (o *evalCmd) run(cmd *cobra.Command, inputs []string) error {
	lf, err := os.Open(o.labels)
	if err != nil {
		return fmt.Errorf("--labels: %w", err)
	}
	gold, err := eval.ReadLabels(lf, o.labels)
	lf.Close()
	if err != nil {
		return err
	}
	opts, err := indexOptions(&o.filter, &o.ingest)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "bleve-dedup-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ix, err := indexer.Open(tmp, opts)
	if err != nil {
		return err
	}
	defer ix.Close()
	st, err := runIndex(cmd.Context(), ix, inputs, &o.ingest, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	pred, err := eval.Predicted(ix.Filter())
	if err != nil {
		return err
	}
	r := eval.ScoreRun(pred, gold)
	out := cmd.OutOrStdout()
	if o.format.value == "jsonl" {
		if err := jsonLines(out).Encode(evalLine{r.Scores, o.filter.measure, o.filter.delimiters, r.Unlabelled, st.Errors, st.DocsPerSecond()}); err != nil {
			return err
		}
		return skipped(st.Errors)
	}
	fmt.Fprintf(out, "measure %s, delimiters %q\n", o.filter.measure, o.filter.delimiters)
	fmt.Fprintf(out, "docs %d (unlabelled %d, errors %d), gold pairs %d, predicted pairs %d, true pairs %d\n",
		r.Docs, r.Unlabelled, st.Errors, r.GoldPairs, r.PredPairs, r.TruePairs)
	fmt.Fprintf(out, "precision %.4f  recall %.4f  F1 %.4f  ARI %.4f  %.1f docs/s\n",
		r.Precision, r.Recall, r.F1, r.ARI, st.DocsPerSecond())
	return skipped(st.Errors)
}
