package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

type adoptCmd struct {
	index, store, local string
	text                []string
	html, title, url    string
	policy              policyFlags
	batch               int
	batchBytes          byteSize
	format              formatFlag
}

func (o *adoptCmd) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.index, "index", "", "the plain bleve index `DIR` to adopt (bleve.New made it, or another program)")
	fs.StringVar(&o.store, "store", "", "where the filter keeps its state: a `DIR` of its own, or redis://HOST:PORT[,HOST:PORT...][/NAME] shared by shards (default: the index's directory with .dedup added)")
	fs.StringVar(&o.local, "local", "", "with a redis:// --store, the `DIR` of this process' own part (default: the index's directory with .dedup added)")
	fs.StringArrayVar(&o.text, "text-field", nil, "a field holding a document's plain text, by bleve's field path (`FIELD`; repeat for several, read in order)")
	fs.StringVar(&o.html, "html-field", "", "a field holding a page's raw HTML, whose main text is extracted (instead of --text-field)")
	fs.StringVar(&o.title, "title-field", "", "the field holding a document's title")
	fs.StringVar(&o.url, "url-field", "", "the field holding a document's URL (its site's template text is left out, and hits show it)")
	o.policy.AddFlags(fs)
	fs.Lookup("policy").DefValue = "mark"
	fs.Lookup("policy").Usage = "what happens to a duplicate: mark (kept, with its cluster id), suppress or replace (copies are deleted from the index); for a store made before, its own"
	o.policy.policy = "mark"
	fs.IntVar(&o.batch, "batch", 1000, "documents decided and rewritten at a time, at most")
	o.batchBytes = indexer.DefaultAdoptBatchBytes
	fs.Var(&o.batchBytes, "batch-bytes", "end a batch early once its documents' stored fields reach this size: bleve analyses all of them again, raw HTML included, and holds about a hundred times that while writing the batch")
	o.format.AddFlags(fs, `one {"unseen","adopted","duplicates","missing","elapsed_s"} object`)
}

func newAdoptCmd() *cobra.Command {
	var o adoptCmd
	cmd := &cobra.Command{
		Use:   "adopt --index DIR (--text-field FIELD... | --html-field FIELD) [--title-field F] [--url-field F] [--store DIR|URL] [--policy mark|suppress|replace]",
		Short: "Bring an existing plain bleve index under the near-duplicate filter",
		Long: `adopt reads back every document of a bleve index the filter has not seen
from its stored fields, decides its near-duplicates as if it had been
written through the filter, and writes it again with its cluster id
(field "cluster"). The index stays a plain bleve index: bleve.Open opens
it, and a program wraps it with indexer.Wrap to go on writing and to
search it collapsed. The filter's state goes in a directory of its own
(--store), never into the index.

adopt records the fields it was given in the store's directory, in
adopt.json, a file of this command's own (for a redis:// store, in the
--local directory): dups, search, serve and recluster read it to open the
adopted index (--index DIR, and --store DIR when the store is not
DIR.dedup), and a later adopt into the same store must name the same
fields. Before any document is decided, a field the index does not have
is refused, naming the fields it has.

Under --policy mark, the default here, nothing leaves the index; suppress
and replace delete the copies they keep out. A stop or a crash keeps what
was decided: the same command again goes on with the rest, and once
every document is held it does nothing. Documents whose text is not
stored cannot be read back: each is named on stderr (exit status 2), to
be written again through the filter (indexer.Wrap). A mapping that
indexes fields it does not store is refused, since rewriting its
documents would lose them.`,
		Example: `  # An index of pages with Body, Title and URL fields, its store beside it
  bleve-dedup adopt --index /data/pages.bleve --text-field Body --title-field Title --url-field URL

  # Then its clusters, and a search one hit per cluster
  bleve-dedup dups --index /data/pages.bleve
  bleve-dedup search --index /data/pages.bleve bees

  # Raw HTML in one field; one JSON line for a program
  bleve-dedup adopt --index /data/pages.bleve --html-field HTML --format jsonl

  # A shard of several sharing one Redis Cluster store
  bleve-dedup adopt --index /data/shard1 --text-field Body --store redis://10.0.0.5:7000/crawl`,
		Args:        needArgs(0, 0, "no arguments (the index is --index)"),
		RunE:        stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd) }),
		Annotations: map[string]string{noMemoryLimit: ""},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// adoptLine is the JSON-lines form of adopt's summary.
type adoptLine struct {
	Unseen     int     `json:"unseen"`
	Adopted    int     `json:"adopted"`
	Duplicates int     `json:"duplicates"`
	Missing    int     `json:"missing"`
	Elapsed    float64 `json:"elapsed_s"`
}

func (o *adoptCmd) run(cmd *cobra.Command) error {
	if err := need(cmd, "adopt: name the bleve index: --index DIR", "index"); err != nil {
		return err
	}
	if err := need(cmd, "adopt: name where the text is: --text-field FIELD or --html-field FIELD", "text-field", "html-field"); err != nil {
		return err
	}
	if err := notBoth(cmd, "text-field", "html-field", "the text is read from one or the other"); err != nil {
		return err
	}
	if o.batchBytes <= 0 {
		return fmt.Errorf("--batch-bytes %s: want a positive size (adopt's batches are always bounded)", &o.batchBytes)
	}
	if indexer.Exists(o.index) {
		return fmt.Errorf("--index %s: a bleve-dedup index already, its documents decided as they were written (bleve-dedup dups names any written around the filter)", o.index)
	}
	wo, sdir, err := o.wrapOptions()
	if err != nil {
		return err
	}
	rec, name, err := o.record(sdir)
	if err != nil {
		return err
	}
	idx, err := openBleve(o.index, name, false)
	if err != nil {
		return err
	}
	// Before the store is made or a document decided: a misnamed field
	// would leave every document missing.
	if err := checkFields(idx, o.index, rec); err != nil {
		return errors.Join(err, idx.Close())
	}
	w, err := indexer.Wrap(idx, wo)
	if err != nil {
		return errors.Join(err, idx.Close())
	}
	// Once the store is there, before any document is decided: the
	// commands that read the index need the fields to open it.
	if err := writeAdoptRecord(sdir, rec); err != nil {
		return errors.Join(err, w.Close())
	}
	errw := cmd.ErrOrStderr()
	if n := w.Repaired(); n > 0 {
		fmt.Fprintf(errw, "repaired %d bleve writes left pending by an interrupted run\n", n)
	}
	ao := indexer.AdoptOptions{BatchSize: o.batch, BatchBytes: int(o.batchBytes), Progress: adoptProgress(errw),
		Missing: func(id string, err error) { fmt.Fprintf(errw, "bleve-dedup: not adopted: %s: %v\n", id, err) }}
	st, err := w.Adopt(cmd.Context(), ao)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	line := adoptLine{st.Unseen, st.Adopted, st.Duplicates, st.Missing, st.Elapsed.Seconds()}
	out := cmd.OutOrStdout()
	if o.format.jsonl {
		err = jsonLines(out).Encode(line)
	} else {
		_, err = fmt.Fprintf(out, "unseen %d, adopted %d, duplicates %d, missing %d, %s\n",
			line.Unseen, line.Adopted, line.Duplicates, line.Missing, st.Elapsed.Round(time.Millisecond))
	}
	if err != nil {
		return err
	}
	return partial(st.Missing, "1 document not adopted: no stored text (named above)", "%d documents not adopted: no stored text (named above)")
}

// wrapOptions are the Wrap options of the flags: the store's own policy
// when it was made before and --policy is not given. sdir is the
// directory of the store's settings and adoptFile.
func (o *adoptCmd) wrapOptions() (wo indexer.Options, sdir string, err error) {
	wo = indexer.Options{Store: o.store, LocalDir: o.local, TextFields: o.text,
		HTMLField: o.html, TitleField: o.title, URLField: o.url}
	own := ownStore(o.index)
	if wo.Store == "" {
		wo.Store = own
	}
	sdir = wo.Store
	if isShared(wo.Store) {
		if wo.LocalDir == "" {
			wo.LocalDir = own
		}
		sdir = wo.LocalDir
	}
	saved, err := indexer.SavedOptions(sdir)
	if err != nil {
		return wo, sdir, accessError(sdir, err, "read")
	}
	if saved.Filter == nil { // a new store
		saved.Policy = dedupfilter.Mark
	}
	saved = filled(saved)
	wo.Filter, wo.Policy = saved.Filter, saved.Policy
	return wo, sdir, o.policy.apply(&wo)
}

// record returns the adoptFile record of this run, and the name to give
// the bleve index: a store adopted before keeps its fields and the name
// it knows the index by.
func (o *adoptCmd) record(sdir string) (rec adoptRecord, name string, err error) {
	abs, err := filepath.Abs(o.index)
	if err != nil {
		return rec, "", fmt.Errorf("--index %s: %w", o.index, err)
	}
	rec = adoptRecord{Index: abs, Name: o.index, TextFields: o.text, HTMLField: o.html, TitleField: o.title, URLField: o.url}
	had, ok, err := readAdoptRecord(sdir)
	if err != nil || !ok {
		return rec, "", accessError(sdir, err, "read")
	}
	if name, err = checkRecorded(o.index, sdir, had); err != nil {
		return rec, "", err
	}
	if !had.sameFields(rec) {
		return rec, "", fmt.Errorf("--index %s: its store %s was adopted with %s, this run names %s: the documents adopted were decided on their fields; give the same, or adopt into a new --store DIR",
			o.index, sdir, had.flags(), rec.flags())
	}
	return had, name, nil
}

// adoptProgress reports Adopt's batches on w: a line a batch on a
// terminal, every logEvery otherwise.
func adoptProgress(w io.Writer) func(indexer.AdoptStats) {
	bar := progressBar(w, -1, "adopting", "docs")
	next := time.Now().Add(logEvery)
	return func(s indexer.AdoptStats) {
		desc := fmt.Sprintf("%d duplicates, %d missing", s.Duplicates, s.Missing)
		if bar != nil {
			// (the bar shows the rate)
			bar.Set(s.Unseen)
			bar.Describe("adopting (" + desc + ")")
			return
		}
		if now := time.Now(); now.After(next) {
			next = now.Add(logEvery)
			fmt.Fprintf(w, "bleve-dedup: %d adopted, %s, %.0f docs/s\n", s.Adopted, desc, float64(s.Adopted)/max(s.Elapsed.Seconds(), 1e-3))
		}
	}
}
