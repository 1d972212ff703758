package indexer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/docbody"
)

// unseenPage is how many document ids a walk of an index reads at once.
const unseenPage = 1000

// Unseen calls fn with the id of every document of idx that f does not
// hold (written around the filter, or before it), in id order; an error
// from fn stops the walk.
func Unseen(ctx context.Context, idx bleve.Index, f *dedupfilter.Filter, fn func(id string) error) error {
	after := ""
	for {
		req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), unseenPage, 0, false)
		req.SortBy([]string{"_id"})
		if after != "" {
			req.SearchAfter = []string{after}
		}
		res, err := idx.SearchInContext(Uncollapsed(ctx), req)
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

// AdoptOptions configure Adopt.
type AdoptOptions struct {
	// BatchSize documents are decided and rewritten at a time (default
	// 1000).
	BatchSize int
	// Progress, when set, is called after each batch with the counts so
	// far.
	Progress func(AdoptStats)
	// Missing, when set, is called with each document that cannot be
	// adopted and why (its text is not stored: feed it again through
	// the Wrapper).
	Missing func(id string, err error)
}

// AdoptStats count what Adopt did.
type AdoptStats struct {
	Unseen     int // documents the filter did not hold
	Adopted    int // of them, decided and rewritten with their cluster
	Duplicates int // of them, found to be copies
	Missing    int // of them, without their text stored
	Elapsed    time.Duration
}

// ErrNotStored: a document's text, or a field of the index, is not stored
// in bleve, so the filter cannot read it back (Adopt).
var ErrNotStored = errors.New("not stored in the index")

// Adopt brings the documents the wrapped index holds and the filter does
// not (Unseen) under the filter: each is read back from its stored
// fields, decided under the policy as if written through the Wrapper, in
// id order, and written again with its cluster id (under Suppress and
// Replace a copy leaves the index). A crash or a cancellation keeps what
// was decided: running Adopt again goes on with the rest, and once every
// document is held it does nothing.
//
// Rewriting a document from its stored fields keeps it whole only when
// the index stores every field it indexes, as bleve's default mapping
// does; Adopt refuses a mapping that does not (ErrNotStored), naming its
// unstored fields. A document whose text fields are empty once read back
// is left alone and reported to Missing.
func (w *Wrapper) Adopt(ctx context.Context, o AdoptOptions) (AdoptStats, error) {
	if o.BatchSize <= 0 {
		o.BatchSize = 1000
	}
	var st AdoptStats
	start := time.Now()
	if err := w.settle(); err != nil {
		return st, err
	}
	// (The cluster field is the Wrapper's, written with each document.)
	unstored := slices.DeleteFunc(docbody.Unstored(w.wrapped.Mapping()), func(f string) bool { return f == FieldCluster })
	if len(unstored) > 0 {
		return st, fmt.Errorf("indexer: adopt %s: its mapping indexes fields it does not store (%s): rewriting its documents with their clusters would lose them: %w",
			w.wrapped.Name(), strings.Join(unstored, ", "), ErrNotStored)
	}
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		prep := make([]staged, 0, len(batch))
		for _, id := range batch {
			d, err := w.wrapped.Document(id)
			if err != nil {
				return fmt.Errorf("indexer: adopt %s: %w", id, err)
			}
			if d == nil {
				continue // deleted meanwhile
			}
			body := docbody.FromFields(d)
			payload, err := docbody.Encode(body)
			if err != nil {
				return fmt.Errorf("indexer: adopt %s: %w", id, err)
			}
			s, err := w.stageBody(id, body, payload)
			if err == nil && len(s.Paras) == 0 {
				err = fmt.Errorf("no text in %s: %w", w.textFieldNames(), ErrNotStored)
			}
			if err != nil {
				st.Missing++
				if o.Missing != nil {
					o.Missing(id, err)
				}
				continue
			}
			prep = append(prep, s)
		}
		batch = batch[:0]
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
	}
	err := Unseen(ctx, w.wrapped, w.ix.filter, func(id string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.Unseen++
		batch = append(batch, id)
		if len(batch) < o.BatchSize {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	st.Elapsed = time.Since(start)
	return st, err
}

// textFieldNames names where the Wrapper reads a document's text.
func (w *Wrapper) textFieldNames() string {
	if w.opts.HTMLField != "" {
		return w.opts.HTMLField
	}
	return strings.Join(w.opts.TextFields, ", ")
}
