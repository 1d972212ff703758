package eval

import "github.com/bleve-dedup/bleve-dedup/dedupfilter"

// ClusterLister walks the clusters of a dedup store; *dedupfilter.Filter
// is one.
type ClusterLister interface {
	Clusters(fn func(dedupfilter.Cluster) error) error
}

// Predicted returns the clustering a dedup store holds.
func Predicted(store ClusterLister) (Clustering, error) {
	pred := Clustering{}
	err := store.Clusters(func(c dedupfilter.Cluster) error {
		for _, m := range c.Members {
			pred[m] = c.ID
		}
		return nil
	})
	return pred, err
}

// Run is the result of scoring an indexing run against labels.
type Run struct {
	Scores
	// Unlabelled counts the indexed documents the labels do not know;
	// they are left out of the scores.
	Unlabelled int
	// Unindexed counts the labelled documents the run did not index (a
	// page that could not be read or had no main text). Each is scored
	// as a cluster of its own, so failures cost recall instead of
	// vanishing from the figures.
	Unindexed int
}

// ScoreRun scores the clusters pred of an indexing run against gold.
func ScoreRun(pred, gold Clustering) Run {
	var r Run
	full := make(Clustering, len(pred)+len(gold))
	for id, c := range pred {
		full[id] = c
		if _, ok := gold[id]; !ok {
			r.Unlabelled++
		}
	}
	for id := range gold {
		if _, ok := pred[id]; !ok {
			full[id] = "unindexed:" + id
			r.Unindexed++
		}
	}
	r.Scores = Score(full, gold)
	return r
}
