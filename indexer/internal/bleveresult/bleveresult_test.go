package bleveresult

import (
	"testing"

	"github.com/blevesearch/bleve/v2"
)

func TestCollapses(t *testing.T) {
	tests := []struct {
		sort []string
		want bool
	}{
		{nil, true},
		{[]string{"-_score"}, true},
		{[]string{"-_score", "_id"}, true},
		{[]string{"_score"}, false}, // ascending
		{[]string{"title"}, false},
		{[]string{"-_score", "title", "_id"}, false},
	}
	for _, tt := range tests {
		req := bleve.NewSearchRequest(bleve.NewMatchAllQuery())
		if tt.sort != nil {
			req.SortBy(tt.sort)
		}
		if got := Collapses(req); got != tt.want {
			t.Errorf("Collapses(sort %q) = %v, want %v", tt.sort, got, tt.want)
		}
	}
}
