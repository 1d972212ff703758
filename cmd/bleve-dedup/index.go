package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
	"github.com/bleve-dedup/bleve-dedup/page"
)

type indexCmd struct {
	index  indexFlags
	server serverFlag
	filter filterFlags
	ingest ingestFlags
}

func (o *indexCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs, "the index directory `DIR`, created when absent")
	o.server.AddFlags(fs, "send the pages to the running serve --ingest at this `URL` instead (its index and settings apply)")
	o.filter.AddFlags(fs)
	o.ingest.AddFlags(fs, indexer.DefaultRunOptions(), bulkBatches)
}

func newIndexCmd() *cobra.Command {
	var o indexCmd
	cmd := &cobra.Command{
		Use:   "index --index DIR [--store redis://HOST:PORT[,HOST:PORT...]] [--policy suppress|mark|replace] | --server URL INPUT...",
		Short: "Index pages into bleve, keeping near-duplicates out",
		Long: `index reads pages from directories (.html, .htm, .txt, optionally .gz,
and the JSONL files in them), JSONL files (.jsonl, .jsonl.gz;
{"id","url"?,"title"?,"html"|"text"} a line) and WARC archives (.warc,
.warc.gz; a page's id is its canonical URL), extracts their main text and
indexes them into the bleve index in DIR (created when absent) through the
near-duplicate filter. Every input is checked first: one that does not
exist or cannot be read fails the command before anything is read. A WARC
archive inside a directory is named on stderr and not read (wget --mirror
--warc-file writes it beside the pages it holds): give it as an input of
its own.

The summary adds up: each page read was indexed, a duplicate (a page whose
cluster another page represents: kept out, or under --policy mark indexed
too, marked), unchanged (the index holds it already with the same content), an
error (a page that could not be read or extracted, named on stderr and not
indexed; the run goes on, and exits with status 2) or skipped (a WARC record
that holds no page: not HTML, or an HTTP status other than 2xx). Progress
shows on a terminal, and every 30 s otherwise: the inputs' bytes read of
their total (compressed bytes for .gz), the time left, the counts and the
rate. A run that indexes nothing into a new DIR leaves no index behind.

SIGINT or SIGTERM stops it once the commit under way is done, keeping
what was committed; of the batch being gathered only the first pages
(64 KiB of text) are committed, the rest left for the next run. A commit
is at most a batch (--batch-bytes of text), which bleve cannot cut: a
second or so a MiB, more on a busy machine; --batch-bytes 256KiB stops
sooner and holds less memory, for some 15% more CPU. A second signal ends
the process at once (the next run repairs the bleve write it cut).
Running the same command again passes over the pages the index holds
already with the same content ("unchanged") and goes on where it
stopped, with the clusters an uninterrupted run would make.

An index remembers the settings it was made with (--store, --policy,
--keep, --measure, --delimiters): a flag not given takes the index's own.
A --policy, --keep or --measure that differs is refused unless
--reconfigure (it then decides the pages indexed from now on); a --store
or --delimiters that differs is refused always.

With --server, the pages are read here and sent to a running
"bleve-dedup serve --ingest" (the process holding the index), which
indexes them with its own settings while it serves searches.`,
		Example: `  # Index the shipped pages (15 pages: 9 indexed, 6 duplicates suppressed)
  bleve-dedup index --index /tmp/idx testdata/pages

  # Keep duplicates in the index, each marked with its cluster
  bleve-dedup index --index /tmp/idx-mark --policy mark testdata/pages

  # A crawl's WARC archives and a JSONL file, in smaller batches
  bleve-dedup index --index /tmp/idx crawl.warc.gz crawl-00001.warc.gz pages.jsonl.gz --batch-bytes 256KiB

  # Send the pages to a running "bleve-dedup serve --ingest"
  bleve-dedup index --server http://127.0.0.1:8080 testdata/pages`,
		Args: needArgs(1, -1, "the pages to index: directories, .jsonl or .warc files"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *indexCmd) run(cmd *cobra.Command, args []string) error {
	if err := need(cmd, "index: name the index to write: --index DIR (created when absent), or --server URL of a running serve --ingest", "index", "server"); err != nil {
		return err
	}
	if err := notBoth(cmd, "index", "server", "the index a server holds is written through it"); err != nil {
		return err
	}
	in, err := openInputs(args)
	if err != nil {
		return err
	}
	in.warnNotRead(cmd.ErrOrStderr())
	if o.server.url != "" {
		return o.send(cmd, in)
	}
	dir, err := o.index.dir()
	if err != nil {
		return err
	}
	opts, err := indexOptions(dir, &o.index, &o.filter, &o.ingest)
	if err != nil {
		return err
	}
	ix, discard, err := openIndex(dir, opts)
	if err != nil {
		return err
	}
	defer ix.Close()
	if n := ix.Repaired(); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "repaired %d bleve writes left pending by an interrupted run\n", n)
	}
	ctx := cmd.Context()
	st, err := runIndex(ctx, ix, in, &o.ingest, cmd.ErrOrStderr())
	m := procmem.Read()
	fmt.Fprintf(cmd.OutOrStdout(), "%s; %.1f docs/s, %s, peak RSS %d MiB\n",
		countsLine(st), st.DocsPerSecond(), st.Elapsed.Round(time.Millisecond), m.VmHWM>>20)
	if discard != nil && st.Indexed+st.Duplicates == 0 {
		// A new index that holds nothing is not left behind for a
		// search to find empty.
		fmt.Fprintf(cmd.ErrOrStderr(), "bleve-dedup: nothing was indexed: %s is not created\n", dir)
		if derr := discard(); derr != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: removing", dir+":", derr)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w after %d pages; the same command again goes on from there", context.Cause(ctx), st.Read)
	}
	if err != nil {
		return err
	}
	if err := ix.Close(); err != nil {
		return err
	}
	return notIndexed(st.Errors)
}

// send reads the inputs and sends their pages to a serve --ingest. What
// cannot be sent is counted here as the server counts it: a page that
// could not be read is an error, an archive record that holds no page
// is skipped.
func (o *indexCmd) send(cmd *cobra.Command, in *inputSet) error {
	c, err := o.server.client()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	errw := cmd.ErrOrStderr()
	errs := errorLog{w: errw}
	var here indexer.Stats // the pages not sent
	prog, start, sent := newIndexProgress(errw, in), time.Now(), 0
	pages := func(yield func(page.Page, error) bool) {
		for p, err := range in.pages(o.ingest.options()) {
			if err == nil {
				sent++
				prog.sent(sent, time.Since(start))
			}
			if !yield(p, err) {
				return
			}
		}
	}
	sum, err := c.Ingest(ctx, pages, func(err error) {
		here.Read++
		switch {
		case errors.Is(err, page.ErrNotHTML):
			here.NotHTML++
		case errors.Is(err, page.ErrHTTPStatus):
			here.BadStatus++
		default:
			here.Errors++
			errs.add(err)
		}
	})
	prog.finish()
	for _, e := range sum.ErrorList {
		fmt.Fprintln(errw, "bleve-dedup: error on the server:", e)
	}
	if n := sum.Errors - len(sum.ErrorList); n > 0 {
		fmt.Fprintf(errw, "bleve-dedup: and %d more errors on the server\n", n)
	}
	st := indexer.Stats{Read: sum.Read + here.Read, Indexed: sum.Indexed, Duplicates: sum.Duplicates, KeptDuplicates: sum.KeptDuplicates, Errors: sum.Errors + here.Errors,
		Unchanged: sum.Unchanged, Updated: sum.Updated, Truncated: sum.Truncated,
		NotHTML: sum.NotHTML + here.NotHTML, BadStatus: sum.BadStatus + here.BadStatus,
		Elapsed: time.Duration(sum.ElapsedMS) * time.Millisecond}
	fmt.Fprintf(cmd.OutOrStdout(), "%s; %s on the server\n", countsLine(st), st.Elapsed)
	if err != nil {
		return err
	}
	return notIndexed(st.Errors)
}

// countsLine is what happened to the pages of a run, as a sum: each page
// read was indexed, a duplicate, unchanged, an error or skipped (see the
// command's help); updated and truncated pages are among the indexed and
// the duplicates.
func countsLine(st indexer.Stats) string {
	decided := st.Read - st.Unchanged - st.Errors - st.NotHTML - st.BadStatus
	rest := fmt.Sprintf("unchanged %d + errors %d + skipped %d (not HTML %d, HTTP status %d); updated %d, truncated %d",
		st.Unchanged, st.Errors, st.NotHTML+st.BadStatus, st.NotHTML, st.BadStatus, st.Updated, st.Truncated)
	left := st.Duplicates - st.KeptDuplicates // kept out of bleve
	if st.Indexed+left == decided {
		switch {
		case left == 0 && st.Duplicates > 0: // mark: a duplicate is indexed too, marked
			return fmt.Sprintf("read %d = indexed %d (%d of them duplicates) + %s", st.Read, st.Indexed, st.Duplicates, rest)
		case st.KeptDuplicates > 0: // suppress, replace: those with text of their own stay
			return fmt.Sprintf("read %d = indexed %d (%d of them duplicates with text of their own) + duplicates %d + %s", st.Read, st.Indexed, st.KeptDuplicates, left, rest)
		}
		return fmt.Sprintf("read %d = indexed %d + duplicates %d + %s", st.Read, st.Indexed, left, rest)
	}
	// Counts that do not add up (not met): none is hidden, none claimed
	// to be the sum.
	return fmt.Sprintf("read %d: indexed %d, duplicates %d, %s", st.Read, st.Indexed, st.Duplicates, strings.ReplaceAll(rest, " +", ","))
}
