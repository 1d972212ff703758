package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/indexer"
)

func newSearchCmd() *cobra.Command {
	var dir, format, syntax string
	var size, from int
	var collapse bool
	cmd := &cobra.Command{
		Use:   "search --index DIR QUERY",
		Short: "Search the index, one hit per duplicate cluster",
		Long: `search runs QUERY against the index in DIR and prints one hit per duplicate
cluster (the best-scoring copy) with the number of copies folded under it.

QUERY uses the boolean syntax by default: AND or *, OR or +, NOT or -,
parentheses, "quoted phrases" and field:term, with NOT binding tighter than
AND and AND tighter than OR; bare terms search the title and the text:

  bleve-dedup search --index idx '(university OR college) AND (education OR Law) NOT Japan'

--syntax querystring takes bleve's query-string syntax instead. --from and
--size page over clusters (over documents with --collapse=false).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "jsonl" {
				return fmt.Errorf("--format: want table or jsonl, got %q", format)
			}
			syn, err := indexer.ParseSyntax(syntax)
			if err != nil {
				return fmt.Errorf("--syntax: %w", err)
			}
			q, err := indexer.ParseQuery(strings.Join(args, " "), syn)
			if err != nil {
				return err
			}
			ix, err := openExisting(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			res, err := ix.SearchCollapsed(cmd.Context(), indexer.CollapseRequest{
				Query: q, Size: size, From: from, Collapse: collapse})
			if err != nil {
				return err
			}
			if format == "jsonl" {
				return writeHitsJSONL(cmd, res.Hits)
			}
			return writeHitsTable(cmd, res, collapse)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "", "index directory (required)")
	cmd.MarkFlagRequired("index")
	fl.StringVar(&format, "format", "table", "output format: table or jsonl")
	fl.StringVar(&syntax, "syntax", indexer.Boolean.String(), "query syntax: boolean or querystring")
	fl.BoolVar(&collapse, "collapse", true, "fold each duplicate cluster into one hit")
	fl.IntVar(&size, "size", indexer.DefaultSize, "hits per page")
	fl.IntVar(&from, "from", 0, "hits to skip")
	return cmd
}

func writeHitsJSONL(cmd *cobra.Command, hits []indexer.Hit) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetEscapeHTML(false)
	for _, h := range hits {
		if err := enc.Encode(h); err != nil {
			return err
		}
	}
	return nil
}

func writeHitsTable(cmd *cobra.Command, res *indexer.CollapseResult, collapse bool) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tID\tCLUSTER\tFOLDED\tTITLE")
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%d\t%s\n", h.Score, h.ID, h.Cluster, h.Folded, h.Title)
	}
	switch {
	case !collapse:
		fmt.Fprintf(tw, "(%d of %d documents)\n", len(res.Hits), res.Total)
	case res.ClustersExact:
		fmt.Fprintf(tw, "(%d of %d clusters, %d documents)\n", len(res.Hits), res.Clusters, res.Total)
	default:
		fmt.Fprintf(tw, "(%d of at least %d clusters, %d documents)\n", len(res.Hits), res.Clusters, res.Total)
	}
	return tw.Flush()
}
