package embedded

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/internal/codec"
)

func memDB(tb testing.TB) *badger.DB {
	tb.Helper()
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func testKey(i int) []byte { return store.PostingKey('b', uint64(i)*0x9e3779b97f4a7c15) }

// sigAsKey gives, as a document's one derived posting key, its stored
// signature itself.
func sigAsKey(sig []byte) ([][]byte, error) { return [][]byte{slices.Clone(sig)}, nil }

func openTestTable(tb testing.TB, path string, db *badger.DB) *postingTable {
	tb.Helper()
	tab, err := openPostingTable(path, db, false, 0, sigAsKey)
	if err != nil {
		tb.Fatal(err)
	}
	return tab
}

// get is getAll of one key.
func (t *postingTable) get(key []byte) store.PostingList { return t.getAll([][]byte{key})[0] }

// TestPostingTableModel applies random changes to the table and to a map
// of lists, through growths and rehashes, and compares every list.
func TestPostingTableModel(t *testing.T) {
	tab := openTestTable(t, "", memDB(t))
	defer tab.close(false)
	model := map[int]store.PostingList{}
	rng := rand.New(rand.NewPCG(1, 2))
	const keys = 20000
	// compare checks every list, and whether a growth was under way.
	moving := 0
	compare := func() {
		t.Helper()
		if tab.old != nil {
			moving++
		}
		for k := range keys {
			if got, want := tab.get(testKey(k)), model[k]; got.Full != want.Full || !slices.Equal(got.Seqs, want.Seqs) {
				t.Fatalf("key %d (a growth under way: %v): got %v, want %v", k, tab.old != nil, got, want)
			}
		}
	}
	for seq := uint64(1); seq <= 200000; seq++ {
		k := rng.IntN(keys)
		l := model[k]
		c := postingChange{fp: fingerprint(testKey(k))}
		switch r := rng.IntN(100); {
		case r < 2 && !l.Full:
			c.full = true
			l = store.PostingList{Full: true}
		case r < 30 && len(l.Seqs) > 0:
			victim := l.Seqs[rng.IntN(len(l.Seqs))]
			c.removed = []uint64{victim}
			l.Seqs = slices.DeleteFunc(slices.Clone(l.Seqs), func(s uint64) bool { return s == victim })
		case !l.Full:
			c.added = []uint64{seq}
			l.Seqs = append(slices.Clone(l.Seqs), seq)
		}
		model[k] = l
		if err := tab.change(c); err != nil {
			t.Fatal(err)
		}
		if seq%4999 == 0 {
			compare()
		}
	}
	if moving == 0 {
		t.Error("no comparison while a growth was under way")
	}
	lists := 0
	for k := range keys {
		got, want := tab.get(testKey(k)), model[k]
		if got.Full != want.Full || !slices.Equal(got.Seqs, want.Seqs) {
			t.Fatalf("key %d: got %v, want %v", k, got, want)
		}
		if want.Full || len(want.Seqs) > 0 {
			lists++
		}
	}
	// getAll, on a document's worth of keys at a time, some absent.
	for k := 0; k < keys+1000; k += 57 {
		var batch [][]byte
		for j := k; j < k+57; j++ {
			batch = append(batch, testKey(j))
		}
		for j, got := range tab.getAll(batch) {
			if want := model[k+j]; got.Full != want.Full || !slices.Equal(got.Seqs, want.Seqs) {
				t.Fatalf("getAll: key %d: got %v, want %v", k+j, got, want)
			}
		}
	}
	if got := tab.count(); got != lists {
		t.Errorf("count = %d, want %d", got, lists)
	}
	if tab.size() <= minTableSlots {
		t.Errorf("table of %d slots did not grow", tab.size())
	}
}

// TestPostingTableGrowth checks the size a full table takes: half as
// large again, to the page, when its slots hold postings; its own
// (tombstones dropped) when each posting was removed again.
func TestPostingTableGrowth(t *testing.T) {
	for _, tc := range []struct {
		name     string
		removed  bool
		wantSize uint64
	}{
		{"postings", false, (minTableSlots*3/2/slotsPage + 1) * slotsPage},
		{"tombstones", true, minTableSlots},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := openTestTable(t, "", memDB(t))
			defer tab.close(false)
			// Until the first growth or rehash, whose slots then move.
			for k := 0; k < 2*minTableSlots && tab.old == nil; k++ {
				fp := fingerprint(testKey(k))
				if err := tab.change(postingChange{fp: fp, added: []uint64{uint64(k + 1)}}); err != nil {
					t.Fatal(err)
				}
				if tc.removed {
					if err := tab.change(postingChange{fp: fp, removed: []uint64{uint64(k + 1)}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if tab.old == nil {
				t.Fatal("the table neither grew nor was rehashed")
			}
			if tab.size() != tc.wantSize {
				t.Errorf("table of %d slots became %d, want %d", minTableSlots, tab.size(), tc.wantSize)
			}
		})
	}
}

// TestPostingTableFile: a table closed cleanly is trusted as it is; one
// that was not (a crash), whose file is damaged, or that was closed with
// another store (another mutation count), is rebuilt from the store: its
// full-list markers and its documents' posting keys, listed by their
// records or derived from their signatures.
func TestPostingTableFile(t *testing.T) {
	db := memDB(t)
	stored, full, derived, listed := testKey(1), testKey(2), testKey(4), testKey(5)
	err := db.Update(func(txn *badger.Txn) error {
		writes := []struct{ k, v []byte }{
			{codec.Key(store.NSDoc, "a"), codec.EncodeRecord(&store.Record{Seq: 7, Cluster: "0000000000000001", Keys: [][]byte{stored}}, false)},
			// b lists one key and derives the other from its signature.
			{codec.Key(store.NSDoc, "b"), codec.EncodeRecord(&store.Record{Seq: 8, Cluster: "0000000000000002", Keys: [][]byte{listed}}, true)},
			{codec.SeqKey(store.NSSignature, 8), derived},
			// c derives its keys, and its signature is gone (withdrawn).
			{codec.Key(store.NSDoc, "c"), codec.EncodeRecord(&store.Record{Seq: 6, Cluster: "0000000000000003"}, true)},
			{full, codec.FullPostings()},
		}
		for _, w := range writes {
			if err := txn.Set(w.k, w.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	onlyInTable := testKey(3) // not in the store: kept only by a trusted file
	// edit changes the file's bytes in place.
	edit := func(change func(b []byte)) func(path string) error {
		return func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			change(b)
			return os.WriteFile(p, b, 0o644)
		}
	}
	tests := []struct {
		name        string
		clean       bool
		damage      func(path string) error
		wantTrusted bool
	}{
		{"clean close", true, nil, true},
		{"another store", true, edit(func(b []byte) { b[offTableCount+32]++ }), false}, // the seq the table was closed with
		{"crash", false, nil, false},
		{"empty file", true, func(p string) error { return os.WriteFile(p, nil, 0o644) }, false},
		{"short file", true, func(p string) error { return os.Truncate(p, postingTableHeader+100) }, false},
		{"bad magic", true, edit(func(b []byte) { copy(b, "garbage!") }), false},
		// bdpt0001: 2^16 slots named by a byte, then the flag.
		{"the layout before", true, edit(func(b []byte) { copy(b, "bdpt0001\x10\x01") }), false},
		{"another size", true, edit(func(b []byte) { b[offTableSize]++ }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "postings")
			tab := openTestTable(t, path, db)
			if err := tab.change(postingChange{fp: fingerprint(onlyInTable), added: []uint64{9}}); err != nil {
				t.Fatal(err)
			}
			if err := tab.close(tt.clean); err != nil {
				t.Fatal(err)
			}
			if tt.damage != nil {
				if err := tt.damage(path); err != nil {
					t.Fatal(err)
				}
			}
			tab = openTestTable(t, path, db)
			defer tab.close(false)
			if got := len(tab.get(onlyInTable).Seqs) == 1; got != tt.wantTrusted {
				t.Errorf("trusted = %v, want %v", got, tt.wantTrusted)
			}
			if !tt.wantTrusted {
				if got := tab.get(stored); !slices.Equal(got.Seqs, []uint64{7}) {
					t.Errorf("rebuilt list = %v, want [7] from the record", got)
				}
				if got := tab.get(listed); !slices.Equal(got.Seqs, []uint64{8}) {
					t.Errorf("rebuilt list = %v, want [8] from the record that derives its other keys", got)
				}
				if got := tab.get(derived); !slices.Equal(got.Seqs, []uint64{8}) {
					t.Errorf("rebuilt list = %v, want [8] from the signature", got)
				}
				if !tab.get(full).Full {
					t.Error("rebuilt table lost the full list's marker")
				}
			}
		})
	}
}

// TestPostingTableWithoutSignatureKeys: a record whose keys are derived
// cannot be rebuilt without SignatureKeys; the table says so.
func TestPostingTableWithoutSignatureKeys(t *testing.T) {
	db := memDB(t)
	err := db.Update(func(txn *badger.Txn) error {
		if err := txn.Set(codec.Key(store.NSDoc, "b"), codec.EncodeRecord(&store.Record{Seq: 8, Cluster: "c"}, true)); err != nil {
			return err
		}
		return txn.Set(codec.SeqKey(store.NSSignature, 8), testKey(4))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openPostingTable("", db, false, 0, nil); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("rebuilding without SignatureKeys: %v, want ErrInvalidOptions", err)
	}
}

// TestPostingTableReadOnly: a read-only table never writes its file; an
// untrusted one is rebuilt in memory.
func TestPostingTableReadOnly(t *testing.T) {
	db := memDB(t)
	path := filepath.Join(t.TempDir(), "postings")
	tab := openTestTable(t, path, db)
	if err := tab.change(postingChange{fp: fingerprint(testKey(1)), added: []uint64{3}}); err != nil {
		t.Fatal(err)
	}
	if err := tab.close(false); err != nil { // left open: not trusted
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := openPostingTable(path, db, true, 0, sigAsKey)
	if err != nil {
		t.Fatal(err)
	}
	if ro.file != nil || len(ro.get(testKey(1)).Seqs) != 0 {
		t.Error("an untrusted file was used read-only; want a table rebuilt in memory")
	}
	if err := ro.close(true); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("read-only open changed the file (%v)", err)
	}
}

func BenchmarkPostingTableGet(b *testing.B) {
	tab := openTestTable(b, "", memDB(b))
	defer tab.close(false)
	for i := range 1 << 20 {
		if err := tab.change(postingChange{fp: fingerprint(testKey(i % (1 << 18))), added: []uint64{uint64(i + 1)}}); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		tab.get(testKey(i % (1 << 19))) // half of them absent
		i++
	}
}

// BenchmarkPostingTableGetAll looks up a document's lists (57 keys, as
// the default options make) in a table larger than the caches. One key at
// a time (get) took 1.7-2.1 times as long.
func BenchmarkPostingTableGetAll(b *testing.B) {
	tab := openTestTable(b, "", memDB(b))
	defer tab.close(false)
	const keys = 1 << 22
	for i := range 1 << 23 {
		if err := tab.change(postingChange{fp: fingerprint(testKey(i % keys)), added: []uint64{uint64(i + 1)}}); err != nil {
			b.Fatal(err)
		}
	}
	batch := make([][]byte, 57)
	i := 0
	for b.Loop() {
		for j := range batch {
			batch[j] = testKey(int(uint64(i*len(batch)+j) * 0x9e3779b97f4a7c15 % (2 * keys))) // half absent
		}
		tab.getAll(batch)
		i++
	}
}

// BenchmarkPostingTableGrowth posts 150,000 documents of 57 keys each
// (8.6 million postings, the table growing to 2^24 slots in a file) as
// the store does, a reservation and then the changes, and reports the
// slowest document's time: a growth's stall.
func BenchmarkPostingTableGrowth(b *testing.B) {
	const docs, keys = 150000, 57
	for b.Loop() {
		tab := openTestTable(b, filepath.Join(b.TempDir(), "postings"), memDB(b))
		var slowest time.Duration
		cs := make([]postingChange, keys)
		for d := range docs {
			start := time.Now()
			if err := tab.reserve(keys); err != nil {
				b.Fatal(err)
			}
			for j := range cs {
				cs[j] = postingChange{fp: fingerprint(testKey(d*keys + j)), added: []uint64{uint64(d + 1)}}
			}
			if err := tab.apply(cs); err != nil {
				b.Fatal(err)
			}
			slowest = max(slowest, time.Since(start))
		}
		b.ReportMetric(float64(slowest.Microseconds())/1000, "slowest-doc-ms")
		b.ReportMetric(float64(tab.bytes())/docs/keys, "bytes/posting")
		if err := tab.close(false); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPostingTableFile opens whatever a crash or a stray write left in the
// table's file: the open never fails on its content, and a list of the
// store is then found.
func FuzzPostingTableFile(f *testing.F) {
	good := filepath.Join(f.TempDir(), "postings")
	tab := openTestTable(f, good, memDB(f))
	if err := tab.close(true); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:postingTableHeader])
	f.Add([]byte{})
	f.Add([]byte(postingTableMagic))
	db := memDB(f)
	stored := testKey(7)
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(stored, codec.FullPostings()) }); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, header []byte) {
		path := filepath.Join(t.TempDir(), "postings")
		// The header as fuzzed, then slots of the size it may name.
		content := append(header, make([]byte, max(0, postingTableHeader-len(header))+8*minTableSlots)...)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := openPostingTable(path, db, false, 0, sigAsKey)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer tab.close(false)
		if bytes.HasPrefix(header, []byte(postingTableMagic)) && len(header) > offTableClean && header[offTableClean] == 1 {
			return // a file that says it was closed cleanly is trusted as it is
		}
		if !tab.get(stored).Full {
			t.Error("a list of the store is missing from a rebuilt table")
		}
	})
}

// TestPostingTableGrowthFile: a table closed cleanly while its slots
// move to a grown table finishes moving them and is trusted; one a crash
// cut short leaves its old table's file, which the next open removes.
func TestPostingTableGrowthFile(t *testing.T) {
	for _, clean := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "postings")
		db := memDB(t)
		tab := openTestTable(t, path, db)
		n := 0
		for ; tab.old == nil; n++ {
			if err := tab.change(postingChange{fp: fingerprint(testKey(n)), added: []uint64{uint64(n + 1)}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(path + ".old"); err != nil {
			t.Fatalf("growing: %v, want the old table's file", err)
		}
		if err := tab.close(clean); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path + ".old"); errors.Is(err, fs.ErrNotExist) == !clean {
			t.Errorf("clean=%v: old table's file after close: %v", clean, err)
		}
		tab = openTestTable(t, path, db)
		if _, err := os.Stat(path + ".old"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("clean=%v: old table's file after open: %v, want none", clean, err)
		}
		kept := 0
		for i := range n {
			if l := tab.get(testKey(i)); slices.Equal(l.Seqs, []uint64{uint64(i + 1)}) {
				kept++
			}
		}
		if want := map[bool]int{true: n, false: 0}[clean]; kept != want {
			t.Errorf("clean=%v: %d of %d lists after reopening, want %d (trusted: all; rebuilt from an empty store: none)", clean, kept, n, want)
		}
		if err := tab.close(false); err != nil {
			t.Fatal(err)
		}
	}
}
