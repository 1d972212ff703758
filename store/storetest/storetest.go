// Package storetest checks a store against package store's contract, and
// opens the project's stores for tests: the embedded store in a temporary
// directory, or the shared store on the Redis Cluster named by RedisEnv.
//
// A store implementation runs the conformance suite from its tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Backend { return open(t) })
//	}
package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

// RedisEnv names the environment variable holding the Redis Cluster the
// tests run the shared store on (comma-separated seed addresses);
// scripts/test.sh starts one and sets it.
const RedisEnv = "DEDUPFILTER_REDIS"

// Open returns a new store for a test: the shared store when RedisEnv
// names a cluster, else the embedded store. Both close when the test
// ends.
func Open(tb testing.TB) store.Backend {
	tb.Helper()
	if addrs := os.Getenv(RedisEnv); addrs != "" {
		return Redis(tb, addrs, "")
	}
	return Embedded(tb)
}

// OpenDeriving is Open with the embedded store's records keeping only the
// posting keys sigKeys does not give (embedded.Options.SignatureKeys), as
// the indexer opens it.
func OpenDeriving(tb testing.TB, sigKeys func([]byte) ([][]byte, error)) store.Backend {
	tb.Helper()
	if addrs := os.Getenv(RedisEnv); addrs != "" {
		return Redis(tb, addrs, "")
	}
	return embeddedWith(tb, sigKeys)
}

// Embedded opens an embedded store in a temporary directory, with its
// posting table in memory.
func Embedded(tb testing.TB) *embedded.Store {
	tb.Helper()
	return embeddedWith(tb, nil)
}

func embeddedWith(tb testing.TB, sigKeys func([]byte) ([][]byte, error)) *embedded.Store {
	tb.Helper()
	o := embedded.DefaultOptions(tb.TempDir())
	o.SignatureKeys = sigKeys
	s, err := embedded.Open(o)
	if err != nil {
		tb.Fatalf("embedded.Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// RedisAddrs returns the addresses in RedisEnv, or skips the test.
func RedisAddrs(tb testing.TB) string {
	tb.Helper()
	addrs := os.Getenv(RedisEnv)
	if addrs == "" {
		tb.Skipf("%s names no Redis Cluster (scripts/test.sh starts one)", RedisEnv)
	}
	return addrs
}

// Redis opens a shared store on the cluster at addrs under prefix (a new
// one for "", whose keys are deleted when the test ends), with a local
// store of its own in a temporary directory. Stores opened with the same
// prefix share their state, as the processes of several indexers do.
func Redis(tb testing.TB, addrs, prefix string) *rediscluster.Store {
	tb.Helper()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	local, err := embedded.OpenLocal(embedded.DefaultOptions(filepath.Join(tb.TempDir(), "local")))
	if err != nil {
		tb.Fatal(err)
	}
	owner := prefix == ""
	if owner {
		prefix = fmt.Sprintf("test-%s-%x", strings.NewReplacer("/", "-", " ", "_").Replace(tb.Name()), rand.Uint64())
	}
	s, err := rediscluster.New(rdb, prefix, local)
	if err != nil {
		tb.Fatalf("rediscluster.New: %v", err)
	}
	tb.Cleanup(func() {
		s.Close()
		local.Close()
		if owner {
			ctx := context.Background()
			rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
				it := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
				for it.Next(ctx) {
					c.Del(ctx, it.Val())
				}
				return it.Err()
			})
		}
		rdb.Close()
	})
	return s
}
