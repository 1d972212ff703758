package dedupfilter

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
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

func testKey(i int) []byte { return postingKey(kindBand, uint64(i)*0x9e3779b97f4a7c15) }

func TestKeyFilterNoFalseNegatives(t *testing.T) {
	kf, err := openKeyFilter("", 16, memDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer kf.close(false)
	for i := range 2000 {
		kf.add(testKey(i))
	}
	fp := 0
	for i := range 2000 {
		if !kf.mayHave(testKey(i)) {
			t.Fatalf("key %d added but not found", i)
		}
		if kf.mayHave(testKey(i + 1e6)) {
			fp++
		}
	}
	// 2000 keys in 2^16 bits with 4 hashes: about 0.12% false positives.
	if fp > 20 {
		t.Errorf("%d false positives of 2000, want about 2", fp)
	}
}

// TestKeyFilterFile: a file closed cleanly, or left open by a process of
// this boot, is trusted; one left open on another boot, or larger than
// the largest size, is rebuilt from the store.
func TestKeyFilterFile(t *testing.T) {
	tests := []struct {
		name        string
		clean       bool
		boot        string // written over the header's boot id, when set
		maxLog      int    // to reopen with
		wantTrusted bool
	}{
		{"clean close", true, "", 16, true},
		{"crash on this boot", false, "", 16, true},
		{"crash on another boot", false, "another-boot", 16, false},
		{"no boot id", false, "\x00", 16, false},
		{"larger largest size", true, "", 17, true},
		{"smaller largest size", true, "", 15, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "keys")
			db := memDB(t)
			stored := testKey(1)
			if err := db.Update(func(txn *badger.Txn) error { return txn.Set(stored, []byte{postingsOpen}) }); err != nil {
				t.Fatal(err)
			}
			kf, err := openKeyFilter(path, 16, db)
			if err != nil {
				t.Fatal(err)
			}
			if !kf.mayHave(stored) {
				t.Fatal("a new filter was not built from the store")
			}
			onlyInFilter := testKey(2)
			kf.add(onlyInFilter)
			if tt.boot != "" { // as if the process had crashed on that boot
				copy(kf.bits[offBoot:], append([]byte(tt.boot), make([]byte, 40)...))
			}
			if err := kf.close(tt.clean); err != nil {
				t.Fatal(err)
			}
			kf, err = openKeyFilter(path, tt.maxLog, db)
			if err != nil {
				t.Fatal(err)
			}
			defer kf.close(true)
			if !kf.mayHave(stored) {
				t.Error("a key of the store is missing after reopening")
			}
			if got := kf.mayHave(onlyInFilter); got != tt.wantTrusted {
				t.Errorf("bits kept = %v, want %v (trusted)", got, tt.wantTrusted)
			}
		})
	}
}

func TestKeyFilterReopenFilter(t *testing.T) {
	dir := t.TempDir()
	a := testAnalyzer(t)
	text := newCorpus(3).article(6)
	open := func() *Filter {
		o := DefaultOptions(filepath.Join(dir, "store"))
		o.KeyFilter = filepath.Join(dir, "keys")
		o.KeyFilterBits = minKeyFilterBits
		f, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(text)})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keys")); err != nil {
		t.Fatalf("no filter file: %v", err)
	}
	f = open()
	defer f.Close()
	if d := mustAdd(t, f, Doc{ID: "b", Features: a.Analyze(text)}); !d.Duplicate || d.Of != "a" {
		t.Errorf("after reopening: %+v, want a duplicate of a", d)
	}
}

// TestKeyFilterGrows: a filter that fills up is rebuilt larger from the
// store's keys, in its file, and reopens at that size.
func TestKeyFilterGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	db := memDB(t)
	kf, err := openKeyFilter(path, minKeyFilterBits+2, db)
	if err != nil {
		t.Fatal(err)
	}
	if kf.logBits != minKeyFilterBits {
		t.Fatalf("new filter: 2^%d bits, want 2^%d", kf.logBits, minKeyFilterBits)
	}
	// Enough keys for a key per growAtBits bits, and some.
	n := (1 << minKeyFilterBits) / growAtBits * 11 / 10
	wb := db.NewWriteBatch()
	for i := range n {
		k := testKey(i)
		if err := wb.Set(k, []byte{postingsOpen}); err != nil {
			t.Fatal(err)
		}
		kf.add(k)
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	kf.growIfFull(db)
	if want := kf.sizeFor(uint64(n)); kf.logBits != want || want <= minKeyFilterBits {
		t.Fatalf("after %d keys: 2^%d bits, want 2^%d", n, kf.logBits, want)
	}
	if err := kf.close(true); err != nil {
		t.Fatal(err)
	}
	kf, err = openKeyFilter(path, minKeyFilterBits+2, db)
	if err != nil {
		t.Fatal(err)
	}
	defer kf.close(false)
	if kf.logBits <= minKeyFilterBits || kf.keys < uint64(n)*9/10 {
		t.Errorf("reopened: 2^%d bits, %d keys; want the grown size and about %d keys", kf.logBits, kf.keys, n)
	}
	for i := range n {
		if !kf.mayHave(testKey(i)) {
			t.Fatalf("key %d of the store is missing after growing", i)
		}
	}
	if _, err := os.Stat(path + ".new"); !os.IsNotExist(err) {
		t.Errorf("the rebuilt file was left beside the filter: %v", err)
	}
}

func BenchmarkKeyFilter(b *testing.B) {
	kf, err := openKeyFilter("", 29, memDB(b))
	if err != nil {
		b.Fatal(err)
	}
	defer kf.close(false)
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = testKey(i)
		kf.add(keys[i])
	}
	i := 0
	for b.Loop() {
		kf.mayHave(keys[i%len(keys)])
		i++
	}
}

// TestKeyFilterShortFile: an empty or truncated file, as a crash may
// leave, is rebuilt from the store rather than failing the open.
func TestKeyFilterShortFile(t *testing.T) {
	db := memDB(t)
	stored := testKey(3)
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(stored, []byte{postingsOpen}) }); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{0, 100, keyFilterHeader, keyFilterHeader + 1000} {
		path := filepath.Join(t.TempDir(), "keys")
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		kf, err := openKeyFilter(path, minKeyFilterBits, db)
		if err != nil {
			t.Errorf("file of %d bytes: %v", size, err)
			continue
		}
		if !kf.mayHave(stored) {
			t.Errorf("file of %d bytes: a key of the store is missing", size)
		}
		kf.close(false)
	}
}

// FuzzKeyFilterFile opens whatever a crash or a stray write left in the
// filter's file: the open never fails on its content, and every key of
// the store is then found.
func FuzzKeyFilterFile(f *testing.F) {
	good := filepath.Join(f.TempDir(), "keys")
	kf, err := openKeyFilter(good, minKeyFilterBits, memDB(f))
	if err != nil {
		f.Fatal(err)
	}
	if err := kf.close(true); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:keyFilterHeader])
	f.Add([]byte{})
	f.Add([]byte(keyFilterMagic))
	db := memDB(f)
	stored := testKey(7)
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(stored, []byte{postingsOpen}) }); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, header []byte) {
		path := filepath.Join(t.TempDir(), "keys")
		// The header as fuzzed, then an array of the size it may name.
		content := append(header, make([]byte, max(0, keyFilterHeader-len(header))+1<<(minKeyFilterBits-3))...)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		kf, err := openKeyFilter(path, minKeyFilterBits, db)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer kf.close(false)
		if bytes.HasPrefix(header, []byte(keyFilterMagic)) && len(header) > offClean && header[offClean] == 1 && int(header[offLogBits]) == minKeyFilterBits {
			return // a file that says it was closed cleanly is trusted as it is
		}
		if !kf.mayHave(stored) {
			t.Error("a key of the store is missing from a rebuilt filter")
		}
	})
}
