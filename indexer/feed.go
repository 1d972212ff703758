package indexer

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// Feed indexes pages handed to it one at a time, from any number of
// goroutines, through IndexPages' pipeline: the same batches, content
// hashes, URL ownership and site tables as a bulk run. Add waits for its
// page's decision. A batch is committed as soon as no page waits behind it
// (its callers are waiting) or when it is full, so a few callers get their
// decisions within a batch's commit, and many share a batch.
//
// A crawler feeds the index this way: each fetched page is decided before
// the crawler goes on with it.
type Feed struct {
	in      chan job
	closing chan struct{} // closed by Close: no more pages
	done    chan struct{} // closed when the pipeline has ended
	st      Stats
	err     error

	closeOnce sync.Once
}

// Feed starts a feed with o (o.FlushAfter is not used: a batch is
// committed once nothing waits behind it). Close ends it.
func (ix *engine) feed(ctx context.Context, o RunOptions) (*Feed, error) {
	o = o.resolve()
	if ix.readOnly {
		return nil, fmt.Errorf("indexer: %w", ErrReadOnly)
	}
	o.flushIdle, o.FlushAfter = true, 0
	f := &Feed{in: make(chan job), closing: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.st, f.err = ix.run(ctx, f.jobs(), o)
	}()
	return f, nil
}

// jobs are the pages Add hands in, until Close.
func (f *Feed) jobs() iter.Seq2[job, error] {
	return func(yield func(job, error) bool) {
		for {
			select {
			case j := <-f.in:
				if !yield(j, nil) {
					return
				}
			case <-f.closing:
				return
			}
		}
	}
}

// Add indexes page p and returns its decision. doc, when not nil, is the
// page's content as the caller extracted it (its ID and URL are p's):
// the page is not extracted again. A page the index holds with the same
// content returns ErrUnchanged; a page that cannot be indexed, its error.
// Add is safe for concurrent use; pages are decided in the order their
// Adds are taken.
func (f *Feed) Add(ctx context.Context, p page.Page, doc *Document) (dedupfilter.Decision, error) {
	type result struct {
		dec dedupfilter.Decision
		err error
	}
	answer := make(chan result, 1)
	j := job{p: p, doc: doc, reply: func(d dedupfilter.Decision, err error) { answer <- result{d, err} }}
	select {
	case f.in <- j:
	case <-ctx.Done():
		return dedupfilter.Decision{}, ctx.Err()
	case <-f.closing:
		return dedupfilter.Decision{}, f.closedErr()
	case <-f.done:
		return dedupfilter.Decision{}, f.closedErr()
	}
	select {
	case r := <-answer:
		return r.dec, r.err
	case <-f.done:
		// The pipeline ended (a store failure, or Close): it answers
		// every page it took before ending, unless it failed first.
		select {
		case r := <-answer:
			return r.dec, r.err
		default:
			return dedupfilter.Decision{}, f.closedErr()
		}
	}
}

// closedErr is why a page gets no decision once the feed is closing or
// its pipeline has ended.
func (f *Feed) closedErr() error {
	select {
	case <-f.done:
		if f.err != nil {
			return fmt.Errorf("indexer: feed: %w", f.err)
		}
	default:
	}
	return errFeedClosed
}

var errFeedClosed = errors.New("indexer: feed closed")

// Close ends the feed once the pages added so far are indexed, and returns
// the run's counts. Adds after it fail.
func (f *Feed) Close() (Stats, error) {
	f.closeOnce.Do(func() { close(f.closing) })
	<-f.done
	return f.st, f.err
}
