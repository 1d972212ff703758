package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/blevesearch/bleve/v2"
	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/indexer"
)

func newSearchCmd() *cobra.Command {
	var dir, format string
	var size, from int
	cmd := &cobra.Command{
		Use:   "search --index DIR QUERY",
		Short: "Search the index; hits carry their duplicate-cluster ids",
		Long: `search runs a bleve query-string query (e.g. 'title:meth +campaign') against
the index in DIR and prints the hits with their scores and cluster ids.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "jsonl" {
				return fmt.Errorf("--format: want table or jsonl, got %q", format)
			}
			ix, err := openExisting(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			req := bleve.NewSearchRequestOptions(bleve.NewQueryStringQuery(strings.Join(args, " ")), size, from, false)
			req.Fields = []string{indexer.FieldTitle, indexer.FieldURL}
			res, err := ix.Search(req)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "jsonl" {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				for _, h := range res.Hits {
					if err := enc.Encode(struct {
						ID      string  `json:"id"`
						Score   float64 `json:"score"`
						Cluster string  `json:"cluster"`
						Title   any     `json:"title"`
						URL     any     `json:"url"`
					}{h.ID, h.Score, fmt.Sprint(h.Fields[indexer.FieldCluster]), h.Fields[indexer.FieldTitle], h.Fields[indexer.FieldURL]}); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SCORE\tID\tCLUSTER\tTITLE")
			for _, h := range res.Hits {
				fmt.Fprintf(tw, "%.3f\t%s\t%v\t%v\n", h.Score, h.ID, h.Fields[indexer.FieldCluster], h.Fields[indexer.FieldTitle])
			}
			fmt.Fprintf(tw, "(%d of %d hits)\n", len(res.Hits), res.Total)
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index directory (required)")
	cmd.MarkFlagRequired("index")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or jsonl")
	cmd.Flags().IntVar(&size, "size", 10, "hits per page")
	cmd.Flags().IntVar(&from, "from", 0, "hits to skip")
	return cmd
}
