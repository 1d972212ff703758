package main

import (
	"math"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// defaultMemoryLimitMiB is the Go runtime's soft memory limit by default:
// the garbage collector works harder as the heap nears it, instead of
// letting it grow to twice what is live, so a long run's memory stays
// flat. It is far above what indexing needs when nothing is wasted.
const defaultMemoryLimitMiB = 448

func newRootCmd() *cobra.Command {
	var memLimit int64
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
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			// GOMEMLIMIT, when set, wins over the default, not over the flag.
			if cmd.Flags().Changed("memory-limit") || os.Getenv("GOMEMLIMIT") == "" {
				if memLimit > 0 {
					debug.SetMemoryLimit(memLimit << 20)
				} else {
					debug.SetMemoryLimit(math.MaxInt64)
				}
			}
		},
	}
	root.PersistentFlags().Int64Var(&memLimit, "memory-limit", defaultMemoryLimitMiB,
		"soft limit of the Go heap and runtime, MiB: the garbage collector works harder near it (0: none; GOMEMLIMIT, when set, replaces the default)")
	root.AddCommand(
		newIndexCmd(),
		newCrawlCmd(),
		newDupsCmd(),
		newSearchCmd(),
		newServeCmd(),
		newExtractCmd(),
		newCompareCmd(),
		newEvalCmd(),
		newReclusterCmd(),
	)
	return root
}
