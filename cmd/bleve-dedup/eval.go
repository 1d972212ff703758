package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

func newEvalCmd() *cobra.Command {
	var flags dedupFlags
	var labels, format string
	cmd := &cobra.Command{
		Use:   "eval --labels LABELS.jsonl INPUT...",
		Short: "Score the filter against labelled near-duplicates",
		Long: `eval indexes the inputs into a temporary index with the given settings and
compares the clusters it finds with the labels ({"id","cluster"} a line):
pairwise precision, recall and F1 over duplicate pairs, the adjusted Rand
index, and the indexing rate. Documents missing from either side are left
out of the scores and counted.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "jsonl" {
				return fmt.Errorf("--format: want table or jsonl, got %q", format)
			}
			lf, err := os.Open(labels)
			if err != nil {
				return fmt.Errorf("--labels: %w", err)
			}
			gold, err := eval.ReadLabels(lf, labels)
			lf.Close()
			if err != nil {
				return err
			}
			opts, err := flags.options()
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
			st, err := runIndex(cmd.Context(), ix, args, flags, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			pred := eval.Clustering{}
			err = ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
				for _, m := range c.Members {
					pred[m] = c.ID
				}
				return nil
			})
			if err != nil {
				return err
			}
			unlabelled := 0
			for id := range pred {
				if _, ok := gold[id]; !ok {
					unlabelled++
				}
			}
			// A labelled page that could not be indexed is scored as a
			// singleton, so failures cost recall instead of vanishing.
			for id := range gold {
				if _, ok := pred[id]; !ok {
					pred[id] = "unindexed:" + id
				}
			}
			s := eval.Score(pred, gold)
			out := cmd.OutOrStdout()
			if format == "jsonl" {
				enc := json.NewEncoder(out)
				return enc.Encode(struct {
					eval.Scores
					Measure    string  `json:"measure"`
					Delimiters string  `json:"delimiters"`
					Unlabelled int     `json:"unlabelled"`
					Errors     int     `json:"errors"`
					DocsPerSec float64 `json:"docs_per_sec"`
				}{s, flags.measure, flags.delimiters, unlabelled, st.Errors, st.DocsPerSecond()})
			}
			fmt.Fprintf(out, "measure %s, delimiters %q\n", flags.measure, flags.delimiters)
			fmt.Fprintf(out, "docs %d (unlabelled %d, errors %d), gold pairs %d, predicted pairs %d, true pairs %d\n",
				s.Docs, unlabelled, st.Errors, s.GoldPairs, s.PredPairs, s.TruePairs)
			fmt.Fprintf(out, "precision %.4f  recall %.4f  F1 %.4f  ARI %.4f  %.1f docs/s\n",
				s.Precision, s.Recall, s.F1, s.ARI, st.DocsPerSecond())
			return nil
		},
	}
	cmd.Flags().StringVar(&labels, "labels", "", "labels file, {\"id\",\"cluster\"} a line (required)")
	cmd.MarkFlagRequired("labels")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or jsonl")
	flags.register(cmd, true)
	return cmd
}
