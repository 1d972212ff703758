package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// dedupFlags are the dedup settings shared by index, eval and compare.
type dedupFlags struct {
	policy, keep, measure, delimiters string
	maxBytes                          int64
	workers                           int
	noDedup                           bool
}

func (f *dedupFlags) register(cmd *cobra.Command, withPolicy bool) {
	def := indexer.DefaultOptions()
	fl := cmd.Flags()
	if withPolicy {
		fl.StringVar(&f.policy, "policy", def.Filter.Policy.String(), "what happens to a duplicate: suppress (not indexed), mark (indexed with its cluster id) or replace (keep the better copy)")
		fl.StringVar(&f.keep, "keep", def.Filter.Keep.String(), "with --policy replace, the copy kept: newer or longer")
		fl.IntVar(&f.workers, "workers", 0, "pages extracted and analysed in parallel (0: one per CPU)")
		fl.Int64Var(&f.maxBytes, "max-bytes", page.DefaultMaxBytes, "skip pages larger than this many bytes")
		fl.BoolVar(&f.noDedup, "no-dedup", false, "index every page into bleve without the filter (to measure its cost)")
	}
	fl.StringVar(&f.measure, "measure", def.Filter.Measure.String(), "measure that decides: combined, featurestring, boolean, conrad, pugh, blocks, minhash or jaccard")
	fl.StringVar(&f.delimiters, "delimiters", def.Analyzer.Delimiters, "feature-string delimiter characters (seed 000)")
}

func (f *dedupFlags) options() (indexer.Options, error) {
	o := indexer.DefaultOptions()
	var err error
	if f.policy != "" {
		if o.Filter.Policy, err = dedupfilter.ParsePolicy(f.policy); err != nil {
			return o, fmt.Errorf("--policy: %w", err)
		}
	}
	if f.keep != "" {
		if o.Filter.Keep, err = dedupfilter.ParseKeep(f.keep); err != nil {
			return o, fmt.Errorf("--keep: %w", err)
		}
	}
	if o.Filter.Measure, err = dedupfilter.ParseMeasure(f.measure); err != nil {
		return o, fmt.Errorf("--measure: %w", err)
	}
	o.Analyzer.Delimiters = f.delimiters
	o.NoDedup = f.noDedup
	return o, nil
}

func (f *dedupFlags) pageOptions() page.Options {
	o := page.DefaultOptions()
	if f.maxBytes != 0 {
		o.MaxBytes = f.maxBytes
	}
	return o
}
