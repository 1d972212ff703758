package main

// This file holds every call into package indexer (and into bleve), so
// that a change of the indexer's API touches one file of the benchmark.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/du"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// The modes a child process runs.
const (
	modeDedup    = "dedup"    // indexer.Index with the filter, policy -policy
	modeSuppress = "suppress" // indexer.Index with the filter, policy suppress
	modeNoDedup  = "nodedup"  // indexer.Index without the filter (index --no-dedup)
	modePlain    = "plain"    // bleve.New with indexer.NewMapping()
	modeDefault  = "default"  // bleve.New with bleve.NewIndexMapping()
	// modeWrap is indexer.Wrap over a bleve index with bleve's default
	// mapping (and indexer.AddFilterFields), policy -policy: a bleve
	// user's index with the filter in front, which stores the text;
	// modeWrapNoDedup the same without the filter.
	modeWrap        = "wrap"
	modeWrapNoDedup = "wrapnodedup"
)

var allModes = []string{modeDedup, modeSuppress, modeNoDedup, modePlain, modeDefault, modeWrap, modeWrapNoDedup}

// filtered reports whether mode indexes through the filter.
func filtered(mode string) bool { return mode == modeDedup || mode == modeSuppress || mode == modeWrap }

// errNoSearch is returned by engines that do not take part in the search
// benchmark.
var errNoSearch = errors.New("bench-scale: this mode does not search")

// errNoFilter is returned by engines without a dedup filter when asked
// what it left out.
var errNoFilter = errors.New("bench-scale: this mode has no dedup filter")

// engine is one mode's index, as the child process drives it.
type engine interface {
	// index indexes pages in batches of batch documents (or, when
	// batchBytes > 0, fewer once their text reaches batchBytes) and calls
	// progress after each batch with the documents read so far and the
	// duplicates found so far.
	index(ctx context.Context, pages iter.Seq2[page.Page, error], batch, batchBytes int, progress func(read, dups int)) (ingest, error)
	// settle waits until bleve's background merges are done.
	settle(ctx context.Context) error
	// disk returns the bytes on disk of the bleve index and of each of
	// the other stores by name.
	disk() (bleveBytes int64, stores map[string]int64)
	// clusters calls fn with each stored document and its cluster.
	clusters(fn func(id, cluster string)) error
	// lost measures the content the filter left out of the search index
	// (eval.LostContent): a page is lost under bound.
	lost(bound float64) (eval.Lost, error)
	// parse compiles the queries of the search benchmark.
	parse(qs []string) error
	// search runs query i for a page of 10 hits, collapsed or not, and
	// returns the number of matching documents.
	search(ctx context.Context, i int, collapse bool) (uint64, error)
	close() error
}

// ingest counts an indexing run's documents.
type ingest struct {
	Read       int `json:"read"`
	Indexed    int `json:"indexed"`
	Duplicates int `json:"duplicates"`
	Errors     int `json:"errors"`
}

// openEngine creates mode's index in dir, which must not exist, with
// scorch configuration bleveConfig (JSON; "" for the indexer's default).
func openEngine(mode, dir, policy, bleveConfig string) (engine, error) {
	var scorchConfig map[string]any // nil: bleve's own
	if bleveConfig != "" {
		if err := json.Unmarshal([]byte(bleveConfig), &scorchConfig); err != nil {
			return nil, fmt.Errorf("bench-scale: -bleve-config: %w", err)
		}
	}
	switch mode {
	case modeDedup, modeSuppress, modeNoDedup:
		o := indexer.Options{NoDedup: mode == modeNoDedup}
		o.BleveConfig = scorchConfig
		if mode == modeSuppress {
			policy = "suppress"
		}
		p, err := dedupfilter.ParsePolicy(policy)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: --policy: %w", err)
		}
		o.Policy = p
		ix, err := indexer.Open(dir, o)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: %w", err)
		}
		return &dedupEngine{ix: ix, dir: dir}, nil
	case modePlain, modeDefault:
		m := indexer.NewMapping()
		if mode == modeDefault {
			m = bleve.NewIndexMapping()
		}
		idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, scorchConfig)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: %w", err)
		}
		return &plainEngine{idx: idx, dir: dir}, nil
	case modeWrap, modeWrapNoDedup:
		p, err := dedupfilter.ParsePolicy(policy)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: --policy: %w", err)
		}
		m := bleve.NewIndexMapping()
		indexer.AddFilterFields(m)
		idx, err := bleve.NewUsing(filepath.Join(dir, "bleve"), m, scorch.Name, scorch.Name, scorchConfig)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: %w", err)
		}
		o := indexer.Options{Store: filepath.Join(dir, "dedup"), Policy: p, NoDedup: mode == modeWrapNoDedup,
			TextFields: []string{indexer.FieldText}, TitleField: indexer.FieldTitle, URLField: indexer.FieldURL}
		w, err := indexer.Wrap(idx, o)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: %w", errors.Join(err, idx.Close()))
		}
		return &dedupEngine{ix: w, dir: dir}, nil
	}
	return nil, fmt.Errorf("bench-scale: unknown mode %q (want %v)", mode, allModes)
}

type dedupEngine struct {
	ix       *indexer.Index
	dir      string
	qs       []query.Query
	searcher *collapse.Searcher
}

func (e *dedupEngine) index(ctx context.Context, pages iter.Seq2[page.Page, error], batch, batchBytes int, progress func(read, dups int)) (ingest, error) {
	o := indexer.DefaultRunOptions()
	o.BatchSize, o.BatchBytes = batch, batchBytes
	o.Progress = func(s indexer.Stats) { progress(s.Read, s.Duplicates) }
	st, err := e.ix.IndexPages(ctx, pages, o)
	return ingest{Read: st.Read, Indexed: st.Indexed, Duplicates: st.Duplicates, Errors: st.Errors}, err
}

func (e *dedupEngine) settle(ctx context.Context) error { return waitMerges(ctx, e.ix.Unwrap()) }

// disk splits the index directory: DIR/bleve is bleve's, the rest (the
// dedup store, the site table) belongs to the filter.
func (e *dedupEngine) disk() (int64, map[string]int64) {
	stores := map[string]int64{}
	var bleveBytes int64
	entries, _ := os.ReadDir(e.dir)
	for _, d := range entries {
		n := du.Bytes(filepath.Join(e.dir, d.Name()))
		if d.Name() == "bleve" {
			bleveBytes = n
		} else {
			stores[d.Name()] = n
		}
	}
	return bleveBytes, stores
}

func (e *dedupEngine) clusters(fn func(id, cluster string)) error {
	return e.ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		for _, m := range c.Members {
			fn(m, c.ID)
		}
		return nil
	})
}

// lost reads the main text only, as the CLI's eval does: the title is not
// content, and reprints change it.
func (e *dedupEngine) lost(bound float64) (eval.Lost, error) {
	l, err := eval.LostContent(e.ix.Filter(), eval.TextFields(indexer.FieldText), bound)
	if err != nil {
		return l, fmt.Errorf("bench-scale: lost content: %w", err)
	}
	return l, nil
}

func (e *dedupEngine) parse(qs []string) error {
	e.qs = e.qs[:0]
	e.searcher = collapse.New(e.ix.Unwrap(), e.ix.Filter())
	for _, s := range qs {
		q, err := boolquery.Query(s, boolquery.Options{Fields: e.ix.SearchFields()})
		if err != nil {
			return fmt.Errorf("bench-scale: query %q: %w", s, err)
		}
		e.qs = append(e.qs, q)
	}
	return nil
}

func (e *dedupEngine) search(ctx context.Context, i int, fold bool) (uint64, error) {
	res, err := e.searcher.Search(ctx, collapse.Request{Query: e.qs[i], Size: 10, Collapse: fold})
	if err != nil {
		return 0, err
	}
	return res.Total, nil
}

func (e *dedupEngine) close() error { return e.ix.Close() }

type plainEngine struct {
	idx bleve.Index
	dir string
}

// index writes each page as the dedup mode's bleve documents look (title,
// text, url, cluster), in batches of the same size.
func (e *plainEngine) index(ctx context.Context, pages iter.Seq2[page.Page, error], batch, batchBytes int, progress func(read, dups int)) (ingest, error) {
	var st ingest
	b := e.idx.NewBatch()
	size := 0 // text bytes in b (the indexer counts its paragraphs' bytes: the same less separators)
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		if err := e.idx.Batch(b); err != nil {
			return fmt.Errorf("bench-scale: bleve batch: %w", err)
		}
		b.Reset()
		size = 0
		progress(st.Read, 0)
		return nil
	}
	for p, err := range pages {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		st.Read++
		if err != nil {
			st.Errors++
			continue
		}
		doc := map[string]any{
			indexer.FieldTitle:   p.Title,
			indexer.FieldText:    p.Text,
			indexer.FieldURL:     p.URL,
			indexer.FieldCluster: p.ID,
		}
		if err := b.Index(p.ID, doc); err != nil {
			return st, fmt.Errorf("bench-scale: %s: %w", p.ID, err)
		}
		st.Indexed++
		if size += len(p.Text); b.Size() >= batch || batchBytes > 0 && size >= batchBytes {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	return st, flush()
}

func (e *plainEngine) settle(ctx context.Context) error { return waitMerges(ctx, e.idx) }

func (e *plainEngine) disk() (int64, map[string]int64) { return du.Bytes(e.dir), nil }

func (e *plainEngine) clusters(func(id, cluster string)) error { return nil }

func (e *plainEngine) lost(float64) (eval.Lost, error) { return eval.Lost{}, errNoFilter }

func (e *plainEngine) parse([]string) error { return errNoSearch }

func (e *plainEngine) search(context.Context, int, bool) (uint64, error) { return 0, errNoSearch }

func (e *plainEngine) close() error { return e.idx.Close() }

// waitMerges waits until bleve's background merging and persisting are
// done (scorch's index_bgthreads_active): a run's time to a settled index
// then counts the merges its batches caused, which Close would cut short.
func waitMerges(ctx context.Context, idx bleve.Index) error {
	for {
		st, _ := idx.StatsMap()["index"].(map[string]any)
		active, ok := st["index_bgthreads_active"].(bool)
		if !ok {
			return fmt.Errorf("bench-scale: bleve stats have no index_bgthreads_active")
		}
		if !active {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond): // StatsMap walks the index files
		}
	}
}
