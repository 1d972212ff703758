package rediscluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Posting lists live in families: a hash a family (P:p:{f}, 1024 of
// them, by the top bits of the key's hash), holding buckets ("b<n>") of
// packed postings, 8 bytes each: the low 32 bits of the key's hash (its
// fingerprint) and the page's sequence number (0: the list is full). A
// family grows by linear hashing ("s": its level, split pointer and
// postings, one field), a bucket at a time, in addScript (which leaves
// the records' fields, "d<id>", alone); a reader finds a key's
// bucket from the family's state, which it caches and checks in the same
// read. A posting costs 8 bytes and its share of a bucket's overhead,
// where a hash field a list cost some 70.
const (
	familyBits = 10
	// bucketLoad is how many postings a family's buckets hold on average
	// before it splits one: a key's read fetches its bucket, about 512
	// bytes. Each bucket is a hash field (some 50 bytes of its own and
	// its allocation's rounding): 64 rather than 32 saved 27 bytes a
	// development page.
	bucketLoad = 64
	// maxSeq bounds sequence numbers: a posting holds 32 bits of one.
	maxSeq = 1<<32 - 1
)

// posting is a key's place: its family and fingerprint.
type posting struct {
	family uint64
	fp     uint32
}

func placeOf(k []byte) posting {
	h := store.Hash(k)
	return posting{family: h >> (64 - familyBits), fp: uint32(h)}
}

func (s *Store) familyKey(f uint64) string { return s.prefix + "p:{" + strconv.FormatUint(f, 10) + "}" }

// entry is a posting as the scripts take it.
func entry(fp uint32, seq uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint32(b[:4], fp)
	binary.BigEndian.PutUint32(b[4:], uint32(seq))
	return string(b[:])
}

// familyState is a family's level and split pointer: a fingerprint's
// bucket is fp mod 2^level, or mod 2^(level+1) below the split pointer.
type familyState struct{ level, split uint32 }

func (st familyState) bucket(fp uint32) uint32 {
	a := fp & (1<<st.level - 1)
	if a < st.split {
		a = fp & (1<<(st.level+1) - 1)
	}
	return a
}

// parseState parses a family's "s" field: "level,split,postings".
func parseState(v any) familyState {
	str, _ := v.(string)
	l, rest, ok := strings.Cut(str, ",")
	p, _, ok2 := strings.Cut(rest, ",")
	if !ok || !ok2 {
		return familyState{}
	}
	level, _ := strconv.ParseUint(l, 10, 32)
	split, _ := strconv.ParseUint(p, 10, 32)
	return familyState{uint32(level), uint32(split)}
}

// familyCache holds the families' states as last read.
type familyCache struct {
	mu     sync.Mutex
	states []familyState
}

func (c *familyCache) init() { c.states = make([]familyState, 1<<familyBits) }

func (c *familyCache) get(f uint64) familyState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.states[f]
}

func (c *familyCache) set(f uint64, st familyState) {
	c.mu.Lock()
	c.states[f] = st
	c.mu.Unlock()
}

// readLists reads the lists under keys: the sequence numbers posted to
// each, in posting order, and whether it is full. A family read with a
// stale state is read again for the keys whose bucket moved.
func (s *Store) readLists(ctx context.Context, keys [][]byte) ([][]uint64, []bool, error) {
	seqs, full := make([][]uint64, len(keys)), make([]bool, len(keys))
	byFamily := map[uint64][]int{}
	for i, k := range keys {
		f := placeOf(k).family
		byFamily[f] = append(byFamily[f], i)
	}
	for round := 0; len(byFamily) > 0; round++ {
		if round == 8 {
			return nil, nil, errors.New("posting families: their state keeps changing")
		}
		pipe := s.rdb.Pipeline()
		type read struct {
			f       uint64
			st      familyState
			buckets []uint32
			cmd     *redis.SliceCmd
		}
		var reads []read
		for f, idx := range byFamily {
			st := s.families.get(f)
			fields := []string{"s"}
			var buckets []uint32
			for _, i := range idx {
				b := st.bucket(placeOf(keys[i]).fp)
				if !slices.Contains(buckets, b) {
					buckets = append(buckets, b)
					fields = append(fields, "b"+strconv.FormatUint(uint64(b), 10))
				}
			}
			reads = append(reads, read{f, st, buckets, pipe.HMGet(ctx, s.familyKey(f), fields...)})
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, nil, err
		}
		next := map[uint64][]int{}
		for _, r := range reads {
			vals, err := r.cmd.Result()
			if err != nil {
				return nil, nil, err
			}
			now := parseState(vals[0])
			if now != r.st {
				s.families.set(r.f, now)
			}
			for _, i := range byFamily[r.f] {
				fp := placeOf(keys[i]).fp
				b := now.bucket(fp)
				j := slices.Index(r.buckets, b)
				if j < 0 {
					next[r.f] = append(next[r.f], i) // its bucket was not read
					continue
				}
				content, _ := vals[1+j].(string)
				seqs[i], full[i] = postingsOf(content, fp)
			}
		}
		byFamily = next
	}
	return seqs, full, nil
}

// postingsOf returns fp's sequence numbers in a bucket's content, and
// whether its list is full.
func postingsOf(b string, fp uint32) ([]uint64, bool) {
	var out []uint64
	for j := 0; j+8 <= len(b); j += 8 {
		if binary.BigEndian.Uint32([]byte(b[j:j+4])) != fp {
			continue
		}
		seq := uint64(binary.BigEndian.Uint32([]byte(b[j+4 : j+8])))
		if seq == 0 {
			return nil, true
		}
		out = append(out, seq)
	}
	return out, false
}

// addPostings queues, on st, the postings of entries grouped by family
// (see addScript): a list past limit postings becomes full.
func (s *Store) addPostings(st *step, entries map[uint64][]any, limit int) error {
	for f, es := range entries {
		args := append([]any{limit, bucketLoad}, es...)
		if _, err := st.script(addScript, []string{s.familyKey(f)}, args...); err != nil {
			return err
		}
	}
	return nil
}

// incr adds n to counter key, durably, and returns its value.
func (s *Store) incr(ctx context.Context, key string, n int64) (uint64, error) {
	st := s.step(ctx)
	node, err := st.on(key)
	if err != nil {
		return 0, err
	}
	cmd := node.pipe.IncrBy(ctx, key, n)
	if err := st.exec(); err != nil {
		return 0, err
	}
	v, err := cmd.Uint64()
	if err == nil && v > maxSeq {
		err = fmt.Errorf("sequence number %d past %d: %w", v, maxSeq, store.ErrFull)
	}
	return v, err
}

// Post implements store.Sequencer: a block of sequence numbers, then the
// signatures and the postings, each step durable.
func (s *Store) Post(sigs [][]byte, keys [][][]byte, limit int) (uint64, error) {
	ctx := context.Background()
	n := uint64(len(sigs))
	last, err := s.incr(ctx, s.tagged("seq"), int64(n))
	if err != nil {
		return 0, fmt.Errorf("rediscluster: post: %w", err)
	}
	first := last - n + 1
	st := s.step(ctx)
	entries := map[uint64][]any{}
	for i, sig := range sigs {
		seq := first + uint64(i)
		r := s.sigRef(seq)
		node, err := st.on(r.key)
		if err != nil {
			return 0, fmt.Errorf("rediscluster: post: %w", err)
		}
		node.pipe.HSet(ctx, r.key, r.field, sig)
		for _, k := range keys[i] {
			p := placeOf(k)
			entries[p.family] = append(entries[p.family], entry(p.fp, seq))
		}
	}
	err = s.addPostings(st, entries, limit)
	if err == nil {
		err = st.exec()
	}
	if err != nil {
		return 0, fmt.Errorf("rediscluster: post: %w", err)
	}
	return first, nil
}

// Number implements store.Sequencer: one script on the store's own slot
// takes the ranks and records which batch they belong to.
func (s *Store) Number(first uint64, n int) (uint64, error) {
	st := s.step(context.Background())
	res, err := st.script(numberScript, []string{s.tagged("rank"), s.tagged("nums")}, first, n)
	if err == nil {
		err = st.exec()
	}
	var rank uint64
	if err == nil {
		rank, err = res().Uint64()
	}
	if err != nil {
		return 0, fmt.Errorf("rediscluster: number: %w", err)
	}
	s.ranks.add(first, uint64(n), rank)
	return rank, nil
}

// RankedPostings implements store.Sequencer.
func (s *Store) RankedPostings(keys [][]byte) ([]store.RankedList, error) {
	ctx := context.Background()
	seqs, full, err := s.readLists(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("rediscluster: postings: %w", err)
	}
	var unknown []uint64
	for _, l := range seqs {
		for _, seq := range l {
			if _, ok := s.ranks.lookup(seq); !ok {
				unknown = append(unknown, seq)
			}
		}
	}
	if err := s.resolve(ctx, unknown); err != nil {
		return nil, fmt.Errorf("rediscluster: postings: %w", err)
	}
	out := make([]store.RankedList, len(keys))
	for i, l := range seqs {
		out[i].Full = full[i]
		l = sortedSet(l)
		out[i].Seqs, out[i].Ranks = l, make([]uint64, len(l))
		for j, seq := range l {
			out[i].Ranks[j], _ = s.ranks.lookup(seq)
		}
	}
	return out, nil
}

// Withdraw implements store.Sequencer: it deletes the signatures, and
// takes each version out of the cluster numbered as it, which other
// processes may have joined naming it founder (withdrawScript).
func (s *Store) Withdraw(seqs []uint64) error {
	if len(seqs) == 0 {
		return nil
	}
	st := s.step(context.Background())
	results := make([]func() *redis.Cmd, len(seqs))
	for i, seq := range seqs {
		r := s.sigRef(seq)
		node, err := st.on(r.key)
		if err != nil {
			return fmt.Errorf("rediscluster: withdraw: %w", err)
		}
		node.pipe.HDel(st.ctx, r.key, r.field)
		// Out of the cluster numbered as it, which others may have joined
		// naming it founder (see withdrawScript).
		key, _, err := s.clusterKey(store.ClusterID(seq))
		if err != nil {
			return fmt.Errorf("rediscluster: withdraw: %w", err)
		}
		if results[i], err = st.script(withdrawScript, []string{key}, strconv.FormatUint(seq, 10)); err != nil {
			return fmt.Errorf("rediscluster: withdraw: %w", err)
		}
	}
	if err := st.exec(); err != nil {
		return fmt.Errorf("rediscluster: withdraw: %w", err)
	}
	var gone []uint64
	for i, seq := range seqs {
		res, err := results[i]().Slice()
		if err != nil {
			return fmt.Errorf("rediscluster: withdraw: %w", err)
		}
		if len(res) != 3 {
			return fmt.Errorf("rediscluster: withdraw: reply %v: %w", res, store.ErrCorrupt)
		}
		if deleted, _ := res[2].(int64); deleted == 1 {
			gone = append(gone, seq)
		}
	}
	if len(gone) > 0 {
		st := s.step(context.Background())
		list := s.tagged("clusters")
		node, err := st.on(list)
		if err != nil {
			return fmt.Errorf("rediscluster: withdraw: %w", err)
		}
		for _, seq := range gone {
			node.pipe.ZRem(st.ctx, list, seqName(seq))
		}
		if err := st.exec(); err != nil {
			return fmt.Errorf("rediscluster: withdraw: %w", err)
		}
	}
	return nil
}

// resolve reads the numbered batches holding seqs into the rank cache; a
// sequence number no numbered batch holds stays unknown.
func (s *Store) resolve(ctx context.Context, seqs []uint64) error {
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	pipe := s.rdb.Pipeline()
	var cmds []*redis.StringSliceCmd
	for _, seq := range seqs {
		cmds = append(cmds, pipe.ZRevRangeByScore(ctx, s.tagged("nums"),
			&redis.ZRangeBy{Max: seqName(seq), Min: "-inf", Count: 1}))
	}
	if len(cmds) == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for _, c := range cmds {
		ms, err := c.Result()
		if err != nil {
			return err
		}
		for _, m := range ms {
			f := strings.Split(m, ":")
			if len(f) != 3 {
				return fmt.Errorf("numbered batch %q: %w", m, store.ErrCorrupt)
			}
			first, e1 := strconv.ParseUint(f[0], 10, 64)
			n, e2 := strconv.ParseUint(f[1], 10, 64)
			rank, e3 := strconv.ParseUint(f[2], 10, 64)
			if err := errors.Join(e1, e2, e3); err != nil {
				return fmt.Errorf("numbered batch %q: %w", m, store.ErrCorrupt)
			}
			s.ranks.add(first, n, rank)
		}
	}
	return nil
}

// rankCache holds the numbered batches read so far (they never change):
// the first sequence number of each, ascending, and its size and rank.
type rankCache struct {
	mu      sync.Mutex
	batches []rankBatch
}

type rankBatch struct{ first, n, rank uint64 }

func (c *rankCache) add(first, n, rank uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, found := slices.BinarySearchFunc(c.batches, first, func(b rankBatch, f uint64) int {
		return cmpUint(b.first, f)
	})
	if !found {
		c.batches = slices.Insert(c.batches, i, rankBatch{first, n, rank})
	}
}

// lookup returns seq's rank, if its batch is known to be numbered.
func (c *rankCache) lookup(seq uint64) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, found := slices.BinarySearchFunc(c.batches, seq, func(b rankBatch, s uint64) int {
		return cmpUint(b.first, s)
	})
	if !found {
		if i == 0 {
			return 0, false
		}
		i--
	}
	b := c.batches[i]
	if seq >= b.first+b.n {
		return 0, false
	}
	return b.rank + seq - b.first, true
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// countLists counts the posting lists (full ones included) of a posting
// family's fields.
func countLists(fields map[string]string) int {
	fps := map[string]bool{}
	for field, b := range fields {
		if !strings.HasPrefix(field, "b") {
			continue
		}
		for j := 0; j+8 <= len(b); j += 8 {
			fps[b[j:j+4]] = true
		}
	}
	return len(fps)
}
