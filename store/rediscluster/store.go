package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/internal/codec"
)

// Store is a shared store on Redis (see the package doc). It implements
// store.Backend and store.Sequencer.
type Store struct {
	rdb        redis.UniversalClient
	ownsClient bool // made by Open, closed by Close
	name       string
	prefix     string // name + ":"
	local      Local

	// sessions lets one Exclusive call of the process run at a time: its
	// mutations' shared writes wait in session, under mu, until it ends.
	sessions sync.Mutex
	mu       sync.Mutex
	session  *writes

	ranks    rankCache
	families familyCache
	replicas replicaCounts

	// nodes are clients of the nodes redirections named (see step.exec).
	nodesMu sync.Mutex
	nodes   map[string]*redis.Client
	closed  bool
}

var (
	_ store.Backend   = (*Store)(nil)
	_ store.Sequencer = (*Store)(nil)
)

// Open connects to the Redis of url and returns New's store over it and
// local, which closes the connection when it closes. url is
// redis://HOST:PORT[,HOST:PORT...][/PREFIX]: seed addresses of a Redis
// Cluster (or one server without cluster mode), and the key prefix
// (default "bleve-dedup"), which names the shared store.
func Open(url string, local Local) (*Store, error) {
	addrs, prefix, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	return open(url, addrs, prefix, local)
}

// readTimeout bounds a reply's wait. A process paused while it waits (a
// SIGSTOP, a long GC, a VM migration) finds the deadline passed when it
// resumes though the reply may be waiting in its socket: with 10 s, one
// of five indexers paused for 20 s failed with "i/o timeout". A step's
// writes cannot simply be sent again (a cluster's Leave that promoted a
// member would not say so a second time), so the bound is long enough
// for a pause of a few minutes; a master that dies closes its connections
// (an error at once, and the cluster's failover), so only a master that
// hangs without failing over is waited for this long.
const readTimeout = 3 * time.Minute

func open(url string, addrs []string, prefix string, local Local) (*Store, error) {
	// A command refused while the cluster changes (CLUSTERDOWN as a node
	// forgets a removed master, TRYAGAIN, LOADING) is tried again for
	// about 15 s, the pauses growing to 1 s, rather than go-redis' 3
	// tries in about a second.
	var rdb redis.UniversalClient = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ReadTimeout: readTimeout,
		MaxRedirects: 20, MaxRetryBackoff: time.Second})
	err := rdb.Ping(context.Background()).Err()
	if err != nil && strings.Contains(err.Error(), "cluster support disabled") && len(addrs) == 1 {
		rdb.Close()
		rdb = redis.NewClient(&redis.Options{Addr: addrs[0], ReadTimeout: readTimeout})
		err = rdb.Ping(context.Background()).Err()
	}
	if err != nil {
		rdb.Close()
		return nil, fmt.Errorf("rediscluster: %s: %w", url, err)
	}
	s, err := New(rdb, prefix, local)
	if err != nil {
		rdb.Close()
		return nil, err
	}
	s.ownsClient = true
	return s, nil
}

// DefaultPrefix is the key prefix of a Redis URL without one.
const DefaultPrefix = "bleve-dedup"

// ParseURL parses redis://HOST:PORT[,HOST:PORT...][/PREFIX].
func ParseURL(s string) (addrs []string, prefix string, err error) {
	rest, ok := strings.CutPrefix(s, "redis://")
	if !ok {
		return nil, "", fmt.Errorf("rediscluster: store %q: want redis://HOST:PORT[,HOST:PORT...][/PREFIX]: %w", s, ErrInvalidURL)
	}
	hosts, prefix, _ := strings.Cut(rest, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if strings.ContainsAny(prefix, "{}") {
		return nil, "", fmt.Errorf("rediscluster: store %q: key prefix %q: want a name without braces: %w", s, prefix, ErrInvalidURL)
	}
	for _, h := range strings.Split(hosts, ",") {
		if _, port, err := net.SplitHostPort(h); err != nil || port == "" {
			return nil, "", fmt.Errorf("rediscluster: store %q: address %q: want HOST:PORT: %w", s, h, ErrInvalidURL)
		}
		addrs = append(addrs, h)
	}
	return addrs, prefix, nil
}

// New returns a store keeping the shared state in Redis (a client of a
// Redis Cluster, or of one server) under keys starting with prefix, and
// the process' own state (payloads, pending search-index operations,
// other packages' keys) in local, which the caller opened and closes.
// Several stores, in several processes, may share one prefix. A nil
// local leaves the store without a part of its own: it reads the shared
// state, as a command that lists the clusters does, and writes nothing
// (ReadOnly).
func New(rdb redis.UniversalClient, prefix string, local Local) (*Store, error) {
	if prefix == "" || strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("rediscluster: key prefix %q: want a non-empty name without braces: %w", prefix, ErrInvalidURL)
	}
	if local == nil {
		local = noLocal{}
	}
	s := &Store{rdb: rdb, name: prefix, prefix: prefix + ":", local: local}
	s.families.init()
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		return nil, fmt.Errorf("rediscluster: %w", err)
	}
	if err := s.checkFormat(context.Background()); err != nil {
		return nil, fmt.Errorf("rediscluster: %s: %w", prefix, err)
	}
	return s, nil
}

// redisFormat is the version of the key layout: 5 keeps signatures in
// hashes of 64, records in the posting families and a family's state in
// one field; 4 has no lease and
// orders decisions by ranks, keeps posting lists in packed families and
// clusters in hashes; 3 held package similarity's compact signatures
// under the lease, 2 whole signatures, 1 (without a format key) a key a
// posting list.
const redisFormat = "5"

// checkFormat marks a new store with the layout's version, and refuses a
// store of another layout.
func (s *Store) checkFormat(ctx context.Context) error {
	v, err := s.rdb.Get(ctx, s.k("format")).Result()
	if errors.Is(err, redis.Nil) {
		var old, n int64
		for _, k := range []string{s.k("clusters"), s.k("seq")} {
			if n, err = s.rdb.Exists(ctx, k).Result(); err != nil {
				break
			}
			old += n
		}
		if err == nil && old > 0 {
			v = "1-3" // the keys of the layouts before 4, without a format key
		} else if err == nil {
			if err = s.rdb.SetNX(ctx, s.k("format"), redisFormat, 0).Err(); err == nil {
				v, err = s.rdb.Get(ctx, s.k("format")).Result()
			}
		}
	}
	if err != nil {
		return err
	}
	if v != redisFormat {
		return fmt.Errorf("store layout %s, this version reads %s (index the pages again under a new prefix): %w", v, redisFormat, store.ErrCorrupt)
	}
	return nil
}

// Prefix is the key prefix naming the shared store.
func (s *Store) Prefix() string { return s.name }

// k names a key of the store: the prefix, then parts joined by ':'.
func (s *Store) k(parts ...string) string { return s.prefix + strings.Join(parts, ":") }

// tagged names a key of the store's own hash slot (its counters and
// indexes, which its scripts use together).
func (s *Store) tagged(name string) string { return "{" + s.name + "}:" + name }

func seqName(seq uint64) string { return strconv.FormatUint(seq, 10) }

// sigGroup is how many consecutive sequence numbers share a signature
// hash (see the package doc: a field costs less than a key).
const sigGroup = 64

// sigRef is where the signature of document version seq lives: field
// seq mod 64 of hash P:s:{seq / 64}.
func (s *Store) sigRef(seq uint64) ref {
	return ref{s.prefix + "s:{" + strconv.FormatUint(seq/sigGroup, 10) + "}", strconv.FormatUint(seq%sigGroup, 10)}
}

// recordRef is where the record of document id lives: field "d<id>" of
// the posting family of the id's hash (see the package doc).
func (s *Store) recordRef(id string) ref {
	return ref{s.familyKey(store.Hash([]byte(id)) >> (64 - familyBits)), recordField + id}
}

// recordField starts the name of a record's field in a posting family.
const recordField = "d"

// Exclusive implements store.Backend: the shared writes of fn's mutations
// are made together when it ends, in one pipeline. It takes no lock
// other processes see: they decide meanwhile (see the package doc). The
// process' own calls run one at a time.
func (s *Store) Exclusive(fn func() error) error {
	s.sessions.Lock()
	defer s.sessions.Unlock()
	s.mu.Lock()
	s.session = newWrites()
	s.mu.Unlock()
	err := fn()
	s.mu.Lock()
	w := s.session
	s.session = nil
	s.mu.Unlock()
	if ferr := s.flush(context.Background(), w); ferr != nil {
		err = errors.Join(err, fmt.Errorf("rediscluster: %w", ferr))
	}
	return err
}

// Begin implements store.Backend.
func (s *Store) Begin() store.Txn {
	return &txn{s: s, ctx: context.Background(), loc: s.local.Begin(true), w: newWrites(), cache: map[ref][]byte{}}
}

// Read implements store.Backend: reads of what is committed.
func (s *Store) Read(fn func(store.Txn) error) error {
	loc := s.local.Begin(false)
	defer loc.Discard()
	return fn(&txn{s: s, ctx: context.Background(), loc: loc, w: newWrites(), cache: map[ref][]byte{}, view: true})
}

// Pending implements store.Backend: the operations are the process' own.
func (s *Store) Pending(fn func(seq uint64, ops []byte) error) error { return s.local.Pending(fn) }

// ClearPending implements store.Backend.
func (s *Store) ClearPending(seqs []uint64) error { return s.local.ClearPending(seqs) }

// ReadOnly implements store.Backend: a process whose local store is read
// only writes nothing.
func (s *Store) ReadOnly() bool { return s.local.ReadOnly() }

// Shared implements store.Backend.
func (s *Store) Shared() bool { return true }

// Empty implements store.Backend: no document record.
func (s *Store) Empty() bool {
	ctx := context.Background()
	found := false
	var herr error
	err := s.scan(ctx, s.k("p", "*"), func(family string) bool {
		it := s.rdb.HScan(ctx, family, 0, recordField+"*", 1000).Iterator()
		found = it.Next(ctx)
		herr = it.Err()
		return !found && herr == nil
	})
	return err == nil && herr == nil && !found
}

// Stats implements store.Backend: a read of every posting family, which
// hold the records too.
func (s *Store) Stats() (store.Stats, error) {
	ctx := context.Background()
	var st store.Stats
	var families []string
	err := s.scan(ctx, s.k("p", "*"), func(key string) bool {
		families = append(families, key)
		return true
	})
	if err != nil {
		return st, err
	}
	clusters := map[string]bool{}
	for _, f := range families {
		vals, err := s.rdb.HGetAll(ctx, f).Result()
		if err != nil {
			return st, err
		}
		st.Lists += countLists(vals)
		for field, v := range vals {
			if !strings.HasPrefix(field, recordField) {
				continue
			}
			st.Docs++
			if rec, err := codec.DecodeRecordHead([]byte(v)); err == nil {
				clusters[rec.Cluster] = true
			}
		}
	}
	n, err := s.rdb.ZCard(ctx, s.tagged("clusters")).Result()
	if err != nil {
		return st, err
	}
	// Clusters with a hash, and those of their founder alone (no hash).
	st.Clusters = int(n)
	for c := range clusters {
		if ok, err := s.hasHash(ctx, c); err != nil {
			return st, err
		} else if !ok {
			st.Clusters++
		}
	}
	st.Pending, err = s.local.PendingCount()
	return st, err
}

// scan calls fn with every key matching pattern, on every master, until
// fn returns false.
func (s *Store) scan(ctx context.Context, pattern string, fn func(string) bool) error {
	var mu sync.Mutex
	stop := false
	each := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			mu.Lock()
			if !stop {
				stop = !fn(it.Val())
			}
			done := stop
			mu.Unlock()
			if done {
				return nil
			}
		}
		return it.Err()
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, each)
	}
	if c, ok := s.rdb.(*redis.Client); ok {
		return each(ctx, c)
	}
	return fmt.Errorf("scan: unsupported client %T", s.rdb)
}

// Close implements store.Backend: it closes the client if Open made it;
// the local store is the caller's.
func (s *Store) Close() error {
	s.nodesMu.Lock()
	var errs []error
	for _, c := range s.nodes {
		errs = append(errs, c.Close())
	}
	s.nodes, s.closed = nil, true
	s.nodesMu.Unlock()
	if s.ownsClient {
		errs = append(errs, s.rdb.Close())
	}
	return errors.Join(errs...)
}
