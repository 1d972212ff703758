package rediscluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

// Store is a shared store on Redis (see the package doc). It implements
// store.Backend.
var _ store.Backend = (*Store)(nil)

type Store struct {
	rdb        redis.UniversalClient
	ownsClient bool // made by Open, closed by Close
	ownsLocal  bool // likewise
	prefix     string
	local      *embedded.Local
	ttl        time.Duration
	token      string

	mu      sync.Mutex // guards the lease state below
	held    bool
	session *writes // the committed writes of an Exclusive call, flushed when it ends
	// sessionReads are the values an Exclusive call's mutations read from
	// Redis, shared by them: the lease keeps them current, and the
	// session's writes take precedence over them.
	sessionReads map[string][]byte
	renewed      time.Time
	// Numbers reserved from the counters, a block at a time, while the
	// lease is held; what is left goes when it is released, so numbers
	// still follow the order of the leases.
	seqs, clusters reserved
}

// reserved is a block of counter values: next up to end (exclusive).
type reserved struct{ next, end uint64 }

// counterBlock is how many numbers a holder reserves at once: a round
// trip each block. What a lease leaves unused is skipped (gaps in
// sequence numbers and cluster ids are harmless).
const counterBlock = 256

// writes are shared writes not yet made: string values (nil: deleted),
// set members added (true) or removed (false), clusters created (with
// their number) and deleted.
type writes struct {
	strs  map[string]*[]byte
	sets  map[string]map[string]bool
	zadds map[string]float64
	zrems map[string]bool
}

func newWrites() *writes {
	return &writes{strs: map[string]*[]byte{}, sets: map[string]map[string]bool{},
		zadds: map[string]float64{}, zrems: map[string]bool{}}
}

// merge adds w2's writes over w's.
func (w *writes) merge(w2 *writes) {
	for k, v := range w2.strs {
		w.strs[k] = v
	}
	for k, ms := range w2.sets {
		if w.sets[k] == nil {
			w.sets[k] = map[string]bool{}
		}
		for m, add := range ms {
			w.sets[k][m] = add
		}
	}
	for c, n := range w2.zadds {
		w.zadds[c] = n
		delete(w.zrems, c)
	}
	for c := range w2.zrems {
		w.zrems[c] = true
		delete(w.zadds, c)
	}
}

func (w *writes) empty() bool {
	return len(w.strs) == 0 && len(w.sets) == 0 && len(w.zadds) == 0 && len(w.zrems) == 0
}

// LeaseTTL is how long a decision lease lasts unless its holder renews it
// (each commit does): the time other writers wait after a holder dies.
const LeaseTTL = 10 * time.Second

// Open connects to the Redis of url and returns New's store, which
// closes the connection when it closes. url is
// redis://HOST:PORT[,HOST:PORT...][/PREFIX]: seed addresses of a Redis
// Cluster (or one server without cluster mode), and the key prefix
// (default "bleve-dedup"), which names the shared store. A nil local
// opens one in memory, owned by the store: enough to read the shared
// state, as a command that lists its clusters does.
func Open(url string, local *embedded.Local) (*Store, error) {
	addrs, prefix, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	ownsLocal := local == nil
	if ownsLocal {
		if local, err = embedded.OpenLocal(embedded.DefaultOptions("")); err != nil {
			return nil, fmt.Errorf("rediscluster: %w", err)
		}
	}
	s, err := open(url, addrs, prefix, local)
	if err != nil {
		if ownsLocal {
			local.Close()
		}
		return nil, err
	}
	s.ownsLocal = ownsLocal
	return s, nil
}

func open(url string, addrs []string, prefix string, local *embedded.Local) (*Store, error) {
	var rdb redis.UniversalClient = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	err := rdb.Ping(context.Background()).Err()
	if err != nil && strings.Contains(err.Error(), "cluster support disabled") && len(addrs) == 1 {
		rdb.Close()
		rdb = redis.NewClient(&redis.Options{Addr: addrs[0]})
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
// Several stores, in several processes, may share one prefix.
func New(rdb redis.UniversalClient, prefix string, local *embedded.Local) (*Store, error) {
	if prefix == "" || strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("rediscluster: key prefix %q: want a non-empty name without braces: %w", prefix, ErrInvalidURL)
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("rediscluster: %w", err)
	}
	s := &Store{rdb: rdb, prefix: prefix + ":", local: local, ttl: LeaseTTL, token: hex.EncodeToString(tok)}
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		return nil, fmt.Errorf("rediscluster: %w", err)
	}
	if err := s.checkFormat(context.Background()); err != nil {
		return nil, fmt.Errorf("rediscluster: %s: %w", prefix, err)
	}
	return s, nil
}

// redisFormat is the version of the key layout: 3 holds package
// similarity's compact signatures; 2 had the posting lists in bucket
// hashes too, and whole signatures; 1, without a format key, a key a list.
const redisFormat = "3"

// checkFormat marks a new store with the layout's version, and refuses a
// store of another layout.
func (s *Store) checkFormat(ctx context.Context) error {
	v, err := s.rdb.Get(ctx, s.k("format")).Result()
	if errors.Is(err, redis.Nil) {
		var clusters int64
		if clusters, err = s.rdb.ZCard(ctx, s.k("clusters")).Result(); err == nil && clusters > 0 {
			v = "1"
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
func (s *Store) Prefix() string { return strings.TrimSuffix(s.prefix, ":") }

func (s *Store) k(parts ...string) string { return s.prefix + strings.Join(parts, ":") }

// acquire takes the lease, waiting while another holder has it, and
// completes the last holder's commit from the journal.
func (s *Store) acquire(ctx context.Context) error {
	if s.held {
		return nil
	}
	wait := time.Millisecond
	for {
		ok, err := s.rdb.SetNX(ctx, s.k("lease"), s.token, s.ttl).Result()
		if err != nil {
			return fmt.Errorf("lease: %w", err)
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("lease: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
	s.held, s.renewed = true, time.Now()
	j, err := s.rdb.Get(ctx, s.k("journal")).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err == nil {
		err = s.apply(ctx, j)
	}
	if err == nil {
		err = s.rdb.Del(ctx, s.k("journal")).Err()
	}
	if err != nil {
		return fmt.Errorf("replaying the last commit: %w", err)
	}
	return nil
}

var releaseScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)

var renewScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`)

func (s *Store) release(ctx context.Context) error {
	if !s.held {
		return nil
	}
	s.held = false
	s.seqs, s.clusters = reserved{}, reserved{}
	return releaseScript.Run(ctx, s.rdb, []string{s.k("lease")}, s.token).Err()
}

// take returns the next number of counter key, reserving a block while
// the lease is held.
func (s *Store) take(ctx context.Context, r *reserved, key string) (uint64, error) {
	if r.next == r.end {
		end, err := s.rdb.IncrBy(ctx, s.k(key), counterBlock).Uint64()
		if err != nil {
			return 0, err
		}
		r.next, r.end = end-counterBlock+1, end+1
	}
	n := r.next
	r.next++
	return n, nil
}

// flush makes w's writes: the journal first, then the writes themselves
// (see the package comment on faults). The lease is renewed first when a
// third of it has gone, or fails with ErrLeaseLost.
func (s *Store) flush(ctx context.Context, w *writes) error {
	if w.empty() {
		return nil
	}
	if time.Since(s.renewed) > s.ttl/3 {
		if err := s.renew(ctx); err != nil {
			return err
		}
	}
	j := s.journal(w)
	if err := s.rdb.Set(ctx, s.k("journal"), j, 0).Err(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := s.apply(ctx, j); err != nil {
		return err
	}
	// Applied: the next holder need not replay it (a whole batch's
	// writes). Only this holder's journal goes, in case the lease was lost
	// meanwhile and another holder wrote its own.
	return forgetScript.Run(ctx, s.rdb, []string{s.k("journal")}, s.journalHead()).Err()
}

// forgetScript deletes the journal KEYS[1] if it starts with ARGV[1], its
// writer's head.
var forgetScript = redis.NewScript(`if redis.call("getrange", KEYS[1], 0, #ARGV[1] - 1) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)

// renew extends the lease, or fails with ErrLeaseLost.
func (s *Store) renew(ctx context.Context) error {
	n, err := renewScript.Run(ctx, s.rdb, []string{s.k("lease")}, s.token, s.ttl.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	if n == 0 {
		s.held = false
		return ErrLeaseLost
	}
	s.renewed = time.Now()
	return nil
}

// Exclusive implements store.Backend: it runs fn holding the lease; its mutations' shared writes are
// made together when it ends (one journal, one pipeline).
func (s *Store) Exclusive(fn func() error) error {
	ctx := context.Background()
	s.mu.Lock()
	if err := s.acquire(ctx); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("rediscluster: %w", err)
	}
	s.session, s.sessionReads = newWrites(), map[string][]byte{}
	s.mu.Unlock()
	err := fn()
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.session
	s.session, s.sessionReads = nil, nil
	if ferr := s.flush(ctx, w); ferr != nil {
		err = errors.Join(err, fmt.Errorf("rediscluster: %w", ferr))
	}
	if rerr := s.release(ctx); rerr != nil {
		err = errors.Join(err, fmt.Errorf("rediscluster: lease: %w", rerr))
	}
	return err
}

// Begin implements store.Backend: it takes the lease, unless an Exclusive
// call holds it.
func (s *Store) Begin() store.Txn {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &txn{s: s, ctx: ctx, w: newWrites(), cache: map[string][]byte{}}
	if st.err = s.acquire(ctx); st.err == nil {
		st.loc = s.local.Begin(true)
		st.owned = s.session == nil
		if !st.owned {
			st.cache = s.sessionReads
		}
	}
	return st
}

// InSession implements store.Backend.
func (s *Store) InSession() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session != nil
}

// Read implements store.Backend: reads outside the lease, of what the
// holders before have committed.
func (s *Store) Read(fn func(store.Txn) error) error {
	loc := s.local.Begin(false)
	defer loc.Discard()
	return fn(&txn{s: s, ctx: context.Background(), loc: loc, w: newWrites(), cache: map[string][]byte{}, view: true})
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

// Empty implements store.Backend.
func (s *Store) Empty() bool {
	n, err := s.rdb.ZCard(context.Background(), s.k("clusters")).Result()
	return err == nil && n == 0
}

// Stats implements store.Backend.
func (s *Store) Stats() (store.Stats, error) {
	ctx := context.Background()
	var st store.Stats
	n, err := s.rdb.ZCard(ctx, s.k("clusters")).Result()
	if err != nil {
		return st, err
	}
	st.Clusters = int(n)
	var buckets []string
	err = s.scan(ctx, s.k("*"), func(key string) {
		switch {
		case strings.HasPrefix(key, s.k("d", "")):
			st.Docs++
		case strings.HasPrefix(key, s.k("b", "")):
			buckets = append(buckets, key)
		}
	})
	if err != nil {
		return st, err
	}
	pipe := s.rdb.Pipeline()
	lens := make([]*redis.IntCmd, len(buckets))
	for i, b := range buckets {
		lens[i] = pipe.HLen(ctx, b)
	}
	if len(buckets) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return st, err
		}
	}
	for _, l := range lens {
		st.Lists += int(l.Val())
	}
	st.Pending, err = s.local.PendingCount()
	return st, err
}

// scan calls fn with every key matching pattern, on every master.
func (s *Store) scan(ctx context.Context, pattern string, fn func(string)) error {
	var mu sync.Mutex
	each := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			mu.Lock()
			fn(it.Val())
			mu.Unlock()
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

// Close implements store.Backend: it gives the lease back and closes the
// client and the local store if Open made them; a local store given to
// Open or New is the caller's.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.release(context.Background())
	if s.ownsClient {
		err = errors.Join(err, s.rdb.Close())
	}
	if s.ownsLocal {
		err = errors.Join(err, s.local.Close())
	}
	return err
}

// txn is one mutation (or read) of a Store: reads go to Redis
// through the mutation's own writes and, in an Exclusive call, the writes
// of its mutations before; writes wait in w until commit. Local reads and
// writes go to the local transaction.
type txn struct {
	s     *Store
	ctx   context.Context
	err   error // taking the lease failed: every call fails
	loc   *embedded.LocalTxn
	owned bool // the lease was taken for this mutation alone
	view  bool // a read outside the lease, maybe beside a session

	w     *writes
	cache map[string][]byte // values read from Redis (nil: none there)
}

// pending returns the value of key written but not yet in Redis: by this
// mutation, or by the session's mutations before it.
func (r *txn) pending(key string) (v *[]byte, ok bool) {
	if v, ok := r.w.strs[key]; ok {
		return v, true
	}
	if r.view {
		// Another goroutine may hold a session and merge into it (under
		// s.mu); its committed decisions are visible, as in Badger.
		r.s.mu.Lock()
		defer r.s.mu.Unlock()
	}
	if r.s.session != nil {
		v, ok := r.s.session.strs[key]
		return v, ok
	}
	return nil, false
}

// get reads a string key, through the writes not yet made.
func (r *txn) get(key string) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if v, ok := r.pending(key); ok {
		if v == nil {
			return nil, store.ErrNotFound
		}
		return *v, nil
	}
	v, ok := r.cache[key]
	if !ok {
		var b []byte
		var err error
		if hash, field, isField := splitField(key); isField {
			b, err = r.s.rdb.HGet(r.ctx, hash, field).Bytes()
		} else {
			b, err = r.s.rdb.Get(r.ctx, key).Bytes()
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		v, r.cache[key] = b, b
	}
	if v == nil {
		return nil, store.ErrNotFound
	}
	return v, nil
}

// prefetch reads, in one pipeline, the keys not written and not read yet.
func (r *txn) Prefetch(rd store.Reads) error {
	if r.err != nil {
		return r.err
	}
	var names []string
	for _, id := range rd.IDs {
		names = append(names, r.s.k("d", id))
	}
	for _, k := range rd.Keys {
		names = append(names, r.listKey(k))
	}
	for _, seq := range rd.Seqs {
		names = append(names, r.s.k("s", seqName(seq)))
	}
	for _, c := range rd.Clusters {
		names = append(names, r.s.k("c", c))
	}
	return r.fetch(names)
}

// fetch reads the named keys and hash fields not written and not read
// yet, in one pipeline.
func (r *txn) fetch(names []string) error {
	pipe := r.s.rdb.Pipeline()
	cmds := map[string]*redis.StringCmd{}
	lists := map[string][]string{} // names of posting lists by bucket
	for _, n := range names {
		_, written := r.pending(n)
		if _, read := r.cache[n]; written || read {
			continue
		}
		if hash, _, ok := splitField(n); ok {
			lists[hash] = append(lists[hash], n)
		} else if cmds[n] == nil {
			cmds[n] = pipe.Get(r.ctx, n)
		}
	}
	hcmds := map[string]*redis.SliceCmd{}
	for hash, ns := range lists {
		slices.Sort(ns)
		ns = slices.Compact(ns)
		lists[hash] = ns
		fields := make([]string, len(ns))
		for i, n := range ns {
			_, fields[i], _ = splitField(n)
		}
		hcmds[hash] = pipe.HMGet(r.ctx, hash, fields...)
	}
	if len(cmds) == 0 && len(hcmds) == 0 {
		return nil
	}
	if _, err := pipe.Exec(r.ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for n, c := range cmds {
		b, err := c.Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		r.cache[n] = b
	}
	for hash, c := range hcmds {
		vals, err := c.Result()
		if err != nil {
			return err
		}
		for i, n := range lists[hash] {
			var b []byte
			if v, ok := vals[i].(string); ok {
				b = []byte(v)
			}
			r.cache[n] = b
		}
	}
	return nil
}

func (r *txn) set(key string, v []byte) error {
	if r.err != nil {
		return r.err
	}
	r.w.strs[key] = &v
	return nil
}

func (r *txn) del(key string) error {
	if r.err != nil {
		return r.err
	}
	r.w.strs[key] = nil
	return nil
}

// Record implements store.Txn.
func (r *txn) Record(id string, withKeys bool) (*store.Record, error) {
	b, err := r.get(r.s.k("d", id))
	if err == nil && withKeys {
		var rec *store.Record
		if rec, err = store.DecodeRecord(b); err == nil {
			return rec, nil
		}
	} else if err == nil {
		var rec *store.Record
		if rec, err = store.DecodeRecordHead(b); err == nil {
			return rec, nil
		}
	}
	return nil, fmt.Errorf("document %q: %w", id, err)
}

// PutRecord implements store.Txn.
func (r *txn) PutRecord(id string, rec *store.Record) error {
	return r.set(r.s.k("d", id), store.EncodeRecord(rec))
}

// DeleteRecord implements store.Txn.
func (r *txn) DeleteRecord(id string) error { return r.del(r.s.k("d", id)) }

func seqName(seq uint64) string { return strconv.FormatUint(seq, 10) }

// Signature implements store.Txn.
func (r *txn) Signature(seq uint64) ([]byte, error) {
	b, err := r.get(r.s.k("s", seqName(seq)))
	if err != nil {
		return nil, fmt.Errorf("signature of document %d: %w", seq, err)
	}
	return b, nil
}

// PutSignature implements store.Txn.
func (r *txn) PutSignature(seq uint64, enc []byte) error {
	return r.set(r.s.k("s", seqName(seq)), enc)
}

// DeleteSignature implements store.Txn.
func (r *txn) DeleteSignature(seq uint64) error { return r.del(r.s.k("s", seqName(seq))) }

// Payload implements store.Txn: from the local store.
func (r *txn) Payload(id string) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.loc.Payload(id)
}

// HasPayload implements store.Txn.
func (r *txn) HasPayload(id string) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	return r.loc.HasPayload(id)
}

// PutPayload implements store.Txn.
func (r *txn) PutPayload(id string, p []byte) error {
	if r.err != nil {
		return r.err
	}
	return r.loc.PutPayload(id, p)
}

// DeletePayload implements store.Txn.
func (r *txn) DeletePayload(id string) error {
	if r.err != nil {
		return r.err
	}
	return r.loc.DeletePayload(id)
}

// listKey names posting key k as a field of its bucket's hash: the hash's
// key, a zero byte, the field (see splitField).
func (r *txn) listKey(k []byte) string {
	// Built in one buffer: a batch names some 11,000 lists, twice.
	n := make([]byte, 0, len(r.s.prefix)+12+2*len(k))
	n = append(append(n, r.s.prefix...), "b:{"...)
	n = strconv.AppendUint(n, store.Hash(k)%postingBuckets, 10)
	n = append(append(n, '}'), fieldSep...)
	return string(hex.AppendEncode(n, k[len(store.NSPosting):]))
}

// postingBuckets is how many hashes the posting lists are spread over: a
// batch of 200 documents touches some 11,000 lists, in all but a few of
// the buckets.
const postingBuckets = 1024

// fieldSep joins a hash's key and a field into one name (keys never
// hold it).
const fieldSep = "\x00"

// splitField splits a name made by listKey into the hash's key and the
// field; ok is false for the name of a plain key.
func splitField(name string) (hash, field string, ok bool) {
	return strings.Cut(name, fieldSep)
}

// postings reads the lists in one pipeline (those not read yet).
// Postings implements store.Txn: the lists not read yet, in one pipeline.
func (r *txn) Postings(keys [][]byte) ([]store.PostingList, error) {
	if r.err != nil {
		return nil, r.err
	}
	// One look each at the writes and the values read, the misses read
	// at once: a batch looks up some 50,000 lists.
	vals := make([][]byte, len(keys))
	var missing []int
	var names []string // of the missing
	for i, k := range keys {
		n := r.listKey(k)
		if v, ok := r.pending(n); ok {
			if v != nil {
				vals[i] = *v
			}
		} else if v, ok := r.cache[n]; ok {
			vals[i] = v
		} else {
			missing, names = append(missing, i), append(names, n)
		}
	}
	if len(missing) > 0 {
		if err := r.fetch(names); err != nil {
			return nil, err
		}
		for j, i := range missing {
			vals[i] = r.cache[names[j]]
		}
	}
	out := make([]store.PostingList, len(keys))
	for i, b := range vals {
		if b == nil {
			continue
		}
		var err error
		if out[i], err = store.DecodePostings(nil, b); err != nil {
			return nil, fmt.Errorf("posting list %x: %w", keys[i], err)
		}
	}
	return out, nil
}

// PutPostings implements store.Txn.
func (r *txn) PutPostings(k []byte, l store.PostingList, _, _ []uint64) error {
	switch {
	case l.Full:
		return r.set(r.listKey(k), store.FullPostings())
	case len(l.Seqs) == 0:
		return r.del(r.listKey(k))
	}
	return r.set(r.listKey(k), store.EncodePostings(l.Seqs))
}

// Representative implements store.Txn.
func (r *txn) Representative(cluster string) (string, error) {
	b, err := r.get(r.s.k("c", cluster))
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", cluster, err)
	}
	return string(b), nil
}

// SetRepresentative implements store.Txn.
func (r *txn) SetRepresentative(cluster, id string) error {
	if err := r.set(r.s.k("c", cluster), []byte(id)); err != nil {
		return err
	}
	n, err := store.ParseClusterID(cluster)
	if err != nil {
		return err
	}
	r.w.zadds[cluster] = float64(n)
	delete(r.w.zrems, cluster)
	return nil
}

// DeleteCluster implements store.Txn.
func (r *txn) DeleteCluster(cluster string) error {
	if err := r.del(r.s.k("c", cluster)); err != nil {
		return err
	}
	delete(r.w.zadds, cluster)
	r.w.zrems[cluster] = true
	return nil
}

// Members implements store.Txn.
func (r *txn) Members(cluster string) ([]string, error) {
	if r.err != nil {
		return nil, r.err
	}
	key := r.s.k("m", cluster)
	ms, err := r.s.rdb.SMembers(r.ctx, key).Result()
	if err != nil {
		return nil, err
	}
	if r.view { // as in pending
		r.s.mu.Lock()
		defer r.s.mu.Unlock()
	}
	for _, w := range []*writes{r.s.session, r.w} { // the older writes first
		if w == nil {
			continue
		}
		for m, add := range w.sets[key] {
			if add && !slices.Contains(ms, m) {
				ms = append(ms, m)
			} else if !add {
				ms = slices.DeleteFunc(ms, func(x string) bool { return x == m })
			}
		}
	}
	slices.Sort(ms)
	return ms, nil
}

func (r *txn) member(cluster, id string, add bool) error {
	if r.err != nil {
		return r.err
	}
	key := r.s.k("m", cluster)
	if r.w.sets[key] == nil {
		r.w.sets[key] = map[string]bool{}
	}
	r.w.sets[key][id] = add
	return nil
}

// AddMember implements store.Txn.
func (r *txn) AddMember(cluster, id string) error { return r.member(cluster, id, true) }

// RemoveMember implements store.Txn.
func (r *txn) RemoveMember(cluster, id string) error { return r.member(cluster, id, false) }

// clusters walks the sorted set of cluster ids a page at a time.
// Clusters implements store.Txn.
func (r *txn) Clusters(after string, fn func(string) error) error {
	if r.err != nil {
		return r.err
	}
	min := "-inf"
	if after != "" {
		n, err := store.ParseClusterID(after)
		if err != nil {
			return err
		}
		min = "(" + strconv.FormatUint(n, 10)
	}
	for {
		ids, err := r.s.rdb.ZRangeArgs(r.ctx, redis.ZRangeArgs{Key: r.s.k("clusters"), ByScore: true,
			Start: min, Stop: "+inf", Count: 1000}).Result()
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := fn(id); err != nil {
				return err
			}
		}
		if len(ids) < 1000 {
			return nil
		}
		n, _ := strconv.ParseUint(ids[len(ids)-1], 16, 64)
		min = "(" + strconv.FormatUint(n, 10)
	}
}

// NextSeq implements store.Txn.
func (r *txn) NextSeq() (uint64, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.s.take(r.ctx, &r.s.seqs, "seq")
}

// NextCluster implements store.Txn.
func (r *txn) NextCluster() (uint64, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.s.take(r.ctx, &r.s.clusters, "cluster")
}

// SetPending implements store.Txn: in the local store.
func (r *txn) SetPending(seq uint64, ops []byte) error {
	if r.err != nil {
		return r.err
	}
	return r.loc.SetPending(seq, ops)
}

// Local implements store.Txn: the local store's keys.
func (r *txn) Local() store.KV { return r.loc }

// Journal entries: an op byte, the key, then the value, member or score;
// a journal starts with jHead and its writer's lease token.
const (
	jHead byte = iota
	jSet
	jDel
	jSAdd
	jSRem
	jZAdd
	jZRem
)

// journalHead is the start of this store's journals.
func (s *Store) journalHead() []byte { return binenc.AppendString([]byte{jHead}, s.token) }

// journal encodes a write set.
func (s *Store) journal(w *writes) []byte {
	// Sized first: a batch's journal is megabytes, and growing it by
	// appends copied it over and over.
	const entry = 1 + 2*binary.MaxVarintLen64 // op and two lengths
	size := len(s.journalHead()) + (len(w.zadds)+len(w.zrems))*(entry+len(s.k("clusters"))+store.ClusterIDLen+8)
	for k, v := range w.strs {
		size += entry + len(k)
		if v != nil {
			size += len(*v)
		}
	}
	for k, ms := range w.sets {
		for m := range ms {
			size += entry + len(k) + len(m)
		}
	}
	b := append(make([]byte, 0, size), s.journalHead()...)
	for k, v := range w.strs {
		if v == nil {
			b = binenc.AppendString(append(b, jDel), k)
		} else {
			b = append(binary.AppendUvarint(binenc.AppendString(append(b, jSet), k), uint64(len(*v))), *v...)
		}
	}
	for k, ms := range w.sets {
		for m, add := range ms {
			op := jSRem
			if add {
				op = jSAdd
			}
			b = binenc.AppendString(binenc.AppendString(append(b, op), k), m)
		}
	}
	for c, score := range w.zadds {
		b = binenc.AppendString(append(b, jZAdd), s.k("clusters"))
		b = binary.BigEndian.AppendUint64(binenc.AppendString(b, c), uint64(score))
	}
	for c := range w.zrems {
		b = binenc.AppendString(binenc.AppendString(append(b, jZRem), s.k("clusters")), c)
	}
	return b
}

// apply runs a journal's writes in one pipeline.
func (s *Store) apply(ctx context.Context, j []byte) error {
	pipe := s.rdb.Pipeline()
	rd := binenc.NewReader(j)
	hsets, hdels := map[string][]any{}, map[string][]string{} // by bucket
	for rd.Err() == nil && rd.Len() > 0 {
		op, k := rd.Byte(), rd.String()
		hash, field, isField := splitField(k)
		switch {
		case op == jHead:
		case op == jSet && isField:
			hsets[hash] = append(hsets[hash], field, rd.String())
		case op == jDel && isField:
			hdels[hash] = append(hdels[hash], field)
		case op == jSet:
			pipe.Set(ctx, k, rd.String(), 0)
		case op == jDel:
			pipe.Del(ctx, k)
		case op == jSAdd:
			pipe.SAdd(ctx, k, rd.String())
		case op == jSRem:
			pipe.SRem(ctx, k, rd.String())
		case op == jZAdd:
			m := rd.String()
			pipe.ZAdd(ctx, k, redis.Z{Score: float64(rd.Uint64()), Member: m})
		case op == jZRem:
			pipe.ZRem(ctx, k, rd.String())
		default:
			rd.Fail("journal op")
		}
	}
	if err := rd.Err(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for hash, fvs := range hsets {
		pipe.HSet(ctx, hash, fvs...)
	}
	for hash, fs := range hdels {
		pipe.HDel(ctx, hash, fs...)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// commit commits the local writes, then the shared ones: in an
// Exclusive call, into the session's writes, made when it ends; else now,
// before the lease goes (see the package comment above on faults).
// Commit implements store.Txn.
func (r *txn) Commit() error {
	if r.err != nil {
		return r.err
	}
	if err := r.loc.Commit(); err != nil {
		return err
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.session != nil && !r.owned {
		r.s.session.merge(r.w)
		return nil
	}
	err := r.s.flush(r.ctx, r.w)
	if r.owned {
		err = errors.Join(err, r.s.release(r.ctx))
	}
	return err
}

// Discard implements store.Txn.
func (r *txn) Discard() {
	if r.loc != nil {
		r.loc.Discard()
	}
	if r.owned && r.err == nil {
		r.s.mu.Lock()
		r.s.release(r.ctx)
		r.s.mu.Unlock()
	}
}
