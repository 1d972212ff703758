package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// layout is a setting of the options that shape what the shared store
// keeps: the signature's term sketch and the posting keys a page gets.
type layout struct {
	name string
	edit func(*dedupfilter.Options)
}

// layouts are the settings the frontier measures, the default first,
// each but the default changing it.
var layouts = []layout{
	{"default", func(*dedupfilter.Options) {}},
	{"32 bands of 4 + 8 pieces", func(o *dedupfilter.Options) { o.Bands, o.Rows, o.PiecesPerDoc = 32, 4, 8 }},
	{"32 bands of 4", func(o *dedupfilter.Options) { o.Bands, o.Rows = 32, 4 }},
	{"8 pieces", func(o *dedupfilter.Options) { o.PiecesPerDoc = 8 }},
	{"terms exact", func(o *dedupfilter.Options) { o.TermSketch = 0 }},
	{"sketch 128", func(o *dedupfilter.Options) { o.TermSketch = 128 }},
	{"sketch 32", func(o *dedupfilter.Options) { o.TermSketch = 32 }},
	{"8 blocks", func(o *dedupfilter.Options) { o.BlocksPerDoc = 8 }},
	{"4 blocks", func(o *dedupfilter.Options) { o.BlocksPerDoc = 4 }},
	{"sketch 32 + 8 blocks", func(o *dedupfilter.Options) { o.TermSketch, o.BlocksPerDoc = 32, 8 }},
	{"min shared 4", func(o *dedupfilter.Options) { o.MinShared = 4 }},
}

// frontier indexes the pages into Redis, in this process, under each
// layout named in c.layouts (all for "all"), and prints the bytes a page
// costs in Redis (INFO memory over the masters) beside the scores.
func frontier(ctx context.Context, c config) error {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(c.redis, ",")})
	defer rdb.Close()
	fmt.Printf("%-36s %7s %10s %10s %8s %8s %8s %8s\n", "layout", "docs", "bytes/doc", "keys/doc", "P", "R", "F1", "seconds")
	for _, l := range layouts {
		if c.layouts != "all" && !slices.Contains(strings.Split(c.layouts, ","), l.name) {
			continue
		}
		prefix := fmt.Sprintf("distbench-frontier-%d", time.Now().UnixNano())
		dir, err := os.MkdirTemp(c.work, "frontier-")
		if err != nil {
			return err
		}
		fo := dedupfilter.DefaultOptions()
		l.edit(&fo)
		o := indexer.Options{Store: "redis://" + c.redis + "/" + prefix, Filter: &fo}
		o.Policy, _ = dedupfilter.ParsePolicy(c.policy)
		mem0 := usedMemory(ctx, rdb)
		start := time.Now()
		ix, err := indexer.Open(filepath.Join(dir, "shard-0"), o)
		if err != nil {
			return err
		}
		st, err := ix.IndexPages(ctx, page.Read([]string{c.pages}, page.DefaultOptions()), indexer.DefaultRunOptions())
		if cerr := ix.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		secs := time.Since(start).Seconds()
		docs := st.Read - st.Errors - st.Unchanged
		bytes := float64(usedMemory(ctx, rdb)-mem0) / float64(docs)
		out, err := score(c, dir, o.Store)
		if err != nil {
			return err
		}
		keys, err := keyMemory(ctx, rdb, prefix)
		if err != nil {
			return err
		}
		fmt.Printf("%-36s %7d %10.0f %10.0f %8.4f %8.4f %8.4f %8.1f\n", l.name, docs, bytes, float64(keys)/float64(docs), out.Precision, out.Recall, out.F1, secs)
		if err := dropPrefix(ctx, c.redis, prefix); err != nil {
			return err
		}
		os.RemoveAll(dir)
	}
	return nil
}

// keyMemory sums MEMORY USAGE over the keys of a run (those under
// prefix, and those of its own slot): what its keys cost whatever else
// the cluster holds or does meanwhile, where INFO memory counts the whole
// server (and another client's writes).
func keyMemory(ctx context.Context, rdb *redis.ClusterClient, prefix string) (int64, error) {
	var total atomic.Int64
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		for _, pattern := range []string{prefix + ":*", "{" + prefix + "}:*"} {
			it := c.Scan(ctx, 0, pattern, 1000).Iterator()
			pipe := c.Pipeline()
			var cmds []*redis.IntCmd
			flush := func() error {
				if len(cmds) == 0 {
					return nil
				}
				if _, err := pipe.Exec(ctx); err != nil {
					return err
				}
				for _, cmd := range cmds {
					total.Add(cmd.Val())
				}
				cmds = cmds[:0]
				return nil
			}
			for it.Next(ctx) {
				cmds = append(cmds, pipe.MemoryUsage(ctx, it.Val(), 0))
				if len(cmds) == 1000 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			if err := errors.Join(it.Err(), flush()); err != nil {
				return err
			}
		}
		return nil
	})
	return total.Load(), err
}

// binaryBytes indexes the pages with c.bin in one process into a fresh
// prefix and prints the bytes a page costs in Redis: for a build of
// another version, whose store this one does not read.
func binaryBytes(ctx context.Context, c config) error {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(c.redis, ",")})
	defer rdb.Close()
	prefix := fmt.Sprintf("distbench-bytes-%d", time.Now().UnixNano())
	dir, err := os.MkdirTemp(c.work, "bytes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mem0 := usedMemory(ctx, rdb)
	cmd := indexCmd(ctx, c, dir, "redis://"+c.redis+"/"+prefix, c.pages, 0)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %w\n%s", cmd.Args, err, out)
	}
	var read, errs int
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "read ") {
			fmt.Sscanf(l, "read %d,", &read)
			if i := strings.Index(l, "errors "); i >= 0 {
				fmt.Sscanf(l[i:], "errors %d", &errs)
			}
		}
	}
	if read == 0 {
		return fmt.Errorf("no summary in the output of %v:\n%s", cmd.Args, out)
	}
	fmt.Printf("%s: %d pages, %.0f bytes a page in Redis\n", c.bin, read-errs, float64(usedMemory(ctx, rdb)-mem0)/float64(read-errs))
	return dropPrefix(ctx, c.redis, prefix)
}
