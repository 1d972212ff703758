// Command bench-scale measures how indexing through the dedup filter
// scales with the size of the index: it generates a synthetic crawl of N
// pages (package synth), indexes it in one process per mode — through
// the filter (mark policy), with plain bleve and the same mapping, and with
// plain bleve and its default mapping; or others: -modes — and records at every tenth of N the
// rate, memory and bytes on disk; then it scores the filter's clusters
// against the corpus labels, measures the content the filter left out of
// the search index (as bleve-dedup eval does) and times collapsed against
// plain search on the index it built.
//
//	go run ./tools/bench-scale -n 20000          # or scripts/bench-scale.sh 20000
//
// It writes OUT/NAME.csv (one row per tenth per mode and repetition),
// NAME.svg (the curves), NAME.json (everything) and NAME.md (the summary),
// and prints the summary (-format json for programs).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if path := os.Getenv(childEnv); path != "" {
		if err := childMain(ctx, path, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := mainArgs(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// mainArgs parses the command line and runs the benchmark.
func mainArgs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := flag.NewFlagSet("bench-scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: bench-scale [flags] [N]\n\nIndexes N synthetic pages through the dedup filter and with plain bleve, one child\nprocess per mode, and reports rate, memory and disk at every tenth of N.\n\n")
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.Pages, "n", cfg.Pages, "pages to generate and index (also the first argument)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "corpus seed")
	fs.Float64Var(&cfg.DupShare, "dup-share", cfg.DupShare, "share of near-duplicate copies in the corpus")
	fs.Float64Var(&cfg.ChainShare, "chain-share", cfg.ChainShare, "share of copies of a recent article that reprint one of its copies (chains of copies of copies)")
	fs.Float64Var(&cfg.Skew, "skew", cfg.Skew, "popularity skew of the articles copied: with 1 or more, clusters grow to tens of copies")
	fs.Float64Var(&cfg.QuoteShare, "quote-share", cfg.QuoteShare, "share of articles that quote a sentence or a paragraph of another, some blocks recurring in many articles (distinct articles sharing text)")
	fs.Float64Var(&cfg.WholeShare, "whole-share", cfg.WholeShare, "share of articles that quote a whole short earlier article inside text of their own")
	fs.IntVar(&cfg.Batch, "batch", cfg.Batch, "documents per batch")
	fs.IntVar(&cfg.BatchBytes, "batch-bytes", cfg.BatchBytes, "also end a batch once its text reaches this many bytes, in every mode (0: -batch documents only)")
	fs.StringVar(&cfg.Policy, "policy", cfg.Policy, "dedup policy: suppress, mark or replace")
	modes := fs.String("modes", strings.Join(cfg.Modes, ","), "modes to run, comma-separated: dedup (the filter), suppress (the filter, policy suppress), nodedup (the indexer without the filter), plain (bleve, same mapping), default (bleve, default mapping), wrap (indexer.Wrap over bleve's default mapping), wrapnodedup (the same without the filter)")
	fs.IntVar(&cfg.Reps, "reps", cfg.Reps, "repetitions of every mode (the order of modes alternates)")
	fs.IntVar(&cfg.Queries, "queries", cfg.Queries, "queries of the search benchmark (0 skips it)")
	fs.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "timed passes over the queries")
	fs.Int64Var(&cfg.MemoryLimitMiB, "memory-limit", cfg.MemoryLimitMiB, "every mode's Go soft memory limit, MiB, as bleve-dedup sets by default (0: none)")
	fs.StringVar(&cfg.BleveConfig, "bleve-config", cfg.BleveConfig, `scorch configuration of every mode, JSON (e.g. {"scorchPersisterOptions":{"PersisterNapTimeMSec":2000}}); empty: the indexer's default`)
	fs.StringVar(&cfg.Work, "work", cfg.Work, "work directory for the corpus and the indexes (default: a temporary one, removed); a corpus found there is reused")
	fs.BoolVar(&cfg.Keep, "keep", cfg.Keep, "keep the indexes and the work directory")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "directory for NAME.csv, .svg, .json and .md (empty: write none)")
	fs.StringVar(&cfg.Name, "name", cfg.Name, "file name stem of the outputs (default scale-N)")
	fs.StringVar(&cfg.Format, "format", cfg.Format, "summary on stdout: text or json")
	fs.StringVar(&cfg.Data, "data", cfg.Data, "shared data directory (default: the shared/data found walking up from here)")
	fs.StringVar(&cfg.Commit, "commit", cfg.Commit, "commit measured (default: from the build, else git; with -replot, replaces the saved one)")
	fs.StringVar(&cfg.Profile, "profile", cfg.Profile, "directory for profiles: CPU of each tenth of each mode's indexing and heap at its end (cpu-MODE-REP-tNN.pprof, heap-MODE-REP-tNN.pprof), CPU of the timed searches (cpu-search-MODE-REP.pprof)")
	fs.StringVar(&cfg.Replot, "replot", cfg.Replot, "write the outputs and the summary again from a saved NAME.json, with this version's summary and plot, instead of running")
	fs.BoolVar(&cfg.CorpusOnly, "corpus-only", cfg.CorpusOnly, "write the corpus (pages.jsonl, labels.jsonl) under -work and stop: input for other benchmarks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
	case 1:
		n, err := strconv.Atoi(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("bench-scale: N: %w", err)
		}
		cfg.Pages = n
	default:
		return fmt.Errorf("bench-scale: want at most one argument (N), got %q", fs.Args())
	}
	cfg.Modes = strings.Split(*modes, ",")
	return run(ctx, cfg, stdout, stderr)
}
