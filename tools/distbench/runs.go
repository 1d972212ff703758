package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

// outcome is a run's clusters scored against the labels.
type outcome struct {
	eval.Scores
	// BothReps counts the labelled duplicate pairs whose two pages are
	// both representatives (both in the search index under suppress).
	BothReps int
	Seconds  float64
	clusters map[string][]string // representative's cluster -> members, sorted
}

// deal shuffles the page lines with seed and deals them to n files.
func deal(c config, dir string, seed uint64, n int) ([]string, error) {
	b, err := os.ReadFile(c.pages)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	var files []string
	for k := range n {
		var part []string
		for i := k; i < len(lines); i += n {
			part = append(part, lines[i])
		}
		f := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", k))
		if err := os.WriteFile(f, []byte(strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// indexCmd is one indexer process: shard k of the run in dir.
func indexCmd(ctx context.Context, c config, dir, store, input string, k int) *exec.Cmd {
	args := []string{"index", "--index", filepath.Join(dir, fmt.Sprintf("shard-%d", k)), "--policy", c.policy}
	if store != "" {
		args = append(args, "--store", store)
	}
	cmd := exec.CommandContext(ctx, c.bin, append(args, input)...)
	cmd.Stdout, cmd.Stderr = nil, nil
	return cmd
}

// runAll runs the commands at once and waits for them.
func runAll(cmds []*exec.Cmd) error {
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	for i, cmd := range cmds {
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%v: %w\n%s", cmd.Args, err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// score reads the clusters of the store (Redis under store, or the
// embedded store of shard 0 in dir) and scores them.
func score(c config, dir, store string) (outcome, error) {
	var o outcome
	var f *dedupfilter.Filter
	var closeAll func()
	if store != "" {
		b, err := rediscluster.Open(store, nil)
		if err != nil {
			return o, err
		}
		if f, err = dedupfilter.New(b, indexer.DefaultOptions().Filter); err != nil {
			b.Close()
			return o, err
		}
		closeAll = func() { f.Close() }
	} else {
		ix, err := indexer.Open(filepath.Join(dir, "shard-0"), indexer.DefaultOptions())
		if err != nil {
			return o, err
		}
		f, closeAll = ix.Filter(), func() { ix.Close() }
	}
	defer closeAll()
	pred, err := eval.Predicted(f)
	if err != nil {
		return o, err
	}
	lf, err := os.Open(c.labels)
	if err != nil {
		return o, err
	}
	gold, err := eval.ReadLabels(lf, c.labels)
	lf.Close()
	if err != nil {
		return o, err
	}
	o.Scores = eval.ScoreRun(pred, gold).Scores
	o.clusters = map[string][]string{}
	indexed := map[string]bool{}
	err = f.Clusters(func(cl dedupfilter.Cluster) error {
		o.clusters[cl.ID] = cl.Members
		for _, m := range cl.Members {
			e, err := f.Meta(m)
			if err != nil {
				return err
			}
			indexed[m] = e.Indexed
		}
		return nil
	})
	if err != nil {
		return o, err
	}
	byLabel := map[string][]string{}
	for id, l := range gold {
		byLabel[l] = append(byLabel[l], id)
	}
	for _, ids := range byLabel {
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				if indexed[ids[i]] && indexed[ids[j]] {
					o.BothReps++
				}
			}
		}
	}
	return o, nil
}

// partition renders clusters as sorted member lists, sorted: equal for two
// runs that grouped the pages alike, whatever their cluster ids.
func partition(cl map[string][]string) []string {
	var out []string
	for _, ms := range cl {
		ms = slices.Clone(ms)
		slices.Sort(ms)
		out = append(out, strings.Join(ms, " "))
	}
	slices.Sort(out)
	return out
}

// shares runs every number of processes, every repetition, and prints a
// table beside the single-process Badger reference of the same order.
func shares(ctx context.Context, c config) error {
	fmt.Printf("%-10s %3s %4s %8s %8s %8s %9s %8s\n", "store", "procs", "rep", "P", "R", "F1", "both reps", "seconds")
	for rep := 1; rep <= c.reps; rep++ {
		ref, err := oneRun(ctx, c, rep, 1, "")
		if err != nil {
			return err
		}
		report("badger", 1, rep, ref)
		for _, n := range c.procs {
			prefix := fmt.Sprintf("distbench-%d-%d-%d", rep, n, time.Now().UnixNano())
			o, err := oneRun(ctx, c, rep, n, "redis://"+c.redis+"/"+prefix)
			if err == nil {
				err = dropPrefix(ctx, c.redis, prefix)
			}
			if err != nil {
				return err
			}
			report("redis", n, rep, o)
			fmt.Printf("%27s ΔF1 vs badger %+.4f\n", "", o.F1-ref.F1)
		}
	}
	return nil
}

func report(store string, n, rep int, o outcome) {
	fmt.Printf("%-10s %5d %4d %8.4f %8.4f %8.4f %9d %8.1f\n", store, n, rep, o.Precision, o.Recall, o.F1, o.BothReps, o.Seconds)
}

// oneRun indexes the pages in n processes (1 and no store: Badger) in the
// order of repetition rep, and scores the result.
func oneRun(ctx context.Context, c config, rep, n int, store string) (outcome, error) {
	dir, err := os.MkdirTemp(c.work, fmt.Sprintf("run-%d-%d-", rep, n))
	if err != nil {
		return outcome{}, err
	}
	defer os.RemoveAll(dir)
	files, err := deal(c, dir, uint64(rep), n)
	if err != nil {
		return outcome{}, err
	}
	var cmds []*exec.Cmd
	for k, f := range files {
		cmds = append(cmds, indexCmd(ctx, c, dir, store, f, k))
	}
	start := time.Now()
	if err := runAll(cmds); err != nil {
		return outcome{}, err
	}
	secs := time.Since(start).Seconds()
	o, err := score(c, dir, store)
	o.Seconds = secs
	return o, err
}
