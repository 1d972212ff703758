package crawler

import (
	"container/heap"

	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// item is a queued link. It is stored as JSON under its URL.
type item struct {
	URL     string            `json:"u"`
	Depth   int               `json:"d"`
	Seq     uint64            `json:"q"` // discovery order
	Seed    bool              `json:"seed,omitempty"`
	Signals relevance.Signals `json:"s"`           // the link-value paper's four predictions
	Parent  string            `json:"p,omitempty"` // the page that found the link first

	value float64 // Σ w_k·Signals_k with the weights when last computed
	index int     // in the heap; -1 when not queued
}

// frontier is the queue of unfetched links: a heap ordered by the
// strategy, with an index by URL so a better path to a queued link can
// raise its value.
type frontier struct {
	items    []*item
	byURL    map[string]*item
	byParent map[string][]*item // queued links by Parent; fetched ones linger (see children)
	strategy Strategy
}

func newFrontier(s Strategy) *frontier {
	return &frontier{byURL: make(map[string]*item), byParent: make(map[string][]*item), strategy: s}
}

func (f *frontier) Len() int { return len(f.items) }

func (f *frontier) Less(i, j int) bool {
	a, b := f.items[i], f.items[j]
	if f.strategy == BestFirst && a.value != b.value {
		return a.value > b.value
	}
	if f.strategy == BreadthFirst && a.Depth != b.Depth {
		return a.Depth < b.Depth
	}
	return a.Seq < b.Seq
}

func (f *frontier) Swap(i, j int) {
	f.items[i], f.items[j] = f.items[j], f.items[i]
	f.items[i].index, f.items[j].index = i, j
}

func (f *frontier) Push(x any) {
	it := x.(*item)
	it.index = len(f.items)
	f.items = append(f.items, it)
}

func (f *frontier) Pop() any {
	n := len(f.items) - 1
	it := f.items[n]
	f.items[n] = nil
	f.items = f.items[:n]
	it.index = -1
	return it
}

// add queues it with the weights w.
func (f *frontier) add(it *item, w relevance.Signals) {
	it.value = value(it, w)
	f.byURL[it.URL] = it
	if it.Parent != "" {
		f.byParent[it.Parent] = append(f.byParent[it.Parent], it)
	}
	heap.Push(f, it)
}

// children returns the queued links parent found first, dropping the
// entries of links no longer queued (fetched or being fetched).
func (f *frontier) children(parent string) []*item {
	kids := f.byParent[parent][:0]
	for _, it := range f.byParent[parent] {
		if it.index >= 0 {
			kids = append(kids, it)
		}
	}
	if len(kids) == 0 {
		delete(f.byParent, parent)
		return nil
	}
	f.byParent[parent] = kids
	return kids
}

// fix re-orders it after its signals changed.
func (f *frontier) fix(it *item, w relevance.Signals) {
	it.value = value(it, w)
	heap.Fix(f, it.index)
}

// pop removes the best item; it stays in byURL until done.
func (f *frontier) pop() *item { return heap.Pop(f).(*item) }

// push re-queues an item taken by pop and not fetched.
func (f *frontier) push(it *item) { heap.Push(f, it) }

// done forgets a fetched item.
func (f *frontier) done(url string) { delete(f.byURL, url) }

// raise gives the queued link url the signals sig when they predict a
// higher value, and reports whether it did. The link stays the child of
// the page that found it first.
func (f *frontier) raise(url string, sig relevance.Signals, w relevance.Signals) (*item, bool) {
	it, ok := f.byURL[url]
	if !ok || it.index < 0 || it.Seed {
		return nil, false
	}
	if v := dot(sig, w); v > it.value {
		it.Signals, it.value = sig, v
		heap.Fix(f, it.index)
		return it, true
	}
	return nil, false
}

// reweight recomputes every value with new weights.
func (f *frontier) reweight(w relevance.Signals) {
	for _, it := range f.items {
		it.value = value(it, w)
	}
	heap.Init(f)
}

func value(it *item, w relevance.Signals) float64 {
	if it.Seed {
		return 1 // the largest link value: seeds go first
	}
	return dot(it.Signals, w)
}

func dot(s, w relevance.Signals) float64 {
	return s.Anchor*w.Anchor + s.Siblings*w.Siblings + s.Parent*w.Parent + s.URL*w.URL
}
