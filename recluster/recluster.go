package recluster

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

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Options configure Find. Start from DefaultOptions.
type Options struct {
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

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options {
	return Options{MinST: 0.125, MaxPairwise: 200}
}

func (o Options) validate() error {
	if o.MinST <= 0 || o.MinST > 1 || o.MaxPairwise < 2 {
		return fmt.Errorf("recluster: MinST %v outside (0, 1] or MaxPairwise %d under 2: %w", o.MinST, o.MaxPairwise, ErrInvalidOptions)
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

// Plan is what Find found; Apply carries it out.
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
// before, and the groups they end in. Apply regroups each in one
// mutation (dedupfilter.Filter.Regroup).
type changeSet struct {
	before map[string][]string // cluster -> members, as planned
	groups []dedupfilter.Group
}

// Find reads the whole store of f, from one snapshot, and returns the
// merges and splits that make its clusters the classes described in the
// package doc. It writes nothing.
func Find(ctx context.Context, f *dedupfilter.Filter, o Options) (*Plan, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	p := &Plan{}
	r := &replanner{o: o, verdict: f.Options().Options, p: p, parts: map[string]string{}, uf: unionFind{}, split: map[string]bool{}, members: map[string][]string{}}
	err := f.View(func(s *dedupfilter.Snapshot) error {
		r.s = s
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

// replanner is the state of one Find.
type replanner struct {
	o       Options
	verdict similarity.Options // the filter's
	p       *Plan
	s       *dedupfilter.Snapshot
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
	return r.s.Clusters(func(cluster string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		members, err := r.s.Members(cluster)
		if err != nil {
			return err
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
			if _, sigs[i], err = r.s.Signature(id); err != nil {
				return err
			}
		}
		rep, err := r.s.Representative(cluster)
		if err != nil {
			return err
		}
		uf := unionFind{}
		var closest Link
		type pair struct{ i, j int }
		var failed []pair
		verdicts := map[pair]similarity.Verdict{}
		for i := range members {
			for j := i + 1; j < len(members); j++ {
				v := similarity.Compare(sigs[i], sigs[j], r.verdict)
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
	return r.s.Docs(func(id string, rec *store.Record, sig similarity.Signature) error {
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
		ls, err := r.s.BlockPostings(sig)
		if err != nil {
			return err
		}
		shared := map[uint64]int{}
		for _, l := range ls {
			if l.Full {
				continue // a stop list: boilerplate every page has
			}
			for _, q := range l.Seqs {
				if q < rec.Seq { // each pair once, from its later document
					shared[q]++
				}
			}
		}
		need := int(math.Ceil(r.o.MinST * float64(len(sig.Blocks()))))
		self := r.node(id, rec.Cluster)
		for _, q := range slices.Sorted(maps.Keys(shared)) {
			if shared[q] < need {
				continue
			}
			xid, xrec, xsig, err := r.s.Posted(q)
			if errors.Is(err, dedupfilter.ErrNotFound) {
				continue // replaced or removed since it was posted
			}
			if err != nil {
				return err
			}
			other := r.node(xid, xrec.Cluster)
			if other == self || r.uf.root(other) == r.uf.root(self) {
				continue
			}
			st := similarity.BlockST(sig, xsig)
			if st < r.o.MinST {
				continue
			}
			v := similarity.Compare(sig, xsig, r.verdict)
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
				if ms, err = r.s.Members(c); err != nil {
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
			g := dedupfilter.Group{}
			for _, n := range nodes {
				if g.Target == "" && strings.IndexByte(n, '/') < 0 {
					g.Target = n // the oldest whole cluster (ids sort by age)
				}
				g.Members = append(g.Members, nodeMembers[n]...)
			}
			slices.Sort(g.Members)
			cs.groups = append(cs.groups, g)
			if len(nodes) > 1 {
				m := Merge{Into: g.Target, Members: len(g.Members), Evidence: evidence[r.uf.find(root)]}
				for _, n := range nodes {
					if n != g.Target {
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

// Apply carries out p on f, the filter it was found in: each set of
// clusters that change together is regrouped in one mutation
// (dedupfilter.Filter.Regroup), and the search-index operations that
// follow are passed to apply, one change set's at a time. A change set
// whose clusters changed since the plan is skipped and counted in stale.
func (p *Plan) Apply(f *dedupfilter.Filter, apply func([]dedupfilter.Op) error) (stale int, err error) {
	for _, cs := range p.changes {
		ops, err := f.Regroup(cs.before, cs.groups)
		if errors.Is(err, dedupfilter.ErrStale) {
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
