// Package eval scores a predicted clustering of documents against labelled
// clusters: pairwise precision, recall and F1 over duplicate pairs, and the
// adjusted Rand index over the whole partition.
//
// Documents present in only one of the two clusterings are ignored, so a run
// that failed to read some documents is scored on what it did read (the
// caller reports how many were missing).
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Clustering maps a document id to its cluster id.
type Clustering map[string]string

// Scores are the agreement figures between a prediction and the gold labels.
type Scores struct {
	Docs      int     `json:"docs"`       // documents scored (in both clusterings)
	GoldPairs int     `json:"gold_pairs"` // duplicate pairs in the labels
	PredPairs int     `json:"pred_pairs"` // duplicate pairs predicted
	TruePairs int     `json:"true_pairs"` // pairs in both
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	ARI       float64 `json:"ari"`
}

// Score compares pred with gold. A pair of documents is predicted when both
// fall in one predicted cluster; it is true when they share a gold cluster.
// With no predicted pairs precision is 1 (nothing claimed wrongly).
func Score(pred, gold Clustering) Scores {
	// Contingency table n[predCluster][goldCluster] over the common documents.
	type cell struct{ p, g string }
	n := map[cell]int{}
	rows := map[string]int{}
	cols := map[string]int{}
	var s Scores
	for id, g := range gold {
		p, ok := pred[id]
		if !ok {
			continue
		}
		s.Docs++
		n[cell{p, g}]++
		rows[p]++
		cols[g]++
	}
	for _, c := range n {
		s.TruePairs += pairs(c)
	}
	for _, c := range rows {
		s.PredPairs += pairs(c)
	}
	for _, c := range cols {
		s.GoldPairs += pairs(c)
	}
	s.Precision = ratio(s.TruePairs, s.PredPairs, 1)
	s.Recall = ratio(s.TruePairs, s.GoldPairs, 1)
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	total := float64(pairs(s.Docs))
	if total > 0 {
		expected := float64(s.PredPairs) * float64(s.GoldPairs) / total
		maxIndex := (float64(s.PredPairs) + float64(s.GoldPairs)) / 2
		if maxIndex == expected {
			s.ARI = 1 // both partitions trivial and identical in shape
		} else {
			s.ARI = (float64(s.TruePairs) - expected) / (maxIndex - expected)
		}
	}
	return s
}

func pairs(n int) int { return n * (n - 1) / 2 }

func ratio(a, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return float64(a) / float64(b)
}

// ReadLabels reads `{"id": ..., "cluster": ...}` lines, as in the
// near-duplicate development set. name is used in error messages.
func ReadLabels(r io.Reader, name string) (Clustering, error) {
	c := Clustering{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var l struct {
			ID      string `json:"id"`
			Cluster string `json:"cluster"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("eval: %s:%d: %v: %w", name, line, err, ErrSyntax)
		}
		if l.ID == "" || l.Cluster == "" {
			return nil, fmt.Errorf("eval: %s:%d: id and cluster are required: %w", name, line, ErrSyntax)
		}
		c[l.ID] = l.Cluster
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", name, err)
	}
	return c, nil
}
