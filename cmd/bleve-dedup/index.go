package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
	"github.com/bleve-dedup/bleve-dedup/page"
)

type indexCmd struct {
	dir    string
	server string
	filter filterFlags
	ingest ingestFlags
}

func (o *indexCmd) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dir, "index", "", "index directory")
	fs.StringVar(&o.server, "server", "", "send the pages to a running serve --ingest at this URL instead (its index and settings apply)")
	o.filter.AddFlags(fs)
	o.ingest.AddFlags(fs, indexer.DefaultRunOptions())
	addStoreFlag(fs, &o.ingest.store)
}

func newIndexCmd() *cobra.Command {
	var o indexCmd
	cmd := &cobra.Command{
		Use:   "index --index DIR [--store redis://HOST:PORT[,HOST:PORT...]] [--policy suppress|mark|replace] | --server URL INPUT...",
		Short: "Index pages into bleve, keeping near-duplicates out",
		Long: `index reads pages from directories (.html, .htm, .txt, optionally .gz),
JSONL files ({"id","url"?,"title"?,"html"|"text"} a line) and WARC archives
(.warc, .warc.gz; a page's id is its canonical URL), extracts their main
text and indexes them into the bleve index in DIR (created when absent) through
the near-duplicate filter. Unreadable pages are reported on stderr and
counted; the run goes on. SIGINT or SIGTERM stops it cleanly, keeping what
was indexed; running the same command again skips the pages the index
holds already with the same content ("unchanged" in the summary) and goes
on where it stopped, with the clusters an uninterrupted run would make.

With --server, the pages are read here and sent to a running
"bleve-dedup serve --ingest" (the process holding the index), which
indexes them with its own settings while it serves searches.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	o.AddFlags(cmd.Flags())
	cmd.MarkFlagsOneRequired("index", "server")
	cmd.MarkFlagsMutuallyExclusive("index", "server")
	return cmd
}

func (o *indexCmd) run(cmd *cobra.Command, inputs []string) error {
	if o.server != "" {
		return o.send(cmd, inputs)
	}
	opts, err := indexOptions(o.dir, &o.filter, &o.ingest)
	if err != nil {
		return err
	}
	// Before the index opens: a signal while it opens stops the run
	// once open, instead of killing the process.
	ctx, stop := stopOnSignal(cmd.Context())
	defer stop()
	ix, err := indexer.Open(o.dir, opts)
	if err != nil {
		return err
	}
	defer ix.Close()
	if n := ix.Repaired(); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "repaired %d bleve writes left pending by an interrupted run\n", n)
	}
	st, err := runIndex(ctx, ix, inputs, &o.ingest, cmd.ErrOrStderr())
	m := procmem.Read()
	fmt.Fprintf(cmd.OutOrStdout(), "%s, %.1f docs/s, %s, peak RSS %d MiB\n",
		countsLine(st), st.DocsPerSecond(), st.Elapsed.Round(time.Millisecond), m.VmHWM>>20)
	if err != nil {
		return err
	}
	if err := ix.Close(); err != nil {
		return err
	}
	return skipped(st.Errors)
}

// send reads the inputs and sends their pages to a serve --ingest.
func (o *indexCmd) send(cmd *cobra.Command, inputs []string) error {
	c, err := newClient(o.server)
	if err != nil {
		return err
	}
	ctx, stop := stopOnSignal(cmd.Context())
	defer stop()
	errw := cmd.ErrOrStderr()
	skips := skipLog{w: errw}
	sum, err := c.ingest(ctx, page.Read(inputs, o.ingest.pageOptions()), skips.add)
	local := skips.n
	for _, e := range sum.ErrorList {
		fmt.Fprintln(errw, "bleve-dedup: skipped by the server:", e)
	}
	if n := sum.Errors - len(sum.ErrorList); n > 0 {
		fmt.Fprintf(errw, "bleve-dedup: and %d more skipped by the server\n", n)
	}
	st := indexer.Stats{Read: sum.Read + local, Indexed: sum.Indexed, Duplicates: sum.Duplicates, Errors: sum.Errors + local,
		Unchanged: sum.Unchanged, Updated: sum.Updated, Truncated: sum.Truncated, NotHTML: sum.NotHTML, BadStatus: sum.BadStatus,
		Elapsed: time.Duration(sum.ElapsedMS) * time.Millisecond}
	fmt.Fprintf(cmd.OutOrStdout(), "%s, %s on the server\n", countsLine(st), st.Elapsed)
	if err == nil {
		err = skips.err()
	}
	if err != nil {
		return err
	}
	return skipped(sum.Errors + local)
}

// countsLine is what happened to the pages of a run.
func countsLine(st indexer.Stats) string {
	return fmt.Sprintf("read %d, indexed %d, duplicates %d, errors %d, unchanged %d, updated %d, truncated %d, skipped %d (not HTML %d, HTTP status %d)",
		st.Read, st.Indexed, st.Duplicates, st.Errors, st.Unchanged, st.Updated, st.Truncated, st.NotHTML+st.BadStatus, st.NotHTML, st.BadStatus)
}
