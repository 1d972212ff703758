package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/crawler"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/warcout"
)

type crawlCmd struct {
	config, log string
	index       indexFlags
	warc        string
	warcMaxSize byteSize
}

func (o *crawlCmd) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.config, "config", "", "crawl config file, YAML (required)")
	o.index.addIndex(fs, "the index directory `DIR`, created when absent; the crawl state is kept in DIR/crawl (required)")
	fs.StringVar(&o.log, "log", "", "append one JSON line per fetched page to this file")
	fs.StringVar(&o.warc, "warc", "", "archive every HTTP exchange (request and response records) in this WARC file, NAME.warc.gz or NAME.warc; later files NAME-00001.warc.gz, ...")
	o.warcMaxSize = warcout.DefaultMaxSize
	fs.Var(&o.warcMaxSize, "warc-max-size", "with --warc, start the next file once one has grown past this size (0: one file)")
}

func newCrawlCmd() *cobra.Command {
	var o crawlCmd
	cmd := &cobra.Command{
		Use:   "crawl --config crawl.yaml --index DIR [--log FILE] [--warc NAME.warc.gz [--warc-max-size SIZE]]",
		Short: "Crawl the web for a topic and index the relevant pages",
		Long: `crawl fetches pages from the config's seeds, best-first by predicted link
value (the link-value paper) or breadth-first, scores each page against the
topic (the topic-crawler paper) and indexes the relevant ones into DIR through the near-duplicate
filter, with their relevance in the numeric field "relevance". The crawl
state (frontier, seen URLs, learnt link weights) lives in DIR/crawl: after
SIGINT or SIGTERM (exit status 1), the same command continues where it
stopped. A crawl that fetched nothing into a new DIR leaves no index
behind. --log appends one
JSON line per fetched page: {"url","status","depth","link_value",
"relevance","relevant","duplicate_of"?,"error"?}.

A server that does not answer (connection refused, a time-out; for
robots.txt also a server error) is tried again with backoff for
retry_for, from its first failure; meanwhile its pages wait. A crawl
that read no page at all ends with the reason and exit status 1.

--warc archives every HTTP exchange of the crawl (pages, redirects,
robots.txt, errors) as WARC/1.1 request and response records, gzipped a
record at a time: NAME.warc.gz first, then NAME-00001.warc.gz and so on
once a file has grown past --warc-max-size. A resumed crawl goes on at the
next free number. A body the crawler did not read whole (not HTML, too
large) is archived as far as it was read, marked WARC-Truncated. To index
the crawl again from its archive, give the files in the order written:
  bleve-dedup index --index DIR2 NAME.warc.gz NAME-*.warc.gz
(a shell glob NAME*.warc.gz puts NAME.warc.gz last).

Config (YAML; durations like 500ms or 2s):
  seeds: [https://example.com/]
  topic: {profile: topic.json}      # or {name: x, keywords: {word: 1, ...}}
                                    # title_weight (α, 0.5), threshold (0.3)
  allowed_hosts: [example.com, .example.org]   # default: the seeds' hosts
  max_depth: 10    max_pages: 1000   workers: 4
  delay: 1s        robots: true      connect_timeout: 10s   read_timeout: 10s
  retry_for: 1m                     # a server that does not answer is tried again, with backoff, this long
  user_agent: bleve-dedup-crawler/1.0
  strategy: best-first              # or breadth-first
  weights: learned                  # or fixed (equal)
  weights_file: weights.json        # start from a training crawl's weights; learnt ones are written back
  max_bytes: 4194304   max_links: 500`,
		Example: `  # A topic crawl of at most 200 pages, archived as it goes
  cat > crawl.yaml <<'EOF'
  seeds: [https://example.com/]
  topic: {name: bees, keywords: {bee: 1, hive: 1, honey: 0.5}}
  max_pages: 200
  EOF
  bleve-dedup crawl --config crawl.yaml --index /tmp/crawl-idx --log crawl.jsonl --warc crawl.warc.gz

  # Stopped (Ctrl-C), or to raise max_pages: the same command goes on
  bleve-dedup crawl --config crawl.yaml --index /tmp/crawl-idx --log crawl.jsonl --warc crawl.warc.gz

  # The pages found, folded by duplicate cluster
  bleve-dedup search --index /tmp/crawl-idx 'honey OR hive'`,
		Args: needArgs(0, 0, "no arguments (the config and index are flags)"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *crawlCmd) run(cmd *cobra.Command) (err error) {
	if err := need(cmd, "crawl: name the crawl config: --config crawl.yaml (see bleve-dedup crawl --help)", "config"); err != nil {
		return err
	}
	if err := need(cmd, "crawl: name the index to fill: --index DIR (created when absent; the crawl state is kept in DIR/crawl)", "index"); err != nil {
		return err
	}
	dir, err := o.index.dir()
	if err != nil {
		return err
	}
	cfg, err := crawler.ReadConfig(o.config)
	if err != nil {
		return err
	}
	opts, err := cfg.Options(filepath.Join(dir, "crawl"))
	if err != nil {
		return fmt.Errorf("%s: %w", o.config, err)
	}
	iopts, err := savedOptions(dir)
	if err != nil {
		return err
	}
	ix, discard, err := openIndex(dir, iopts)
	if err != nil {
		return err
	}
	// Last, after everything that writes in dir is closed: a new index
	// of a crawl that failed before fetching a page is not left behind.
	fetched := 0 // pages fetched without an error
	defer func() {
		if discard != nil && err != nil && fetched == 0 {
			if derr := discard(); derr != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: removing", dir+":", derr)
			}
		}
	}()
	defer ix.Close()
	ctx := cmd.Context()
	// Relevant pages go through the index's batch pipeline; the feed ends
	// (its last batch committed) before the index closes, after a stop
	// too: the pages the crawler hands it are indexed.
	feed, err := ix.Feed(context.WithoutCancel(ctx), indexer.DefaultRunOptions())
	if err != nil {
		return err
	}
	defer feed.Close()
	opts.Index = feed
	if o.log != "" {
		done, err := crawlLog(o.log, &opts, cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer done()
	}
	if done := crawlProgress(cmd.ErrOrStderr(), &opts); done != nil {
		defer done()
	}
	var rec *warcout.Recorder
	if o.warc != "" {
		wo := warcout.DefaultOptions()
		wo.MaxSize = int64(o.warcMaxSize)
		if rec, err = warcout.Open(o.warc, wo); err != nil {
			return err
		}
		defer rec.Close()
		for _, f := range rec.Stats().Finished {
			fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: left open by an interrupted crawl:", f)
		}
		opts.Recorder = rec
	}
	c, err := crawler.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	sum, runErr := c.Run(ctx)
	fetched = sum.Fetched - sum.Errors
	out := cmd.OutOrStdout()
	fmt.Fprintf(out,
		"fetched %d, relevant %d, duplicates %d, errors %d, disallowed %d, indexed %d; harvest rate %.3f; %.1f pages/s; %d links left\n",
		sum.Fetched, sum.Relevant, sum.Duplicates, sum.Errors, sum.Disallowed, sum.Indexed,
		sum.HarvestRate(), sum.PagesPerSecond(), sum.Frontier)
	if err := cfg.SaveWeights(c.LinkScorer()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		runErr = fmt.Errorf("%w after %d pages fetched; the same command again goes on from there", context.Cause(ctx), sum.Fetched)
	}
	var recErr error
	if rec != nil {
		recErr = rec.Close()
		printWARC(out, rec.Stats())
	}
	_, feedErr := feed.Close()
	return errors.Join(runErr, recErr, c.Close(), feedErr, ix.Close())
}

// printWARC says where this run's exchanges went.
func printWARC(w io.Writer, st warcout.Stats) {
	files := strings.Join(st.Files, " ")
	if len(st.Files) > 4 {
		files = st.Files[0] + " ... " + st.Files[len(st.Files)-1]
	}
	if len(st.Files) == 0 {
		files = "no file"
	}
	unit := "files"
	if len(st.Files) == 1 {
		unit = "file"
	}
	fmt.Fprintf(w, "warc: %d exchanges (%d truncated), %d %s, %d bytes: %s\n",
		st.Exchanges, st.Truncated, len(st.Files), unit, st.Bytes, files)
}

// crawlLog appends one JSON line per fetched page to the file name; done
// reports a write error that happened on the way.
func crawlLog(name string, opts *crawler.Options, errw io.Writer) (done func(), err error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	enc := jsonLines(f)
	var logErr error
	opts.OnPage = chainOnPage(opts.OnPage, func(r crawler.Record) {
		if logErr == nil {
			logErr = enc.Encode(r)
		}
	})
	return func() {
		if err := f.Close(); logErr == nil {
			logErr = err
		}
		if logErr != nil {
			fmt.Fprintln(errw, "bleve-dedup: writing log:", logErr)
		}
	}, nil
}

func chainOnPage(a, b func(crawler.Record)) func(crawler.Record) {
	if a == nil {
		return b
	}
	return func(r crawler.Record) { a(r); b(r) }
}

// crawlProgress shows a progress bar when errw is a terminal and returns
// the function that ends it, or nil.
func crawlProgress(errw io.Writer, o *crawler.Options) func() {
	total := int64(o.MaxPages) // this run's pages are shown against the whole budget
	if total == 0 {
		total = -1
	}
	bar := progressBar(errw, total, "crawling", "pages")
	if bar == nil {
		return nil
	}
	relevant, dups, errs := 0, 0, 0
	o.OnPage = chainOnPage(o.OnPage, func(r crawler.Record) {
		if r.Relevant {
			relevant++
		}
		if r.DuplicateOf != "" {
			dups++
		}
		if r.Err != nil {
			errs++
		}
		bar.Describe(fmt.Sprintf("crawling (this run: %d relevant, %d duplicates, %d errors)", relevant, dups, errs))
		bar.Add(1)
	})
	return func() { bar.Finish() }
}
