package indexer_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// TestWrapKeepsTextOnce writes the test pages through Wrap, policy Mark
// (every page in bleve), over bleve's default mapping, which stores every
// field, and over one that leaves the HTML unstored: the first store
// keeps no page's text, the second keeps all of it; both give every page
// back whole through Doc, and neither writes a page added again unchanged
// to bleve again. Reopened over an index that does not store its fields,
// the first store is refused.
func TestWrapKeepsTextOnce(t *testing.T) {
	pages := testPages(t)
	payloads := map[string]int64{}
	for _, tt := range []struct {
		name   string
		stored bool
	}{{"stored", true}, {"unstored", false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			m := bleve.NewIndexMapping()
			indexer.AddFilterFields(m)
			if !tt.stored {
				html := bleve.NewTextFieldMapping()
				html.Store, html.Index = false, false
				m.DefaultMapping.AddFieldMappingsAt("HTML", html)
			}
			w := wrapPages(t, dir, m)
			batchPages(t, w, pages)
			// Once bleve has the batch (DocCount waits for it), Doc reads
			// its stored fields, not the journal.
			if n, err := w.DocCount(); err != nil || n != uint64(len(pages)) {
				t.Fatalf("DocCount = %d, %v; want %d", n, err, len(pages))
			}
			for _, p := range pages {
				e, err := w.Doc(p.ID)
				if err != nil {
					t.Fatal(err)
				}
				var got webPage
				if err := json.Unmarshal(e.Payload, &got); err != nil {
					t.Fatalf("%s: payload %.80q: %v", p.ID, e.Payload, err)
				}
				if want := (webPage{URL: p.URL, Title: p.Title, HTML: p.HTML}); got != want {
					t.Errorf("%s: Doc gives %+.60v, want %+.60v", p.ID, got, want)
				}
			}
			// The same pages again: nothing to write.
			for _, d := range batchPages(t, w, pages) {
				if len(d.Ops) > 0 {
					t.Errorf("%s added again unchanged: ops %v", d.ID, d.Ops)
				}
			}
			st, err := w.Filter().Stats()
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range st.Parts {
				if part.Name == store.PartPayloads {
					payloads[tt.name] = part.Bytes
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !tt.stored {
				return
			}
			// The same store over a new index at the same path whose
			// mapping does not store the HTML.
			if err := os.RemoveAll(filepath.Join(dir, "idx")); err != nil {
				t.Fatal(err)
			}
			um := bleve.NewIndexMapping()
			indexer.AddFilterFields(um)
			um.DefaultMapping.AddSubDocumentMapping("HTML", mapping.NewDocumentDisabledMapping())
			idx, err := bleve.New(filepath.Join(dir, "idx"), um)
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			o := pageFields
			o.Store, o.Policy = filepath.Join(dir, "dedup"), dedupfilter.Mark
			if _, err := indexer.Wrap(idx, o); !errors.Is(err, indexer.ErrSettings) {
				t.Errorf("Wrap of the store over an index that drops the HTML: %v, want ErrSettings", err)
			}
		})
	}
	// Keys alone: 0-byte values. The unstored store holds every page's
	// HTML, compressed.
	if s, u := payloads["stored"], payloads["unstored"]; s*20 > u {
		t.Errorf("payload bytes: %d over a mapping that stores every field, %d over one that does not; want under a twentieth", s, u)
	}
}

// TestWrapKeepsTextOnceUnchanged: a document added again as it was is
// not written to bleve again when bleve keeps its body, though the body
// bleve gives back is written otherwise (a date in UTC, a null or an
// empty array left out, an array of arrays flattened).
func TestWrapKeepsTextOnceUnchanged(t *testing.T) {
	w := wrapNew(t, indexer.Options{TextFields: []string{"Body"}, Policy: dedupfilter.Mark})
	docs := map[string]map[string]any{
		"plain":  {"Body": "The council approved the library's new opening hours on Tuesday."},
		"zoned":  {"Body": "Readers can now borrow books until ten at night.", "When": "2026-03-01T12:00:00+02:00"},
		"null":   {"Body": "The reading room stays open on Sundays.", "Note": nil, "Tags": []any{}},
		"nested": {"Body": "The library will hire four more staff members.", "Grid": []any{[]any{1.0, 2.0}, []any{3.0}}},
	}
	for round := range 2 {
		b := w.NewBatch()
		for id, body := range docs {
			if err := b.Index(id, body); err != nil {
				t.Fatal(err)
			}
		}
		decs, err := w.BatchDecisions(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decs {
			if got := len(d.Ops) > 0; got != (round == 0) {
				t.Errorf("round %d: %s written to bleve: %v", round, d.ID, d.Ops)
			}
		}
		// Once bleve has them, the journal lets them go: round 1 reads
		// bleve's.
		if n, err := w.DocCount(); err != nil || n != uint64(len(docs)) {
			t.Fatalf("DocCount = %d, %v", n, err)
		}
	}
}
