package indexer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/jsonfile"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

// An index remembers what it was made with in DIR/bleve-dedup.json, its
// settings: the store its decisions are in, the filter's decision options
// and the analysis that makes features. Reopening it with other settings
// would fork or mix its state silently — a shard of a shared store
// reopened on an embedded store of its own decides its pages again and
// writes cluster ids that collide with the shared ones; features of
// another analysis never match the stored ones — so Open refuses a
// mismatch, naming both sides. Options.Reconfigure accepts new decision
// options (policy, measures, thresholds, candidate settings), which apply
// to the documents indexed from then on; a new store or analysis needs a
// new index.
const settingsFile = "bleve-dedup.json"

// settingsFormat is the version of the file's layout: 2 since the
// filter's Votes count kinds of evidence and HeldMin, CoverMin and
// MinHashFloor were added, 3 since NumbersMin and FeatureStringHeldMin
// were, 4 since WholeHeldMin was, 5 since a Wrap's store may leave its
// documents' text to the bleve index (PayloadsInIndex), which a version
// that does not know it would read as empty, 6 since stored signatures
// may write the whole text's sketch as its differences from the kept
// text's, which a version before does not decode (formats 1 to 5 are
// read and upgraded: upgrade).
const settingsFormat = 6

// embeddedStore names the embedded store in settings.Store.
const embeddedStore = "embedded"

// settings are what an index was made with (see readSettings).
type settings struct {
	Format int `json:"format"`
	// Store is embeddedStore or the shared store's URL.
	Store string `json:"store"`
	// Filter are the filter's decision options.
	Filter dedupfilter.Options `json:"filter"`
	// Analyzer and SiteText make the features: the analyzer's options,
	// and whether a site's template text is left out (the opposite of
	// Options.KeepSiteText).
	Analyzer analyzer.Options `json:"analyzer"`
	SiteText bool             `json:"site_text"`
	// NoDedup: the index was written without the filter.
	NoDedup bool `json:"no_dedup,omitempty"`
	// Wraps names the bleve index a Wrap's store was made for.
	Wraps string `json:"wraps,omitempty"`
	// PayloadsInIndex: the store keeps the text of the documents in the
	// bleve index there, whose mapping stores every field (see
	// Index.Doc); it cannot be opened over one that does not.
	PayloadsInIndex bool `json:"payloads_in_index,omitempty"`
	// upgraded: read from an earlier format, so that an index opened for
	// writing records this one (an earlier version then refuses it).
	upgraded bool
}

// settingsEqual reports whether two settings are the same.
func settingsEqual(a, b settings) bool {
	a.upgraded, b.upgraded = false, false
	return reflect.DeepEqual(a, b)
}

// apply returns c with the settings in place of its own (the store
// stays c's: Wrap's directory is not recorded).
func (s settings) apply(c config) config {
	c.filter, c.analyzer, c.KeepSiteText, c.NoDedup = s.Filter, s.Analyzer, !s.SiteText, s.NoDedup
	c.Policy = s.Filter.Policy
	return c
}

// checkOurs refuses a directory that holds something other than an index
// of ours: a plain bleve index (its index_meta.json at the top), an index
// of an older layout, or other files. A missing or empty directory is
// fine.
func checkOurs(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	ours := false
	for _, e := range entries {
		switch e.Name() {
		case "index_meta.json":
			return fmt.Errorf("indexer: %s is a bleve index, not a bleve-dedup one: put the filter in front of it with indexer.Wrap, and bring the documents it holds under the filter with indexer.Adopt (bleve-dedup adopt --index %s); both keep their state beside it, never in it: %w", dir, dir, ErrNotIndex)
		case oldStoreDir:
			return fmt.Errorf("indexer: %s was written by an older version of bleve-dedup; index the pages again into a new directory: %w", dir, ErrNotIndex)
		case settingsFile, bleveDir, storeDir:
			ours = true
		}
	}
	if !ours && len(entries) > 0 {
		return fmt.Errorf("indexer: %s holds other files (%s...), not a bleve-dedup index: give an empty or new directory: %w", dir, entries[0].Name(), ErrNotIndex)
	}
	return nil
}

// settingsOf are the settings c asks for.
func settingsOf(c config) settings {
	return settings{Format: settingsFormat, Store: cmp.Or(c.shared, embeddedStore), Filter: c.filter, Analyzer: c.analyzer,
		SiteText: !c.KeepSiteText, NoDedup: c.NoDedup, PayloadsInIndex: c.payloadsInIndex}
}

// readSettings returns the settings of the index in dir, and false when
// it has none (a new directory, or an index made before indexes recorded
// them).
func readSettings(dir string) (settings, bool, error) {
	var s settings
	b, err := os.ReadFile(filepath.Join(dir, settingsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("indexer: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("indexer: %s: %w", filepath.Join(dir, settingsFile), err)
	}
	if s.Format >= 1 && s.Format < settingsFormat {
		s = upgrade(s)
		s.upgraded = true
	}
	if s.Format != settingsFormat {
		return s, false, fmt.Errorf("indexer: %s: settings format %d, this version reads %d: %w",
			filepath.Join(dir, settingsFile), s.Format, settingsFormat, ErrInvalidOptions)
	}
	return s, true, nil
}

// upgrade reads format 1's to 5's decision options as this version's
// (formats 4's and 5's are). In format 1 votes were counted a measure
// each, and a page joined its cluster and left the search index on them
// alone. The rule of the time (3 of the 8 default voters) becomes
// today's default rule; any other keeps its voters and votes, now
// counted by kind; either way no page leaves the index unless the page
// kept holds its text. Formats 1
// and 2 get the default NumbersMin and FeatureStringHeldMin (their stored
// signatures have no numbers, which pass the test of numbers), and every
// one the default WholeHeldMin: the pages indexed from then on are
// decided as a new index decides them.
func upgrade(s settings) settings {
	if s.Format >= 4 {
		s.Format = settingsFormat
		return s
	}
	d := similarity.DefaultOptions()
	f := &s.Filter.Options
	f.WholeHeldMin = d.WholeHeldMin
	if s.Format == 3 {
		s.Format = settingsFormat
		return s
	}
	f.NumbersMin, f.FeatureStringHeldMin = d.NumbersMin, d.FeatureStringHeldMin
	if s.Format == 2 {
		s.Format = settingsFormat
		return s
	}
	old := []similarity.Measure{similarity.FeatureString, similarity.MinHash, similarity.Blocks, similarity.Boolean,
		similarity.Jaccard, similarity.Conrad, similarity.Pugh, similarity.Containment}
	if f.Measure == similarity.Combined && f.Votes == 3 && slices.Equal(f.Voters, old) {
		f.Votes, f.Voters = d.Votes, d.Voters
	}
	if f.Votes > f.VoterKinds() {
		f.Votes = f.VoterKinds()
	}
	f.HeldMin, f.CoverMin, f.MinHashFloor = d.HeldMin, d.CoverMin, d.MinHashFloor
	s.Format = settingsFormat
	return s
}

// SavedOptions are the options the index in dir (or the store of a Wrap
// in dir) was made with, if it records any, and else the zero Options:
// the options to reopen it with, for a program that changes some of them
// (Reconfigure) and keeps the others.
func SavedOptions(dir string) (Options, error) {
	s, ok, err := readSettings(dir)
	if err != nil || !ok {
		return Options{}, err
	}
	f, a := s.Filter, s.Analyzer
	o := Options{Filter: &f, Analyzer: &a, Policy: f.Policy, KeepSiteText: !s.SiteText, NoDedup: s.NoDedup}
	f.Policy = dedupfilter.Suppress // (the policy is Options.Policy)
	if s.Store != embeddedStore {
		o.Store = s.Store
	}
	return o, nil
}

// writeSettings writes s in dir, atomically (a file beside it renamed over
// it).
func writeSettings(dir string, s settings) error {
	if err := jsonfile.Write(filepath.Join(dir, settingsFile), s); err != nil {
		return fmt.Errorf("indexer: settings: %w", err)
	}
	return nil
}

// checkSettings compares what an index has recorded with what opts asks
// for. It returns the settings to record: had's with the decision options
// replaced when reconfigure allows it.
func checkSettings(dir string, had, want settings, reconfigure bool) (settings, error) {
	var fixed, decision []string
	if !sameStore(had.Store, want.Store) {
		fixed = append(fixed, fmt.Sprintf("store: the index's is %s, this run asks for %s", storeName(had.Store), storeName(want.Store)))
	}
	if !reflect.DeepEqual(had.Analyzer, want.Analyzer) {
		fixed = append(fixed, fmt.Sprintf("analysis: the index's is %+v, this run asks for %+v", had.Analyzer, want.Analyzer))
	}
	if had.SiteText != want.SiteText {
		fixed = append(fixed, fmt.Sprintf("site template text left out: the index's %v, this run's %v", had.SiteText, want.SiteText))
	}
	if had.NoDedup != want.NoDedup {
		fixed = append(fixed, fmt.Sprintf("filter off: the index's %v, this run's %v", had.NoDedup, want.NoDedup))
	}
	decision = optionDiffs(had.Filter, want.Filter)
	if len(fixed) > 0 {
		return had, fmt.Errorf("indexer: %s was made with other settings (%s); they cannot change on an existing index: use its own, or index the pages again into a new directory: %w",
			dir, strings.Join(fixed, "; "), ErrSettings)
	}
	if len(decision) > 0 && !reconfigure {
		return had, fmt.Errorf("indexer: %s was made with other decision options (%s): use its own, or change them for the pages indexed from now on (Options.Reconfigure; bleve-dedup index --reconfigure): %w",
			dir, strings.Join(decision, "; "), ErrSettings)
	}
	had.Filter = want.Filter
	return had, nil
}

// optionDiffs names the fields of the filter's options that differ.
func optionDiffs(had, want dedupfilter.Options) []string {
	a, _ := json.Marshal(had)
	b, _ := json.Marshal(want)
	var ma, mb map[string]any
	json.Unmarshal(a, &ma)
	json.Unmarshal(b, &mb)
	var out []string
	for k, va := range ma {
		if vb := mb[k]; !reflect.DeepEqual(va, vb) {
			out = append(out, fmt.Sprintf("%s: the index's %v, this run's %v", k, va, vb))
		}
	}
	slices.Sort(out)
	return out
}

// sameStore reports whether two store names name one store: the embedded
// one, or the same shared store (its key prefix; its seed addresses may
// change).
func sameStore(a, b string) bool {
	if a == b {
		return true
	}
	if a == embeddedStore || b == embeddedStore {
		return false
	}
	_, pa, ea := rediscluster.ParseURL(a)
	_, pb, eb := rediscluster.ParseURL(b)
	return ea == nil && eb == nil && pa == pb
}

func storeName(s string) string {
	if s == embeddedStore {
		return "the embedded store (no --store)"
	}
	return "--store " + s
}
