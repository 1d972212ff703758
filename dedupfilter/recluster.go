package dedupfilter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Reclustering: a batch pass over the whole store that refines the
// clusters incremental indexing built, which never merge (a page that
// links two clusters joins the first it matches) and never split (a
// deleted or re-decided page may have been the only link between two
// halves of its cluster). It follows the fingerprint paper: pages whose
// ST_m (shared block fingerprints over m) falls in the range t are one
// class, and the number of classes is the k of its k-means over shared
// fingerprints. Here every pair taken into a class must also be a
// duplicate under the filter's own verdict (Options.Measure and
// thresholds), so a class never holds a pair the filter would not have
// joined, and precision cannot fall below the incremental clusters'.
// With that constraint the classes are a fixed point of the k-means
// assignment — a page is nearest the centre of the class it has verified
// links into, and it has none into another class — so k-means ends where
// it starts; the pass computes the classes and reports how they differ
// from the clusters.
//
// Memory stays bounded on large stores: the documents are walked one
// cluster at a time, the pairs of different clusters are found through
// the block-fingerprint posting lists the filter keeps anyway (the
// fingerprint paper's inverted index), and only the clusters that change
// are held, never all pairs.

// ReclusterOptions configure PlanRecluster. Start from
// DefaultReclusterOptions.
type ReclusterOptions struct {
	// MinST is the lower end of the fingerprint paper's range t = [MinST,
	// 1]: two documents of different clusters sharing block fingerprints
	// are verified only when their ST_m is at least this. Default 0.125
	// (2 of 16 blocks); every verified pair is then checked with the
	// filter's verdict, so a lower value finds more merges at more
	// verifications.
	MinST float64
	// MaxPairwise: a cluster is checked for a split by verifying every
	// pair of its members, so clusters of more members than this are not
	// checked (and counted in Plan.Unchecked). Default 200 (19,900 pairs).
	MaxPairwise int
	// Progress, when set, is called with the number of documents read so
	// far, every 1,000 documents of each of the two walks.
	Progress func(walk string, docs int)
}

// DefaultReclusterOptions returns the defaults documented on
// ReclusterOptions.
func DefaultReclusterOptions() ReclusterOptions {
	return ReclusterOptions{MinST: 0.125, MaxPairwise: 200}
}

func (o ReclusterOptions) validate() error {
	if o.MinST <= 0 || o.MinST > 1 || o.MaxPairwise < 2 {
		return fmt.Errorf("dedupfilter: recluster: MinST %v outside (0, 1] or MaxPairwise %d under 2: %w", o.MinST, o.MaxPairwise, ErrInvalidOptions)
	}
	return nil
}

// Link is a verified pair of documents, the evidence of a change.
type Link struct {
	A, B    string
	ST      float64 // the fingerprint paper's ST_m
	Verdict similarity.Verdict
}

// Merge is clusters (or parts split off clusters) found to be one.
type Merge struct {
	// Into is the cluster kept: the oldest of those merged whose
	// representative is among them; "" when all of them are split-off
	// parts, which then form a new cluster.
	Into string
	// From are the clusters merged into Into, and the split-off parts,
	// named CLUSTER/N (see Split.Parts).
	From []string
	// Members is how many documents the merged cluster holds.
	Members int
	// Evidence are the verified pairs that joined them, one per merge
	// step.
	Evidence []Link
}

// Split is a cluster whose members fall into groups with no verified
// pair between them.
type Split struct {
	Cluster string
	// Parts are the groups leaving the cluster (CLUSTER/1, CLUSTER/2...);
	// the representative's group keeps the cluster's id.
	Parts [][]string
	// Closest is the pair across the groups with the most agreeing
	// measures: the link that is missing.
	Closest Link
}

// Plan is what PlanRecluster found; ApplyRecluster carries it out.
type Plan struct {
	Merges []Merge
	Splits []Split
	// Docs and Clusters read; Pairs verified (within clusters and across
	// them); Unchecked clusters too large to check for a split.
	Docs, Clusters, Pairs, Unchecked int
	// Classes is the number of classes the pass ends with: the k of the
	// fingerprint paper's k-means.
	Classes int

	changes []changeSet
}

// changeSet is a set of clusters that change together: their members
// before, and the groups they end in. ApplyRecluster applies each in one
// mutation.
type changeSet struct {
	before map[string][]string // cluster -> members, as planned
	groups []group
}

// group is a cluster after the pass: its members and the id it keeps (""
// for a new one).
type group struct {
	target  string
	members []string
}

// PlanRecluster reads the whole store, from one snapshot, and returns the
// merges and splits that make its clusters the classes described above.
// It writes nothing.
func (f *Filter) PlanRecluster(ctx context.Context, o ReclusterOptions) (*Plan, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	p := &Plan{}
	r := &replanner{f: f, o: o, p: p, parts: map[string]string{}, uf: unionFind{}, split: map[string]bool{}, members: map[string][]string{}}
	err := f.backend.Read(func(st store.Txn) error {
		r.st = st
		if err := r.splits(ctx); err != nil {
			return err
		}
		if err := r.merges(ctx); err != nil {
			return err
		}
		return r.finish()
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// replanner is the state of one PlanRecluster.
type replanner struct {
	f  *Filter
	o  ReclusterOptions
	p  *Plan
	st store.Txn
	// parts maps each member of a split cluster to its part's node name
	// (CLUSTER for the representative's part, CLUSTER/N for the others);
	// other documents' node is their cluster id.
	parts   map[string]string
	split   map[string]bool     // the clusters split
	members map[string][]string // members of the split clusters
	uf      unionFind           // over the nodes joined by links, only those
	joined  []joined            // the links that joined two nodes
	read    int                 // documents read by the split walk
}

// joined is a link that joined two nodes, and the node of its B.
type joined struct {
	link Link
	node string
}

// splits verifies the pairs inside each cluster and records the clusters
// whose members fall into unconnected groups.
func (r *replanner) splits(ctx context.Context) error {
	return r.st.Clusters("", func(cluster string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		members, err := r.st.Members(cluster)
		if err != nil {
			return fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
		}
		r.p.Clusters++
		if r.o.Progress != nil && (r.read+len(members))/1000 > r.read/1000 {
			r.o.Progress("clusters", r.read+len(members))
		}
		r.read += len(members)
		if len(members) < 2 {
			return nil
		}
		if len(members) > r.o.MaxPairwise {
			r.p.Unchecked++
			return nil
		}
		sigs := make([]similarity.Signature, len(members))
		for i, id := range members {
			if _, sigs[i], err = docSignature(r.st, id); err != nil {
				return err
			}
		}
		rep, err := r.st.Representative(cluster)
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		uf := unionFind{}
		var closest Link
		type pair struct{ i, j int }
		var failed []pair
		verdicts := map[pair]similarity.Verdict{}
		for i := range members {
			for j := i + 1; j < len(members); j++ {
				v := similarity.Compare(sigs[i], sigs[j], r.f.opts.Options)
				r.p.Pairs++
				if v.Duplicate {
					uf.union(members[i], members[j])
				} else {
					failed = append(failed, pair{i, j})
					verdicts[pair{i, j}] = v
				}
			}
		}
		groups := map[string][]string{}
		for _, id := range members {
			root := uf.find(id)
			groups[root] = append(groups[root], id)
		}
		if len(groups) == 1 {
			return nil
		}
		// The representative's group keeps the cluster; the others leave,
		// named in the order of their first member (members are sorted).
		s := &Split{Cluster: cluster}
		repRoot := uf.find(rep)
		named := map[string]string{repRoot: cluster}
		for _, id := range members {
			root := uf.find(id)
			if _, ok := named[root]; !ok {
				s.Parts = append(s.Parts, groups[root])
				named[root] = cluster + "/" + strconv.Itoa(len(s.Parts))
			}
			r.parts[id] = named[root]
		}
		for _, pr := range failed {
			if uf.find(members[pr.i]) == uf.find(members[pr.j]) {
				continue
			}
			v := verdicts[pr]
			if closest.A == "" || v.Votes > closest.Verdict.Votes {
				closest = Link{A: members[pr.i], B: members[pr.j], ST: similarity.BlockST(sigs[pr.i], sigs[pr.j]), Verdict: v}
			}
		}
		s.Closest = closest
		r.p.Splits = append(r.p.Splits, *s)
		r.split[cluster] = true
		r.members[cluster] = members
		return nil
	})
}

// node is the node name of document id of cluster.
func (r *replanner) node(id, cluster string) string {
	if n, ok := r.parts[id]; ok {
		return n
	}
	return cluster
}

// merges walks every document and verifies it against the documents of
// other clusters (or other parts of its own) that share enough block
// fingerprints with it, through the fingerprints' posting lists; each
// verified pair joins their nodes.
func (r *replanner) merges(ctx context.Context) error {
	return eachDoc(r.st, func(id string, rec *store.Record, sig similarity.Signature) error {
		r.p.Docs++
		if r.o.Progress != nil && r.p.Docs%1000 == 0 {
			r.o.Progress("fingerprints", r.p.Docs)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(sig.Blocks()) == 0 {
			return nil
		}
		keys := make([][]byte, 0, len(sig.Blocks()))
		seen := map[uint32]bool{}
		for _, h := range sig.Blocks() {
			if !seen[h] {
				seen[h] = true
				keys = append(keys, store.PostingKey(kindBlock, uint64(h)))
			}
		}
		ls, err := r.st.Postings(keys)
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		shared := map[uint64]int{}
		for _, l := range ls {
			if l.Full {
				continue // a stop list: boilerplate every page has
			}
			for _, s := range l.Seqs {
				if s < rec.Seq { // each pair once, from its later document
					shared[s]++
				}
			}
		}
		need := int(math.Ceil(r.o.MinST * float64(len(sig.Blocks()))))
		seqs := make([]uint64, 0, len(shared))
		for s, n := range shared {
			if n >= need {
				seqs = append(seqs, s)
			}
		}
		slices.Sort(seqs)
		self := r.node(id, rec.Cluster)
		for _, s := range seqs {
			xid, xsig, err := readSignature(r.st, s)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			xrec, err := r.st.Record(xid, false)
			if err != nil || xrec.Seq != s {
				continue // replaced or removed since it was posted
			}
			other := r.node(xid, xrec.Cluster)
			if other == self || r.uf.root(other) == r.uf.root(self) {
				continue
			}
			st := similarity.BlockST(sig, xsig)
			if st < r.o.MinST {
				continue
			}
			v := similarity.Compare(sig, xsig, r.f.opts.Options)
			r.p.Pairs++
			if !v.Duplicate {
				continue
			}
			r.uf.union(self, other)
			r.joined = append(r.joined, joined{Link{A: xid, B: id, ST: st, Verdict: v}, self})
		}
		return nil
	})
}

// finish turns the joined nodes and the splits into merges and change
// sets.
func (r *replanner) finish() error {
	// Classes: every cluster, minus the merged away, plus the parts split
	// off; k of the fingerprint paper.
	// Components of joined nodes: root -> nodes.
	comps := map[string][]string{}
	for n := range r.uf {
		root := r.uf.find(n)
		comps[root] = append(comps[root], n)
	}
	evidence := map[string][]Link{}
	for _, j := range r.joined {
		// The link's nodes share a root now; group its evidence there.
		root := r.uf.find(j.node)
		evidence[root] = append(evidence[root], j.link)
	}
	// Change sets: clusters linked through a component or a split.
	sets := unionFind{}
	clusterOf := func(n string) string {
		if i := strings.IndexByte(n, '/'); i >= 0 {
			return n[:i]
		}
		return n
	}
	for _, nodes := range comps {
		for _, n := range nodes[1:] {
			sets.union(clusterOf(nodes[0]), clusterOf(n))
		}
		sets.find(clusterOf(nodes[0]))
	}
	for c := range r.split {
		sets.find(c)
	}
	byRoot := map[string][]string{}
	for c := range sets {
		root := sets.find(c)
		byRoot[root] = append(byRoot[root], c)
	}
	var changes []changeSet
	merged := 0
	for _, clusters := range byRoot {
		slices.Sort(clusters)
		cs := changeSet{before: map[string][]string{}}
		// node -> members
		nodeMembers := map[string][]string{}
		for _, c := range clusters {
			ms, ok := r.members[c]
			if !ok {
				var err error
				if ms, err = r.readMembers(c); err != nil {
					return err
				}
			}
			cs.before[c] = ms
			for _, id := range ms {
				n := r.node(id, c)
				nodeMembers[n] = append(nodeMembers[n], id)
			}
		}
		// Groups: components of nodes (a node no link touched is alone).
		groups := map[string][]string{} // root node -> nodes
		for n := range nodeMembers {
			root := n
			if _, ok := r.uf[n]; ok {
				root = r.uf.find(n)
			}
			groups[root] = append(groups[root], n)
		}
		for _, root := range slices.Sorted(maps.Keys(groups)) {
			nodes := groups[root]
			slices.Sort(nodes)
			g := group{}
			for _, n := range nodes {
				if g.target == "" && strings.IndexByte(n, '/') < 0 {
					g.target = n // the oldest whole cluster (ids sort by age)
				}
				g.members = append(g.members, nodeMembers[n]...)
			}
			slices.Sort(g.members)
			cs.groups = append(cs.groups, g)
			if len(nodes) > 1 {
				m := Merge{Into: g.target, Members: len(g.members), Evidence: evidence[r.uf.find(root)]}
				for _, n := range nodes {
					if n != g.target {
						m.From = append(m.From, n)
					}
				}
				sortLinks(m.Evidence)
				r.p.Merges = append(r.p.Merges, m)
				merged += len(nodes) - 1
			}
		}
		changes = append(changes, cs)
	}
	slices.SortFunc(changes, func(a, b changeSet) int { return cmp.Compare(firstKey(a.before), firstKey(b.before)) })
	slices.SortFunc(r.p.Merges, func(a, b Merge) int { return cmp.Compare(a.Into+"\x00"+a.From[0], b.Into+"\x00"+b.From[0]) })
	slices.SortFunc(r.p.Splits, func(a, b Split) int { return cmp.Compare(a.Cluster, b.Cluster) })
	r.p.changes = changes
	parts := 0
	for _, s := range r.p.Splits {
		parts += len(s.Parts)
	}
	r.p.Classes = r.p.Clusters + parts - merged
	return nil
}

func (r *replanner) readMembers(cluster string) ([]string, error) {
	ms, err := r.st.Members(cluster)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: cluster %s: %w", cluster, err)
	}
	return ms, nil
}

func sortLinks(ls []Link) {
	slices.SortFunc(ls, func(a, b Link) int { return cmp.Compare(a.A+"\x00"+a.B, b.A+"\x00"+b.B) })
}

func firstKey(m map[string][]string) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}

// unionFind is a disjoint-set forest over strings; a name is added by
// find. The smaller name becomes the root, so roots do not depend on the
// order of unions.
type unionFind map[string]string

// root is find without adding x: a name not in the forest is its own
// root.
func (u unionFind) root(x string) string {
	if _, ok := u[x]; !ok {
		return x
	}
	return u.find(x)
}

func (u unionFind) find(x string) string {
	p, ok := u[x]
	if !ok {
		u[x] = x
		return x
	}
	if p == x {
		return x
	}
	root := u.find(p)
	u[x] = root
	return root
}

func (u unionFind) union(a, b string) {
	ra, rb := u.find(a), u.find(b)
	switch {
	case ra == rb:
	case ra < rb:
		u[rb] = ra
	default:
		u[ra] = rb
	}
}

// errStale: the store changed between PlanRecluster and ApplyRecluster.
var errStale = errors.New("clusters changed since the plan")

// ApplyRecluster carries out p: each set of clusters that change
// together is rewritten in one mutation (memberships, representatives,
// the records' cluster ids), and the search-index operations that follow
// — under Mark every moved member is indexed again with its new cluster
// id; under Suppress and Replace each cluster keeps one indexed copy —
// are recorded as pending like an Add's and passed to apply, one change
// set's at a time. A change set whose clusters changed since the plan is
// skipped and counted in stale.
func (f *Filter) ApplyRecluster(p *Plan, apply func([]Op) error) (stale int, err error) {
	for _, cs := range p.changes {
		ops, err := f.applyChange(cs)
		if errors.Is(err, errStale) {
			stale++
			continue
		}
		if err != nil {
			return stale, err
		}
		if err := apply(ops); err != nil {
			return stale, err
		}
	}
	return stale, nil
}

func (f *Filter) applyChange(cs changeSet) ([]Op, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.writable(); err != nil {
		return nil, fmt.Errorf("dedupfilter: recluster: %w", err)
	}
	w, err := f.begin()
	if err != nil {
		return nil, err
	}
	defer w.st.Discard()
	recs := map[string]*store.Record{}
	for c, want := range cs.before {
		got, err := w.st.Members(c)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		if !slices.Equal(got, want) {
			return nil, errStale
		}
		for _, id := range got {
			if recs[id], err = w.record(id); err != nil {
				return nil, err
			}
		}
	}
	used := map[string]bool{}
	for _, g := range cs.groups {
		if err := w.regroup(g, recs); err != nil {
			return nil, err
		}
		used[g.target] = true
	}
	for c := range cs.before {
		if used[c] {
			continue
		}
		if err := w.st.DeleteCluster(c); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
	}
	return w.commit()
}

// regroup makes g one cluster: its members' records and memberships point
// at its target (a new cluster when it has none), its representative is
// kept or chosen, and the search index is told.
func (w *mutation) regroup(g group, recs map[string]*store.Record) error {
	target := g.target
	if target == "" {
		n, err := w.st.NextCluster()
		if err != nil {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		target = store.ClusterID(n)
	}
	// The representative: the target's own when it stays in the group;
	// else (a new cluster) the earliest member. Replace then lets its
	// Keep rule choose among all.
	rep := ""
	if g.target != "" {
		var err error
		if rep, err = w.representative(target); err != nil {
			return err
		}
		if !slices.Contains(g.members, rep) {
			rep = ""
		}
	}
	for _, id := range g.members {
		r := recs[id]
		better := rep == ""
		if !better && w.f.opts.Policy == Replace {
			better = w.f.opts.prefer(r, recs[rep])
		} else if !better && g.target == "" {
			better = r.Seq < recs[rep].Seq
		}
		if better {
			rep = id
		}
	}
	if err := w.st.SetRepresentative(target, rep); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	for _, id := range g.members {
		r := recs[id]
		moved := r.Cluster != target
		if moved {
			if err := errors.Join(w.st.RemoveMember(r.Cluster, id), w.st.AddMember(target, id)); err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			r.Cluster = target
			if err := w.putRecord(id, r); err != nil {
				return err
			}
		}
		indexed := w.f.opts.Policy == Mark || id == rep
		switch {
		case indexed != r.Indexed:
			if err := w.setIndexed(id, r, indexed); err != nil {
				return err
			}
		case indexed && moved:
			// Indexed before and after, under another cluster id: index it
			// again so the search index's cluster field follows.
			if err := w.indexOp(id, target); err != nil {
				return err
			}
		}
	}
	return nil
}

// setIndexed records whether id is in the search index and emits the op
// that makes it so.
func (w *mutation) setIndexed(id string, rec *store.Record, indexed bool) error {
	if rec.Indexed == indexed {
		return nil
	}
	rec.Indexed = indexed
	if err := w.putRecord(id, rec); err != nil {
		return err
	}
	if !indexed {
		w.op(Op{Kind: OpDelete, ID: id})
		return nil
	}
	return w.indexOp(id, rec.Cluster)
}
