package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// A cluster is a hash P:c:{n} (n its number) once it has two members or
// was made by the low-level operations: "r" its representative, "m:<id>"
// each member, valued "<indexed 0|1>,<seq>,<time µs>,<runes>" (what
// promoting and Replace weigh). A cluster of its founder alone has no
// hash: its number is the founder's sequence number, whose signature
// names the founder, and the founder's record names the cluster. The
// clusters with a hash are listed in {P}:clusters, by number. A cluster
// its founder alone, or its last member, left is a hash with one field,
// "x" (the page that left): no cluster, which a later join makes again
// without that page (see leaveScript).

// clusterKey names cluster c's hash.
func (s *Store) clusterKey(c string) (string, uint64, error) {
	n, err := store.ParseClusterID(c)
	if err != nil {
		return "", 0, err
	}
	return s.prefix + "c:{" + strconv.FormatUint(n, 10) + "}", n, nil
}

// weights are a member's weights as the scripts compare them.
func weights(m store.Member) string {
	return strconv.FormatUint(m.Seq, 10) + "," + strconv.FormatInt(m.Time.UnixMicro(), 10) + "," + strconv.Itoa(m.Runes)
}

func ruleCode(r store.Rule) string {
	switch {
	case r.Take && r.Mark:
		return "T"
	case r.Take:
		return "t"
	case r.Mark:
		return "m"
	case r.Replace && r.Longer:
		return "l"
	case r.Replace:
		return "r"
	}
	return "s"
}

// join runs joinScript; a cluster it may make is listed in the same step
// (a listing of a cluster that does not exist is passed over), or, when
// it made one again that its founder had left (which it cannot know
// before), in a step after it.
func (s *Store) join(ctx context.Context, c string, m store.Member, founder *store.Member, rule store.Rule) (store.JoinResult, error) {
	key, n, err := s.clusterKey(c)
	if err != nil {
		return store.JoinResult{}, err
	}
	own := n == m.Seq
	if founder == nil && own && !rule.Replace && !rule.Take {
		// m founds the cluster numbered as itself: alone, it needs no hash;
		// joined already (by a process that planned m's decision too), it
		// represents it all the same, since only Replace demotes.
		return store.JoinResult{Representative: m.ID, Indexed: true}, nil
	}
	st := s.step(ctx)
	list := s.tagged("clusters")
	listed := false
	fid, fw := "", ""
	if founder != nil && founder.ID != m.ID {
		fid, fw = founder.ID, weights(*founder)
	}
	if fid != "" || !own {
		node, err := st.on(list)
		if err != nil {
			return store.JoinResult{}, err
		}
		node.pipe.ZAdd(ctx, list, redis.Z{Score: float64(n), Member: seqName(n)})
		listed = true
	}
	ownArg := "0"
	if own {
		ownArg = "1"
	}
	result, err := st.script(joinScript, []string{key}, m.ID, weights(m), fid, fw, ruleCode(rule), ownArg)
	if err == nil {
		err = st.exec()
	}
	if err != nil {
		return store.JoinResult{}, err
	}
	res, err := result().Slice()
	if err != nil {
		return store.JoinResult{}, err
	}
	if len(res) != 4 {
		return store.JoinResult{}, fmt.Errorf("join: reply %v: %w", res, store.ErrCorrupt)
	}
	rep, _ := res[0].(string)
	indexed, _ := res[1].(int64)
	demoted, _ := res[2].(string)
	if made, _ := res[3].(int64); made == 1 && !listed {
		st := s.step(ctx)
		node, err := st.on(list)
		if err != nil {
			return store.JoinResult{}, err
		}
		node.pipe.ZAdd(ctx, list, redis.Z{Score: float64(n), Member: seqName(n)})
		if err := st.exec(); err != nil {
			return store.JoinResult{}, err
		}
	}
	return store.JoinResult{Representative: rep, Indexed: indexed == 1, Demoted: demoted}, nil
}

// leave runs leaveScript, and takes a cluster it deleted off the list.
func (s *Store) leave(ctx context.Context, c, id string, rule store.Rule) (store.LeaveResult, error) {
	key, n, err := s.clusterKey(c)
	if err != nil {
		return store.LeaveResult{}, err
	}
	st := s.step(ctx)
	result, err := st.script(leaveScript, []string{key}, id, ruleCode(rule))
	if err == nil {
		err = st.exec()
	}
	if err != nil {
		return store.LeaveResult{}, err
	}
	res, err := result().Slice()
	if err != nil {
		return store.LeaveResult{}, err
	}
	if len(res) != 3 {
		return store.LeaveResult{}, fmt.Errorf("leave: reply %v: %w", res, store.ErrCorrupt)
	}
	rep, _ := res[0].(string)
	promoted, _ := res[1].(string)
	if deleted, _ := res[2].(int64); deleted == 1 {
		st := s.step(ctx)
		list := s.tagged("clusters")
		node, err := st.on(list)
		if err != nil {
			return store.LeaveResult{}, err
		}
		node.pipe.ZRem(ctx, list, seqName(n))
		if err := st.exec(); err != nil {
			return store.LeaveResult{}, err
		}
	}
	return store.LeaveResult{Representative: rep, Promoted: promoted}, nil
}

// hasHash reports whether cluster c has a hash (not the mark of a
// cluster left, see leaveScript).
func (s *Store) hasHash(ctx context.Context, c string) (bool, error) {
	key, _, err := s.clusterKey(c)
	if err != nil {
		return false, err
	}
	return s.rdb.HExists(ctx, key, "r").Result()
}

// idOf reads the id a signature starts with (see package store's key
// schema); "" when there is no signature.
func idOf(sig string) (string, error) {
	if sig == "" {
		return "", nil
	}
	r := binenc.NewReader([]byte(sig))
	id := r.String()
	return id, r.Err()
}

// founder returns the founder of cluster c if it has no hash: the
// document numbered as c whose record still names c; "" when none.
func (t *txn) founder(c string) (string, error) {
	n, err := store.ParseClusterID(c)
	if err != nil {
		return "", err
	}
	sig, err := t.s.sigRef(n).read(t.ctx, t.s.rdb).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", err
	}
	id, err := idOf(sig)
	if err != nil || id == "" {
		return "", err
	}
	rec, err := t.recordHead(id)
	if errors.Is(err, store.ErrNotFound) || err == nil && rec.Cluster != c {
		return "", nil
	}
	return id, err
}

// clusterOp is a low-level cluster write, made at commit.
type clusterOp struct {
	kind    byte // opRep, opAdd, opRemove, opDelete
	cluster string
	id      string
}

const (
	opRep byte = iota
	opAdd
	opRemove
	opDelete
)

// cluster reads cluster c as this mutation sees it: its hash, or its
// founder alone, with the mutation's and the session's low-level writes
// over it. exists is false for no cluster.
func (t *txn) cluster(c string) (rep string, members []string, exists bool, err error) {
	key, _, err := t.s.clusterKey(c)
	if err != nil {
		return "", nil, false, err
	}
	all, err := t.s.rdb.HGetAll(t.ctx, key).Result()
	if err != nil {
		return "", nil, false, err
	}
	if len(all) > 0 {
		// A hash without "r" is the mark of a cluster left (see
		// leaveScript): gone, founder and all.
		rep = all["r"]
		exists = rep != ""
		for f := range all {
			if id, ok := strings.CutPrefix(f, "m:"); ok && exists {
				members = append(members, id)
			}
		}
	} else {
		id, err := t.founder(c)
		if err != nil {
			return "", nil, false, err
		}
		if id != "" {
			exists, rep, members = true, id, []string{id}
		}
	}
	for _, op := range t.pendingClusterOps(c) {
		switch op.kind {
		case opRep:
			exists, rep = true, op.id
		case opAdd:
			if !slices.Contains(members, op.id) {
				members = append(members, op.id)
			}
		case opRemove:
			members = slices.DeleteFunc(members, func(x string) bool { return x == op.id })
		case opDelete:
			exists, rep = false, ""
		}
	}
	slices.Sort(members)
	return rep, members, exists, nil
}

// indexed reports whether id, a member of cluster c, is in the search
// index: it represents c, or its member's flag says so; the founder of a
// cluster without a hash is its representative.
func (t *txn) indexed(c, id string) (bool, error) {
	key, _, err := t.s.clusterKey(c)
	if err != nil {
		return false, err
	}
	vals, err := t.s.rdb.HMGet(t.ctx, key, "r", "m:"+id).Result()
	if err != nil {
		return false, err
	}
	rep, ok := vals[0].(string)
	if !ok {
		return true, nil
	}
	m, _ := vals[1].(string)
	return rep == id || strings.HasPrefix(m, "1"), nil
}

// Representative implements store.Txn.
func (t *txn) Representative(c string) (string, error) {
	if t.err != nil {
		return "", t.err
	}
	rep, _, exists, err := t.cluster(c)
	if err == nil && !exists {
		err = store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", c, err)
	}
	return rep, nil
}

// Members implements store.Txn.
func (t *txn) Members(c string) ([]string, error) {
	if t.err != nil {
		return nil, t.err
	}
	_, members, _, err := t.cluster(c)
	return members, err
}

func (t *txn) clusterWrite(kind byte, c, id string) error {
	if t.err != nil {
		return t.err
	}
	if _, _, err := t.s.clusterKey(c); err != nil {
		return err
	}
	t.w.clusters = append(t.w.clusters, clusterOp{kind, c, id})
	return nil
}

// SetRepresentative implements store.Txn.
func (t *txn) SetRepresentative(c, id string) error { return t.clusterWrite(opRep, c, id) }

// DeleteCluster implements store.Txn.
func (t *txn) DeleteCluster(c string) error { return t.clusterWrite(opDelete, c, "") }

// AddMember implements store.Txn.
func (t *txn) AddMember(c, id string) error { return t.clusterWrite(opAdd, c, id) }

// RemoveMember implements store.Txn.
func (t *txn) RemoveMember(c, id string) error { return t.clusterWrite(opRemove, c, id) }

// Join implements store.Txn: at once, in one script on the cluster.
func (t *txn) Join(c string, m store.Member, founder *store.Member, rule store.Rule) (store.JoinResult, error) {
	if t.err != nil {
		return store.JoinResult{}, t.err
	}
	return t.s.join(t.ctx, c, m, founder, rule)
}

// Leave implements store.Txn: at once, in one script on the cluster.
func (t *txn) Leave(c, id string, rule store.Rule) (store.LeaveResult, error) {
	if t.err != nil {
		return store.LeaveResult{}, t.err
	}
	return t.s.leave(t.ctx, c, id, rule)
}

// applyClusterOps queues low-level cluster writes on st, then, for the
// records written with them whose clusters they changed, the members'
// weights and whether they are indexed.
func (s *Store) applyClusterOps(st *step, ops []clusterOp, records map[string]*store.Record) error {
	ctx := st.ctx
	list := s.tagged("clusters")
	changed := map[string]bool{}
	for _, op := range ops {
		changed[op.cluster] = true
		key, n, err := s.clusterKey(op.cluster)
		if err != nil {
			return err
		}
		node, err := st.on(key)
		if err != nil {
			return err
		}
		listNode, err := st.on(list)
		if err != nil {
			return err
		}
		switch op.kind {
		case opRep:
			node.pipe.HSet(ctx, key, "r", op.id)
			listNode.pipe.ZAdd(ctx, list, redis.Z{Score: float64(n), Member: seqName(n)})
		case opAdd:
			node.pipe.HSetNX(ctx, key, "m:"+op.id, "0,0,0,0")
		case opRemove:
			node.pipe.HDel(ctx, key, "m:"+op.id)
		case opDelete:
			node.pipe.Del(ctx, key)
			listNode.pipe.ZRem(ctx, list, seqName(n))
		}
	}
	for id, r := range records {
		if !changed[r.Cluster] {
			continue
		}
		key, _, err := s.clusterKey(r.Cluster)
		if err != nil {
			return err
		}
		node, err := st.on(key)
		if err != nil {
			return err
		}
		flag := "0,"
		if r.Indexed {
			flag = "1,"
		}
		node.pipe.HSet(ctx, key, "m:"+id, flag+weights(store.Member{ID: id, Seq: r.Seq, Time: r.Time, Runes: r.Runes}))
	}
	return nil
}

// walkChunk is how many cluster numbers a walk reads at once.
const walkChunk = 1000

// Clusters implements store.Txn: the clusters with a hash, from their
// list, and those of a founder alone, found by walking the sequence
// numbers, merged in number order (creation order).
func (t *txn) Clusters(after string, fn func(id string) error) error {
	if t.err != nil {
		return t.err
	}
	from := uint64(1)
	if after != "" {
		n, err := store.ParseClusterID(after)
		if err != nil {
			return err
		}
		from = n + 1
	}
	last, err := t.s.rdb.Get(t.ctx, t.s.tagged("seq")).Uint64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	top, err := t.s.rdb.ZRevRangeWithScores(t.ctx, t.s.tagged("clusters"), 0, 0).Result()
	if err != nil {
		return err
	}
	if len(top) > 0 {
		last = max(last, uint64(top[0].Score))
	}
	for lo := from; lo <= last; lo += walkChunk {
		hi := min(lo+walkChunk-1, last)
		ids, err := t.walk(lo, hi)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := fn(id); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk returns the clusters numbered lo to hi, ascending.
func (t *txn) walk(lo, hi uint64) ([]string, error) {
	ctx := t.ctx
	hashed, err := t.s.rdb.ZRangeByScore(ctx, t.s.tagged("clusters"),
		&redis.ZRangeBy{Min: seqName(lo), Max: seqName(hi)}).Result()
	if err != nil {
		return nil, err
	}
	// Listed clusters whose hash exists (a process that died between
	// deleting a hash and its listing leaves the listing; a cluster left
	// keeps a mark, a hash without "r").
	pipe := t.s.rdb.Pipeline()
	listed := map[uint64]*redis.BoolCmd{}
	for _, m := range hashed {
		n, err := strconv.ParseUint(m, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cluster list member %q: %w", m, store.ErrCorrupt)
		}
		listed[n] = pipe.HExists(ctx, t.s.prefix+"c:{"+m+"}", "r")
	}
	// The founders alone: a signature numbered n whose document's record
	// names cluster n.
	sigs := map[uint64]*redis.StringCmd{}
	for n := lo; n <= hi; n++ {
		if listed[n] == nil {
			sigs[n] = t.s.sigRef(n).read(ctx, pipe)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	has := map[uint64]bool{}
	for n, c := range listed {
		has[n] = c.Val()
	}
	founders := map[uint64]string{}
	var names []string
	for n, c := range sigs {
		id, err := idOf(c.Val())
		if err != nil {
			return nil, fmt.Errorf("signature of document %d: %w", n, err)
		}
		if id != "" {
			founders[n] = id
			names = append(names, id)
		}
	}
	if err := t.fetchRecords(names); err != nil {
		return nil, err
	}
	var out []string
	for n := lo; n <= hi; n++ {
		ok := has[n]
		if id, f := founders[n]; f && listed[n] == nil {
			rec, err := t.recordHead(id)
			ok = err == nil && rec.Cluster == store.ClusterID(n)
		}
		if ok {
			out = append(out, store.ClusterID(n))
		}
	}
	return out, nil
}
