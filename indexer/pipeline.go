package indexer

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// RunOptions configures IndexPages.
type RunOptions struct {
	// Workers extract and analyse pages in parallel; 0 means GOMAXPROCS.
	// Decisions are made in input order whatever the number of workers,
	// so a run's clusters do not depend on it.
	Workers int
	// BatchSize is the number of documents per bleve batch; 0 means 200.
	// Larger batches index faster and hold more pages in memory.
	BatchSize int
	// Progress, when set, is called after each batch with running totals.
	Progress func(Stats)
	// OnError, when set, is called with each per-document error (an
	// unreadable page, a page with no main text). The run goes on.
	OnError func(error)
}

// Stats summarise an IndexPages run.
type Stats struct {
	Read    int // documents read from the input
	Indexed int // documents written to bleve
	// Duplicates are documents whose cluster another document represents:
	// a re-indexed representative that keeps its place is not one.
	Duplicates int
	Errors     int           // documents skipped with an error
	Elapsed    time.Duration // since the run started
}

// DocsPerSecond is the rate of documents read.
func (s Stats) DocsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Read) / s.Elapsed.Seconds()
}

// FromPage extracts p's main content as a Document.
func FromPage(p page.Page) (Document, error) {
	return fromPage(context.Background(), p)
}

// fromPage is FromPage giving up soon after ctx is done.
func fromPage(ctx context.Context, p page.Page) (Document, error) {
	c, err := extract.FromPageContext(ctx, p)
	if err != nil {
		return Document{}, &page.Error{Source: p.Source, ID: p.ID, Err: err}
	}
	return Document{ID: p.ID, URL: p.URL, Title: c.Title, Paragraphs: c.Paragraphs}, nil
}

// IndexPages reads pages, extracts and analyses them in parallel, and
// indexes them in input order. Per-document errors go to OnError and are
// counted; the run stops early only when ctx is done or the store fails,
// and everything indexed before that stays indexed.
func (ix *Index) IndexPages(ctx context.Context, pages iter.Seq2[page.Page, error], o RunOptions) (Stats, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 200
	}
	start := time.Now()
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel below, so blocked workers are released
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		p    page.Page
		err  error
		done chan prepared
	}
	// jobs flow to the workers; order keeps them in input order for the
	// writer, bounded so memory stays flat on large inputs.
	jobs := make(chan *job, o.Workers*2)
	order := make(chan *job, o.BatchSize+o.Workers*2)
	go func() {
		defer close(jobs)
		defer close(order)
		for p, err := range pages {
			j := &job{p: p, err: err, done: make(chan prepared, 1)}
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			if err != nil {
				j.done <- prepared{err: err}
				continue
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				j.done <- prepared{err: ctx.Err()}
				return
			}
		}
	}()
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				d, err := fromPage(ctx, j.p)
				var p prepared
				if err == nil {
					p, err = ix.prepare(d)
				}
				p.err = err
				j.done <- p
			}
		}()
	}

	var st Stats
	batch := make([]prepared, 0, o.BatchSize)
	flush := func() error {
		decs, err := ix.write(batch)
		for _, d := range decs {
			if d.Duplicate && d.Representative != d.ID {
				st.Duplicates++
			}
			for _, op := range d.Ops {
				if op.Kind == dedupfilter.OpIndex && op.ID == d.ID {
					st.Indexed++
				}
			}
		}
		batch = batch[:0]
		st.Elapsed = time.Since(start)
		if o.Progress != nil {
			o.Progress(st)
		}
		return err
	}
	for j := range order {
		p := <-j.done
		if ctx.Err() != nil {
			break
		}
		st.Read++
		if p.err != nil {
			st.Errors++
			if o.OnError != nil {
				o.OnError(p.err)
			}
			continue
		}
		batch = append(batch, p)
		if len(batch) == o.BatchSize {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	err := flush()
	if cerr := ctx.Err(); cerr != nil {
		err = errors.Join(fmt.Errorf("indexer: stopped after %d documents: %w", st.Read, cerr), err)
	}
	return st, err
}
