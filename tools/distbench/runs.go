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
	"syscall"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

// outcome is a run's clusters scored against the labels.
type outcome struct {
	eval.Scores
	// bothReps are the labelled duplicate pairs whose two pages are both
	// representatives (both in the search index under suppress).
	bothReps map[string]bool // pair -> its verdict is duplicate
	Seconds  float64
	injected string
	clusters map[string][]string // representative's cluster -> members, sorted
}

// verified counts the pairs both admitted whose stored signatures the
// filter verifies as duplicates: those it should have joined, and a
// decision made beside another's let in. The other pairs both admitted
// are pairs the filter does not take for duplicates at all (its recall);
// which of an article's pages they are depends on the order of the pages.
func (o outcome) verified() int {
	n := 0
	for _, dup := range o.bothReps {
		if dup {
			n++
		}
	}
	return n
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
		if f, err = dedupfilter.New(b, dedupfilter.DefaultOptions()); err != nil {
			b.Close()
			return o, err
		}
		closeAll = func() { f.Close() }
	} else {
		ix, err := indexer.Open(filepath.Join(dir, "shard-0"), indexer.Options{})
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
	o.bothReps = map[string]bool{}
	for _, ids := range byLabel {
		slices.Sort(ids)
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				if indexed[ids[i]] && indexed[ids[j]] {
					v, err := f.CompareStored(ids[i], ids[j])
					if err != nil {
						return o, err
					}
					o.bothReps[ids[i]+" "+ids[j]] = v.Duplicate
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
	fmt.Printf("%-10s %5s %4s %8s %8s %8s %9s %8s %8s  %s\n", "store", "procs", "rep", "P", "R", "F1", "both reps", "verified", "seconds", "injected")
	for rep := c.from; rep <= c.reps; rep++ {
		ref, err := oneRun(ctx, c, rep, 1, "", "")
		if err != nil {
			return err
		}
		report("badger", 1, rep, ref, ref, "")
		for _, n := range c.procs {
			prefix := fmt.Sprintf("distbench-%d-%d-%d", rep, n, time.Now().UnixNano())
			o, err := oneRun(ctx, c, rep, n, "redis://"+c.redis+"/"+prefix, c.inject)
			if err == nil {
				err = dropPrefix(ctx, c.redis, prefix)
			}
			if err != nil {
				return err
			}
			report("redis", n, rep, o, ref, o.injected)
		}
	}
	return nil
}

// report prints a run's row: its scores, its labelled pairs both
// representatives and those of them the filter verifies as duplicates,
// its time, its F1 against the reference's and what was injected.
func report(store string, n, rep int, o, ref outcome, injected string) {
	fmt.Printf("%-10s %5d %4d %8.4f %8.4f %8.4f %9d %8d %8.1f  ΔF1 %+.4f %s\n", store, n, rep, o.Precision, o.Recall, o.F1,
		len(o.bothReps), o.verified(), o.Seconds, o.F1-ref.F1, injected)
}

// oneRun indexes the pages in n processes (1 and no store: Badger) in the
// order of repetition rep, with inject's faults, and scores the result.
func oneRun(ctx context.Context, c config, rep, n int, store, inject string) (outcome, error) {
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
	var injected string
	switch inject {
	case "":
		err = runAll(cmds)
	case "pause", "longpause", "kill":
		injected, err = runInjected(ctx, c, cmds, inject, uint64(rep*100+n), func(k int) *exec.Cmd {
			return indexCmd(ctx, c, dir, store, files[k], k)
		})
	default:
		err = fmt.Errorf("-inject %q: want pause, longpause or kill", inject)
	}
	if err != nil {
		return outcome{}, err
	}
	secs := time.Since(start).Seconds()
	o, err := score(c, dir, store)
	o.Seconds, o.injected = secs, injected
	return o, err
}

// runInjected runs the commands at once and, while they run, stops one
// at random for 1 to 3 seconds now and then (pause), stops one once,
// 0.2 to 1.2 seconds in, for c.pauseFor (longpause), or kills one with
// SIGKILL a random 1 to 4 seconds in and, once the others are done, runs
// it again (kill). It returns what it did.
func runInjected(ctx context.Context, c config, cmds []*exec.Cmd, inject string, seed uint64, again func(k int) *exec.Cmd) (string, error) {
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, cmd := range cmds {
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			return "", err
		}
	}
	var done sync.WaitGroup
	exited := make([]chan error, len(cmds))
	for i, cmd := range cmds {
		exited[i] = make(chan error, 1)
		done.Go(func() { exited[i] <- cmd.Wait() })
	}
	all := make(chan struct{})
	go func() { done.Wait(); close(all) }()
	var did []string
	killed := -1
	if inject == "kill" {
		killed = rng.IntN(len(cmds))
		select {
		case <-time.After(time.Second + time.Duration(rng.Int64N(int64(3*time.Second)))):
			cmds[killed].Process.Signal(syscall.SIGKILL)
			did = append(did, fmt.Sprintf("killed %d", killed))
		case <-all:
			did = append(did, "ended before the kill")
		}
	} else if inject == "longpause" {
		// One long stop, early enough to fall within a run of a few
		// seconds: a reply the indexer waited for when it stopped is past
		// its read deadline when it resumes.
		k := rng.IntN(len(cmds))
		select {
		case <-time.After(200*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second)))):
			if cmds[k].Process.Signal(syscall.SIGSTOP) == nil {
				time.Sleep(c.pauseFor)
				cmds[k].Process.Signal(syscall.SIGCONT)
				did = append(did, fmt.Sprintf("stopped %d for %v", k, c.pauseFor))
			}
		case <-all:
			did = append(did, "ended before the pause")
		}
	} else {
	pauses:
		for {
			select {
			case <-all:
				break pauses
			case <-time.After(time.Duration(200+rng.Int64N(800)) * time.Millisecond):
			}
			k := rng.IntN(len(cmds))
			d := time.Second + time.Duration(rng.Int64N(int64(2*time.Second)))
			if cmds[k].Process.Signal(syscall.SIGSTOP) != nil {
				continue // it ended
			}
			time.Sleep(d)
			cmds[k].Process.Signal(syscall.SIGCONT)
			did = append(did, fmt.Sprintf("%d:%.1fs", k, d.Seconds()))
		}
	}
	<-all
	for i, ch := range exited {
		if err := <-ch; err != nil && i != killed {
			return "", fmt.Errorf("%v: %w\n%s", cmds[i].Args, err, cmds[i].Stdout)
		}
	}
	if killed >= 0 {
		if err := runAll([]*exec.Cmd{again(killed)}); err != nil {
			return "", fmt.Errorf("running the killed indexer again: %w", err)
		}
		did = append(did, "and ran it again")
	}
	if inject == "pause" {
		return fmt.Sprintf("%d pauses (indexer:length) %s", len(did), strings.Join(did, " ")), nil
	}
	return strings.Join(did, " "), nil
}
