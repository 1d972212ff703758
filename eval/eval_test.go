package eval

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	gold := Clustering{"a": "1", "b": "1", "c": "1", "d": "2", "e": "3"}
	tests := []struct {
		name                string
		pred                Clustering
		wantP, wantR, wantF float64
		wantARI             float64
	}{
		{"perfect", Clustering{"a": "x", "b": "x", "c": "x", "d": "y", "e": "z"}, 1, 1, 1, 1},
		{"all singletons", Clustering{"a": "a", "b": "b", "c": "c", "d": "d", "e": "e"}, 1, 0, 0, 0},
		{"one wrong merge", Clustering{"a": "x", "b": "x", "c": "x", "d": "x", "e": "z"}, 0.5, 1, 2.0 / 3, 0.4444444444444444},
		{"half found", Clustering{"a": "x", "b": "x", "c": "c", "d": "d", "e": "e"}, 1, 1.0 / 3, 0.5, 0.7 / 1.7},
		{"missing docs ignored", Clustering{"a": "x", "b": "x"}, 1, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.pred, gold)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"precision", got.Precision, tt.wantP}, {"recall", got.Recall, tt.wantR}, {"F1", got.F1, tt.wantF}, {"ARI", got.ARI, tt.wantARI}} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s = %v, want %v (scores %+v)", c.what, c.got, c.want, got)
				}
			}
		})
	}
}

func TestReadLabels(t *testing.T) {
	got, err := ReadLabels(strings.NewReader("{\"id\":\"a\",\"cluster\":\"1\"}\n\n{\"id\":\"b\",\"cluster\":\"1\"}\n"), "l.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"] != "1" || got["b"] != "1" {
		t.Errorf("ReadLabels = %v, want a and b in cluster 1", got)
	}
	for _, bad := range []string{"{\"id\":\"a\"}\n", "not json\n"} {
		_, err := ReadLabels(strings.NewReader(bad), "l.jsonl")
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "l.jsonl:1") {
			t.Errorf("ReadLabels(%q) error = %v, want ErrSyntax naming l.jsonl:1", bad, err)
		}
	}
}

func ExampleScore() {
	gold := Clustering{"a": "1", "b": "1", "c": "2"}
	pred := Clustering{"a": "x", "b": "x", "c": "x"}
	s := Score(pred, gold)
	fmt.Printf("precision %.2f recall %.2f\n", s.Precision, s.Recall)
	// Output: precision 0.33 recall 1.00
}

func TestScoreRun(t *testing.T) {
	gold := Clustering{"a": "1", "b": "1", "c": "2", "d": "2"}
	tests := []struct {
		name                    string
		pred                    Clustering
		wantUnlabelled, wantMis int
		wantRecall              float64
	}{
		{"all indexed", Clustering{"a": "x", "b": "x", "c": "y", "d": "y"}, 0, 0, 1},
		{"one unindexed costs recall", Clustering{"a": "x", "b": "x", "c": "y"}, 0, 1, 0.5},
		{"unlabelled left out", Clustering{"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"}, 1, 0, 1},
	}
	for _, tt := range tests {
		r := ScoreRun(tt.pred, gold)
		if r.Unlabelled != tt.wantUnlabelled || r.Unindexed != tt.wantMis || r.Recall != tt.wantRecall {
			t.Errorf("%s: ScoreRun = unlabelled %d, unindexed %d, recall %v; want %d, %d, %v",
				tt.name, r.Unlabelled, r.Unindexed, r.Recall, tt.wantUnlabelled, tt.wantMis, tt.wantRecall)
		}
	}
}
