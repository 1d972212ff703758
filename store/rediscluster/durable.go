package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Durable writes. Redis replicates asynchronously: a master that fails
// over loses what its replica had not received, and a failover that lost
// a counter's step (its numbers would be handed out twice), a posting, or
// a cluster's member behind a record written elsewhere would leave the
// store inconsistent. So every step of a decision is made durable before
// the next one starts: each master's share of a step's writes goes in one
// pipeline on one connection, and WAIT on that connection holds the step
// until the master's replica, which a failover promotes, has them. A
// master without a replica (one server; a replica lost) is not waited
// for; a replica still copying the master is.

// waitFor is how long one WAIT lasts at most, and waitTries how many a
// step makes before it fails (a replica that has not caught up in
// waitFor × waitTries is taken for lost).
const (
	waitFor   = 2 * time.Second
	waitTries = 60
)

// replicasEvery is how often a master's count of replicas is read again.
const replicasEvery = 2 * time.Second

// step is one step's writes, by master.
type step struct {
	s     *Store
	ctx   context.Context
	nodes map[string]*nodeStep
}

type nodeStep struct {
	c     *redis.Client
	conn  *redis.Conn
	pipe  redis.Pipeliner
	calls scriptCalls
}

func (s *Store) step(ctx context.Context) *step {
	return &step{s: s, ctx: ctx, nodes: map[string]*nodeStep{}}
}

// on returns the pipeline of the master serving key.
func (st *step) on(key string) (*nodeStep, error) {
	var c *redis.Client
	switch rdb := st.s.rdb.(type) {
	case *redis.ClusterClient:
		var err error
		if c, err = rdb.MasterForKey(st.ctx, key); err != nil {
			return nil, err
		}
	case *redis.Client:
		c = rdb
	default:
		return nil, errors.New("unsupported Redis client")
	}
	addr := c.Options().Addr
	n := st.nodes[addr]
	if n == nil {
		conn := c.Conn()
		n = &nodeStep{c: c, conn: conn, pipe: conn.Pipeline()}
		st.nodes[addr] = n
	}
	return n, nil
}

// script queues a script run on the master of keys[0]; result reads
// its result once the step is made.
func (st *step) script(script *redis.Script, keys []string, args ...any) (result func() *redis.Cmd, err error) {
	n, err := st.on(keys[0])
	if err != nil {
		return nil, err
	}
	n.calls.run(st.ctx, n.pipe, script, keys, args...)
	i := len(n.calls) - 1
	return func() *redis.Cmd { return n.calls[i].cmd }, nil
}

// exec executes each master's pipeline and waits for its replica, the
// masters at once.
func (st *step) exec() error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, n := range st.nodes {
		wg.Go(func() {
			defer n.conn.Close()
			err := n.calls.exec(st.ctx, n.pipe, n.conn.Pipeline)
			if err == nil {
				err = st.wait(n)
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// wait holds until n's replica has n's writes.
func (st *step) wait(n *nodeStep) error {
	for range waitTries {
		if st.s.replicas.of(st.ctx, n.c) == 0 {
			return nil
		}
		acked, err := n.conn.Wait(st.ctx, 1, waitFor).Result()
		if err != nil || acked >= 1 {
			return err
		}
	}
	return fmt.Errorf("the replica of %s has not acknowledged writes for %v", n.c.Options().Addr, waitFor*waitTries)
}

// replicaCounts caches how many replicas each master has.
type replicaCounts struct {
	mu   sync.Mutex
	seen map[string]replicaCount
}

type replicaCount struct {
	n    int
	read time.Time
}

func (r *replicaCounts) of(ctx context.Context, c *redis.Client) int {
	addr := c.Options().Addr
	r.mu.Lock()
	rc, ok := r.seen[addr]
	r.mu.Unlock()
	if ok && time.Since(rc.read) < replicasEvery {
		return rc.n
	}
	info, err := c.Info(ctx, "replication").Result()
	rc = replicaCount{read: time.Now()}
	for _, l := range strings.Split(info, "\n") {
		if v, found := strings.CutPrefix(strings.TrimSpace(l), "connected_slaves:"); found && err == nil {
			for _, d := range v {
				rc.n = rc.n*10 + int(d-'0')
			}
		}
	}
	r.mu.Lock()
	if r.seen == nil {
		r.seen = map[string]replicaCount{}
	}
	r.seen[addr] = rc
	r.mu.Unlock()
	return rc.n
}
