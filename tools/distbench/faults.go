package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// faults runs the order of repetition 1 in two processes without a fault,
// then with one (fault: "indexer" kills one indexer at mid-run and runs
// it again; "master" kills a Redis master at mid-run and runs again
// whatever failed), and compares the clusters, listing those that differ.
func faults(ctx context.Context, c config) error {
	prefix := fmt.Sprintf("distbench-fault-%d", time.Now().UnixNano())
	base := "redis://" + c.redis + "/" + prefix
	defer func() {
		for _, p := range []string{prefix + "-clean", prefix + "-" + c.fault} {
			if err := dropPrefix(ctx, c.redis, p); err != nil {
				fmt.Println("removing the run's keys:", err)
			}
		}
	}()
	clean, err := oneRun(ctx, c, 1, 2, base+"-clean", "")
	if err != nil {
		return err
	}
	report("redis", 2, 1, clean, clean, "")
	dir, err := os.MkdirTemp(c.work, "fault-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	files, err := deal(c, dir, 1, 2)
	if err != nil {
		return err
	}
	store := base + "-" + c.fault
	cmds := []*exec.Cmd{indexCmd(ctx, c, dir, store, files[0], 0), indexCmd(ctx, c, dir, store, files[1], 1)}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			return err
		}
	}
	time.Sleep(time.Duration(clean.Seconds * float64(time.Second) / 2))
	switch c.fault {
	case "indexer":
		cmds[0].Process.Signal(syscall.SIGKILL)
		fmt.Println("killed indexer 0 at mid-run")
	case "master":
		port, err := killMaster(c)
		if err != nil {
			return err
		}
		fmt.Printf("killed the Redis master on port %d at mid-run\n", port)
		defer restartNode(port)
	default:
		return fmt.Errorf("-fault %q: want indexer or master", c.fault)
	}
	var failed []int
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			fmt.Printf("indexer %d: %v\n", i, err)
			failed = append(failed, i)
		}
	}
	if len(failed) > 0 && c.fault == "master" {
		time.Sleep(5 * time.Second) // the replica takes over
	}
	var again []*exec.Cmd
	for _, i := range failed {
		again = append(again, indexCmd(ctx, c, dir, store, files[i], i))
	}
	if err := runAll(again); err != nil {
		return fmt.Errorf("running again: %w", err)
	}
	o, err := score(c, dir, store)
	if err != nil {
		return err
	}
	report("redis", 2, 1, o, clean, c.fault)
	got, want := partition(o.clusters), partition(clean.clusters)
	same := slices.Equal(got, want)
	fmt.Printf("after the %s fault and a rerun of %d indexer(s): clusters equal to the run without a fault: %v (%d clusters vs %d)\n",
		c.fault, len(failed), same, len(o.clusters), len(clean.clusters))
	for _, g := range got {
		if _, found := slices.BinarySearch(want, g); !found {
			fmt.Println("  only after the fault:", g)
		}
	}
	for _, w := range want {
		if _, found := slices.BinarySearch(got, w); !found {
			fmt.Println("  only without it:     ", w)
		}
	}
	byMembers := map[string][]string{}
	for id, ms := range o.clusters {
		ms = slices.Clone(ms)
		slices.Sort(ms)
		k := strings.Join(ms, " ")
		byMembers[k] = append(byMembers[k], id)
	}
	for ms, ids := range byMembers {
		if len(ids) > 1 {
			fmt.Printf("  clusters %v have the same members: %s\n", ids, ms)
		}
	}
	return nil
}

// killMaster kills -9 a master of the cluster (the first listed) and
// returns its port.
func killMaster(c config) (int, error) {
	seed := strings.Split(c.redis, ",")[0]
	_, p, _ := strings.Cut(seed, ":")
	out, err := exec.Command("redis-cli", "-p", p, "cluster", "nodes").Output()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && strings.Contains(f[2], "master") && !strings.Contains(f[2], "fail") {
			addr, _, _ := strings.Cut(f[1], "@")
			_, port, _ := strings.Cut(addr, ":")
			info, err := exec.Command("redis-cli", "-p", port, "info", "server").Output()
			if err != nil {
				return 0, err
			}
			for _, l := range strings.Split(string(info), "\n") {
				if pid, ok := strings.CutPrefix(strings.TrimSpace(l), "process_id:"); ok {
					n, _ := strconv.Atoi(pid)
					pn, _ := strconv.Atoi(port)
					return pn, syscall.Kill(n, syscall.SIGKILL)
				}
			}
		}
	}
	return 0, fmt.Errorf("no master found")
}

// restartNode starts the killed node again from its configuration, as
// scripts/redis-cluster.sh wrote it (it rejoins as a replica).
func restartNode(port int) {
	conf := fmt.Sprintf("%s/%d/redis.conf", os.Getenv("REDIS_DIR"), port)
	if err := exec.Command("redis-server", conf).Run(); err != nil {
		fmt.Printf("restarting the node on %d: %v (start it with redis-server %s)\n", port, err, conf)
	}
}
