package indexer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/shapes"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testtext"
	"github.com/bleve-dedup/bleve-dedup/page"
)

func TestCapText(t *testing.T) {
	tests := []struct {
		name          string
		paras         []string
		max           int
		want          []string
		wantTruncated bool
	}{
		{"no cap", []string{"aaaa", "bbbb"}, 0, []string{"aaaa", "bbbb"}, false},
		{"under the cap", []string{"aaaa", "bbbb"}, 8, []string{"aaaa", "bbbb"}, false},
		{"at a paragraph", []string{"aaaa", "bbbb", "cc"}, 8, []string{"aaaa", "bbbb"}, true},
		{"inside a paragraph", []string{"aaaa", "bbbb"}, 6, []string{"aaaa", "bb"}, true},
		{"inside a character", []string{"中文"}, 4, []string{"中"}, true},
		{"nothing of the first", []string{"中文"}, 2, []string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := capText(tt.paras, tt.max)
			if !slices.Equal(got, tt.want) || truncated != tt.wantTruncated {
				t.Errorf("capText(%q, %d) = %q, %v; want %q, %v", tt.paras, tt.max, got, truncated, tt.want, tt.wantTruncated)
			}
		})
	}
}

// TestPageLimits runs pages past the text cap and the page timeout: the
// first is indexed cut and counted, the second skipped with ErrPageTimeout,
// and the run goes on to the page after them.
func TestPageLimits(t *testing.T) {
	o := Options{}
	o.MaxTextBytes = 1000
	ix, err := Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	long := strings.Join(testtext.Article("a long article", 30), "\n\n")
	huge := shapes.All[0].Page(4 << 20)
	pages := func(yield func(page.Page, error) bool) {
		_ = yield(page.Page{ID: "long", Text: long}, nil) &&
			yield(page.Page{ID: "huge", HTML: huge}, nil) &&
			yield(page.Page{ID: "after", Text: strings.Join(testtext.Article("after", 3), "\n\n")}, nil)
	}
	ro := DefaultRunOptions()
	ro.PageTimeout = time.Millisecond
	var errs []error
	ro.OnError = func(err error) { errs = append(errs, err) }
	st, err := ix.IndexPages(context.Background(), pages, ro)
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 2 || st.Truncated != 1 || st.Errors != 1 || len(errs) != 1 || !errors.Is(errs[0], ErrPageTimeout) {
		t.Fatalf("got %+v, errors %v; want 2 indexed, 1 truncated, 1 error wrapping ErrPageTimeout", st, errs)
	}
	if !strings.Contains(errs[0].Error(), "(huge)") {
		t.Errorf("error %q does not name the page", errs[0])
	}
	e, err := ix.Doc("long")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.Payload); n > 1200 {
		t.Errorf("the cut document's payload is %d bytes, want about 1000", n)
	}
}

// TestStopDuringAHugePage stops a run while it extracts an 8 MB page of
// each shape: the run returns soon with the context's error, and the page
// before the huge one is indexed. (shapebench measures the stop through
// the command and its signals.)
func TestStopDuringAHugePage(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts 8 MB pages")
	}
	for _, sh := range shapes.All {
		t.Run(sh.Name, func(t *testing.T) {
			ix, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			doc := sh.Page(8 << 20)
			ctx, cancel := context.WithCancel(context.Background())
			pages := func(yield func(page.Page, error) bool) {
				_ = yield(page.Page{ID: "before", Text: strings.Join(testtext.Article("before", 3), "\n\n")}, nil) &&
					yield(page.Page{ID: "huge", HTML: doc}, nil)
			}
			ro := DefaultRunOptions()
			ro.Workers = 1
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err = ix.IndexPages(ctx, pages, ro)
			took := time.Since(start)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got error %v, want context.Canceled", err)
			}
			// Generous: the machine may be loaded; shapebench gives the figures.
			if took > 10*time.Second {
				t.Errorf("stopped after %v", took)
			}
			if !searchable(t, ix, "before", 0) {
				t.Error(`the page before the huge one is not indexed`)
			}
		})
	}
}
