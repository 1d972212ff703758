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
out (suppress), marks them (mark) or keeps the better copy (replace).`,
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
