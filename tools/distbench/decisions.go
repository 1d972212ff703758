package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/synth"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

// roundTrips counts the client's round trips: commands and pipelines.
type roundTrips struct {
	n     atomic.Int64
	mu    sync.Mutex
	names map[string]int
}

func (h *roundTrips) count(name string) {
	h.n.Add(1)
	h.mu.Lock()
	if h.names == nil {
		h.names = map[string]int{}
	}
	h.names[name]++
	h.mu.Unlock()
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.count(cmd.Name()); return next(ctx, cmd) }
}
func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.count("pipeline"); return next(ctx, cmds) }
}

// decisions measures the filter's decisions alone, from one process, on
// synthetic text pages: on Redis and on the embedded Badger store.
func decisions(ctx context.Context, c config) error {
	data, err := synth.FindData()
	if err != nil {
		return err
	}
	model, err := synth.Load(data)
	if err != nil {
		return err
	}
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		return err
	}
	for _, kind := range c.stores {
		eo := embedded.DefaultOptions(filepath.Join(c.work, kind))
		eo.PostingTable = filepath.Join(c.work, kind+".postings")
		eo.SignatureKeys = dedupfilter.DefaultOptions().SignatureKeys
		var local *embedded.Local
		var backend store.Backend
		hook := &roundTrips{}
		var rdb *redis.ClusterClient
		prefix := fmt.Sprintf("distbench-decisions-%d", time.Now().UnixNano())
		if kind == "redis" {
			if local, err = embedded.OpenLocal(eo); err != nil {
				return err
			}
			rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(c.redis, ",")})
			rdb.AddHook(hook)
			backend, err = rediscluster.New(rdb, prefix, local)
		} else {
			var st *embedded.Store
			st, err = embedded.Open(eo)
			local, backend = st.Local(), st
		}
		if err != nil {
			return err
		}
		f, err := dedupfilter.New(backend, dedupfilter.DefaultOptions())
		if err != nil {
			return err
		}
		mem0 := usedMemory(ctx, rdb)
		pages, err := model.Pages(synth.DefaultOptions(c.decisions))
		if err != nil {
			return err
		}
		var prof *os.File
		if c.cpuProfile != "" {
			if prof, err = os.Create(c.cpuProfile + "-" + kind); err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(prof); err != nil {
				return errors.Join(err, prof.Close())
			}
		}
		var took time.Duration
		var verified, dups int
		batch := make([]dedupfilter.Doc, 0, c.batch)
		// flush adds the batch in one AddBatch, as the indexer decides one: its
		// candidates found and verified at once, and on Redis its shared
		// writes made together.
		flush := func() error {
			start := time.Now()
			decs, err := f.AddBatch(batch)
			took += time.Since(start)
			for _, d := range decs {
				verified += d.Candidates
				if d.Duplicate {
					dups++
				}
			}
			batch = batch[:0]
			return err
		}
		n := 0
		for p := range pages {
			feat := an.Analyze(extract.Text(p.Text).Paragraphs)
			if batch = append(batch, dedupfilter.Doc{ID: p.ID, URL: p.URL, Title: p.Title, Features: feat}); len(batch) == cap(batch) {
				if err := flush(); err != nil {
					return err
				}
			}
			n++
		}
		if err := flush(); err != nil {
			return err
		}
		if prof != nil {
			pprof.StopCPUProfile()
			if err := prof.Close(); err != nil {
				return err
			}
		}
		fmt.Printf("%-6s %d decisions in %.1fs: %.0f decisions/s", kind, n, took.Seconds(), float64(n)/took.Seconds())
		fmt.Printf(" (%.2f candidates verified a decision, %d duplicates)", float64(verified)/float64(n), dups)
		if rdb != nil {
			fmt.Printf(", %.2f round trips per decision, %.0f bytes per document in Redis", float64(hook.n.Load())/float64(n),
				float64(usedMemory(ctx, rdb)-mem0)/float64(n))
		}
		fmt.Println()
		if rdb != nil {
			fmt.Println("round trips by command:", hook.names)
		}
		f.Close()
		local.Close()
		if rdb != nil {
			rdb.Close()
			if err := dropPrefix(ctx, c.redis, prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// usedMemory sums used_memory over the cluster's masters (0 without one).
func usedMemory(ctx context.Context, rdb *redis.ClusterClient) int64 {
	if rdb == nil {
		return 0
	}
	var total atomic.Int64
	rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		info, err := c.Info(ctx, "memory").Result()
		for _, l := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
				var n int64
				fmt.Sscan(v, &n)
				total.Add(n)
			}
		}
		return err
	})
	return total.Load()
}
