package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// defaultMemoryLimit is the Go runtime's soft memory limit by default:
// the garbage collector works harder as the heap nears it, instead of
// letting it grow to twice what is live, so a long run's memory stays
// flat. It is far above what indexing needs when nothing is wasted.
const defaultMemoryLimit = 448 << 20

// minMemoryLimit is the smallest --memory-limit taken: below it the
// runtime and the stores' caches alone pass it, and the garbage collector
// would run without end. A smaller value is a unit left out (96 for 96MiB).
const minMemoryLimit = 16 << 20

// memoryLimit is --memory-limit: a size, 0 for none, refused below
// minMemoryLimit.
type memoryLimit struct{ byteSize }

func (m *memoryLimit) Set(v string) error {
	var s byteSize
	if err := s.Set(v); err != nil {
		return err
	}
	if s != 0 && s < minMemoryLimit {
		least := byteSize(minMemoryLimit)
		msg := fmt.Sprintf("%d bytes is too small for the heap (at least %s; 0: no limit)", s, least.String())
		if t := strings.TrimSpace(v); strings.Trim(t, "0123456789") == "" && s < 1<<16 {
			msg += fmt.Sprintf("; for %s MiB write %sMiB", t, t)
		}
		return fmt.Errorf("%s", msg)
	}
	m.byteSize = s
	return nil
}

// noMemoryLimit annotates a command that takes no --memory-limit by
// default.
const noMemoryLimit = "no-memory-limit"

func newRootCmd() *cobra.Command {
	memLimit := memoryLimit{defaultMemoryLimit}
	root := &cobra.Command{
		Use:   "bleve-dedup",
		Short: "Index web pages into bleve without their near-duplicates",
		Long: `bleve-dedup indexes web pages into a bleve index while keeping their
near-duplicates out: the same article reprinted in other sites' templates,
retitled, lightly edited, in English or Chinese. It extracts each page's
main text, and a Badger store beside the bleve index keeps each copy out
(--policy suppress), marks it with its cluster (mark), or keeps the better
copy (replace). Searches show one hit per cluster.

Inputs (index, eval, extract, compare; serve --ingest takes JSONL and WARC
bodies over HTTP; crawl fetches pages from the web itself):
  directories      .html, .htm and .txt files, each optionally .gz, walked
                   recursively; a page's id is its path without extensions;
                   the JSONL files in them are read too (a WARC archive in
                   one is named on stderr, not read)
  JSONL            .jsonl or .jsonl.gz, {"id","url"?,"title"?,"html"|"text"}
                   a line
  WARC archives    .warc or .warc.gz (Heritrix, wget, Common Crawl, crawl
                   --warc); a page's id is its canonical URL
Pages are decoded from their charset (declared or sniffed: UTF-8, GBK,
Big5, ...). Every input is checked first: a missing one fails the command
before anything is read. A page that cannot be read or extracted is an
error: named on stderr, counted under "errors", not indexed.

Getting started, in the source tree (testdata/pages: 15 pages, 9 clusters):
  bleve-dedup index --index /tmp/idx testdata/pages
  bleve-dedup dups --index /tmp/idx
  bleve-dedup search --index /tmp/idx 'bees OR 图书馆'
  bleve-dedup serve --index /tmp/idx       # then open http://127.0.0.1:8080/
Every command's --help has examples.

Exit status:
  0  everything was read
  2  the run finished, but some pages had errors and were left out (each
     is named on stderr)
  1  the run failed (a missing input: nothing was read), or SIGINT or
     SIGTERM stopped it (index and crawl keep what they committed: the
     same command again goes on from there)
serve, a server, exits 0 when SIGINT or SIGTERM stop it and its requests
end, 1 when they do not end within --shutdown-timeout. A second SIGINT or
SIGTERM ends any command at once (an index stays whole: the next run
repairs what was cut).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			// GOMEMLIMIT, when set, wins over the default, not over the flag.
			// A command whose memory the user's own mapping sets has no
			// default: under a limit below its live heap the collector
			// would run without end (adopt of raw HTML: 3.6 times slower).
			_, noDefault := cmd.Annotations[noMemoryLimit]
			if cmd.Flags().Changed("memory-limit") || os.Getenv("GOMEMLIMIT") == "" && !noDefault {
				if memLimit.byteSize > 0 {
					debug.SetMemoryLimit(int64(memLimit.byteSize))
				} else {
					debug.SetMemoryLimit(math.MaxInt64)
				}
			}
		},
	}
	root.PersistentFlags().Var(&memLimit, "memory-limit",
		"soft limit of the Go heap and runtime (512MiB, 2GiB, ...): the garbage collector works harder near it (0: none; GOMEMLIMIT, when set, replaces the default; adopt has none by default, its index's mapping sets what it needs)")
	root.AddCommand(
		newIndexCmd(),
		newCrawlCmd(),
		newDupsCmd(),
		newAdoptCmd(),
		newSearchCmd(),
		newServeCmd(),
		newExtractCmd(),
		newCompareCmd(),
		newSimilarCmd(),
		newEvalCmd(),
		newReclusterCmd(),
		newStatsCmd(),
	)
	return root
}
