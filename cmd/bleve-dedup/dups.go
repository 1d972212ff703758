package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

func newDupsCmd() *cobra.Command {
	var dir, format string
	cmd := &cobra.Command{
		Use:   "dups --index DIR [--format table|jsonl]",
		Short: "List the clusters of near-duplicate documents",
		Long: `dups lists every cluster of two or more documents: its id, its representative
(the copy in search results) and its members, representative and suppressed
copies included. --format jsonl prints one
{"cluster","representative","members"} object a line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "jsonl" {
				return fmt.Errorf("--format: want table or jsonl, got %q", format)
			}
			ix, err := openExisting(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			out := cmd.OutOrStdout()
			enc := json.NewEncoder(out)
			enc.SetEscapeHTML(false)
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			if format == "table" {
				fmt.Fprintln(tw, "CLUSTER\tREPRESENTATIVE\tSIZE\tMEMBERS")
			}
			n := 0
			err = ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
				if len(c.Members) < 2 {
					return nil
				}
				n++
				if format == "jsonl" {
					return enc.Encode(struct {
						Cluster        string   `json:"cluster"`
						Representative string   `json:"representative"`
						Members        []string `json:"members"`
					}{c.ID, c.Representative, c.Members})
				}
				_, err := fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.ID, c.Representative, len(c.Members), strings.Join(c.Members, " "))
				return err
			})
			if err != nil {
				return err
			}
			if format == "table" {
				fmt.Fprintf(tw, "(%d clusters of duplicates)\n", n)
				return tw.Flush()
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index directory (required)")
	cmd.MarkFlagRequired("index")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or jsonl")
	return cmd
}

// openExisting opens an index that must already exist, so a mistyped
// --index is an error rather than a new empty index.
func openExisting(dir string) (*indexer.Index, error) {
	if !indexer.Exists(dir) {
		return nil, fmt.Errorf("--index %s: no index there (create one with bleve-dedup index)", dir)
	}
	return indexer.Open(dir, indexer.DefaultOptions())
}
