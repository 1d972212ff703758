package rediscluster

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterForTest connects to the Redis Cluster DEDUPFILTER_REDIS names,
// or skips.
func clusterForTest(t *testing.T) *redis.ClusterClient {
	t.Helper()
	addrs := os.Getenv("DEDUPFILTER_REDIS")
	if addrs == "" {
		t.Skip("DEDUPFILTER_REDIS is not set (scripts/test.sh starts a Redis Cluster)")
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	if err := cc.Ping(context.Background()).Err(); err != nil {
		t.Skipf("no Redis Cluster at %s: %v", addrs, err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// otherMaster returns a master that does not serve key.
func otherMaster(t *testing.T, cc *redis.ClusterClient, key string) *redis.Client {
	t.Helper()
	ctx := context.Background()
	owner, err := cc.MasterForKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var other *redis.Client
	err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		if c.Options().Addr != owner.Options().Addr {
			other = c
		}
		return nil
	})
	if err != nil || other == nil {
		t.Skipf("no second master: %v", err)
	}
	return other
}

// TestStepRedirected: a step's writes sent to a node that does not serve
// their keys, as after a failover or a resharding the slot map has not
// caught up with, are made where the node redirects them (MOVED), scripts
// included; a write to a slot being migrated is made on the node
// importing it (ASK).
func TestStepRedirected(t *testing.T) {
	cc := clusterForTest(t)
	ctx := context.Background()
	s, err := New(cc, "redirect-test-"+strconv.FormatInt(time.Now().UnixNano(), 36), nil)
	if err != nil {
		t.Fatal(err)
	}
	key, rank, nums := s.k("x"), s.tagged("rank"), s.tagged("nums")
	t.Cleanup(func() { cc.Del(ctx, key, rank, nums, s.k("format")) })

	st := s.step(ctx)
	n := st.node(otherMaster(t, cc, key))
	set := n.pipe.Set(ctx, key, "1", 0)
	n = st.node(otherMaster(t, cc, rank))
	num := numberScript.EvalSha(ctx, n.pipe, []string{rank, nums}, 7, 3)
	n.scripts[num] = numberScript
	if err := st.exec(); err != nil {
		t.Fatalf("step on the wrong masters: %v", err)
	}
	if err := set.Err(); err != nil {
		t.Errorf("SET: %v", err)
	}
	if v, err := num.Int64(); err != nil || v != 1 {
		t.Errorf("number script: %d, %v; want rank 1", v, err)
	}
	if v, err := cc.Get(ctx, key).Result(); err != nil || v != "1" {
		t.Errorf("GET after the redirected SET: %q, %v", v, err)
	}

	// ASK: the slot of a new key, empty, set migrating to another master
	// for the moment of one step.
	var moving string
	var slot int64
	for i := 0; ; i++ {
		moving = s.k("ask", strconv.Itoa(i))
		slot = cc.ClusterKeySlot(ctx, moving).Val()
		if n, err := cc.ClusterCountKeysInSlot(ctx, int(slot)).Result(); err == nil && n == 0 {
			break
		}
		if i == 100 {
			t.Skip("no empty slot found")
		}
	}
	src, err := cc.MasterForKey(ctx, moving)
	if err != nil {
		t.Fatal(err)
	}
	dst := otherMaster(t, cc, moving)
	srcID, dstID := src.ClusterMyID(ctx).Val(), dst.ClusterMyID(ctx).Val()
	if err := dst.Do(ctx, "cluster", "setslot", slot, "importing", srcID).Err(); err != nil {
		t.Fatal(err)
	}
	if err := src.Do(ctx, "cluster", "setslot", slot, "migrating", dstID).Err(); err != nil {
		dst.Do(ctx, "cluster", "setslot", slot, "stable")
		t.Fatal(err)
	}
	st = s.step(ctx)
	n, err = st.on(moving)
	if err != nil {
		t.Fatal(err)
	}
	set = n.pipe.Set(ctx, moving, "2", 0)
	stepErr := st.exec()
	// The key, on the importing node, read and deleted there; the slot
	// left as it was.
	conn := dst.Conn()
	pipe := conn.Pipeline()
	pipe.Do(ctx, "asking")
	got := pipe.Get(ctx, moving)
	pipe.Do(ctx, "asking")
	pipe.Del(ctx, moving)
	_, _ = pipe.Exec(ctx)
	conn.Close()
	src.Do(ctx, "cluster", "setslot", slot, "stable")
	dst.Do(ctx, "cluster", "setslot", slot, "stable")
	if stepErr != nil || set.Err() != nil {
		t.Fatalf("step on a migrating slot: %v, SET %v", stepErr, set.Err())
	}
	if v, err := got.Result(); err != nil || v != "2" {
		t.Errorf("the key on the importing node: %q, %v; want the step's write", v, err)
	}
}
