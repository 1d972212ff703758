package rediscluster_test

import (
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

func TestConformance(t *testing.T) {
	addrs := storetest.RedisAddrs(t)
	storetest.Run(t, func(t *testing.T) store.Backend { return storetest.Redis(t, addrs, "") })
}
