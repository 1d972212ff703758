package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// redisEnv names a Redis Cluster (comma-separated addresses) for the
// distributed tests; scripts/test.sh starts one.
const redisEnv = "DEDUPFILTER_REDIS"

// TestShardsShareAStore indexes the English and the Chinese pages at the
// same time into two shards sharing one store, and expects the clusters of
// one index of all the pages, through dups --store, and each cluster once
// when paging through a search of both shards.
func TestShardsShareAStore(t *testing.T) {
	addrs := os.Getenv(redisEnv)
	if addrs == "" {
		t.Skipf("%s names no Redis Cluster (scripts/test.sh starts one)", redisEnv)
	}
	store := fmt.Sprintf("redis://%s/cmdtest-%x", addrs, rand.Uint64())
	one := filepath.Join(t.TempDir(), "one")
	if out, err := runCmd(t, "index", "--index", one, pagesDir); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	var wg sync.WaitGroup
	for _, sh := range []struct{ dir, input string }{{a, "en"}, {b, "zh"}} {
		wg.Go(func() {
			if out, err := runCmd(t, "index", "--index", sh.dir, "--store", store, filepath.Join(pagesDir, sh.input)); err != nil {
				t.Errorf("index %s: %v\n%s", sh.input, err, out)
			}
		})
	}
	wg.Wait()
	members := func(out string, strip bool) []string {
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var c clusterLine
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			for i, m := range c.Members {
				if strip {
					_, m, _ = strings.Cut(m, "/") // en/... and zh/... are their own inputs in the shards
				}
				c.Members[i] = m
			}
			slices.Sort(c.Members)
			got = append(got, strings.Join(c.Members, " "))
		}
		slices.Sort(got)
		return got
	}
	want, err := runCmd(t, "dups", "--index", one, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, err := runCmd(t, "dups", "--store", store, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := members(got, false), members(want, true); !slices.Equal(g, w) {
		t.Errorf("clusters of the shards\n%s\nwant (one index)\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	seen := map[string]bool{}
	for from := 0; ; from += 2 {
		out, err := runCmd(t, "search", "--index", a, "--index", b, "--store", store, "--format", "jsonl",
			"--syntax", "querystring", "--size", "2", "--from", fmt.Sprint(from), "*")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		if out = strings.TrimSpace(out); out != "" {
			lines = strings.Split(out, "\n")
		}
		for _, l := range lines {
			var h struct{ Cluster string }
			if err := json.Unmarshal([]byte(l), &h); err != nil || h.Cluster == "" {
				t.Fatalf("hit %q: %v", l, err)
			}
			if seen[h.Cluster] {
				t.Errorf("cluster %s on two pages", h.Cluster)
			}
			seen[h.Cluster] = true
		}
		if len(lines) < 2 {
			break
		}
	}
	if n := len(members(got, false)); len(seen) < n {
		t.Errorf("paging found %d clusters, dups lists %d of two or more", len(seen), n)
	}
}
