package badgeropen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// TestOpenEmptyLogs: a store with the empty memtable or value-log file of
// a process killed while creating it opens, with its data.
func TestOpenEmptyLogs(t *testing.T) {
	for _, name := range []string{"00009.mem", "000009.vlog"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			opts := badger.DefaultOptions(dir).WithLogger(nil)
			db, err := Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("k"), []byte("v")) }); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			db, err = Open(opts)
			if err != nil {
				t.Fatalf("Open with an empty %s: %v", name, err)
			}
			defer db.Close()
			err = db.View(func(txn *badger.Txn) error {
				_, err := txn.Get([]byte("k"))
				return err
			})
			if err != nil {
				t.Errorf("reading the data back: %v", err)
			}
		})
	}
}

// TestHeld: a store another handle has open is held, and named by the
// pid Badger wrote; a closed or missing one is not.
func TestHeld(t *testing.T) {
	dir := t.TempDir()
	if _, held := Held(filepath.Join(dir, "missing")); held {
		t.Error("a missing directory is held")
	}
	db, err := Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	holder, held := Held(dir)
	if want := fmt.Sprintf("process %d", os.Getpid()); !held || holder != want {
		t.Errorf("Held of an open store = %q, %v; want %q, true", holder, held, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, held := Held(dir); held {
		t.Error("a closed store is held")
	}
}
