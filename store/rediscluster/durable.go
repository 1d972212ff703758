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
	c       *redis.Client
	conn    *redis.Conn
	pipe    redis.Pipeliner
	scripts map[redis.Cmder]*redis.Script // the script of each run queued
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
	return st.node(c), nil
}

// node returns the pipeline of the node of c.
func (st *step) node(c *redis.Client) *nodeStep {
	addr := c.Options().Addr
	n := st.nodes[addr]
	if n == nil {
		conn := c.Conn()
		n = &nodeStep{c: c, conn: conn, pipe: conn.Pipeline(), scripts: map[redis.Cmder]*redis.Script{}}
		st.nodes[addr] = n
	}
	return n
}

// script queues a script run on the master of keys[0]; result reads
// its result once the step is made.
func (st *step) script(script *redis.Script, keys []string, args ...any) (result func() *redis.Cmd, err error) {
	n, err := st.on(keys[0])
	if err != nil {
		return nil, err
	}
	cmd := script.EvalSha(st.ctx, n.pipe, keys, args...)
	n.scripts[cmd] = script
	return func() *redis.Cmd { return cmd }, nil
}

// A step's pipelines go to the masters its client's slot map names. A
// map gone stale (a failover, a resharding: go-redis refreshes it only
// when its own commands are redirected, or every 10 s) has a node answer
// a command with MOVED or ASK, and a slot being migrated may answer
// TRYAGAIN; a cluster without a master for a slot, CLUSTERDOWN; a node
// loading its data, LOADING. A command so answered was not executed: it
// is sent again, by itself, where the answer says (ASKING before it for
// ASK), or after a pause to the same node, up to redoTries rounds, the
// pauses growing to redoPause.
const (
	redoTries = 40
	redoPause = time.Second
)

// redo is a command to send again: to c, after ASKING when ask, after a
// pause when pause.
type redo struct {
	cmd    redis.Cmder
	script *redis.Script
	c      *redis.Client
	ask    bool
	pause  bool
	moved  bool
}

// exec executes each master's pipeline and waits for its replica, the
// masters at once; then sends again, the same way, the commands a node
// redirected or refused without executing them.
func (st *step) exec() error {
	nodes := st.nodes
	for round := 0; ; round++ {
		redos, err := st.execNodes(nodes)
		if err != nil || len(redos) == 0 {
			return err
		}
		if round == redoTries {
			return fmt.Errorf("%d commands still redirected or refused after %d rounds, the last: %w", len(redos), round+1, redos[0].cmd.Err())
		}
		pause, moved := false, false
		for _, r := range redos {
			pause, moved = pause || r.pause, moved || r.moved
		}
		cc, cluster := st.s.rdb.(*redis.ClusterClient)
		if cluster && (moved || pause) {
			cc.ReloadState(st.ctx)
		}
		if pause {
			time.Sleep(min(time.Duration(round+1)*100*time.Millisecond, redoPause))
		}
		if cluster {
			// A command refused where it was sent goes where the slot map,
			// reloaded, says its key is served now: a node whose map is
			// stale (a master just removed) may refuse it for long.
			for i, r := range redos {
				if !r.pause {
					continue
				}
				if key, ok := firstKey(r.cmd); ok {
					if c, err := cc.MasterForKey(st.ctx, key); err == nil {
						redos[i].c = c
					}
				}
			}
		}
		nodes = map[string]*nodeStep{}
		again := &step{s: st.s, ctx: st.ctx, nodes: nodes}
		for _, r := range redos {
			n := again.node(r.c)
			if r.ask {
				n.pipe.Do(st.ctx, "asking")
			}
			n.pipe.Process(st.ctx, r.cmd)
			if r.script != nil {
				n.scripts[r.cmd] = r.script
			}
		}
	}
}

// firstKey returns the key of a command a step queues: the first
// argument, or a script run's first key.
func firstKey(cmd redis.Cmder) (string, bool) {
	a := cmd.Args()
	i := 1
	if name := strings.ToLower(cmd.Name()); name == "evalsha" || name == "eval" {
		i = 3
	}
	if len(a) <= i {
		return "", false
	}
	key, ok := a[i].(string)
	return key, ok
}

// execNodes executes the pipelines of nodes at once, each followed by
// the wait for its replica, and returns the commands to send again.
func (st *step) execNodes(nodes map[string]*nodeStep) ([]redo, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	var redos []redo
	for _, n := range nodes {
		wg.Go(func() {
			defer n.conn.Close()
			r, wrote, err := st.execNode(n)
			if err == nil && wrote {
				err = st.wait(n)
			}
			mu.Lock()
			redos = append(redos, r...)
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return redos, errors.Join(errs...)
}

// execNode executes n's pipeline; script runs the node did not know the
// script of are sent again once it is loaded there. It returns the
// commands the node redirected or refused, and whether it executed any
// (a node that redirected them all, a replica now, is not waited on).
func (st *step) execNode(n *nodeStep) (redos []redo, wrote bool, err error) {
	cmds, _ := n.pipe.Exec(st.ctx)
	for round := 0; ; round++ {
		var noScript []redis.Cmder
		for _, cmd := range cmds {
			e := cmd.Err()
			if e == nil || errors.Is(e, redis.Nil) {
				wrote = wrote || cmd.Name() != "asking"
				continue
			}
			if redis.HasErrorPrefix(e, "NOSCRIPT") && n.scripts[cmd] != nil && round == 0 {
				noScript = append(noScript, cmd)
				continue
			}
			r, ok, err := st.s.redirect(e)
			if err != nil {
				return nil, wrote, err
			}
			if !ok {
				return nil, wrote, e
			}
			r.cmd, r.script = cmd, n.scripts[cmd]
			if r.c == nil {
				r.c = n.c
			}
			redos = append(redos, r)
		}
		if len(noScript) == 0 {
			return redos, wrote, nil
		}
		loaded := map[*redis.Script]bool{}
		for _, cmd := range noScript {
			if sc := n.scripts[cmd]; !loaded[sc] {
				loaded[sc] = true
				// On the connection, not queued: Load takes the digest
				// from its reply.
				if err := sc.Load(st.ctx, n.conn).Err(); err != nil {
					return nil, wrote, err
				}
			}
		}
		pipe := n.conn.Pipeline()
		for _, cmd := range noScript {
			pipe.Process(st.ctx, cmd)
		}
		cmds, _ = pipe.Exec(st.ctx)
	}
}

// redirect reads a node's answer e to a command it did not execute: ok
// and where to send it again; not ok for any other error.
func (s *Store) redirect(e error) (r redo, ok bool, err error) {
	msg := e.Error()
	switch {
	case redis.HasErrorPrefix(e, "MOVED"), redis.HasErrorPrefix(e, "ASK"):
		f := strings.Fields(msg)
		if len(f) != 3 {
			return r, false, nil
		}
		c, err := s.nodeAt(f[2])
		if err != nil {
			return r, false, err
		}
		return redo{c: c, ask: f[0] == "ASK", moved: f[0] == "MOVED"}, true, nil
	case redis.HasErrorPrefix(e, "TRYAGAIN"), redis.HasErrorPrefix(e, "CLUSTERDOWN"), redis.HasErrorPrefix(e, "LOADING"):
		return redo{pause: true}, true, nil
	}
	return r, false, nil
}

// nodeAt returns a client of the node at addr (a master a redirection
// names), made once.
func (s *Store) nodeAt(addr string) (*redis.Client, error) {
	s.nodesMu.Lock()
	defer s.nodesMu.Unlock()
	if s.closed {
		return nil, errors.New("store closed")
	}
	c := s.nodes[addr]
	if c == nil {
		if s.nodes == nil {
			s.nodes = map[string]*redis.Client{}
		}
		c = redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: readTimeout})
		s.nodes[addr] = c
	}
	return c, nil
}

// wait holds until n's replica has n's writes.
func (st *step) wait(n *nodeStep) error {
	for range waitTries {
		if st.s.replicas.of(st.ctx, n.c) == 0 {
			return nil
		}
		acked, err := n.conn.Wait(st.ctx, 1, waitFor).Result()
		if redis.HasErrorPrefix(err, "UNBLOCKED") || redis.HasErrorPrefix(err, "ERR WAIT cannot be used with replica") {
			// A failover while the step waited: whether its writes reached
			// the new master is not known here (a manual failover's did, an
			// automatic one's may not have).
			return fmt.Errorf("%s became a replica (a failover) before its replica acknowledged the step's writes; run again: %w", n.c.Options().Addr, err)
		}
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
