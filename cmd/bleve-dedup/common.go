package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// Helpers shared by the commands.

// format is an output-format flag that accepts only its listed values, so
// a bad value fails when the flags are parsed, with the same message for
// every command.
type format struct {
	value   string
	allowed []string
}

func newFormat(def string, allowed ...string) format {
	return format{value: def, allowed: allowed}
}

func (f *format) String() string { return f.value }
func (f *format) Type() string   { return "format" }
func (f *format) Set(s string) error {
	if !slices.Contains(f.allowed, s) {
		return fmt.Errorf("want %s, got %q", strings.Join(f.allowed, " or "), s)
	}
	f.value = s
	return nil
}

// addFlag registers f as --format.
func (f *format) addFlag(fs *pflag.FlagSet) {
	fs.Var(f, "format", "output format: "+strings.Join(f.allowed, " or "))
}

// filterFlags are the settings of the duplicate decision (index, eval,
// compare).
type filterFlags struct {
	measure, delimiters string
	fs                  *pflag.FlagSet // where they were added: which were given
}

func (f *filterFlags) AddFlags(fs *pflag.FlagSet) {
	f.fs = fs
	def := indexer.DefaultOptions()
	fs.StringVar(&f.measure, "measure", def.Filter.Measure.String(), "measure that decides: combined, featurestring, boolean, conrad, pugh, blocks, minhash, jaccard, charfreq, tagedit or sameurl")
	fs.StringVar(&f.delimiters, "delimiters", def.Analyzer.Delimiters, "feature-string delimiter characters (the feature-string paper's sentence ends)")
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
// (eval, compare): which measures vote, the candidate sources and gate,
// the boolean model's stop words, the new measures' thresholds.
type methodFlags struct {
	voters, sources                string
	votes, gate, radius, minShared int
	stopShare                      float64
	charFreqMin, tagEditMin        float64
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
		"structure-gate":   func() { o.StructureGate = f.gate },
		"structure-radius": func() { o.StructureRadius = f.radius },
		"min-shared":       func() { o.MinShared = f.minShared },
		"stop-share":       func() { o.BooleanStopShare = f.stopShare },
		"charfreq-min":     func() { o.CharFreqMin = f.charFreqMin },
		"tagedit-min":      func() { o.TagEditMin = f.tagEditMin },
		"votes":            func() { o.Votes = f.votes },
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
	def := indexer.DefaultOptions()
	f.fs = fs
	fs.StringVar(&f.policy, "policy", def.Filter.Policy.String(), "what happens to a duplicate: suppress (not indexed), mark (indexed with its cluster id) or replace (keep the better copy); default: an index's own")
	fs.StringVar(&f.keep, "keep", def.Filter.Keep.String(), "with --policy replace, the copy kept: newer or longer")
}

// apply sets the options of the flags given on the command line.
func (f *policyFlags) apply(o *dedupfilter.Options) error {
	var err error
	if given(f.fs, "policy") {
		if o.Policy, err = dedupfilter.ParsePolicy(f.policy); err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
	}
	if given(f.fs, "keep") {
		if o.Keep, err = dedupfilter.ParseKeep(f.keep); err != nil {
			return fmt.Errorf("--keep: %w", err)
		}
	}
	return nil
}

// ingestFlags say how pages are read and indexed (index, eval).
type ingestFlags struct {
	store string
	policyFlags
	workers     int
	batch       int
	batchBytes  int
	maxBytes    int64
	maxText     int
	pageTimeout time.Duration
	noDedup     bool
	reconfigure bool
	run         indexer.RunOptions // the defaults AddFlags was given
	fs          *pflag.FlagSet     // where they were added: which were given
}

// AddFlags adds the flags but --store, which serve has in indexFlags;
// run gives the defaults of the run's flags (a bulk run's or a server's).
func (f *ingestFlags) AddFlags(fs *pflag.FlagSet, run indexer.RunOptions) {
	def := indexer.DefaultOptions()
	f.run, f.fs = run, fs
	f.policyFlags.AddFlags(fs)
	fs.IntVar(&f.workers, "workers", run.Workers, "pages extracted in parallel")
	fs.IntVar(&f.batch, "batch", run.BatchSize, "documents per bleve batch: larger batches index faster and make pages searchable later")
	fs.IntVar(&f.batchBytes, "batch-bytes", run.BatchBytes, "end a batch early at this many bytes of text, bounding its memory (0: no bound)")
	fs.Int64Var(&f.maxBytes, "max-bytes", page.DefaultMaxBytes, "skip pages larger than this many bytes (0: no limit); a page's memory is bounded by a small multiple of it")
	fs.IntVar(&f.maxText, "max-text", def.MaxTextBytes, "index at most this many bytes of a page's main text (0: no limit)")
	fs.DurationVar(&f.pageTimeout, "page-timeout", run.PageTimeout, "skip a page whose extraction takes longer (0: no limit)")
	fs.BoolVar(&f.noDedup, "no-dedup", false, "index every page into bleve without the filter (to measure its cost)")
	fs.BoolVar(&f.reconfigure, "reconfigure", false, "let --policy, --keep and --measure differ from what the index was made with: they apply to the pages indexed from now on (an index always keeps its --store and its analysis)")
}

// apply sets the options of the flags given on the command line.
func (f *ingestFlags) apply(o *indexer.Options) error {
	if err := f.policyFlags.apply(&o.Filter); err != nil {
		return err
	}
	if given(f.fs, "no-dedup") {
		o.NoDedup = f.noDedup
	}
	if given(f.fs, "store") {
		o.SharedStore = f.store
	}
	o.MaxTextBytes = f.maxText
	o.Reconfigure = f.reconfigure
	return nil
}

func (f *ingestFlags) runOptions() indexer.RunOptions {
	o := f.run
	o.Workers, o.BatchSize, o.BatchBytes, o.PageTimeout = f.workers, f.batch, f.batchBytes, f.pageTimeout
	return o
}

func (f *ingestFlags) pageOptions() page.Options {
	o := page.DefaultOptions()
	o.MaxBytes = f.maxBytes
	return o
}

// indexOptions returns the options to open the index in dir with: the
// settings it was made with (the defaults for a new index), and over them
// the filter and ingest flags given on the command line, which Open
// checks against the index's (an index keeps its store and analysis).
func indexOptions(dir string, ff *filterFlags, inf *ingestFlags) (indexer.Options, error) {
	o, err := savedOptions(dir)
	if err != nil {
		return o, err
	}
	if err := ff.apply(&o); err != nil {
		return o, err
	}
	return o, inf.apply(&o)
}

// savedOptions are indexer.SavedOptions, the defaults for no directory.
func savedOptions(dir string) (indexer.Options, error) {
	if dir == "" {
		return indexer.DefaultOptions(), nil
	}
	return indexer.SavedOptions(dir)
}

// runIndex indexes inputs into ix, reporting per-page errors on errw and,
// when errw is a terminal, a progress bar.
func runIndex(ctx context.Context, ix *indexer.Index, inputs []string, f *ingestFlags, errw io.Writer) (indexer.Stats, error) {
	skips := skipLog{w: errw}
	ro := f.runOptions()
	ro.OnError = skips.add
	if bar := progressBar(errw, -1, "indexing", "docs"); bar != nil {
		last := 0
		ro.Progress = func(s indexer.Stats) {
			bar.Add(s.Read - last)
			last = s.Read
			bar.Describe("indexing (" + progressLine(s) + ")")
		}
		defer bar.Finish()
	} else {
		// Not a terminal (a log file): a line now and then.
		next := time.Now().Add(logEvery)
		ro.Progress = func(s indexer.Stats) {
			if now := time.Now(); now.After(next) {
				next = now.Add(logEvery)
				fmt.Fprintf(errw, "bleve-dedup: %d read, %s\n", s.Read, progressLine(s))
			}
		}
	}
	st, err := ix.IndexPages(ctx, page.Read(inputs, f.pageOptions()), ro)
	if err == nil {
		err = skips.err()
	}
	return st, err
}

// skipLog reports the pages a run skips. A bad page is skipped and the run
// goes on; an input that cannot be read at all (a mistyped path) fails the
// command once the rest is in.
type skipLog struct {
	w         io.Writer
	n         int // pages and inputs skipped
	badInputs int
}

func (l *skipLog) add(err error) {
	l.n++
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || errors.Is(err, errors.ErrUnsupported) {
		l.badInputs++
	}
	fmt.Fprintln(l.w, "bleve-dedup: skipped:", err)
}

// err is the run's failure when an input could not be read.
func (l *skipLog) err() error {
	if l.badInputs > 0 {
		return fmt.Errorf("%d of the inputs could not be read (see above)", l.badInputs)
	}
	return nil
}

// logEvery is how often a run logs its progress when stderr is not a
// terminal.
const logEvery = 30 * time.Second

// progressLine is the running state of an indexing run: its counts, its
// rate and the process' memory (resident anonymous memory is what the run
// holds; the Go heap is part of it).
func progressLine(s indexer.Stats) string {
	m := procmem.Read()
	return fmt.Sprintf("%d duplicates, %d errors, %.0f docs/s, RssAnon %d MiB, heap %d MiB",
		s.Duplicates, s.Errors, s.DocsPerSecond(), m.RSSAnon>>20, m.HeapLive>>20)
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

// indexFlags name the indexes a read command opens: one --index, or
// several shards with their shared --store.
type indexFlags struct {
	dirs  []string
	store string
}

func (f *indexFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.dirs, "index", nil, "index directory; several, with --store, are shards searched together")
	addStoreFlag(fs, &f.store)
}

// addStoreFlag adds --store, the Redis store shared by indexes.
func addStoreFlag(fs *pflag.FlagSet, store *string) {
	fs.StringVar(store, "store", "", "a store shared by several indexes, each a shard in its own --index: redis://HOST:PORT[,HOST:PORT...][/NAME] (default: the store embedded in DIR)")
}

// open opens the indexes, which must already exist, so a mistyped --index
// is an error rather than a new empty index. An index this process may not
// write (a read-only file system, a copy it does not own) is opened
// read-only.
func (f *indexFlags) open() (*indexer.Shards, error) {
	if len(f.dirs) == 0 {
		return nil, errors.New("--index: name an index directory")
	}
	o, err := savedOptions(f.dirs[0])
	if err != nil {
		return nil, err
	}
	if f.store != "" {
		o.SharedStore = f.store
	}
	for _, d := range f.dirs {
		if !indexer.Exists(d) {
			return nil, fmt.Errorf("--index %s: no index there (create one with bleve-dedup index)", d)
		}
		o.ReadOnly = o.ReadOnly || !canWrite(d)
	}
	if len(f.dirs) > 1 && f.store == "" {
		return nil, errors.New("--index: several indexes are shards of one crawl only with the --store they share")
	}
	return indexer.OpenShards(f.dirs, o)
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

// stopOnSignal returns a context cancelled by SIGINT or SIGTERM.
func stopOnSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// jsonLines returns an encoder of one JSON value a line, with markup
// characters left as they are.
func jsonLines(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
