package indexer_test

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// snapshot is every file under dir with a hash of its content, to show
// that a refused Open wrote nothing.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// markIndex makes an index under the mark policy and closes it.
func markIndex(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Index("a", indexer.Document{Paragraphs: []string{"One paragraph of text."}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSettingsRefused: an index reopened with another store, analysis or
// (without Reconfigure) decision options is refused with a message that
// names both sides, and nothing in it changes.
func TestSettingsRefused(t *testing.T) {
	dir := markIndex(t)
	tests := []struct {
		name string
		edit func(*indexer.Options)
		want []string // in the message
	}{
		{"policy", func(o *indexer.Options) {}, []string{"Policy: the index's mark, this run's suppress"}},
		{"shared store", func(o *indexer.Options) {
			o.Policy = dedupfilter.Mark
			o.Store = "redis://127.0.0.1:1/crawl"
		}, []string{"the embedded store", "--store redis://127.0.0.1:1/crawl"}},
		{"analysis", func(o *indexer.Options) {
			o.Policy = dedupfilter.Mark
			a := analyzer.DefaultOptions()
			a.Shingle = 4
			o.Analyzer = &a
			o.Reconfigure = true // no help: features would not compare
		}, []string{"analysis", "Shingle:3", "Shingle:4"}},
		{"measure", func(o *indexer.Options) {
			o.Policy = dedupfilter.Mark
			f := dedupfilter.DefaultOptions()
			f.Measure = similarity.FeatureString
			o.Filter = &f
		}, []string{"Measure: the index's combined, this run's featurestring"}},
	}
	for _, tt := range tests {
		before := snapshot(t, dir)
		o := indexer.Options{}
		tt.edit(&o)
		_, err := indexer.Open(dir, o)
		if !errors.Is(err, indexer.ErrSettings) {
			t.Errorf("%s: Open = %v, want ErrSettings", tt.name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tt.name, err, w)
			}
		}
		if !sameFiles(before, snapshot(t, dir)) {
			t.Errorf("%s: the refused Open changed the index's files", tt.name)
		}
	}
}

// TestSettingsReconfigure: with Reconfigure the new decision options are
// accepted and recorded; a read-only open uses the index's own.
func TestSettingsReconfigure(t *testing.T) {
	dir := markIndex(t)
	o := indexer.Options{}
	o.Reconfigure = true
	ix, err := indexer.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := indexer.SavedOptions(dir)
	if err != nil || s.Filter == nil || s.Policy != dedupfilter.Suppress || s.Store != "" {
		t.Fatalf("saved options after Reconfigure = %+v, %v; want suppress on the embedded store", s, err)
	}
	ro := indexer.Options{}
	ro.ReadOnly, ro.Policy = true, dedupfilter.Replace
	rix, err := indexer.Open(dir, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer rix.Close()
	if got := rix.Filter().Options().Policy; got != dedupfilter.Suppress {
		t.Errorf("read-only open: policy %v, want the index's suppress", got)
	}
}

// TestOpenRefusesOthers: Open writes nothing into a directory that is not
// a bleve-dedup index — a plain bleve index, or other files.
func TestOpenRefusesOthers(t *testing.T) {
	plain := t.TempDir()
	b, err := bleve.New(filepath.Join(plain, "idx"), bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Index("x", map[string]any{"body": "text"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{filepath.Join(plain, "idx"), "indexer.Wrap"},
		{other, "holds other files"},
	} {
		before := snapshot(t, tt.dir)
		_, err := indexer.Open(tt.dir, indexer.Options{})
		if !errors.Is(err, indexer.ErrNotIndex) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) = %v, want ErrNotIndex saying %q", tt.dir, err, tt.want)
		}
		if !sameFiles(before, snapshot(t, tt.dir)) {
			t.Errorf("Open(%s) changed its files", tt.dir)
		}
	}
}

// TestSettingsUpgrade: settings of format 1, written when votes counted a
// measure each, read as this version's rule: the default of the time
// becomes today's, another keeps its voters, its votes counted by kind,
// and every one gets the bounds on what a page may lose; format 2's keep
// their rule and get the test of numbers; every one gets WholeHeldMin.
func TestSettingsUpgrade(t *testing.T) {
	m := similarity.Measures()
	oldDefault := []similarity.Measure{similarity.FeatureString, similarity.MinHash, similarity.Blocks, similarity.Boolean,
		similarity.Jaccard, similarity.Conrad, similarity.Pugh, similarity.Containment}
	d := similarity.DefaultOptions()
	tests := []struct {
		name       string
		format     int
		votes      int
		voters     []similarity.Measure
		wantVotes  int
		wantVoters []similarity.Measure
	}{
		{"the default of the time", 1, 3, oldDefault, d.Votes, d.Voters},
		{"two measures of two kinds", 1, 2, []similarity.Measure{similarity.FeatureString, similarity.Jaccard}, 2, []similarity.Measure{similarity.FeatureString, similarity.Jaccard}},
		{"more votes than kinds", 1, 5, m[:8], 4, m[:8]},
		{"format 2", 2, d.Votes, d.Voters, d.Votes, d.Voters},
		{"format 3", 3, d.Votes, d.Voters, d.Votes, d.Voters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := dedupfilter.DefaultOptions()
			f.Votes, f.Voters = tt.votes, tt.voters
			f.WholeHeldMin = 0 // (formats 1 to 3 had none)
			if tt.format < 3 {
				f.NumbersMin, f.FeatureStringHeldMin = 0, 0
			}
			if tt.format == 1 {
				f.HeldMin, f.CoverMin, f.MinHashFloor = 0, 0, 0
			}
			writeOldSettings(t, dir, tt.format, f)
			got, err := indexer.SavedOptions(dir)
			if err != nil || got.Filter == nil {
				t.Fatalf("SavedOptions = %+v, %v", got, err)
			}
			g := got.Filter
			if g.Votes != tt.wantVotes || !slices.Equal(g.Voters, tt.wantVoters) ||
				g.HeldMin != d.HeldMin || g.CoverMin != d.CoverMin || g.MinHashFloor != d.MinHashFloor || g.NumbersMin != d.NumbersMin || g.FeatureStringHeldMin != d.FeatureStringHeldMin || g.WholeHeldMin != d.WholeHeldMin {
				t.Errorf("read: votes %d of %v, held %v cover %v floor %v numbers %v whole %v; want %d of %v, %v %v %v %v %v",
					g.Votes, g.Voters, g.HeldMin, g.CoverMin, g.MinHashFloor, g.NumbersMin, g.WholeHeldMin, tt.wantVotes, tt.wantVoters, d.HeldMin, d.CoverMin, d.MinHashFloor, d.NumbersMin, d.WholeHeldMin)
			}
		})
	}
}

// TestSettingsUpgradeFormat4: formats 4's and 5's decision options are
// this version's, read as they are (a setting of its own kept).
func TestSettingsUpgradeFormat4(t *testing.T) {
	for _, format := range []int{4, 5} {
		dir := t.TempDir()
		f := dedupfilter.DefaultOptions()
		f.WholeHeldMin = 0.123
		writeOldSettings(t, dir, format, f)
		got, err := indexer.SavedOptions(dir)
		if err != nil || got.Filter == nil {
			t.Fatalf("format %d: SavedOptions = %+v, %v", format, got, err)
		}
		if got.Filter.WholeHeldMin != 0.123 {
			t.Errorf("format %d: WholeHeldMin = %v, want 0.123 (its own)", format, got.Filter.WholeHeldMin)
		}
	}
}

// TestSettingsUpgradeRecorded: an index whose settings are of an earlier
// format records this version's once opened for writing, so that the
// version before refuses what this one writes.
func TestSettingsUpgradeRecorded(t *testing.T) {
	dir := t.TempDir()
	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bleve-dedup.json")
	format := func() int {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Format int }
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s.Format
	}
	now := format()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), fmt.Sprintf(`"format": %d`, now), `"format": 5`, 1)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := indexer.Open(dir, indexer.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if got := format(); got != 5 {
		t.Errorf("format %d after a read-only open, want 5 (as it was)", got)
	}
	if ix, err = indexer.Open(dir, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if got := format(); got != now {
		t.Errorf("format %d after an open for writing, want %d", got, now)
	}
}

// writeOldSettings writes dir's settings file as a version of format
// format wrote it, with the filter's options f.
func writeOldSettings(t *testing.T, dir string, format int, f dedupfilter.Options) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"format": format, "store": "embedded", "filter": f, "site_text": true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bleve-dedup.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
