package main

import (
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "bleve-dedup",
		Short: "Index web pages into bleve without their near-duplicates",
		Long: `bleve-dedup reads pages (directories of .html/.htm/.txt[.gz] files, or JSONL
of {"id","url","title","html"|"text"}), extracts their main text, and indexes
them into a bleve index while a Badger store beside it keeps near-duplicates
out (suppress), marks them (mark) or keeps the better copy (replace).

Exit status: 0 when everything was read, 2 when a run finished but skipped
some pages (each is named on stderr), 1 when it failed.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newIndexCmd(),
		newCrawlCmd(),
		newDupsCmd(),
		newSearchCmd(),
		newServeCmd(),
		newExtractCmd(),
		newCompareCmd(),
		newEvalCmd(),
	)
	return root
}
