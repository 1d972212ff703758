package pipeline

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"testing"
	"time"
)

// result is an item's result: the item, its size, and its read error.
type result struct {
	n    int
	size int
	err  error
}

// ints are the items 0..n-1, item bad failing to read.
func ints(n, bad int) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for i := range n {
			var err error
			if i == bad {
				err = errors.New("unreadable")
			}
			if !yield(i, err) {
				return
			}
		}
	}
}

// recorder runs items and records what Run did with them.
type recorder struct {
	mu      sync.Mutex
	batches [][]int
	failed  []int
	left    []int
}

func (r *recorder) stages(size func(int) int) Stages[int, result] {
	return Stages[int, result]{
		Stage: func(_ context.Context, i int) result {
			time.Sleep(time.Duration(i%3) * time.Millisecond) // out of order on the workers
			return result{n: i, size: size(i)}
		},
		Fail: func(i int, err error) result { return result{n: i, err: err} },
		Lost: func(int, error) {},
		Take: func(out *result) (int, bool) {
			if out.err != nil {
				r.failed = append(r.failed, out.n)
				return 0, false
			}
			return out.size, true
		},
		Commit: func(batch []result) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			var ns []int
			for _, out := range batch {
				ns = append(ns, out.n)
			}
			if len(ns) > 0 {
				r.batches = append(r.batches, ns)
			}
			return nil
		},
		Leave: func(out result) { r.left = append(r.left, out.n) },
	}
}

func TestRunBatches(t *testing.T) {
	tests := []struct {
		name       string
		n, bad     int
		o          Options
		size       func(int) int
		want       [][]int
		wantFailed []int
	}{
		{"by count", 7, -1, Options{Workers: 3, Ahead: 2, BatchSize: 3}, func(int) int { return 1 },
			[][]int{{0, 1, 2}, {3, 4, 5}, {6}}, nil},
		{"by size", 6, -1, Options{Workers: 2, BatchSize: 10, BatchBytes: 5}, func(i int) int { return i },
			[][]int{{0, 1, 2, 3}, {4, 5}}, nil},
		{"read error", 5, 2, Options{Workers: 2, BatchSize: 2}, func(int) int { return 1 },
			[][]int{{0, 1}, {3, 4}}, []int{2}},
		{"one worker", 4, -1, Options{Workers: 1, BatchSize: 4}, func(int) int { return 1 },
			[][]int{{0, 1, 2, 3}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			if err := Run(context.Background(), ints(tt.n, tt.bad), tt.o, r.stages(tt.size)); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(r.batches, tt.want, slices.Equal) {
				t.Errorf("batches %v, want %v", r.batches, tt.want)
			}
			if !slices.Equal(r.failed, tt.wantFailed) {
				t.Errorf("failed %v, want %v", r.failed, tt.wantFailed)
			}
		})
	}
}

func TestRunCommitError(t *testing.T) {
	var r recorder
	s := r.stages(func(int) int { return 1 })
	errCommit := errors.New("disk full")
	commits := 0
	s.Commit = func([]result) error { commits++; return errCommit }
	if err := Run(context.Background(), ints(100, -1), Options{Workers: 2, BatchSize: 3}, s); !errors.Is(err, errCommit) {
		t.Errorf("Run: %v, want the Commit error", err)
	}
	if commits != 1 {
		t.Errorf("%d commits, want 1: an error ends the run", commits)
	}
}

func TestRunOptionsRejected(t *testing.T) {
	var r recorder
	for _, o := range []Options{{Workers: 0, BatchSize: 1}, {Workers: 1, BatchSize: 0}, {Workers: 1, BatchSize: 1, Ahead: -1}, {Workers: 1, BatchSize: 1, StopBytes: -1}} {
		if err := Run(context.Background(), ints(1, -1), o, r.stages(func(int) int { return 1 })); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Run with %+v: %v, want ErrInvalidOptions", o, err)
		}
	}
}

// TestRunStop stops a run whose input then blocks: Run returns, having
// committed the first results of the batch being gathered up to
// StopBytes and left the others.
func TestRunStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	items := func(yield func(int, error) bool) {
		for i := range 5 {
			if !yield(i, nil) {
				return
			}
		}
		cancel()
		<-make(chan struct{}) // a source that never ends
	}
	var r recorder
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, items, Options{Workers: 2, Ahead: 8, BatchSize: 100, StopBytes: 25}, r.stages(func(int) int { return 10 }))
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the stop: it waited for its input")
	}
	// How many results were taken before the stop depends on timing; the
	// first two (20 bytes, the third would pass 25) are committed, and
	// the rest of those taken left.
	var committed []int
	for _, b := range r.batches {
		committed = append(committed, b...)
	}
	if len(committed) > 2 || len(committed) < 2 && len(r.left) > 0 {
		t.Errorf("committed %v, left %v: want up to the first 2 committed, the rest left", committed, r.left)
	}
	if got := append(committed, r.left...); !slices.Equal(got, []int{0, 1, 2, 3, 4}[:len(got)]) {
		t.Errorf("committed %v then left %v, want the items in input order", committed, r.left)
	}
}

// fromChan are the items sent on in, until it is closed.
func fromChan(in <-chan int) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for i := range in {
			if !yield(i, nil) {
				return
			}
		}
	}
}

func TestFlushIdle(t *testing.T) {
	// Items come one at a time, each waiting for the one before to be
	// committed: with FlushIdle each is a batch of its own.
	in := make(chan int)
	committed := make(chan int)
	items := fromChan(in)
	var r recorder
	s := r.stages(func(int) int { return 1 })
	commit := s.Commit
	s.Commit = func(b []result) error {
		commit(b)
		for _, out := range b {
			committed <- out.n
		}
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), items, Options{Workers: 2, BatchSize: 100, FlushIdle: true}, s)
	}()
	for i := range 3 {
		in <- i
		select {
		case got := <-committed:
			if got != i {
				t.Fatalf("committed %d, want %d", got, i)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("item %d not committed while nothing waits behind it", i)
		}
	}
	close(in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0}, {1}, {2}}; !slices.EqualFunc(r.batches, want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.batches, want)
	}
}

func TestFlushAfter(t *testing.T) {
	in := make(chan int)
	items := fromChan(in)
	var r recorder
	s := r.stages(func(int) int { return 1 })
	committed := make(chan []int, 4)
	commit := s.Commit
	s.Commit = func(b []result) error {
		commit(b)
		if len(b) > 0 {
			committed <- []int{b[0].n, len(b)}
		}
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), items, Options{Workers: 1, BatchSize: 100, FlushAfter: 20 * time.Millisecond}, s)
	}()
	in <- 0
	in <- 1
	select {
	case got := <-committed:
		if got[0] != 0 {
			t.Errorf("the first batch begins with %d, want 0", got[0])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a batch not full was not committed after FlushAfter")
	}
	close(in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
