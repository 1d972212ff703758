package indexer

import (
	"context"
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/recluster"
)

// applyBatch is how many bleve operations Recluster applies at once.
const applyBatch = 500

// Recluster refines the index's clusters with one batch pass over the
// store (see package recluster): clusters found to be one are
// merged, clusters whose members fall apart are split. Unless dryRun, the
// changes are applied and the bleve documents they touch are indexed again
// (with their new cluster id) or removed as the policy says; a collapsed
// search picks them up like any other write. It holds the index's write
// lock throughout, so nothing is indexed meanwhile.
func (ix *engine) recluster(ctx context.Context, o recluster.Options, dryRun bool) (*recluster.Plan, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.noDedup {
		return nil, fmt.Errorf("indexer: recluster: an index without the filter has no clusters: %w", ErrInvalidOptions)
	}
	if !dryRun && ix.readOnly {
		return nil, fmt.Errorf("indexer: recluster: %w", ErrReadOnly)
	}
	plan, err := recluster.Find(ctx, ix.filter, o)
	if err != nil || dryRun {
		return plan, err
	}
	// The bleve writes go in batches of about applyBatch operations; ops
	// not yet applied when something fails stay pending in the store and
	// are applied at the next Open.
	var ops []dedupfilter.Op
	stale, err := plan.Apply(ix.filter, func(o []dedupfilter.Op) error {
		ops = append(ops, o...)
		if len(ops) < applyBatch {
			return nil
		}
		err := ix.apply(ops, nil)
		ops = ops[:0]
		return err
	})
	if err == nil {
		err = ix.apply(ops, nil)
	}
	if err != nil {
		return plan, fmt.Errorf("indexer: recluster: %w", err)
	}
	if stale > 0 {
		return plan, fmt.Errorf("indexer: recluster: %d change sets skipped: the clusters changed since they were planned", stale)
	}
	return plan, nil
}
