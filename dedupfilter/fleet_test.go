package dedupfilter

import (
	"errors"
	"slices"
	"testing"
)

// The decisions of one process meeting another's in the middle: each
// test holds one filter's batch open (its records not written yet, as
// between an indexer's decisions and the end of its batch) while the
// other changes a cluster the batch is deciding against.

// fleetDocs are four articles' documents: f and p copies of one article,
// g and fg copies of another (fg is f's id with g's text: f re-added
// after its text changed), m a third copy of f's article.
type fleetDocs struct{ f, p, m, g, fg Doc }

func newFleetDocs(t *testing.T) fleetDocs {
	t.Helper()
	c := newCorpus(21)
	a := testAnalyzer(t)
	one, two := c.article(8), c.article(8)
	doc := func(id string, text []string) Doc {
		return Doc{ID: id, URL: "https://example.com/" + id, Title: id, Features: a.Analyze(text), Payload: []byte("payload of " + id)}
	}
	return fleetDocs{
		f:  doc("f", one),
		p:  doc("p", c.reprint(one, 0.02, false)),
		m:  doc("m", c.reprint(one, 0.02, false)),
		g:  doc("g", two),
		fg: doc("f", c.reprint(two, 0.02, false)),
	}
}

// inBatch adds d in an exclusive call of f, running before once d is
// planned (posted and numbered) and after once d is decided (its cluster
// joined, its record not written yet), and returns d's decision once the
// call has written it.
func inBatch(t *testing.T, f *Filter, d Doc, before, after func()) (Decision, error) {
	t.Helper()
	p, err := f.prepare(d)
	if err != nil {
		return Decision{}, err
	}
	var dec Decision
	err = f.exclusive(func() error {
		if err := f.prefetch([]*prepared{p}); err != nil {
			return err
		}
		before()
		var err error
		if dec, err = f.addPrepared(p, addOptions{}); err == nil {
			after()
		}
		return err
	})
	return dec, err
}

// oneClusterEach checks that every stored document is listed in one
// cluster at most, the one its record names.
func oneClusterEach(t *testing.T, f *Filter) {
	t.Helper()
	in := map[string][]string{}
	err := f.Clusters(func(c Cluster) error {
		for _, m := range c.Members {
			in[m] = append(in[m], c.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, cs := range in {
		e, err := f.Meta(id)
		if err != nil {
			t.Errorf("%s is listed in %v and not stored: %v", id, cs, err)
			continue
		}
		if len(cs) != 1 || cs[0] != e.Cluster {
			t.Errorf("%s is listed in clusters %v; its record names %s", id, cs, e.Cluster)
		}
	}
}

// TestRedisFounderLeft: a page that founded a cluster alone leaves it
// (its process re-adds it, and it moves to another cluster) while another
// process, which read it in that cluster, adds a copy of it there. The
// copy's join must not bring the page back into the cluster it left: a
// page in two clusters.
func TestRedisFounderLeft(t *testing.T) {
	fs := redisFilters(t, 2)
	a, b := fs[0], fs[1]
	d := newFleetDocs(t)
	mustAdd(t, a, d.f)
	mustAdd(t, a, d.g)
	dec, err := inBatch(t, b, d.p, func() {
		if got := mustAdd(t, a, d.fg); got.Of != "g" {
			t.Errorf("f re-added with g's text: a duplicate of %q, want g", got.Of)
		}
	}, func() {})
	if err != nil {
		t.Fatal(err)
	}
	if dec.Of != "f" {
		t.Errorf("p: a duplicate of %q, want f (as its batch read the store)", dec.Of)
	}
	oneClusterEach(t, a)
	if c, err := a.ClusterOf("f"); err != nil || !slices.Equal(c.Members, []string{"f", "g"}) {
		t.Errorf("f's cluster %v, %v; want f and g", c, err)
	}
	if c, err := a.ClusterOf("p"); err != nil || c.Representative != "p" {
		t.Errorf("p's cluster %v, %v; want p representing it (the page it copied left)", c, err)
	}
}

// TestRedisPromotedNotRecorded: a representative leaves its cluster (its
// text changed, or it is deleted) while another process' copy of it has
// joined the cluster and is not recorded yet: the copy takes its place,
// and the leaving page's process goes on without reading the copy's
// record (before, the add failed with `document "p": not found`).
func TestRedisPromotedNotRecorded(t *testing.T) {
	for _, how := range []string{"re-added", "deleted"} {
		t.Run(how, func(t *testing.T) {
			fs := redisFilters(t, 2)
			a, b := fs[0], fs[1]
			d := newFleetDocs(t)
			mustAdd(t, a, d.f)
			mustAdd(t, a, d.g)
			dec, err := inBatch(t, b, d.p, func() {}, func() {
				var err error
				if how == "deleted" {
					_, err = a.Delete("f")
				} else {
					_, err = a.Add(d.fg)
				}
				if err != nil {
					t.Errorf("f %s beside another process' batch: %v", how, err)
				}
			})
			if err != nil || dec.Of != "f" {
				t.Fatalf("p: %+v, %v; want a duplicate of f", dec, err)
			}
			oneClusterEach(t, a)
			if c, err := a.ClusterOf("p"); err != nil || c.Representative != "p" || !slices.Equal(c.Members, []string{"p"}) {
				t.Errorf("p's cluster %v, %v; want p alone representing it", c, err)
			}
		})
	}
}

// TestRedisFreshBesideAJoin: a page decided afresh (a re-decision of its
// cluster, which holds only its process' pages when it starts) while
// another process' page joins its cluster and is not recorded yet: the
// cluster, which now holds another process' page, stays as it is.
func TestRedisFreshBesideAJoin(t *testing.T) {
	fs := redisFilters(t, 2)
	a, b := fs[0], fs[1]
	d := newFleetDocs(t)
	mustAdd(t, a, d.f)
	mustAdd(t, a, d.g)
	_, err := inBatch(t, b, d.p, func() {}, func() {
		p, err := a.prepare(d.fg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.addPrepared(p, addOptions{fresh: true}); err != nil {
			t.Errorf("f decided afresh: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	oneClusterEach(t, a)
	if c, err := a.ClusterOf("p"); err != nil || c.Representative != "f" || !slices.Equal(c.Members, []string{"f", "p"}) {
		t.Errorf("p's cluster %v, %v; want f and p, f representing it", c, err)
	}
}

// TestRedisClusterGone: a page's batch reads its match in a cluster whose
// founder has moved (no founder to make it again from), and the cluster
// is gone (its last member left) before the page joins it: the page is
// decided without it, as the cluster's only member (before, the add
// failed with `cluster "...": not found`).
func TestRedisClusterGone(t *testing.T) {
	fs := redisFilters(t, 2)
	a, b := fs[0], fs[1]
	d := newFleetDocs(t)
	mustAdd(t, a, d.f)
	mustAdd(t, a, d.m)
	mustAdd(t, a, d.g)
	mustAdd(t, a, d.fg) // f leaves for g's cluster; m represents f's
	dec, err := inBatch(t, b, d.p, func() {
		if _, err := a.Delete("m"); err != nil {
			t.Errorf("Delete(m): %v", err)
		}
	}, func() {})
	if err != nil {
		t.Fatal(err)
	}
	if dec.Of != "m" || dec.Representative != "p" || dec.Action != Index {
		t.Errorf("p: a duplicate of %q, represented by %q, %v; want of m, p representing, indexed", dec.Of, dec.Representative, dec.Action)
	}
	oneClusterEach(t, a)
	if _, err := a.Meta("m"); !errors.Is(err, ErrNotFound) {
		t.Errorf("m after Delete: %v", err)
	}
}

// TestRedisWithdrawn: a page numbered in a batch and then decided under
// another number (its batch planned it again: its text changed meanwhile,
// as when a re-decision changes its site's template) is withdrawn. Another
// process that read it numbered and not decided worked out that it
// founds a cluster, and joined its copy there naming it founder, before
// the withdrawal or after it: the page is in the cluster its second
// number was decided into, not in that one too.
func TestRedisWithdrawn(t *testing.T) {
	for _, when := range []string{"before", "after"} {
		t.Run("joined "+when, func(t *testing.T) {
			fs := redisFilters(t, 2)
			a, b := fs[0], fs[1]
			d := newFleetDocs(t)
			mustAdd(t, a, d.g)
			pf, err := a.prepare(d.f)
			if err != nil {
				t.Fatal(err)
			}
			pfg, err := a.prepare(d.fg)
			if err != nil {
				t.Fatal(err)
			}
			var dec Decision
			withdraw := func() {
				err := a.exclusive(func() error {
					if err := a.prefetch([]*prepared{pf}); err != nil {
						return err
					}
					if when == "before" {
						if dec, err = b.Add(d.p); err != nil {
							return err
						}
					}
					_, err := a.addPrepared(pfg, addOptions{})
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if when == "before" {
				withdraw()
			} else {
				// b reads f numbered, not decided, and joins p after a has
				// withdrawn it.
				planned, withdrawn, done := make(chan struct{}), make(chan struct{}), make(chan error)
				err := a.exclusive(func() error {
					if err := a.prefetch([]*prepared{pf}); err != nil {
						return err
					}
					go func() {
						var err error
						dec, err = inBatch(t, b, d.p, func() {
							close(planned)
							<-withdrawn
						}, func() {})
						done <- err
					}()
					<-planned
					_, err := a.addPrepared(pfg, addOptions{})
					return err
				})
				close(withdrawn)
				if err := errors.Join(err, <-done); err != nil {
					t.Fatal(err)
				}
			}
			if dec.Of != "f" {
				t.Errorf("p: a duplicate of %q, want f (numbered, not decided)", dec.Of)
			}
			oneClusterEach(t, a)
			if c, err := a.ClusterOf("f"); err != nil || !slices.Equal(c.Members, []string{"f", "g"}) {
				t.Errorf("f's cluster %v, %v; want f and g", c, err)
			}
		})
	}
}
