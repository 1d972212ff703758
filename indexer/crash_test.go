//go:build unix

package indexer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// Where a child of TestCrashRepair kills itself with SIGKILL, in the
// batch it is told (crashChild.KillAt).
const (
	// killDecided: the batch's decisions and pending marks are in the
	// store, bleve has not started writing it.
	killDecided = "decided"
	// killWriting: a few milliseconds into bleve's write of the batch.
	killWriting = "writing"
	// killWritten: bleve has the batch, its marks are not cleared yet.
	killWritten = "written"
	// killReturned: right after the batch returned to its caller
	// (Index.Batch, or IndexPages' Progress), its bleve write under way
	// while the next batch is read and decided.
	killReturned = "returned"
)

// crashChildEnv makes the test binary a child of TestCrashRepair: the
// JSON of a crashChild.
const crashChildEnv = "INDEXER_CRASH_CHILD"

// crashChild is what a child process does: write the pages of the JSONL
// file Pages into Dir, through Wrap or Open, in batches of Batch, and
// kill itself as Kill says in the KillAt-th batch it writes (from 1). A
// Wrap child writes from batch From on (the batches before returned in
// earlier children) and prints "returned N" as each batch N returns; an
// Open child runs IndexPages over all the pages, which skips those the
// index holds already.
type crashChild struct {
	Wrap bool
	// Stored: the Wrap's mapping stores the HTML, so the store leaves
	// the pages' text to bleve (dedupfilter.Filter.KeepPayloadsIn).
	Stored      bool
	Dir, Pages  string
	Batch, From int
	Kill        string
	KillAt      int
}

// The pages of TestCrashRepair are every copy of the articles of the
// development pages crashFrom to crashTo (140 pages), in their order, in
// batches of crashBatch. They hold the case of a user's report: a page's
// Add and, later in the same batch, a page of its site showing its text to
// be template, so that its cluster is re-decided, which may move it
// again.
const (
	crashFrom, crashTo = 940, 1000
	crashBatch         = 20
)

// TestCrashRepair kills a process indexing the development pages (policy
// Mark) with SIGKILL in every batch, the kinds of crash in turn (the store
// has a batch that bleve has not, bleve is in the middle of writing it,
// bleve has it but its pending marks are not cleared, or the batch has
// returned while its bleve write goes on), through Wrap and through
// Open's IndexPages; after each crash it reopens the index and expects
// bleve's cluster field to be the store's cluster id for every document,
// and after the last, the clusters of an uninterrupted run. Each process
// indexes from where the one before stopped, opening the index again, so
// it finds what the last repair left: the crash of a Wrap process falls in
// batch 0, then 1, and so on; that of an Open process in the first batch
// it writes.
func TestCrashRepair(t *testing.T) {
	if v := os.Getenv(crashChildEnv); v != "" {
		var c crashChild
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			t.Fatal(err)
		}
		c.run(t)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	src := extracttest.Path(t, "neardup", "dev-corpus.jsonl.gz")
	pages := filepath.Join(t.TempDir(), "pages.jsonl")
	writePages(t, src, pages, crashFrom, crashTo)
	kinds := []string{killDecided, killWriting, killWritten, killReturned}
	for _, tt := range []struct {
		name         string
		wrap, stored bool
	}{{"Wrap", true, false}, {"Wrap text kept once", true, true}, {"Open", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			full := t.TempDir()
			c := crashChild{Wrap: tt.wrap, Stored: tt.stored, Dir: full, Pages: pages, Batch: crashBatch}
			c.run(t)
			want := checkCrashed(t, c)
			// Two passes, the kinds of crash shifted by two: each batch is
			// cut by two kinds, each kind cuts half the batches.
			for pass := range 2 {
				c := crashChild{Wrap: tt.wrap, Stored: tt.stored, Dir: t.TempDir(), Pages: pages, Batch: crashBatch}
				for i := 0; ; i++ {
					c.KillAt = 1
					if c.Wrap {
						// The killer counts bleve writes, not batches: a
						// batch whose pages the store holds from before the
						// last crash need not write, and a repair at open
						// writes before any batch. So a crash may land on a
						// later batch than the one aimed at; aim at the
						// first batch not returned.
						i = max(i, c.From)
						c.KillAt = i - c.From + 1 // batch i
					}
					c.Kill = kinds[(i+2*pass)%len(kinds)]
					done, last := c.start(t)
					if done {
						break
					}
					label := fmt.Sprintf("pass %d, crash %d (%s)", pass, i, c.Kill)
					t.Run(label, func(t *testing.T) { checkCrashed(t, c) })
					c.From = last + 1
				}
				if got := checkCrashed(t, c); got != want {
					t.Errorf("pass %d: clusters after the crashes\n%s\nwant (uninterrupted)\n%s", pass, got, want)
				}
			}
		})
	}
}

// writePages writes to the JSONL file dst every page of src, a JSONL
// file, that is a copy (its id, less a "-rN" suffix) of one of the pages
// from to to.
func writePages(t *testing.T, src, dst string, from, to int) {
	t.Helper()
	var all []page.Page
	for p, err := range page.Read([]string{src}, page.DefaultOptions()) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	article := func(id string) string {
		if i := strings.LastIndex(id, "-r"); i > 0 {
			if _, err := strconv.Atoi(id[i+2:]); err == nil {
				return id[:i]
			}
		}
		return id
	}
	want := map[string]bool{}
	for _, p := range all[from:to] {
		want[article(p.ID)] = true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, p := range all {
		if !want[article(p.ID)] {
			continue
		}
		if err := enc.Encode(map[string]string{"id": p.ID, "url": p.URL, "title": p.Title, "html": p.HTML}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// start runs c in a child process. It returns done when the child wrote
// every page and ended, else the last batch it saw returned (c.From-1
// when none did; an Open child does not say).
func (c crashChild) start(t *testing.T) (done bool, last int) {
	t.Helper()
	env, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashRepair$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+string(env))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		last = c.From - 1
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "returned "); ok {
				if last, err = strconv.Atoi(n); err != nil {
					t.Fatal(err)
				}
			}
		}
		return false, last
	}
	if err != nil {
		t.Fatalf("child %+v: %v\n%s%s", c, err, out, stderr.Bytes())
	}
	return true, 0
}

// run writes the pages, and kills the process as c.Kill says.
func (c crashChild) run(t *testing.T) {
	var pages []page.Page
	for p, err := range page.Read([]string{c.Pages}, page.DefaultOptions()) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	k := &killer{kind: c.Kill, at: c.KillAt}
	if !c.Wrap {
		o := Options{}
		o.Policy = dedupfilter.Mark
		ix, err := Open(c.Dir, o)
		if err != nil {
			t.Fatal(err)
		}
		k.wrapped = ix.ix.bleve
		ix.ix.bleve = k // (after Open: its repair is not counted)
		ro := DefaultRunOptions()
		ro.BatchSize = c.Batch
		ro.Progress = func(Stats) { k.returned() }
		if _, err := ix.IndexPages(context.Background(), page.Read([]string{c.Pages}, page.DefaultOptions()), ro); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	w := openWrap(t, c.Dir, c.Stored, k)
	for n := c.From; n*c.Batch < len(pages); n++ {
		b := w.NewBatch()
		for _, p := range pages[n*c.Batch : min((n+1)*c.Batch, len(pages))] {
			if err := b.Index(p.ID, crashPage{URL: p.URL, Title: p.Title, HTML: p.HTML}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Batch(b); err != nil {
			t.Fatal(err)
		}
		if c.Kill != "" {
			fmt.Printf("returned %d\n", n)
		}
		k.returned()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// crashPage is a user's document type, written through Wrap.
type crashPage struct {
	URL, Title, HTML string
}

// openWrap opens (or makes) the bleve index in dir and wraps it, policy
// Mark; a killer k, when not nil, stands between the Index and bleve
// once its repair is done. Unless stored, the mapping leaves the HTML
// out of bleve.
func openWrap(t *testing.T, dir string, stored bool, k *killer) *Index {
	t.Helper()
	path := filepath.Join(dir, "bleve")
	idx, err := bleve.Open(path)
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		m := bleve.NewIndexMapping()
		AddFilterFields(m)
		// The raw HTML is read, not indexed (see Options.TitleField):
		// bleve's writes, what a crash cuts, stay a page's text.
		if !stored {
			m.DefaultMapping.AddSubDocumentMapping("HTML", bleve.NewDocumentDisabledMapping())
		}
		idx, err = bleve.New(path, m)
	}
	if err != nil {
		t.Fatal(err)
	}
	w, err := Wrap(idx, Options{Store: filepath.Join(dir, "store"), HTMLField: "HTML", TitleField: "Title", URLField: "URL", Policy: dedupfilter.Mark})
	if err != nil {
		t.Fatal(errors.Join(err, idx.Close()))
	}
	if k != nil {
		k.wrapped = idx
		w.ix.bleve = k
	}
	return w
}

// killer is a bleve index that kills the process in its at-th batch, or
// once that batch returned, as kind says (see killDecided).
type killer struct {
	wrapped // the index written
	kind    string
	at      int
	// The batches written (by one goroutine at a time: the indexer's
	// applyMu), and those returned to the caller.
	batches, returns int
}

func (k *killer) Batch(b *bleve.Batch) error {
	k.batches++
	if k.batches != k.at {
		return k.wrapped.Batch(b)
	}
	switch k.kind {
	case killDecided:
		die()
	case killWriting:
		time.AfterFunc(2*time.Millisecond, die)
	}
	err := k.wrapped.Batch(b)
	if k.kind == killWritten || k.kind == killWriting { // (writing: it ended first)
		die()
	}
	return err
}

// returned is told that a batch returned to its caller.
func (k *killer) returned() {
	if k.returns++; k.kind == killReturned && k.returns == k.at {
		die()
	}
}

func die() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// checkCrashed opens the index c writes, repairing what a crash left,
// and fails the test for every document whose bleve cluster field is not
// its cluster in the store; it returns the clusters, one a line.
func checkCrashed(t *testing.T, c crashChild) string {
	t.Helper()
	var b bleve.Index
	var f *dedupfilter.Filter
	if c.Wrap {
		w := openWrap(t, c.Dir, c.Stored, nil)
		defer w.Close()
		b, f = w.Unwrap(), w.Filter()
		if w.ix.filter == nil {
			t.Fatal("no filter")
		}
	} else {
		o := Options{}
		o.Policy = dedupfilter.Mark
		ix, err := Open(c.Dir, o)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		b, f = ix.Unwrap(), ix.Filter()
	}
	var clusters strings.Builder
	docs := 0
	err := f.Clusters(func(cl dedupfilter.Cluster) error {
		fmt.Fprintf(&clusters, "%s rep=%s %s\n", cl.ID, cl.Representative, strings.Join(cl.Members, " "))
		for _, id := range cl.Members {
			docs++
			d, err := b.Document(id)
			if err != nil {
				return err
			}
			// Under Mark every document is in bleve.
			if got := clusterField(d); got != cl.ID {
				t.Errorf("%s: bleve's cluster field %q, the store's cluster %s", id, got, cl.ID)
			}
			// Its text is there, wherever the store keeps it.
			e, err := f.Doc(id)
			if err != nil {
				return err
			}
			var p struct{ HTML, Text string }
			if err := json.Unmarshal(e.Payload, &p); err != nil || c.Wrap && p.HTML == "" || !c.Wrap && p.Text == "" {
				t.Errorf("%s: payload %.60q (%v), want the page", id, e.Payload, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := b.DocCount(); err != nil || n != uint64(docs) {
		t.Errorf("bleve holds %d documents (%v), the store %d", n, err, docs)
	}
	return clusters.String()
}

// clusterField is the stored cluster field of d ("<absent>": no d).
func clusterField(d index.Document) string {
	if d == nil {
		return "<absent>"
	}
	v := "<none>"
	d.VisitFields(func(f index.Field) {
		if f.Name() == FieldCluster {
			v = string(f.Value())
		}
	})
	return v
}
