package api_test

import (
	"reflect"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/api"
)

// TestIngestSummaryAdd: Add sums every count, appends the errors in
// order and leaves the receiver's Error and CutShort alone.
func TestIngestSummaryAdd(t *testing.T) {
	s := api.IngestSummary{Read: 3, Indexed: 2, Duplicates: 1, Errors: 1, ErrorList: []string{"a"}, ElapsedMS: 10}
	s.Add(api.IngestSummary{Read: 5, Indexed: 1, Duplicates: 1, Unchanged: 1, Updated: 1, Truncated: 1, NotHTML: 1,
		BadStatus: 1, Errors: 2, ErrorList: []string{"b", "c"}, ElapsedMS: 7, Error: "stopped", CutShort: true})
	want := api.IngestSummary{Read: 8, Indexed: 3, Duplicates: 2, Unchanged: 1, Updated: 1, Truncated: 1, NotHTML: 1,
		BadStatus: 1, Errors: 3, ErrorList: []string{"a", "b", "c"}, ElapsedMS: 17}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("sum %+v, want %+v", s, want)
	}
}
