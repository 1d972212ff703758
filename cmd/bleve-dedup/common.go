package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/remote"
	"github.com/bleve-dedup/bleve-dedup/remote/shard"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// Helpers shared by the commands. Every flag that more than one command
// takes is defined here, once.

// formatFlag is --format: table, for people (the default), or jsonl, one
// JSON object a line, for programs. Every command that prints data takes
// both and nothing else.
type formatFlag struct{ jsonl bool }

func (f *formatFlag) String() string {
	if f.jsonl {
		return "jsonl"
	}
	return "table"
}

func (f *formatFlag) Type() string { return "table|jsonl" }

func (f *formatFlag) Set(s string) error {
	switch s {
	case "table", "jsonl":
		f.jsonl = s == "jsonl"
		return nil
	}
	return errors.New("want table or jsonl")
}

// AddFlags adds --format; jsonl says what a line holds.
func (f *formatFlag) AddFlags(fs *pflag.FlagSet, jsonl string) {
	fs.Var(f, "format", "output: table (readable) or jsonl ("+jsonl+")")
}

// filterFlags are the settings of the duplicate decision (index, eval,
// compare, serve, recluster).
type filterFlags struct {
	measure, delimiters string
	fs                  *pflag.FlagSet // where they were added: which were given
}

func (f *filterFlags) AddFlags(fs *pflag.FlagSet) {
	f.fs = fs
	def := filled(indexer.Options{})
	fs.StringVar(&f.measure, "measure", def.Filter.Measure.String(), "measure that decides: combined, featurestring, boolean, conrad, pugh, blocks, minhash, jaccard, charfreq, tagedit, sameurl or containment; for an existing index, its own")
	fs.StringVar(&f.delimiters, "delimiters", def.Analyzer.Delimiters, "feature-string delimiter characters (the feature-string paper's sentence ends); for an existing index, its own")
}

// apply sets the options of the flags given on the command line (an
// index's own settings stand for the others, see indexOptions).
func (f *filterFlags) apply(o *indexer.Options) error {
	var err error
	if given(f.fs, "measure") {
		if o.Filter.Measure, err = similarity.ParseMeasure(f.measure); err != nil {
			return fmt.Errorf("--measure: %w", err)
		}
	}
	if given(f.fs, "delimiters") {
		o.Analyzer.Delimiters = f.delimiters
	}
	return nil
}

// given reports whether the flag name was set on the command line (a nil
// flag set: every flag counts as given).
func given(fs *pflag.FlagSet, name string) bool { return fs == nil || fs.Changed(name) }

// methodFlags are the settings of the source documents' further methods
// (eval, compare, recluster): which measures vote, the candidate sources
// and gate, the boolean model's stop words, the new measures' thresholds.
type methodFlags struct {
	voters, sources                string
	votes, gate, radius, minShared int
	stopShare                      float64
	charFreqMin, tagEditMin        float64
	containmentMin, coverMin       float64
	heldMin, numbersMin            float64
	fsMin, minHashMin, blocksMin   float64
	fsHeldMin, wholeHeldMin        float64
	fs                             *pflag.FlagSet // where they were added: which were given
}

func (f *methodFlags) AddFlags(fs *pflag.FlagSet) {
	f.fs = fs
	def := dedupfilter.DefaultOptions()
	fs.StringVar(&f.voters, "voters", joinNames(def.Voters), "measures that vote under --measure combined, comma-separated")
	fs.IntVar(&f.votes, "votes", def.Votes, "how many of the voters must agree under --measure combined")
	fs.StringVar(&f.sources, "sources", joinNames(def.Sources), "posting lists candidates come from, comma-separated: bands, structure, blocks, terms, pieces")
	fs.IntVar(&f.gate, "structure-gate", def.StructureGate, "verify only candidates whose structure cell (gn, cn, kl) is within this distance in every coordinate (-1: off)")
	fs.IntVar(&f.radius, "structure-radius", def.StructureRadius, "look candidates up in the structure cells within this distance (-1: none)")
	fs.IntVar(&f.minShared, "min-shared", def.MinShared, "posting lists a stored document must share with a new one to be a candidate")
	fs.Float64Var(&f.stopShare, "stop-share", def.BooleanStopShare, "leave terms found in more than this share of the documents out of the boolean-model measures (0: off)")
	fs.Float64Var(&f.charFreqMin, "charfreq-min", def.CharFreqMin, "cosine at or above which charfreq says duplicate")
	fs.Float64Var(&f.tagEditMin, "tagedit-min", def.TagEditMin, "tag-sequence similarity at or above which tagedit says duplicate")
	fs.Float64Var(&f.containmentMin, "containment-min", def.ContainmentMin, "share of the smaller page's distinct terms in the other at or above which containment says duplicate")
	fs.Float64Var(&f.coverMin, "cover-min", def.CoverMin, "share of a page's distinct terms the page kept for it must hold for it to leave the search index")
	fs.Float64Var(&f.heldMin, "held-min", def.HeldMin, "share of each page's distinct terms the other must hold for a pair to be duplicates under --measure combined")
	fs.Float64Var(&f.numbersMin, "numbers-min", def.NumbersMin, "share of its numbers the page with fewer must share with the other when neither minhash nor blocks call the pair duplicates, under --measure combined (0: off)")
	fs.Float64Var(&f.fsHeldMin, "featurestring-held-min", def.FeatureStringHeldMin, "share of each page's distinct terms the other must hold when neither minhash nor blocks call the pair duplicates, under --measure combined")
	fs.Float64Var(&f.wholeHeldMin, "whole-held-min", def.WholeHeldMin, "share of a page's whole text's distinct terms the other must hold for the page to be its duplicate, under --measure combined (0: off)")
	fs.Float64Var(&f.fsMin, "featurestring-min", def.FeatureStringMin, "feature-string similarity at or above which featurestring says duplicate")
	fs.Float64Var(&f.minHashMin, "minhash-min", def.MinHashMin, "estimated Jaccard of shingles at or above which minhash says duplicate")
	fs.Float64Var(&f.blocksMin, "blocks-min", def.BlocksMin, "share of block fingerprints in common at or above which blocks says duplicate")
}

// apply sets the options of the flags given on the command line.
func (f *methodFlags) apply(o *dedupfilter.Options) error {
	var err error
	if given(f.fs, "voters") {
		if o.Voters, err = similarity.ParseMeasures(f.voters); err != nil {
			return fmt.Errorf("--voters: %w", err)
		}
	}
	if given(f.fs, "sources") {
		if o.Sources, err = dedupfilter.ParseSources(f.sources); err != nil {
			return fmt.Errorf("--sources: %w", err)
		}
	}
	for name, set := range map[string]func(){
		"structure-gate":         func() { o.StructureGate = f.gate },
		"structure-radius":       func() { o.StructureRadius = f.radius },
		"min-shared":             func() { o.MinShared = f.minShared },
		"stop-share":             func() { o.BooleanStopShare = f.stopShare },
		"charfreq-min":           func() { o.CharFreqMin = f.charFreqMin },
		"tagedit-min":            func() { o.TagEditMin = f.tagEditMin },
		"containment-min":        func() { o.ContainmentMin = f.containmentMin },
		"cover-min":              func() { o.CoverMin = f.coverMin },
		"held-min":               func() { o.HeldMin = f.heldMin },
		"numbers-min":            func() { o.NumbersMin = f.numbersMin },
		"featurestring-held-min": func() { o.FeatureStringHeldMin = f.fsHeldMin },
		"whole-held-min":         func() { o.WholeHeldMin = f.wholeHeldMin },
		"featurestring-min":      func() { o.FeatureStringMin = f.fsMin },
		"minhash-min":            func() { o.MinHashMin = f.minHashMin },
		"blocks-min":             func() { o.BlocksMin = f.blocksMin },
		"votes":                  func() { o.Votes = f.votes },
	} {
		if given(f.fs, name) {
			set()
		}
	}
	return nil
}

func joinNames[T fmt.Stringer](xs []T) string {
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = x.String()
	}
	return strings.Join(names, ",")
}

// policyFlags are what happens to a duplicate (index, eval, serve,
// recluster).
type policyFlags struct {
	policy, keep string
	fs           *pflag.FlagSet // where they were added: which were given
}

func (f *policyFlags) AddFlags(fs *pflag.FlagSet) {
	def := filled(indexer.Options{})
	f.fs = fs
	fs.StringVar(&f.policy, "policy", def.Policy.String(), "what happens to a duplicate: suppress (not indexed), mark (indexed with its cluster id) or replace (keep the better copy); for an existing index, its own")
	fs.StringVar(&f.keep, "keep", def.Filter.Keep.String(), "with --policy replace, the copy kept: newer or longer; for an existing index, its own")
}

// apply sets the options of the flags given on the command line.
func (f *policyFlags) apply(o *indexer.Options) error {
	var err error
	if given(f.fs, "policy") {
		if o.Policy, err = dedupfilter.ParsePolicy(f.policy); err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
	}
	if given(f.fs, "keep") {
		if o.Filter.Keep, err = dedupfilter.ParseKeep(f.keep); err != nil {
			return fmt.Errorf("--keep: %w", err)
		}
	}
	return nil
}

// pageFlags say how pages are read (index, eval, serve --ingest, extract).
type pageFlags struct{ maxBytes byteSize }

func (f *pageFlags) AddFlags(fs *pflag.FlagSet) {
	f.maxBytes = page.DefaultMaxBytes
	fs.Var(&f.maxBytes, "max-bytes", "a page larger than this is an error, not read (0: no limit); a page's memory is bounded by a small multiple of it")
}

func (f *pageFlags) options() page.Options {
	o := page.DefaultOptions()
	o.MaxBytes = int64(f.maxBytes)
	return o
}

// ingestFlags say how pages are read and indexed (index, eval, serve
// --ingest).
type ingestFlags struct {
	policyFlags
	pageFlags
	workers     int
	batch       int
	batchBytes  byteSize
	maxText     byteSize
	pageTimeout time.Duration
	noDedup     bool
	reconfigure bool
	run         indexer.RunOptions // the defaults AddFlags was given
	fs          *pflag.FlagSet     // where they were added: which were given
}

// AddFlags adds the flags with the defaults of run, a bulk run's or a
// server's; why says why this command's batches are the size they are.
func (f *ingestFlags) AddFlags(fs *pflag.FlagSet, run indexer.RunOptions, why string) {
	f.run, f.fs = run, fs
	f.policyFlags.AddFlags(fs)
	f.pageFlags.AddFlags(fs)
	f.batchBytes, f.maxText = byteSize(run.BatchBytes), byteSize(indexer.DefaultMaxTextBytes)
	fs.IntVar(&f.workers, "workers", run.Workers, "pages extracted in parallel (by default as many as the CPUs this process may use)")
	fs.IntVar(&f.batch, "batch", run.BatchSize, "documents per bleve batch: larger batches index faster, hold more memory, make pages searchable later and a stop wait longer; "+why)
	fs.Var(&f.batchBytes, "batch-bytes", "end a batch early at this much text, bounding its memory and the wait of a stop (0: no bound); "+why)
	fs.Var(&f.maxText, "max-text", "index at most this much of a page's main text (0: no limit)")
	fs.DurationVar(&f.pageTimeout, "page-timeout", run.PageTimeout, "a page whose extraction takes longer is an error, not indexed (0: no limit)")
	fs.BoolVar(&f.noDedup, "no-dedup", false, "index every page into bleve without the filter (to measure its cost)")
	fs.BoolVar(&f.reconfigure, "reconfigure", false, "let --policy, --keep and --measure differ from what the index was made with: they apply to the pages indexed from now on (an index always keeps its --store and its analysis)")
}

// apply sets the options of the flags given on the command line.
func (f *ingestFlags) apply(o *indexer.Options) error {
	if err := f.policyFlags.apply(o); err != nil {
		return err
	}
	if given(f.fs, "no-dedup") {
		o.NoDedup = f.noDedup
	}
	o.MaxTextBytes = int(f.maxText)
	if f.maxText == 0 {
		o.MaxTextBytes = -1 // no limit
	}
	o.Reconfigure = f.reconfigure
	return nil
}

func (f *ingestFlags) runOptions() indexer.RunOptions {
	o := f.run
	o.Workers, o.BatchSize, o.BatchBytes, o.PageTimeout = f.workers, f.batch, int(f.batchBytes), f.pageTimeout
	// The flags' 0 is no bound; RunOptions' is the default.
	if o.BatchBytes == 0 {
		o.BatchBytes = -1
	}
	if o.PageTimeout == 0 {
		o.PageTimeout = -1
	}
	return o
}

// The batch defaults, and why: a bulk run's, a server's.
const (
	bulkBatches   = "1000 and 1MiB for index and eval, a bulk run's fastest (serve --ingest takes 250 and 256KiB, for pages searchable within a second)"
	serverBatches = "250 and 256KiB for serve --ingest, so that a page is searchable within a second even on a busy machine (index takes 1000 and 1MiB, a bulk run's fastest)"
)

// indexOptions returns the options to open the index in dir with: the
// settings it was made with (the defaults for a new index), and over them
// the flags given on the command line, which Open checks against the
// index's (an index keeps its store and analysis).
func indexOptions(dir string, ix *indexFlags, ff *filterFlags, inf *ingestFlags) (indexer.Options, error) {
	o, err := savedOptions(dir)
	if err != nil {
		return o, err
	}
	ix.applyStore(&o)
	if err := ff.apply(&o); err != nil {
		return o, err
	}
	return o, inf.apply(&o)
}

// savedOptions are indexer.SavedOptions, the defaults for no directory,
// filled for flags to change, with a permission error told as such.
func savedOptions(dir string) (indexer.Options, error) {
	if dir == "" {
		return filled(indexer.Options{}), nil
	}
	o, err := indexer.SavedOptions(dir)
	return filled(o), accessError(dir, err, "read")
}

// filled returns o with its Filter and Analyzer set (the defaults where
// nil), for flags to change.
func filled(o indexer.Options) indexer.Options {
	if o.Filter == nil {
		f := dedupfilter.DefaultOptions()
		o.Filter = &f
	}
	if o.Analyzer == nil {
		a := analyzer.DefaultOptions()
		o.Analyzer = &a
	}
	return o
}

// runIndex indexes the inputs into ix, naming the pages that had an
// error on errw and showing its progress there (see indexProgress).
func runIndex(ctx context.Context, ix *indexer.Index, in *inputSet, f *ingestFlags, errw io.Writer) (indexer.Stats, error) {
	prog := newIndexProgress(errw, in)
	defer prog.finish()
	errs := errorLog{w: errw, tty: prog.tty}
	ro := f.runOptions()
	ro.OnError = errs.add
	ro.Progress = prog.update
	return ix.IndexPages(ctx, in.pages(f.options()), ro)
}

// errorLog names on w the pages a run could not index, and counts them:
// the run goes on without them (they are its "errors").
type errorLog struct {
	w   io.Writer
	tty bool // w is a terminal, with a progress line to clear first
	n   int
}

func (l *errorLog) add(err error) {
	l.n++
	if l.tty {
		fmt.Fprint(l.w, clearLine)
	}
	fmt.Fprintln(l.w, "bleve-dedup: error:", err)
}

// clearLine takes a terminal's cursor to the start of its line and
// clears the line.
const clearLine = "\r\x1b[K"

// logEvery is how often a run logs its progress when stderr is not a
// terminal (a variable, for tests to see a line at once).
var logEvery = 30 * time.Second

// indexProgress shows an indexing run's progress on w: on a terminal,
// one line redrawn in place; otherwise (a log file) the same line every
// logEvery. One line, whatever w is, so that what a log says is what a
// terminal shows.
type indexProgress struct {
	w     io.Writer
	in    *inputSet
	tty   bool
	width int // the terminal's columns; 0 unknown
	next  time.Time
}

func newIndexProgress(w io.Writer, in *inputSet) *indexProgress {
	p := &indexProgress{w: w, in: in, next: time.Now().Add(logEvery)}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty, p.next = true, time.Time{}
		p.width, _, _ = term.GetSize(int(f.Fd()))
	}
	return p
}

// update shows s, when it is time to.
func (p *indexProgress) update(s indexer.Stats) {
	p.show(func() string { return "indexing: " + progressLine(s, p.in.done.Load(), p.in.total) })
}

// sent shows the pages sent to a server so far (index --server: what
// became of them is known when the server answers), when it is time to.
func (p *indexProgress) sent(n int, elapsed time.Duration) {
	p.show(func() string {
		s := indexer.Stats{Read: n, Elapsed: elapsed}
		return fmt.Sprintf("sending: %s; pages sent %d; %.0f docs/s", bytesLine(s, p.in.done.Load(), p.in.total), n, s.DocsPerSecond())
	})
}

// show prints the line line makes, when it is time to (line is called
// only then: it reads the process' memory).
func (p *indexProgress) show(line func() string) {
	now := time.Now()
	if now.Before(p.next) {
		return
	}
	if !p.tty {
		p.next = now.Add(logEvery)
		fmt.Fprintln(p.w, "bleve-dedup: "+line())
		return
	}
	// A line longer than the terminal would wrap, and the next one be
	// drawn below it instead of over it.
	p.next = now.Add(200 * time.Millisecond)
	l := line()
	if p.width > 1 && len(l) >= p.width {
		l = l[:p.width-1]
	}
	fmt.Fprint(p.w, clearLine+l)
}

// finish clears a terminal's progress line for the summary.
func (p *indexProgress) finish() {
	if p.tty {
		fmt.Fprint(p.w, clearLine)
	}
}

// progressLine is the running state of an indexing run: the bytes of
// its inputs read (compressed bytes for .gz) of their total, the time
// left at the rate so far, what happened to the pages read, the one
// rate, and the process' memory (resident anonymous memory is what the
// run holds; the Go heap is part of it).
func progressLine(s indexer.Stats, done, total int64) string {
	m := procmem.Read()
	return fmt.Sprintf("%s; pages read %d: indexed %d, duplicates %d, unchanged %d, errors %d, skipped %d; %.0f docs/s; RssAnon %d MiB, heap %d MiB",
		bytesLine(s, done, total), s.Read, s.Indexed, s.Duplicates, s.Unchanged, s.Errors, s.NotHTML+s.BadStatus, s.DocsPerSecond(), m.RSSAnon>>20, m.HeapLive>>20)
}

// bytesLine is the inputs' bytes read of their total, with the time left
// at the rate so far.
func bytesLine(s indexer.Stats, done, total int64) string {
	var b strings.Builder
	if total > 0 {
		done = min(done, total) // (a file that grew while read)
		fmt.Fprintf(&b, "%s of %s (%d%%)", sizeString(done), sizeString(total), done*100/total)
		if done > 0 {
			left := time.Duration(float64(s.Elapsed) * float64(total-done) / float64(done))
			fmt.Fprintf(&b, ", ETA %s", left.Round(time.Second))
		}
	} else {
		fmt.Fprintf(&b, "%s read", sizeString(done))
	}
	return b.String()
}

// progressBar returns a progress bar counting unit on w when w is a
// terminal (total -1: unknown), or nil.
func progressBar(w io.Writer, total int64, desc, unit string) *progressbar.ProgressBar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionClearOnFinish())
}

// indexFlags name the index a command works on: --index DIR (several, for
// the commands that read shards together) and --store, the store shards
// share.
type indexFlags struct {
	dirs  []string
	store string
	fs    *pflag.FlagSet // where --store was added
	// adopted is the record of the adopted indexes open opened (see
	// adoptFile), the zero one for indexes of bleve-dedup's own.
	adopted adoptRecord
	// remotes are shards served on other machines, searched with dirs
	// (readsRemote).
	remotes       []string
	remoteTimeout time.Duration
}

// AddFlags adds --index, described by usage, and --store.
func (f *indexFlags) AddFlags(fs *pflag.FlagSet, usage string) {
	f.addIndex(fs, usage)
	f.addStore(fs)
}

func (f *indexFlags) addIndex(fs *pflag.FlagSet, usage string) {
	fs.StringArrayVar(&f.dirs, "index", nil, usage)
}

func (f *indexFlags) addStore(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.store, "store", "", "`URL` of a store shared by several indexes, each a shard in its own --index: redis://HOST:PORT[,HOST:PORT...][/NAME] (default: an existing index's own; for a new index, the store embedded in DIR)")
}

// readsAdopted adds to --store's usage what it is for a plain bleve index
// adopted with bleve-dedup adopt (dups, search, serve).
func (f *indexFlags) readsAdopted() {
	f.fs.Lookup("store").Usage += "; for a plain bleve index brought under the filter with bleve-dedup adopt, the store's `DIR` when it is not DIR.dedup beside it"
}

// readsRemote adds --remote and --remote-timeout (search, serve).
func (f *indexFlags) readsRemote() {
	f.fs.StringArrayVar(&f.remotes, "remote", nil, "`URL` of a shard served by bleve-dedup serve on another machine, written into the same --store, searched with the --index shards (repeat for more)")
	f.fs.DurationVar(&f.remoteTimeout, "remote-timeout", shard.DefaultTimeout, "longest wait for a --remote shard's answer: past it a search answers without that shard, and says so")
}

// collapseFields are the fields a collapsed search of the indexes open
// opened reads: an adopted index's title and URL are where adopt was told.
func (f *indexFlags) collapseFields() collapse.Fields {
	if f.adopted.Name == "" {
		return collapse.DefaultFields
	}
	return collapse.Fields{Cluster: indexer.FieldCluster, Title: f.adopted.TitleField, URL: f.adopted.URLField}
}

// givenStore is --store when given, else "".
func (f *indexFlags) givenStore() string {
	if f.fs != nil && f.fs.Changed("store") {
		return f.store
	}
	return ""
}

// applyStore sets the store when --store was given.
func (f *indexFlags) applyStore(o *indexer.Options) {
	if f.fs != nil && f.fs.Changed("store") {
		o.Store = f.store
	}
}

// dir returns the one --index, or why there is not one.
func (f *indexFlags) dir() (string, error) {
	switch len(f.dirs) {
	case 0:
		return "", errors.New("--index: name the index directory: --index DIR")
	case 1:
		return f.dirs[0], nil
	}
	return "", fmt.Errorf("--index given %d times (%s): name one index directory", len(f.dirs), strings.Join(f.dirs, ", "))
}

// open opens the indexes to read; they must exist, so that a mistyped
// --index is an error rather than a new empty index. An index this
// process may not write (a read-only file system, a copy it does not own)
// is opened read-only. A plain bleve index adopted with bleve-dedup adopt
// is opened with its store (beside it, or --store DIR) and the fields
// adopt recorded.
func (f *indexFlags) open() (*indexer.Index, error) {
	if len(f.dirs) == 0 {
		return nil, errors.New("--index: name the index directory: --index DIR")
	}
	var own []string // the indexes of bleve-dedup's own
	for _, d := range f.dirs {
		if err := findIndex(d); err != nil {
			return nil, err
		}
		if !isPlainBleve(d) {
			own = append(own, d)
		}
	}
	var o indexer.Options
	if len(own) > 0 {
		var err error
		if o, err = savedOptions(own[0]); err != nil {
			return nil, err
		}
		f.applyStore(&o)
		if len(own) > 1 && o.Store == "" {
			return nil, errors.New("--index: several indexes are shards of one crawl only with the --store they share")
		}
		for _, d := range own {
			o.ReadOnly = o.ReadOnly || !canWrite(d)
		}
	}
	var shards []*indexer.Index
	closeAll := func(err error) error {
		for _, s := range shards {
			err = errors.Join(err, s.Close())
		}
		return err
	}
	for _, d := range f.dirs {
		var ix *indexer.Index
		var err error
		if isPlainBleve(d) {
			ix, f.adopted, err = openAdopted(d, f.givenStore(), nil)
		} else if ix, err = indexer.Open(d, o); err != nil {
			err = accessError(d, err, "read")
		}
		if err != nil {
			return nil, closeAll(err)
		}
		shards = append(shards, ix)
	}
	if len(f.remotes) == 0 {
		ix, err := indexer.Alias(shards...)
		if err != nil {
			err = closeAll(err)
		}
		return ix, err
	}
	others := make([]bleve.Index, len(f.remotes))
	for i, u := range f.remotes {
		var err error
		if others[i], err = shard.New(u, shard.Options{Timeout: f.remoteTimeout}); err != nil {
			return nil, closeAll(fmt.Errorf("--remote: %w", err))
		}
	}
	ix, err := indexer.AliasWith(shards, others...)
	if err != nil {
		err = closeAll(fmt.Errorf("--remote: %w", err))
	}
	return ix, err
}

// findIndex returns nil when dir holds an index, of bleve-dedup's own or
// a plain bleve one (adopted or not: openAdopted says), else why not:
// there is none, or there may be one this user may not read (which path
// says so).
func findIndex(dir string) error {
	if indexer.Exists(dir) || isPlainBleve(dir) {
		return nil
	}
	// Exists sees no index where it may not look: an index made by another
	// user has directories only their owner may enter.
	if err := closedPath(dir); err != nil {
		return accessError(dir, err, "read")
	}
	// The store beside an adopted index, given for the index.
	if r, ok, err := readAdoptRecord(dir); err == nil && ok {
		return fmt.Errorf("--index %s: the bleve-dedup store of the adopted bleve index %s, not an index: give --index %s (and --store %s unless it is the store beside it)", dir, r.Index, r.Index, dir)
	}
	return fmt.Errorf("--index %s: no index there (create one with bleve-dedup index)", dir)
}

// closedPath returns the permission error of reading dir or a directory
// in it, or nil.
func closedPath(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrPermission) {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err == nil {
			_, err = f.Readdirnames(1)
			f.Close()
		}
		if errors.Is(err, fs.ErrPermission) {
			return err
		}
	}
	return nil
}

// accessError tells a permission error as such: who may not do what to
// the index in dir, and the path the system refused. Other errors pass as
// they are. Some stores do not say a refused write is one: for a failed
// write, a directory of the index this user may not write is named.
func accessError(dir string, err error, verb string) error {
	var refused error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrPermission):
		refused = err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			refused = pe
		}
	case verb == "write":
		if p := unwritable(dir); p != "" {
			refused = &fs.PathError{Op: "create a file in", Path: p, Err: fs.ErrPermission}
		}
	}
	if refused == nil {
		return err
	}
	who := "this user"
	if u, uerr := user.Current(); uerr == nil {
		who = "user " + u.Username
	}
	return fmt.Errorf("--index %s: %s may not %s it: %w", dir, who, verb, refused)
}

// unwritable returns dir, or a directory in it, where this process may not
// create a file; "" when there is none (or no dir).
func unwritable(dir string) string {
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	if !canWrite(dir) {
		return dir
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if p := filepath.Join(dir, e.Name()); e.IsDir() && !canWrite(p) {
			return p
		}
	}
	return ""
}

// serverFlag is --server, the URL of a running serve that a command
// goes through instead of opening the index (which that process holds).
type serverFlag struct{ url string }

func (f *serverFlag) AddFlags(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&f.url, "server", "", usage)
}

// client returns a client of the server, with the token in
// BLEVE_DEDUP_TOKEN (or the file BLEVE_DEDUP_TOKEN_FILE names).
func (f *serverFlag) client() (*remote.Client, error) {
	c, err := remote.New(f.url)
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	if c.Token, err = loadToken(os.Getenv("BLEVE_DEDUP_TOKEN_FILE")); err != nil {
		return nil, err
	}
	return c, nil
}

// canWrite reports whether this process can create files in dir.
func canWrite(dir string) bool {
	f, err := os.CreateTemp(dir, ".write-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// openIndex opens the index in dir to write, creating it when absent.
// When the open fails, what it created (directories, a store) is removed
// again; discard, not nil for a new index, closes it and removes it (for
// a command that put nothing in it).
func openIndex(dir string, o indexer.Options) (ix *indexer.Index, discard func() error, err error) {
	existed := indexer.Exists(dir)
	undo := undoCreate(dir)
	if ix, err = indexer.Open(dir, o); err != nil {
		// Another process holding the index may be making it: nothing
		// here is ours to remove.
		if !existed && !errors.Is(err, indexer.ErrLocked) {
			err = errors.Join(err, undo())
		}
		return nil, nil, accessError(dir, settingsError(dir, o, err), "write")
	}
	if existed {
		return ix, nil, nil
	}
	return ix, func() error { return errors.Join(ix.Close(), undo()) }, nil
}

// settingsError tells the refusal of flags that differ from the index's
// settings (indexer.ErrSettings) in this command's terms when only
// --policy, --keep or --measure differ, which --reconfigure lets change:
// the flags, and that flag. Any other refusal passes as the library
// words it (a store or analysis never changes).
func settingsError(dir string, o indexer.Options, err error) error {
	if !errors.Is(err, indexer.ErrSettings) || o.Reconfigure || o.Filter == nil || o.Analyzer == nil {
		return err
	}
	had, serr := indexer.SavedOptions(dir)
	if serr != nil || had.Filter == nil || had.Analyzer == nil {
		return err
	}
	if had.Store != o.Store || !reflect.DeepEqual(*had.Analyzer, *o.Analyzer) || had.KeepSiteText != o.KeepSiteText || had.NoDedup != o.NoDedup {
		return err
	}
	hf, of := *had.Filter, *o.Filter
	var flags, was, now []string
	differ := func(flag string, a, b fmt.Stringer) {
		if a.String() != b.String() {
			flags = append(flags, flag)
			was = append(was, flag+" "+a.String())
			now = append(now, flag+" "+b.String())
		}
	}
	differ("--policy", had.Policy, o.Policy)
	differ("--keep", hf.Keep, of.Keep)
	differ("--measure", hf.Measure, of.Measure)
	hf.Policy, hf.Keep, hf.Measure = of.Policy, of.Keep, of.Measure
	if len(flags) == 0 || !reflect.DeepEqual(hf, of) {
		return err // options no flag of index names differ
	}
	leave := "leave " + flags[0] + " out"
	if len(flags) > 1 {
		leave = "leave " + strings.Join(flags, " and ") + " out"
	}
	return &hintError{fmt.Sprintf("--index %s was made with %s, this run gives %s: %s to go on with the index's, or add --reconfigure to decide the pages indexed from now on with this run's",
		dir, strings.Join(was, " "), strings.Join(now, " "), leave), err}
}

// hintError is the command's own message for err, which it wraps for
// errors.Is: the library's names its options, not the command's flags.
type hintError struct {
	msg string
	err error
}

func (e *hintError) Error() string { return e.msg }
func (e *hintError) Unwrap() error { return e.err }

// undoCreate returns a function that removes what was created in dir, or
// of dir and its parents, since undoCreate was called.
func undoCreate(dir string) func() error {
	// The highest of dir and its parents that does not exist yet.
	top := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return func() error { return nil } // nothing can be created there
		}
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	if top != "" {
		return func() error { return os.RemoveAll(top) }
	}
	before := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		before[e.Name()] = true
	}
	return func() error {
		entries, err := os.ReadDir(dir)
		for _, e := range entries {
			if !before[e.Name()] {
				err = errors.Join(err, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
		return err
	}
}

// need returns the error of a command given none of the flags names: its
// own message, for a flag it cannot do without.
func need(cmd *cobra.Command, msg string, names ...string) error {
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			return nil
		}
	}
	return errors.New(msg)
}

// notBoth returns the error of a command given both flags a and b.
func notBoth(cmd *cobra.Command, a, b, why string) error {
	if cmd.Flags().Changed(a) && cmd.Flags().Changed(b) {
		return fmt.Errorf("--%s and --%s: give one or the other, %s", a, b, why)
	}
	return nil
}

// needArgs is a command's check of its arguments: at least min, and at
// most max (-1: any number), else what says what they are.
func needArgs(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < min:
			return fmt.Errorf("%s: name %s (see bleve-dedup %s --help)", cmd.Name(), what, cmd.Name())
		case max >= 0 && len(args) > max:
			return fmt.Errorf("%s: takes %s; got %d: %s", cmd.Name(), what, len(args), strings.Join(args, " "))
		}
		return nil
	}
}

// stopSignal is the cause of a context that SIGINT or SIGTERM cancelled.
type stopSignal struct{ sig os.Signal }

func (s stopSignal) Error() string {
	name := s.sig.String()
	switch s.sig {
	case os.Interrupt:
		name = "SIGINT"
	case syscall.SIGTERM:
		name = "SIGTERM"
	}
	return "stopped by " + name
}

// stopOnSignal returns a context cancelled by the first SIGINT or SIGTERM,
// with a stopSignal as its cause. A second one ends the process at once,
// as if there were no handler: a user who does not want to wait for what
// a stop finishes (a commit under way) need not.
func stopOnSignal(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(stopSignal{s})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// stoppable makes run a command's RunE that SIGINT and SIGTERM stop: its
// context is cancelled, and the command returns, once stopped, an error
// wrapping the stopSignal (exit status 1). A command stopped before it
// starts does not start.
func stoppable(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx, stop := stopOnSignal(cmd.Context())
		defer stop()
		cmd.SetContext(ctx)
		if ctx.Err() != nil {
			return stopped(ctx, nil)
		}
		return stopped(ctx, run(cmd, args))
	}
}

// stopped returns the error of a command that ended with err: when a
// signal stopped ctx, an error wrapping its stopSignal, whatever err is (a
// command that noticed the stop late may have finished without one); err
// otherwise.
func stopped(ctx context.Context, err error) error {
	var s stopSignal
	switch {
	case !errors.As(context.Cause(ctx), &s), errors.As(err, new(stopSignal)):
		return err
	case err == nil, errors.Is(err, context.Canceled):
		return s
	}
	return fmt.Errorf("%w: %w", s, err)
}

// jsonLines returns an encoder of one JSON value a line, with markup
// characters left as they are.
func jsonLines(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
