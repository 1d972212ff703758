package embedded

import (
	"errors"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// TestSignatureKeysLayout: a store opened with SignatureKeys keeps records
// that list only their other keys, rebuilds its posting table through it
// after a crash, and refuses to open without it; a store written without
// it opens either way, and takes the new layout when opened for writing
// with it.
func TestSignatureKeysLayout(t *testing.T) {
	open := func(t *testing.T, dir string, sigKeys func([]byte) ([][]byte, error)) (*Store, error) {
		t.Helper()
		o := DefaultOptions(dir)
		o.PostingTable = dir + "/postings"
		o.SignatureKeys = sigKeys
		return Open(o)
	}
	add := func(t *testing.T, s *Store, id string, seq uint64, key []byte) {
		t.Helper()
		tx := s.Begin()
		defer tx.Discard()
		err := errors.Join(
			tx.PutSignature(seq, key),
			tx.PutRecord(id, &store.Record{Seq: seq, Cluster: id}),
			tx.PutPostings(key, store.PostingList{Seqs: []uint64{seq}}, []uint64{seq}, nil),
			tx.Commit())
		if err != nil {
			t.Fatal(err)
		}
	}
	postings := func(t *testing.T, s *Store, key []byte) []uint64 {
		t.Helper()
		var got []uint64
		err := s.Read(func(tx store.Txn) error {
			ls, err := tx.Postings([][]byte{key})
			if err == nil {
				got = ls[0].Seqs
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	key1, key2 := store.PostingKey('b', 1), store.PostingKey('b', 2)

	t.Run("derived", func(t *testing.T) {
		dir := t.TempDir()
		s, err := open(t, dir, sigAsKey)
		if err != nil {
			t.Fatal(err)
		}
		if !s.DerivesKeys() {
			t.Error("DerivesKeys = false with SignatureKeys set")
		}
		add(t, s, "a", 1, key1)
		// No Close: the table is left as a crash leaves it, and is rebuilt.
		if err := s.Local().Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := open(t, dir, nil); !errors.Is(err, ErrInvalidOptions) {
			t.Fatalf("opened without SignatureKeys: %v, want ErrInvalidOptions", err)
		}
		s, err = open(t, dir, sigAsKey)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := postings(t, s, key1); !slices.Equal(got, []uint64{1}) {
			t.Errorf("list rebuilt from the signature: %v, want [1]", got)
		}
	})

	t.Run("listed, then derived", func(t *testing.T) {
		dir := t.TempDir()
		s, err := open(t, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.DerivesKeys() {
			t.Error("DerivesKeys = true without SignatureKeys")
		}
		add(t, s, "a", 1, key1)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = open(t, dir, sigAsKey); err != nil {
			t.Fatalf("a store that lists every key, opened with SignatureKeys: %v", err)
		}
		add(t, s, "b", 2, key2)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := open(t, dir, nil); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("opened without SignatureKeys once it derives keys: %v, want ErrInvalidOptions", err)
		}
	})
}
