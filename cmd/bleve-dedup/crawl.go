package main

import (
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
	config, dir, log string
	warc             string
	warcMaxSize      int64
}

func (o *crawlCmd) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.config, "config", "", "crawl config file, YAML (required)")
	fs.StringVar(&o.dir, "index", "", "index directory; the crawl state is kept in DIR/crawl (required)")
	fs.StringVar(&o.log, "log", "", "append one JSON line per fetched page to this file")
	fs.StringVar(&o.warc, "warc", "", "archive every HTTP exchange (request and response records) in this WARC file, NAME.warc.gz or NAME.warc; later files NAME-00001.warc.gz, ...")
	fs.Int64Var(&o.warcMaxSize, "warc-max-size", warcout.DefaultMaxSize, "with --warc, start the next file once one has grown past this many bytes (0: one file)")
}

func newCrawlCmd() *cobra.Command {
	var o crawlCmd
	cmd := &cobra.Command{
		Use:   "crawl --config crawl.yaml --index DIR [--log FILE] [--warc NAME.warc.gz [--warc-max-size BYTES]]",
		Short: "Crawl the web for a topic and index the relevant pages",
		Long: `crawl fetches pages from the config's seeds, best-first by predicted link
value (the link-value paper) or breadth-first, scores each page against the
topic (the topic-crawler paper) and indexes the relevant ones into DIR through the near-duplicate
filter, with their relevance in the numeric field "relevance". The crawl
state (frontier, seen URLs, learnt link weights) lives in DIR/crawl: after
SIGINT, the same command continues where it stopped. --log appends one
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd) },
	}
	o.AddFlags(cmd.Flags())
	cmd.MarkFlagRequired("config")
	cmd.MarkFlagRequired("index")
	return cmd
}

func (o *crawlCmd) run(cmd *cobra.Command) error {
	cfg, err := crawler.ReadConfig(o.config)
	if err != nil {
		return err
	}
	opts, err := cfg.Options(filepath.Join(o.dir, "crawl"))
	if err != nil {
		return fmt.Errorf("%s: %w", o.config, err)
	}
	iopts, err := savedOptions(o.dir)
	if err != nil {
		return err
	}
	ix, err := indexer.Open(o.dir, iopts)
	if err != nil {
		return err
	}
	defer ix.Close()
	// Relevant pages go through the index's batch pipeline; the feed ends
	// (its last batch committed) before the index closes.
	feed, err := ix.Feed(cmd.Context(), indexer.DefaultRunOptions())
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
		wo.MaxSize = o.warcMaxSize
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
	ctx, stop := stopOnSignal(cmd.Context())
	defer stop()
	sum, runErr := c.Run(ctx)
	out := cmd.OutOrStdout()
	fmt.Fprintf(out,
		"fetched %d, relevant %d, duplicates %d, errors %d, disallowed %d, indexed %d; harvest rate %.3f; %.1f pages/s; %d links left\n",
		sum.Fetched, sum.Relevant, sum.Duplicates, sum.Errors, sum.Disallowed, sum.Indexed,
		sum.HarvestRate(), sum.PagesPerSecond(), sum.Frontier)
	if err := cfg.SaveWeights(c.LinkScorer()); err != nil {
		return err
	}
	if errors.Is(runErr, ctx.Err()) && ctx.Err() != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "stopped; run the same command again to continue")
		runErr = nil
	}
	var recErr error
	if rec != nil {
		recErr = rec.Close()
		printWARC(out, rec.Stats())
	}
	return errors.Join(runErr, recErr, c.Close(), ix.Close())
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
