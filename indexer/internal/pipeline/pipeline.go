// Package pipeline runs a stream of items through parallel workers and
// commits their results in input order, in batches (Run); Each runs a
// function over a slice's indexes in parallel.
//
// # Basics
//
// Run reads items in order, stages each on one of Options.Workers
// goroutines (Stages.Stage), and hands the results back in input order
// (Stages.Take), gathering them into batches that it commits
// (Stages.Commit) once a batch holds BatchSize results or BatchBytes of
// their sizes, once its first result has waited FlushAfter, or, with
// FlushIdle, as soon as nothing waits behind it. Memory is bounded: Ahead
// + 2·Workers items are read ahead of the batch being gathered.
//
// # Stops
//
// When ctx is done, Run does not wait for the input to end (its reader may
// be blocked in a slow source) nor for the whole batch being gathered to
// be staged: it commits the results of that batch up to StopBytes of
// their sizes and hands the others back (Stages.Leave), for a later run
// on the same input to decide them as this one would have.
package pipeline

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Options configure Run.
type Options struct {
	// Workers stage items in parallel (at least 1).
	Workers int
	// Ahead is how many items may be staged ahead of the batch being
	// gathered.
	Ahead int
	// BatchSize is the most results in a batch (at least 1); BatchBytes
	// ends a batch once their sizes reach it (0: no bound).
	BatchSize, BatchBytes int
	// FlushAfter, when positive, commits a batch once its first result
	// has waited that long, full or not.
	FlushAfter time.Duration
	// FlushIdle commits a batch as soon as no item waits behind it (its
	// items' senders are waiting for them).
	FlushIdle bool
	// StopBytes is how much of the batch being gathered, by its results'
	// sizes, a stop commits.
	StopBytes int
}

// ErrInvalidOptions: an Options field out of range (the same value as
// every package's ErrInvalidOptions).
var ErrInvalidOptions = errs.InvalidOptions

// Stages are what Run does with items of type I and their results, of
// type O.
type Stages[I, O any] struct {
	// Stage makes an item's result, on a worker goroutine, giving up
	// soon after ctx is done.
	Stage func(ctx context.Context, item I) O
	// Fail makes the result of an item that is not staged: err is its
	// read error, or ctx's when the run stopped before a worker took it.
	Fail func(item I, err error) O
	// Lost is told of an item read as the run stopped, before it had a
	// place in the order: it has no result.
	Lost func(item I, err error)
	// Take is given each result in input order, to count or change; it
	// says whether the result joins the batch being gathered, and its
	// size.
	Take func(out *O) (size int, join bool)
	// Commit commits a batch: one with results, and last the batch left
	// when the input ends or the run stops (perhaps empty). An error ends
	// the run. The batch is not reused: Commit may keep it.
	Commit func(batch []O) error
	// Leave is given each result of the batch being gathered that a stop
	// leaves out.
	Leave func(out O)
}

// job is one item on its way: read in order, staged by a worker, taken in
// order.
type job[I, O any] struct {
	item I
	done chan O
}

// Run runs items through s until they end, ctx is done, or Commit fails,
// and returns Commit's error. See the package doc.
func Run[I, O any](ctx context.Context, items iter.Seq2[I, error], o Options, s Stages[I, O]) error {
	if o.Workers < 1 || o.BatchSize < 1 || o.Ahead < 0 || o.BatchBytes < 0 || o.FlushAfter < 0 || o.StopBytes < 0 {
		return fmt.Errorf("pipeline: Workers %d and BatchSize %d must be positive, Ahead %d, BatchBytes %d, FlushAfter %v and StopBytes %d not negative: %w",
			o.Workers, o.BatchSize, o.Ahead, o.BatchBytes, o.FlushAfter, o.StopBytes, ErrInvalidOptions)
	}
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel below, so blocked workers are released
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// work flows to the workers; order keeps the jobs in input order for
	// the committer, bounded so memory stays flat on large inputs.
	work := make(chan *job[I, O], o.Workers*2)
	order := make(chan *job[I, O], o.Ahead+o.Workers*2)
	go read(ctx, items, work, order, s)
	for range o.Workers {
		wg.Go(func() {
			for {
				// A stop does not wait for the input to end: its reader
				// may be blocked in a slow source.
				var j *job[I, O]
				var ok bool
				select {
				case j, ok = <-work:
				case <-ctx.Done():
				}
				if !ok {
					return
				}
				out := s.Stage(ctx, j.item)
				var zero I
				j.item = zero // not needed while the job waits for its batch
				j.done <- out
			}
		})
	}
	return commit(ctx, order, o, s)
}

// read sends every item's job to order, in input order, and those without
// a read error to work, until the input ends or ctx is done.
func read[I, O any](ctx context.Context, items iter.Seq2[I, error], work, order chan<- *job[I, O], s Stages[I, O]) {
	defer close(work)
	defer close(order)
	for item, err := range items {
		j := &job[I, O]{item: item, done: make(chan O, 1)}
		select {
		case order <- j:
		case <-ctx.Done():
			s.Lost(item, ctx.Err())
			return
		}
		if err != nil {
			j.done <- s.Fail(item, err)
			continue
		}
		select {
		case work <- j:
		case <-ctx.Done():
			j.done <- s.Fail(item, ctx.Err())
			return
		}
	}
}

// commit takes the staged jobs in input order and commits their results
// in batches.
func commit[I, O any](ctx context.Context, order <-chan *job[I, O], o Options, s Stages[I, O]) error {
	batch := make([]O, 0, o.BatchSize)
	var sizes []int // of batch's results
	size := 0       // their sum
	flush := func() error {
		err := s.Commit(batch)
		batch, sizes, size = make([]O, 0, o.BatchSize), sizes[:0], 0 // Commit may keep the old one
		return err
	}
	// due fires FlushAfter after the first result of a batch came in.
	var due <-chan time.Time
	for ctx.Err() == nil {
		var j *job[I, O]
		var ok bool
		if o.FlushIdle && len(batch) > 0 {
			select {
			case j, ok = <-order:
			default:
				// Nothing waits behind the batch: its senders do.
				due = nil
				if err := flush(); err != nil {
					return err
				}
				continue
			}
		} else {
			select {
			case j, ok = <-order:
			case <-due:
				due = nil
				if err := flush(); err != nil {
					return err
				}
				continue
			case <-ctx.Done():
				continue
			}
		}
		if !ok {
			break
		}
		var out O
		select {
		case out = <-j.done:
		case <-ctx.Done():
			continue
		}
		n, join := s.Take(&out)
		if !join {
			continue
		}
		if len(batch) == 0 && o.FlushAfter > 0 {
			due = time.After(o.FlushAfter)
		}
		batch, sizes, size = append(batch, out), append(sizes, n), size+n
		// A batch filled as a stop came is not begun: the stop below
		// commits its first results only.
		if ctx.Err() == nil && (len(batch) == o.BatchSize || o.BatchBytes > 0 && size >= o.BatchBytes) {
			due = nil
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if ctx.Err() != nil {
		// A stop does not wait for the whole batch being gathered to be
		// committed, only for its first StopBytes, items read well
		// before the stop when the input is slow.
		keep, sum := 0, 0
		for ; keep < len(batch); keep++ {
			if sum += sizes[keep]; sum > o.StopBytes {
				break
			}
		}
		for _, out := range batch[keep:] {
			s.Leave(out)
		}
		batch = batch[:keep]
	}
	return flush()
}
