package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

func newIndexCmd() *cobra.Command {
	var flags dedupFlags
	var dir string
	cmd := &cobra.Command{
		Use:   "index --index DIR [--policy suppress|mark|replace] INPUT...",
		Short: "Index pages into bleve, keeping near-duplicates out",
		Long: `index reads pages from directories (.html, .htm, .txt, optionally .gz),
JSONL files ({"id","url"?,"title"?,"html"|"text"} a line) and WARC archives
(.warc, .warc.gz; a page's id is its canonical URL), extracts their main
text and indexes them into the bleve index in DIR (created when absent) through
the near-duplicate filter. Unreadable pages are reported on stderr and
counted; the run goes on. SIGINT stops it cleanly, keeping what was indexed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := flags.options()
			if err != nil {
				return err
			}
			ix, err := indexer.Open(dir, opts)
			if err != nil {
				return err
			}
			defer ix.Close()
			if n := ix.Repaired(); n > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "repaired %d bleve writes left pending by an interrupted run\n", n)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			st, err := runIndex(ctx, ix, args, flags, cmd.ErrOrStderr())
			fmt.Fprintf(cmd.OutOrStdout(), "read %d, indexed %d, duplicates %d, errors %d, %.1f docs/s\n",
				st.Read, st.Indexed, st.Duplicates, st.Errors, st.DocsPerSecond())
			if err != nil {
				return err
			}
			return ix.Close()
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index directory (required)")
	cmd.MarkFlagRequired("index")
	flags.register(cmd, true)
	return cmd
}

// runIndex indexes inputs into ix, reporting per-page errors on errw and,
// when errw is a terminal, a progress bar.
func runIndex(ctx context.Context, ix *indexer.Index, inputs []string, flags dedupFlags, errw io.Writer) (indexer.Stats, error) {
	// A bad page is skipped and the run goes on; an input that cannot be
	// read at all (a mistyped path) fails the command once the rest is in.
	var badInputs int
	ro := indexer.RunOptions{
		Workers: flags.workers,
		OnError: func(err error) {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, errors.ErrUnsupported) {
				badInputs++
			}
			fmt.Fprintln(errw, "bleve-dedup: skipped:", err)
		},
	}
	if f, ok := errw.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(errw),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("docs"),
			progressbar.OptionClearOnFinish())
		last := 0
		ro.Progress = func(s indexer.Stats) {
			bar.Add(s.Read - last)
			last = s.Read
			bar.Describe(fmt.Sprintf("indexing (%d duplicates, %d errors)", s.Duplicates, s.Errors))
		}
		defer bar.Finish()
	}
	st, err := ix.IndexPages(ctx, page.Read(inputs, flags.pageOptions()), ro)
	if err == nil && badInputs > 0 {
		err = fmt.Errorf("%d of the inputs could not be read (see above)", badInputs)
	}
	return st, err
}
