package indexer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer/internal/pipeline"
	"github.com/bleve-dedup/bleve-dedup/internal/docbody"
)

// unseenPage is how many document ids a walk of an index reads at once.
const unseenPage = 1000

// Unseen calls fn with the id of every document of the bleve index that
// the filter does not hold (written around it, or before it), in id
// order; an error from fn stops the walk.
func (w *Index) Unseen(ctx context.Context, fn func(id string) error) error {
	if err := w.settle(); err != nil {
		return err
	}
	idx, f := w.wrapped, w.ix.filter
	after := ""
	for {
		req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), unseenPage, 0, false)
		req.SortBy([]string{"_id"})
		if after != "" {
			req.SearchAfter = []string{after}
		}
		res, err := idx.SearchInContext(ctx, req)
		if err != nil {
			return fmt.Errorf("indexer: documents of %s: %w", idx.Name(), err)
		}
		for _, h := range res.Hits {
			if _, err := f.Meta(h.ID); errors.Is(err, dedupfilter.ErrNotFound) {
				if err := fn(h.ID); err != nil {
					return err
				}
			} else if err != nil {
				return fmt.Errorf("indexer: %s: %w", h.ID, err)
			}
		}
		if len(res.Hits) < unseenPage {
			return nil
		}
		after = res.Hits[len(res.Hits)-1].ID
	}
}

// AdoptOptions configure Adopt; their zero values mean the defaults.
type AdoptOptions struct {
	// BatchSize documents at most are decided and rewritten at a time
	// (default 1000).
	BatchSize int
	// BatchBytes ends a batch early once its documents' stored fields
	// reach this many bytes (default DefaultAdoptBatchBytes). A document
	// is rewritten whole, so bleve analyses every field it stores again,
	// raw HTML included, and holds about a hundred times their size while
	// the batch is written: counted in documents alone, a batch of large
	// pages takes gigabytes.
	BatchBytes int
	// Progress, when set, is called after each batch with the counts so
	// far.
	Progress func(AdoptStats)
	// Missing, when set, is called with each document that cannot be
	// adopted and why (its text is not stored: feed it again through
	// the Index).
	Missing func(id string, err error)
}

// DefaultAdoptBatchBytes is AdoptOptions.BatchBytes's default. On the
// 1,902 development pages (54 KB of HTML each, in a plain index with
// bleve's default mapping) adopt's peak RssAnon was 4.7–5.2 GiB in
// batches of 1,000 documents and 1.6 GiB in batches of 100; with this
// bound 0.75 GiB (1 MiB: 0.55, 16 MiB: 2.1), in about 15% more time:
// more, smaller bleve segments.
const DefaultAdoptBatchBytes = 4 << 20

// AdoptStats count what Adopt did.
type AdoptStats struct {
	Unseen     int // documents the filter did not hold
	Adopted    int // of them, decided and rewritten with their cluster
	Duplicates int // of them, found to be copies
	Missing    int // of them, without their text stored
	Elapsed    time.Duration
}

// adoptee is a document on its way through Adopt.
type adoptee struct {
	id string
	s  staged // s.err: why it cannot be adopted (AdoptOptions.Missing)
	// failed: reading it back failed, which stops the run.
	failed error
	gone   bool // deleted since the walk found it
}

// Adopt brings the documents the wrapped index holds and the filter does
// not (Unseen) under the filter: each is read back from its stored
// fields, decided under the policy as if written through the Index, in
// id order, and written again with its cluster id (under Suppress and
// Replace a copy leaves the index). Documents are read back and their text
// extracted in parallel, and decided and written in batches, as IndexPages
// does pages (package pipeline), bounded in count and in bytes. A crash or
// a cancellation keeps what was decided: running Adopt again goes on with
// the rest, and once every document is held it does nothing.
//
// Rewriting a document from its stored fields keeps it whole only when
// the index stores every field it indexes, as bleve's default mapping
// does; Adopt refuses a mapping that does not (ErrNotStored), naming its
// unstored fields. A document whose text fields are empty once read back
// is left alone and reported to Missing.
func (w *Index) Adopt(ctx context.Context, o AdoptOptions) (AdoptStats, error) {
	if o.BatchSize <= 0 {
		o.BatchSize = 1000
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultAdoptBatchBytes
	}
	var st AdoptStats
	start := time.Now()
	if err := w.settle(); err != nil {
		return st, err
	}
	// (The cluster field is the Index's, written with each document.)
	unstored := slices.DeleteFunc(docbody.Unstored(w.wrapped.Mapping()), func(f string) bool { return f == FieldCluster })
	if len(unstored) > 0 {
		return st, fmt.Errorf("indexer: adopt %s: its mapping indexes fields it does not store (%s): rewriting its documents with their clusters would lose them: %w",
			w.wrapped.Name(), strings.Join(unstored, ", "), ErrNotStored)
	}
	// A failed walk or read stops the run as a cancellation does, keeping
	// what was decided before it.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	ids := func(yield func(string, error) bool) {
		taken := errors.New("the run takes no more") // (the pipeline stopped)
		err := w.Unseen(ctx, func(id string) error {
			if !yield(id, nil) {
				return taken
			}
			return nil
		})
		if err != nil && err != taken {
			stop(err)
		}
	}
	err := pipeline.Run(ctx, ids, pipeline.Options{Workers: runtime.GOMAXPROCS(0), Ahead: adoptAhead,
		BatchSize: o.BatchSize, BatchBytes: o.BatchBytes, StopBytes: stopBytes}, pipeline.Stages[string, adoptee]{
		Stage: func(_ context.Context, id string) adoptee { return w.adoptee(id) },
		Fail:  func(id string, err error) adoptee { return adoptee{id: id, failed: err} },
		Lost:  func(string, error) {},
		Take: func(a *adoptee) (int, bool) {
			st.Unseen++
			switch {
			case a.failed != nil:
				stop(a.failed)
				return 0, false
			case a.gone:
				return 0, false
			case a.s.err != nil:
				st.Missing++
				if o.Missing != nil {
					o.Missing(a.id, a.s.err)
				}
				return 0, false
			}
			return len(a.s.Doc.Payload), true
		},
		Commit: func(batch []adoptee) error {
			if len(batch) == 0 {
				return nil
			}
			prep := make([]staged, len(batch))
			for i, a := range batch {
				prep[i] = a.s
			}
			decs, err := w.ix.commit(prep)
			for _, d := range decs {
				st.Adopted++
				if d.Duplicate {
					st.Duplicates++
				}
			}
			st.Elapsed = time.Since(start)
			if o.Progress != nil {
				o.Progress(st)
			}
			return err
		},
		Leave: func(adoptee) { st.Unseen-- }, // undecided: unseen still, for the next run
	})
	st.Elapsed = time.Since(start)
	return st, cmp.Or(err, context.Cause(ctx))
}

// adoptAhead is how many documents Adopt reads back and extracts ahead of
// the batch being gathered: enough to keep the workers busy while a batch
// is written, few enough that their stored fields stay small beside it.
const adoptAhead = 64

// adoptee reads id back from the wrapped index and stages it.
func (w *Index) adoptee(id string) adoptee {
	d, err := w.wrapped.Document(id)
	if err != nil {
		return adoptee{id: id, failed: fmt.Errorf("indexer: adopt %s: %w", id, err)}
	}
	if d == nil {
		return adoptee{id: id, gone: true}
	}
	body := docbody.FromFields(d)
	payload, err := docbody.Encode(body)
	if err != nil {
		return adoptee{id: id, failed: fmt.Errorf("indexer: adopt %s: %w", id, err)}
	}
	s, err := w.stageBody(id, body, payload)
	if err == nil && len(s.Paras) == 0 {
		err = fmt.Errorf("no text in %s: %w", w.textFieldNames(), ErrNotStored)
	}
	s.err = err
	return adoptee{id: id, s: s}
}

// textFieldNames names where the Index reads a document's text.
func (w *Index) textFieldNames() string {
	if w.opts.HTMLField != "" {
		return w.opts.HTMLField
	}
	return strings.Join(w.opts.TextFields, ", ")
}
