// Command distbench measures indexing on a shared store: several
// `bleve-dedup index` processes, each with a bleve shard of its own, share
// a Redis Cluster; their clusters are scored against labels and checked
// for duplicates both admitted as representatives.
//
//	go run ./tools/distbench -bin BIN -redis ADDRS -pages DEV.jsonl -labels LABELS.jsonl [-procs 1,2,4,8] [-reps 5] [-inject pause|longpause|kill]
//	go run ./tools/distbench -bin BIN -redis ADDRS -pages DEV.jsonl -labels LABELS.jsonl -fault indexer|master
//	go run ./tools/distbench -redis ADDRS -decisions 100000
//	go run ./tools/distbench -redis ADDRS -pages PAGES.jsonl -labels LABELS.jsonl -frontier all
//	go run ./tools/distbench -bin BIN -redis ADDRS -pages PAGES.jsonl -bytes
//
// BIN is a built bleve-dedup; DEV.jsonl is the development set's pages as
// `bleve-dedup extract --format jsonl` prints them (extraction done once,
// so the runs measure the store). Each run's input is shuffled with the
// repetition's seed and dealt round-robin to the processes. The
// single-process run on the embedded Badger store is the reference.
// -inject stops indexers for seconds at random while they run, one for a
// minute or more (longpause, -pause-for), or kills
// one with SIGKILL and runs it again once the others are done. -frontier
// measures the bytes a page costs in Redis under store layouts (the
// signature's term sketch, the posting keys a page gets) beside the
// scores: INFO memory over the masters, and MEMORY USAGE summed over the
// run's keys (which other clients' writes do not disturb); -bytes measures what a build of another version costs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/indexer"
)

type config struct {
	bin, redis, pages, labels, work string
	procs                           []int
	reps, from                      int
	fault, inject, layouts          string
	pauseFor                        time.Duration // -inject longpause
	bytes                           bool
	decisions                       int
	policy                          string
	stores                          []string
	batch                           int
	cpuProfile                      string
}

func main() {
	var c config
	var procs string
	flag.StringVar(&c.bin, "bin", "", "a built bleve-dedup")
	flag.StringVar(&c.redis, "redis", "", "Redis Cluster seed addresses, comma-separated")
	flag.StringVar(&c.pages, "pages", "", "pages, JSONL")
	flag.StringVar(&c.labels, "labels", "", "labels, JSONL")
	flag.StringVar(&c.work, "work", "", "work directory (default: a temporary one)")
	flag.StringVar(&procs, "procs", "1,2,4", "numbers of indexer processes")
	flag.IntVar(&c.reps, "reps", 5, "repetitions, each with its own input order")
	flag.IntVar(&c.from, "from", 1, "the first repetition to run (-from 4 -reps 5 runs the fourth and fifth)")
	flag.StringVar(&c.layouts, "frontier", "", "index -pages into Redis in this process under each of these store layouts (comma-separated names, or all), and print bytes a page in Redis (INFO memory, and MEMORY USAGE of the run's keys) beside P, R and F1")
	flag.BoolVar(&c.bytes, "bytes", false, "index -pages with -bin in one process and print the bytes a page costs in Redis (a build of another version)")
	flag.StringVar(&c.inject, "inject", "", "faults in every Redis run: pause (stop an indexer for 1-3 s now and then), longpause (stop one indexer once, 0.2-1.2 s in, for -pause-for) or kill (kill -9 one at random 1-4 s in, then run it again)")
	flag.DurationVar(&c.pauseFor, "pause-for", time.Minute, "-inject longpause: how long the indexer stays stopped")
	flag.StringVar(&c.fault, "fault", "", "a fault in a 2-process run: indexer (kill -9 one at mid-run, then run it again) or master (kill -9 a Redis master at mid-run)")
	flag.IntVar(&c.decisions, "decisions", 0, "measure this many filter decisions from one process on Redis and on Badger (synthetic pages), instead")
	flag.StringVar(&c.policy, "policy", "suppress", "dedup policy")
	flag.IntVar(&c.batch, "batch", indexer.DefaultRunOptions().BatchSize, "-decisions: documents a batch decides (the indexer's batch)")
	stores := flag.String("stores", "redis,badger", "-decisions: the stores to measure, in this order")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "-decisions: write a CPU profile of each store's decisions to this path with the store's name appended")
	flag.Parse()
	c.stores = strings.Split(*stores, ",")
	for _, p := range strings.Split(procs, ",") {
		var n int
		fmt.Sscan(p, &n)
		c.procs = append(c.procs, n)
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "distbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	if c.redis == "" && (c.decisions == 0 || slices.Contains(c.stores, "redis")) {
		return fmt.Errorf("-redis: name the cluster")
	}
	if c.work == "" {
		dir, err := os.MkdirTemp("", "distbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.work = dir
	}
	if c.decisions > 0 {
		return decisions(ctx, c)
	}
	if c.layouts != "" {
		if c.pages == "" || c.labels == "" {
			return fmt.Errorf("-frontier: -pages and -labels are needed")
		}
		return frontier(ctx, c)
	}
	if c.bytes {
		if c.bin == "" || c.pages == "" {
			return fmt.Errorf("-bytes: -bin and -pages are needed")
		}
		return binaryBytes(ctx, c)
	}
	if c.bin == "" || c.pages == "" || c.labels == "" {
		return fmt.Errorf("-bin, -pages and -labels are needed")
	}
	if c.fault != "" {
		return faults(ctx, c)
	}
	return shares(ctx, c)
}

// dropPrefix removes a run's keys (those under prefix, and those of its
// own slot) from the cluster at addrs, so repeated runs do not fill it.
func dropPrefix(ctx context.Context, addrs, prefix string) error {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	defer rdb.Close()
	if err := dropPattern(ctx, rdb, prefix+":*"); err != nil {
		return err
	}
	return dropPattern(ctx, rdb, "{"+prefix+"}:*")
}

func dropPattern(ctx context.Context, rdb *redis.ClusterClient, pattern string) error {
	return rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		pipe := c.Pipeline()
		for it.Next(ctx) {
			pipe.Unlink(ctx, it.Val())
			if pipe.Len() == 1000 {
				if _, err := pipe.Exec(ctx); err != nil {
					return err
				}
			}
		}
		if pipe.Len() > 0 {
			if _, err := pipe.Exec(ctx); err != nil {
				return err
			}
		}
		return it.Err()
	})
}
