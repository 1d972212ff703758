package dedupfilter

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

	"github.com/dgraph-io/badger/v4"
	"github.com/redis/go-redis/v9"
)

// The shared store on Redis (Cluster): several processes, each with a
// search index of its own, decide against one state. Keys, under the
// store's prefix P:
//
//	P:d:<id>        record (string, as d/<id> in Badger)
//	P:s:<seq>       id and signature of document seq (string)
//	P:b:{<n>}       posting lists of bucket n of 1024 (hash: field <key
//	                hex>, value the same encoding as in Badger), so that a
//	                batch reads and writes them with one HMGET and one
//	                HSET a bucket, not a command a list
//	P:format        the key layout's version
//	P:c:<cluster>   representative's id (string)
//	P:m:<cluster>   members (set)
//	P:clusters      cluster ids, scored by their number (sorted set)
//	P:seq, P:cluster  counters (INCR)
//	P:lease         the decision lease: its holder's token, with an expiry
//	P:journal       the writes of a commit not yet applied
//
// Payloads and pending search-index ops stay in each process' local
// Badger store: they concern its own search index.
//
// One truth with several writers. A Redis Cluster runs a transaction or a
// script on the keys of one hash slot only, and a decision reads and
// writes keys all over the key space, so the store serialises decisions
// with a lease: one key, taken with SET NX PX, held by one process at a
// time, for one mutation or a batch of them (Filter.Exclusive). Every
// decision reads the state the previous holders left and writes before it
// lets go, so the outcome of concurrent indexers is the outcome of some
// serial order of their documents (the order of their leases), and two
// near-duplicates indexed at the same moment by two processes cannot both
// be admitted as representatives: the later one sees the earlier one's
// postings. Sequence numbers are taken under the lease, so they follow
// that order too.
//
// Faults. A commit first writes its whole write set as one value
// (P:journal), then applies it, then deletes the journal; the writes are
// idempotent (SET, DEL, SADD, SREM, ZADD, ZREM). A holder that dies leaves
// its lease to expire (LeaseTTL), and the next holder replays the journal
// it finds, so a commit cut off half way is completed: nothing half-done
// skews later decisions. The process' local writes (payloads, pending ops)
// commit before the shared ones: after a crash between the two, the local
// pending ops are replayed into its search index at the next open and the
// page, not known to the shared store, is decided again when the run is
// repeated. A holder checks that the lease is still its own before each
// commit (a holder paused past the expiry fails with ErrLeaseLost instead
// of writing over the next one). A Redis master that fails over loses the writes it had not
// yet replicated (Redis replicates asynchronously): the client fails, and
// repeating the run redoes the pages the store does not know.
type redisStore struct {
	rdb        redis.UniversalClient
	ownsClient bool // made by OpenRedis, closed by close
	prefix     string
	local      *badger.DB
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

// ErrLeaseLost: the decision lease expired while its holder was deciding
// (a pause longer than LeaseTTL); the mutation was not written.
var ErrLeaseLost = errors.New("decision lease lost")

// OpenRedis connects to the Redis of url and returns NewRedis's filter,
// which closes the connection when it closes. url is
// redis://HOST:PORT[,HOST:PORT...][/PREFIX]: seed addresses of a Redis
// Cluster (or one server without cluster mode), and the key prefix
// (default "bleve-dedup"), which names the shared store.
func OpenRedis(url string, local *badger.DB, opts Options) (*Filter, error) {
	addrs, prefix, err := ParseRedisURL(url)
	if err != nil {
		return nil, err
	}
	var rdb redis.UniversalClient = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	err = rdb.Ping(context.Background()).Err()
	if err != nil && strings.Contains(err.Error(), "cluster support disabled") && len(addrs) == 1 {
		rdb.Close()
		rdb = redis.NewClient(&redis.Options{Addr: addrs[0]})
		err = rdb.Ping(context.Background()).Err()
	}
	if err != nil {
		rdb.Close()
		return nil, fmt.Errorf("dedupfilter: %s: %w", url, err)
	}
	f, err := NewRedis(rdb, prefix, local, opts)
	if err != nil {
		rdb.Close()
		return nil, err
	}
	f.store.(*redisStore).ownsClient = true
	return f, nil
}

// DefaultRedisPrefix is the key prefix of a Redis URL without one.
const DefaultRedisPrefix = "bleve-dedup"

// ParseRedisURL parses redis://HOST:PORT[,HOST:PORT...][/PREFIX].
func ParseRedisURL(s string) (addrs []string, prefix string, err error) {
	rest, ok := strings.CutPrefix(s, "redis://")
	if !ok {
		return nil, "", fmt.Errorf("dedupfilter: store %q: want redis://HOST:PORT[,HOST:PORT...][/PREFIX]: %w", s, ErrInvalidOptions)
	}
	hosts, prefix, _ := strings.Cut(rest, "/")
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	for _, h := range strings.Split(hosts, ",") {
		if _, port, err := net.SplitHostPort(h); err != nil || port == "" {
			return nil, "", fmt.Errorf("dedupfilter: store %q: address %q: want HOST:PORT: %w", s, h, ErrInvalidOptions)
		}
		addrs = append(addrs, h)
	}
	return addrs, prefix, nil
}

// NewRedis returns a filter keeping its shared state in Redis (a client of
// a Redis Cluster, or of one server) under keys starting with prefix, and
// its process-local state (payloads, pending search-index ops; the writes
// of AddOptions.Also) in local, a Badger store the caller opened and
// closes. Several filters, in several processes, may share one prefix.
func NewRedis(rdb redis.UniversalClient, prefix string, local *badger.DB, opts Options) (*Filter, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if prefix == "" || strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("dedupfilter: Redis key prefix %q: want a non-empty name without braces: %w", prefix, ErrInvalidOptions)
	}
	if opts.BooleanStopShare > 0 {
		return nil, fmt.Errorf("dedupfilter: BooleanStopShare %v: document frequencies are counted by the embedded store only: %w", opts.BooleanStopShare, ErrInvalidOptions)
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	s := &redisStore{rdb: rdb, prefix: prefix + ":", local: local, ttl: LeaseTTL, token: hex.EncodeToString(tok)}
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		return nil, fmt.Errorf("dedupfilter: redis: %w", err)
	}
	if err := s.checkFormat(context.Background()); err != nil {
		return nil, fmt.Errorf("dedupfilter: redis %s: %w", prefix, err)
	}
	return &Filter{store: s, opts: opts}, nil
}

// redisFormat is the version of the key layout: 2 has the posting lists
// in bucket hashes; 1, without a format key, had a key a list.
const redisFormat = "2"

// checkFormat marks a new store with the layout's version, and refuses a
// store of another layout.
func (s *redisStore) checkFormat(ctx context.Context) error {
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
		return fmt.Errorf("store layout %s, this version reads %s (index the pages again under a new prefix): %w", v, redisFormat, ErrCorrupt)
	}
	return nil
}

func (s *redisStore) k(parts ...string) string { return s.prefix + strings.Join(parts, ":") }

func (s *redisStore) readOnly() bool { return s.local.Opts().ReadOnly }

// acquire takes the lease, waiting while another holder has it, and
// completes the last holder's commit from the journal.
func (s *redisStore) acquire(ctx context.Context) error {
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

func (s *redisStore) release(ctx context.Context) error {
	if !s.held {
		return nil
	}
	s.held = false
	s.seqs, s.clusters = reserved{}, reserved{}
	return releaseScript.Run(ctx, s.rdb, []string{s.k("lease")}, s.token).Err()
}

// take returns the next number of counter key, reserving a block while
// the lease is held.
func (s *redisStore) take(ctx context.Context, r *reserved, key string) (uint64, error) {
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
func (s *redisStore) flush(ctx context.Context, w *writes) error {
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
func (s *redisStore) renew(ctx context.Context) error {
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

// exclusive runs fn holding the lease; its mutations' shared writes are
// made together when it ends (one journal, one pipeline).
func (s *redisStore) exclusive(fn func() error) error {
	ctx := context.Background()
	s.mu.Lock()
	if err := s.acquire(ctx); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("dedupfilter: %w", err)
	}
	s.session, s.sessionReads = newWrites(), map[string][]byte{}
	s.mu.Unlock()
	err := fn()
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.session
	s.session, s.sessionReads = nil, nil
	if ferr := s.flush(ctx, w); ferr != nil {
		err = errors.Join(err, fmt.Errorf("dedupfilter: %w", ferr))
	}
	if rerr := s.release(ctx); rerr != nil {
		err = errors.Join(err, fmt.Errorf("dedupfilter: lease: %w", rerr))
	}
	return err
}

func (s *redisStore) begin() state {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &redisState{s: s, ctx: ctx, w: newWrites(), cache: map[string][]byte{}}
	if st.err = s.acquire(ctx); st.err == nil {
		st.txn = s.local.NewTransaction(true)
		st.owned = s.session == nil
		if !st.owned {
			st.cache = s.sessionReads
		}
	}
	return st
}

func (s *redisStore) inSession() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session != nil
}

func (s *redisStore) view(fn func(state) error) error {
	txn := s.local.NewTransaction(false)
	defer txn.Discard()
	return fn(&redisState{s: s, ctx: context.Background(), txn: txn, w: newWrites(), cache: map[string][]byte{}, view: true})
}

func (s *redisStore) pending(fn func(seq uint64, ops []Op) error) error {
	return (&badgerStore{db: s.local}).pending(fn)
}

func (s *redisStore) clearPending(seqs []uint64) error {
	return (&badgerStore{db: s.local}).clearPending(seqs)
}

func (s *redisStore) empty() bool {
	n, err := s.rdb.ZCard(context.Background(), s.k("clusters")).Result()
	return err == nil && n == 0
}

func (s *redisStore) stats() (Stats, error) {
	ctx := context.Background()
	var st Stats
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
	pst, err := (&badgerStore{db: s.local}).stats()
	st.Pending = pst.Pending
	return st, err
}

// scan calls fn with every key matching pattern, on every master.
func (s *redisStore) scan(ctx context.Context, pattern string, fn func(string)) error {
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

func (s *redisStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.release(context.Background())
	if s.ownsClient {
		err = errors.Join(err, s.rdb.Close())
	}
	return err
}

// redisState is one mutation (or read) of a redisStore: reads go to Redis
// through the mutation's own writes and, in an Exclusive call, the writes
// of its mutations before; writes wait in w until commit. Local reads and
// writes go to the local transaction.
type redisState struct {
	s     *redisStore
	ctx   context.Context
	err   error // taking the lease failed: every call fails
	txn   *badger.Txn
	owned bool // the lease was taken for this mutation alone
	view  bool // a read outside the lease, maybe beside a session

	w     *writes
	cache map[string][]byte // values read from Redis (nil: none there)
}

// pending returns the value of key written but not yet in Redis: by this
// mutation, or by the session's mutations before it.
func (r *redisState) pending(key string) (v *[]byte, ok bool) {
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
func (r *redisState) get(key string) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if v, ok := r.pending(key); ok {
		if v == nil {
			return nil, ErrNotFound
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
		return nil, ErrNotFound
	}
	return v, nil
}

// prefetch reads, in one pipeline, the keys not written and not read yet.
func (r *redisState) prefetch(rd reads) error {
	if r.err != nil {
		return r.err
	}
	var names []string
	for _, id := range rd.ids {
		names = append(names, r.s.k("d", id))
	}
	for _, k := range rd.keys {
		names = append(names, r.listKey(k))
	}
	for _, seq := range rd.seqs {
		names = append(names, r.s.k("s", seqName(seq)))
	}
	for _, c := range rd.clusters {
		names = append(names, r.s.k("c", c))
	}
	return r.fetch(names)
}

// fetch reads the named keys and hash fields not written and not read
// yet, in one pipeline.
func (r *redisState) fetch(names []string) error {
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

func (r *redisState) set(key string, v []byte) error {
	if r.err != nil {
		return r.err
	}
	r.w.strs[key] = &v
	return nil
}

func (r *redisState) del(key string) error {
	if r.err != nil {
		return r.err
	}
	r.w.strs[key] = nil
	return nil
}

func (r *redisState) record(id string, withKeys bool) (*record, error) {
	b, err := r.get(r.s.k("d", id))
	if err != nil {
		return nil, fmt.Errorf("document %q: %w", id, err)
	}
	if withKeys {
		rec, err := decodeRecord(b)
		if err != nil {
			return nil, fmt.Errorf("document %q: %w", id, err)
		}
		return rec, nil
	}
	rec, rd := decodeRecordHead(b)
	if rd.err != nil {
		return nil, fmt.Errorf("document %q: %w", id, rd.err)
	}
	return rec, nil
}

func (r *redisState) putRecord(id string, rec *record) error {
	return r.set(r.s.k("d", id), encodeRecord(rec))
}

func (r *redisState) deleteRecord(id string) error { return r.del(r.s.k("d", id)) }

func seqName(seq uint64) string { return strconv.FormatUint(seq, 10) }

func (r *redisState) signature(seq uint64) (string, signature, error) {
	b, err := r.get(r.s.k("s", seqName(seq)))
	if err == nil {
		var id string
		var sig signature
		if id, sig, err = decodeSignature(b); err == nil {
			return id, sig, nil
		}
	}
	return "", signature{}, fmt.Errorf("signature of document %d: %w", seq, err)
}

func (r *redisState) putSignature(seq uint64, enc []byte) error {
	return r.set(r.s.k("s", seqName(seq)), enc)
}

func (r *redisState) deleteSignature(seq uint64) error { return r.del(r.s.k("s", seqName(seq))) }

func (r *redisState) payload(id string) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	return getPayload(r.txn, id)
}

func (r *redisState) hasPayload(id string) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	return hasKey(r.txn, key(nsPayload, id))
}

func (r *redisState) putPayload(id string, p []byte) error {
	if r.err != nil {
		return r.err
	}
	return r.txn.Set(key(nsPayload, id), encodePayload(p))
}

func (r *redisState) deletePayload(id string) error {
	if r.err != nil {
		return r.err
	}
	return r.txn.Delete(key(nsPayload, id))
}

// listKey names posting key k as a field of its bucket's hash: the hash's
// key, a zero byte, the field (see splitField).
func (r *redisState) listKey(k []byte) string {
	// Built in one buffer: a batch names some 11,000 lists, twice.
	n := make([]byte, 0, len(r.s.prefix)+12+2*len(k))
	n = append(append(n, r.s.prefix...), "b:{"...)
	n = strconv.AppendUint(n, hashBytes(k)%postingBuckets, 10)
	n = append(append(n, '}'), fieldSep...)
	return string(hex.AppendEncode(n, k[len(nsPosting):]))
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
func (r *redisState) postings(keys [][]byte) ([]postingList, error) {
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
	out := make([]postingList, len(keys))
	for i, b := range vals {
		if b == nil {
			continue
		}
		var err error
		if out[i].seqs, out[i].full, err = decodePostings(nil, b); err != nil {
			return nil, fmt.Errorf("posting list %x: %w", keys[i], err)
		}
	}
	return out, nil
}

func (r *redisState) putPostings(k []byte, l postingList, _, _ []uint64) error {
	switch {
	case l.full:
		return r.set(r.listKey(k), []byte{postingsFull})
	case len(l.seqs) == 0:
		return r.del(r.listKey(k))
	}
	return r.set(r.listKey(k), encodePostings(l.seqs))
}

func (r *redisState) representative(cluster string) (string, error) {
	b, err := r.get(r.s.k("c", cluster))
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", cluster, err)
	}
	return string(b), nil
}

func (r *redisState) setRepresentative(cluster, id string) error {
	if err := r.set(r.s.k("c", cluster), []byte(id)); err != nil {
		return err
	}
	n, err := strconv.ParseUint(cluster, 16, 64)
	if err != nil {
		return fmt.Errorf("cluster id %q: %w", cluster, err)
	}
	r.w.zadds[cluster] = float64(n)
	delete(r.w.zrems, cluster)
	return nil
}

func (r *redisState) deleteCluster(cluster string) error {
	if err := r.del(r.s.k("c", cluster)); err != nil {
		return err
	}
	delete(r.w.zadds, cluster)
	r.w.zrems[cluster] = true
	return nil
}

func (r *redisState) members(cluster string) ([]string, error) {
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

func (r *redisState) member(cluster, id string, add bool) error {
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

func (r *redisState) addMember(cluster, id string) error    { return r.member(cluster, id, true) }
func (r *redisState) removeMember(cluster, id string) error { return r.member(cluster, id, false) }

// clusters walks the sorted set of cluster ids a page at a time.
func (r *redisState) clusters(after string, fn func(string) error) error {
	if r.err != nil {
		return r.err
	}
	min := "-inf"
	if after != "" {
		n, err := strconv.ParseUint(after, 16, 64)
		if err != nil {
			return fmt.Errorf("cluster id %q: %w", after, err)
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

func (r *redisState) nextSeq() (uint64, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.s.take(r.ctx, &r.s.seqs, "seq")
}

func (r *redisState) nextCluster() (uint64, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.s.take(r.ctx, &r.s.clusters, "cluster")
}

func (r *redisState) setPending(seq uint64, ops []Op) error {
	if r.err != nil {
		return r.err
	}
	return r.txn.Set(seqKey(nsPending, seq), encodePending(ops))
}

func (r *redisState) local() *badger.Txn { return r.txn }

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
func (s *redisStore) journalHead() []byte { return appendString([]byte{jHead}, s.token) }

// journal encodes a write set.
func (s *redisStore) journal(w *writes) []byte {
	// Sized first: a batch's journal is megabytes, and growing it by
	// appends copied it over and over.
	const entry = 1 + 2*binary.MaxVarintLen64 // op and two lengths
	size := len(s.journalHead()) + (len(w.zadds)+len(w.zrems))*(entry+len(s.k("clusters"))+clusterIDLen+8)
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
			b = appendString(append(b, jDel), k)
		} else {
			b = append(binary.AppendUvarint(appendString(append(b, jSet), k), uint64(len(*v))), *v...)
		}
	}
	for k, ms := range w.sets {
		for m, add := range ms {
			op := jSRem
			if add {
				op = jSAdd
			}
			b = appendString(appendString(append(b, op), k), m)
		}
	}
	for c, score := range w.zadds {
		b = appendString(append(b, jZAdd), s.k("clusters"))
		b = binary.BigEndian.AppendUint64(appendString(b, c), uint64(score))
	}
	for c := range w.zrems {
		b = appendString(appendString(append(b, jZRem), s.k("clusters")), c)
	}
	return b
}

// apply runs a journal's writes in one pipeline.
func (s *redisStore) apply(ctx context.Context, j []byte) error {
	pipe := s.rdb.Pipeline()
	rd := newReader(j)
	hsets, hdels := map[string][]any{}, map[string][]string{} // by bucket
	for rd.err == nil && len(rd.s) > 0 {
		op, k := rd.byte(), rd.string()
		hash, field, isField := splitField(k)
		switch {
		case op == jHead:
		case op == jSet && isField:
			hsets[hash] = append(hsets[hash], field, rd.string())
		case op == jDel && isField:
			hdels[hash] = append(hdels[hash], field)
		case op == jSet:
			pipe.Set(ctx, k, rd.string(), 0)
		case op == jDel:
			pipe.Del(ctx, k)
		case op == jSAdd:
			pipe.SAdd(ctx, k, rd.string())
		case op == jSRem:
			pipe.SRem(ctx, k, rd.string())
		case op == jZAdd:
			m := rd.string()
			pipe.ZAdd(ctx, k, redis.Z{Score: float64(rd.uint64()), Member: m})
		case op == jZRem:
			pipe.ZRem(ctx, k, rd.string())
		default:
			rd.fail("journal op")
		}
	}
	if rd.err != nil {
		return fmt.Errorf("journal: %w", rd.err)
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
func (r *redisState) commit() error {
	if r.err != nil {
		return r.err
	}
	if err := r.txn.Commit(); err != nil {
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

func (r *redisState) discard() {
	if r.txn != nil {
		r.txn.Discard()
	}
	if r.owned && r.err == nil {
		r.s.mu.Lock()
		r.s.release(r.ctx)
		r.s.mu.Unlock()
	}
}
