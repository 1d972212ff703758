package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	neturl "net/url"
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
		// Every page: a wildcard would open more term searchers than a
		// search may.
		out, err := runCmd(t, "search", "--index", a, "--index", b, "--store", store, "--format", "jsonl",
			"--size", "2", "--from", fmt.Sprint(from), "NOT zzzqxj")
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

// TestShardRemembersItsStore: a shard made with --store and indexed again
// without it goes on deciding in the shared store (no second, embedded
// store forks the decisions); an explicit other store is refused, naming
// both, and nothing is indexed.
func TestShardRemembersItsStore(t *testing.T) {
	addrs := os.Getenv(redisEnv)
	if addrs == "" {
		t.Skipf("%s names no Redis Cluster (scripts/test.sh starts one)", redisEnv)
	}
	store := fmt.Sprintf("redis://%s/cmdtest-%x", addrs, rand.Uint64())
	dir := filepath.Join(t.TempDir(), "shard")
	en, zh := filepath.Join(pagesDir, "en"), filepath.Join(pagesDir, "zh")
	if out, err := runCmd(t, "index", "--index", dir, "--policy", "mark", "--store", store, en); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	if out, err := runCmd(t, "index", "--index", dir, zh); err != nil {
		t.Fatalf("index again without --store: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "store.postings")); err == nil {
		t.Error("the shard has an embedded store's posting table: its decisions forked")
	}
	shared, err := runCmd(t, "dups", "--store", store, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	local, err := runCmd(t, "dups", "--index", dir, "--format", "jsonl")
	if err != nil || local != shared || !strings.Contains(shared, "hedong-news/") {
		t.Errorf("the shard's clusters (%v):\n%s\nthe shared store's:\n%s\nwant the same, the Chinese pages among them", err, local, shared)
	}
	out, err := runCmd(t, "index", "--index", dir, "--store", "redis://127.0.0.1:1/elsewhere", zh)
	if err == nil || !strings.Contains(out+err.Error(), store) || !strings.Contains(out+err.Error(), "redis://127.0.0.1:1/elsewhere") {
		t.Errorf("another --store: %v\n%s\nwant a refusal naming both stores", err, out)
	}
}

// TestSearchRemoteShard: a shard served by serve on another machine,
// searched with --remote beside a local one, gives the pages of the same
// search of both shards opened locally, line for line (clusters, folded
// members, scores), and serve --remote serves them; a shard no server
// answers for leaves the local shard's hits and a line naming it.
func TestSearchRemoteShard(t *testing.T) {
	addrs := os.Getenv(redisEnv)
	if addrs == "" {
		t.Skipf("%s names no Redis Cluster (scripts/test.sh starts one)", redisEnv)
	}
	store := fmt.Sprintf("redis://%s/cmdtest-%x", addrs, rand.Uint64())
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, sh := range []struct{ dir, input string }{{a, "en"}, {b, "zh"}} {
		if out, err := runCmd(t, "index", "--index", sh.dir, "--store", store, "--policy", "mark", filepath.Join(pagesDir, sh.input)); err != nil {
			t.Fatalf("index %s: %v\n%s", sh.input, err, out)
		}
	}
	const query = "bees OR tide OR 图书馆 OR 绿道 OR the"
	search := func(shards ...string) []string {
		var pages []string
		for from := 0; from < 12; from += 3 {
			args := append([]string{"search", "--format", "jsonl", "--size", "3", "--from", fmt.Sprint(from)}, shards...)
			out, err := runCmd(t, append(args, query)...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			pages = append(pages, out)
		}
		return pages
	}
	want := search("--index", a, "--index", b, "--store", store)

	url := startServe(t, "--index", b)
	got := search("--index", a, "--remote", url)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("page %d with --remote:\n%s\nwant (both shards local):\n%s", i+1, got[i], want[i])
		}
	}
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + down.Addr().String()
	down.Close()
	out, err := runCmd(t, "search", "--index", a, "--remote", closed, "--remote-timeout", "2s", query)
	if err != nil || !strings.Contains(out, closed) || !strings.Contains(out, "did not answer") {
		t.Errorf("search with the remote shard stopped: %v\n%s\nwant the local shard's hits and a line naming %s", err, out, closed)
	}
	// A server with the remote shard: hits of both, a snippet of the
	// local shard's text (read through the shards' mapping).
	front := startServe(t, "--index", a, "--remote", url)
	resp, err := http.Get(front + "api/search?q=" + neturl.QueryEscape("bees OR 图书馆"))
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Hits []struct {
			ID      string           `json:"id"`
			Snippet []map[string]any `json:"snippet"`
		} `json:"hits"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	var ids []string
	snippets := 0
	for _, h := range body.Hits {
		ids = append(ids, h.ID)
		if len(h.Snippet) > 0 {
			snippets++
		}
	}
	if err != nil || resp.StatusCode != 200 || !slices.Contains(ids, "hedong-news/library-night") ||
		!slices.Contains(ids, "bee-archive/library-bees") || snippets == 0 {
		t.Errorf("serve --remote: status %d, %v, hits %v with %d snippets; want hits of both shards, snippets of the local one's", resp.StatusCode, err, ids, snippets)
	}
}
