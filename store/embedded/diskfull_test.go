package embedded_test

import (
	"errors"
	"math"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

// TestDiskFull: with less free space than MinFree under the store, every
// kind of write fails with store.ErrDiskFull and leaves nothing written
// (the check stands in for a full disk: a test cannot fill one).
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	o := embedded.DefaultOptions(dir)
	o.MinFree = math.MaxInt64
	s, err := embedded.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key, value := []byte(store.NSSite+"k"), []byte("v")
	writes := []struct {
		name  string
		write func() error
	}{
		{"Local.Update", func() error {
			return s.Local().Update(func(kv store.KV) error { return kv.Set(key, value) })
		}},
		{"Local.Begin(true).Commit", func() error {
			tx := s.Local().Begin(true)
			defer tx.Discard()
			if err := tx.Set(key, value); err != nil {
				return err
			}
			return tx.Commit()
		}},
		{"Store.Begin().Commit", func() error {
			tx := s.Begin()
			defer tx.Discard()
			if err := tx.PutRecord("d", &store.Record{Seq: 1, Cluster: "c"}); err != nil {
				return err
			}
			return tx.Commit()
		}},
	}
	for _, w := range writes {
		if err := w.write(); !errors.Is(err, store.ErrDiskFull) {
			t.Errorf("%s: %v, want store.ErrDiskFull", w.name, err)
		}
	}
	err = s.Local().View(func(kv store.KV) error {
		_, err := kv.Get(key)
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the refused writes, the key: %v, want store.ErrNotFound", err)
	}
	err = s.Read(func(tx store.Txn) error {
		_, err := tx.Record("d", false)
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the refused writes, the record: %v, want store.ErrNotFound", err)
	}
}
