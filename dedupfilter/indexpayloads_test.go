package dedupfilter

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// fakeIndex is a search index that stores what it is given.
type fakeIndex map[string][]byte

func (x fakeIndex) apply(ops []Op) {
	for _, op := range ops {
		if op.Kind == OpIndex {
			x[op.ID] = op.Payload
		} else {
			delete(x, op.ID)
		}
	}
}

func (x fakeIndex) read(id string) ([]byte, error) {
	p, ok := x[id]
	if !ok {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return p, nil
}

// storedPayloads are the payloads as the store holds them, by id.
func storedPayloads(t *testing.T, f *Filter, ids ...string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := f.backend.Read(func(st store.Txn) error {
		for _, id := range ids {
			p, err := st.Payload(id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			got[id] = string(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestKeepPayloadsIn follows a document's payload between the store, the
// journal and the search index: kept out of the store while the search
// index has the document, back in it when the document leaves the
// index but stays in the store, and read the same through Doc all along.
func TestKeepPayloadsIn(t *testing.T) {
	for _, policy := range []Policy{Suppress, Mark, Replace} {
		t.Run(policy.String(), func(t *testing.T) {
			dir := t.TempDir()
			f := openTest(t, func(o *Options) { o.Policy = policy })
			x := fakeIndex{}
			if err := f.KeepPayloadsIn(IndexPayloads{Read: x.read, Journal: filepath.Join(dir, "journal")}); err != nil {
				t.Fatal(err)
			}
			c, an := newCorpus(3), testAnalyzer(t)
			text := c.article(6)
			ids := []string{"a", "b", "c"}
			for _, id := range ids {
				d := mustAdd(t, f, Doc{ID: id, Features: an.Analyze(text), Payload: []byte("payload of " + id)})
				// Until the search index has it, the journal holds what
				// the store does not.
				e, err := f.Doc(id)
				if err != nil || string(e.Payload) != "payload of "+id {
					t.Fatalf("Doc(%s) before the index has it = %q, %v", id, e.Payload, err)
				}
				x.apply(d.Ops)
				if err := f.Applied(d.Ops...); err != nil {
					t.Fatal(err)
				}
			}
			stored := storedPayloads(t, f, ids...)
			for _, id := range ids {
				e, err := f.Doc(id)
				if err != nil || string(e.Payload) != "payload of "+id {
					t.Errorf("Doc(%s) = %q, %v", id, e.Payload, err)
				}
				// In the search index: nothing in the store. Out of it:
				// the store's payload is the only copy.
				if _, in := x[id]; in == (stored[id] != "") {
					t.Errorf("%s: in the index %v, stored payload %q", id, in, stored[id])
				}
			}
			if len(x) == len(ids) && policy != Mark {
				t.Errorf("%s: every copy in the index", policy)
			}
			// Deleting the representative brings a copy into the index
			// (Suppress, Replace): its payload moves out of the store.
			rep := slices.Sorted(maps.Keys(x))[0]
			res, err := f.Delete(rep)
			if err != nil {
				t.Fatal(err)
			}
			x.apply(res.Ops)
			if err := f.Applied(res.Ops...); err != nil {
				t.Fatal(err)
			}
			rest := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == rep })
			stored = storedPayloads(t, f, rest...)
			for _, id := range rest {
				if e, err := f.Doc(id); err != nil || string(e.Payload) != "payload of "+id {
					t.Errorf("after deleting %s: Doc(%s) = %q, %v", rep, id, e.Payload, err)
				}
				if _, in := x[id]; in == (stored[id] != "") {
					t.Errorf("after deleting %s: %s in the index %v, stored payload %q", rep, id, in, stored[id])
				}
			}
			files, err := os.ReadDir(filepath.Join(dir, "journal"))
			if err != nil {
				t.Fatal(err)
			}
			for _, fi := range files {
				if info, err := fi.Info(); err != nil || info.Size() != 0 {
					t.Errorf("journal file %s of %d bytes (%v) once everything is applied", fi.Name(), info.Size(), err)
				}
			}
		})
	}
}

// TestKeepPayloadsInReplay stops a filter between its decisions and the
// search index's write, and expects Replay over the same store to write
// every document with its payload, from the journal, and leave the
// journal empty.
func TestKeepPayloadsInReplay(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	open := func(x fakeIndex) *Filter {
		f, err := openEmbedded(filepath.Join(dir, "store"), DefaultOptions(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.KeepPayloadsIn(IndexPayloads{Read: x.read, Journal: journal}); err != nil {
			t.Fatal(err)
		}
		return f
	}
	x := fakeIndex{}
	f := open(x)
	c, an := newCorpus(5), testAnalyzer(t)
	for i := range 4 {
		id := fmt.Sprint("d", i)
		d := mustAdd(t, f, Doc{ID: id, Features: an.Analyze(c.article(5)), Payload: []byte("payload of " + id)})
		if i < 2 { // the others never reach the search index
			x.apply(d.Ops)
			if err := f.Applied(d.Ops...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = open(x)
	defer f.Close()
	var replayed []Op
	n, err := f.Replay(func(ops []Op) error {
		replayed = append(replayed, ops...)
		x.apply(ops)
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("Replay = %d, %v; want 2", n, err)
	}
	for _, op := range replayed {
		if op.Kind != OpIndex || string(op.Payload) != "payload of "+op.ID {
			t.Errorf("replayed %s %s with %q", op.Kind, op.ID, op.Payload)
		}
	}
	for i := range 4 {
		id := fmt.Sprint("d", i)
		if e, err := f.Doc(id); err != nil || string(e.Payload) != "payload of "+id {
			t.Errorf("Doc(%s) = %q, %v", id, e.Payload, err)
		}
	}
	if got := f.inIndex.j.byID; len(got) != 0 {
		t.Errorf("journal after Replay holds %d payloads", len(got))
	}
}

// TestKeepPayloadsInMissing: a document the store leaves to the search
// index, which does not hold it, is an error naming it, not a document
// unknown.
func TestKeepPayloadsInMissing(t *testing.T) {
	f := openTest(t, nil)
	x := fakeIndex{}
	if err := f.KeepPayloadsIn(IndexPayloads{Read: x.read, Journal: filepath.Join(t.TempDir(), "journal")}); err != nil {
		t.Fatal(err)
	}
	d := mustAdd(t, f, Doc{ID: "a", Features: testAnalyzer(t).Analyze(newCorpus(1).article(3)), Payload: []byte("a")})
	if err := f.Applied(d.Ops...); err != nil { // applied, but never written
		t.Fatal(err)
	}
	_, err := f.Doc("a")
	if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNotFound) {
		t.Errorf("Doc of a document the index lost: %v; want ErrCorrupt", err)
	}
}

// TestKeepPayloadsInLater: a store written without KeepPayloadsIn, opened
// again with it, reads the payloads it holds as they were and leaves only
// the new documents' to the search index.
func TestKeepPayloadsInLater(t *testing.T) {
	dir := t.TempDir()
	c, an := newCorpus(9), testAnalyzer(t)
	x := fakeIndex{}
	add := func(f *Filter, id string) {
		t.Helper()
		d := mustAdd(t, f, Doc{ID: id, Features: an.Analyze(c.article(4)), Payload: []byte("payload of " + id)})
		x.apply(d.Ops)
		if err := f.Applied(d.Ops...); err != nil {
			t.Fatal(err)
		}
	}
	f, err := openEmbedded(filepath.Join(dir, "store"), DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	add(f, "old")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err = openEmbedded(filepath.Join(dir, "store"), DefaultOptions(), nil); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.KeepPayloadsIn(IndexPayloads{Read: x.read, Journal: filepath.Join(dir, "journal")}); err != nil {
		t.Fatal(err)
	}
	add(f, "new")
	want := map[string]string{"old": "payload of old", "new": ""}
	if got := storedPayloads(t, f, "old", "new"); !maps.Equal(got, want) {
		t.Errorf("stored payloads %q, want %q", got, want)
	}
	for _, id := range []string{"old", "new"} {
		if e, err := f.Doc(id); err != nil || string(e.Payload) != "payload of "+id {
			t.Errorf("Doc(%s) = %q, %v", id, e.Payload, err)
		}
	}
}
