package dedupfilter

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestJournal: payloads appended are read back (the latest of a document
// winning), survive a reopen until confirmed, and a record cut short at
// the end, as by a crash in its write, is left out with nothing after it.
func TestJournal(t *testing.T) {
	dir := t.TempDir()
	j, err := openJournal(dir, false, false)
	if err != nil {
		t.Fatal(err)
	}
	appendOps := func(seq uint64, ids ...string) {
		t.Helper()
		var ops []Op
		for _, id := range ids {
			ops = append(ops, Op{Kind: OpIndex, ID: id, Payload: []byte(id + string(rune('0'+seq)))})
		}
		if err := j.append(seq, ops); err != nil {
			t.Fatal(err)
		}
	}
	appendOps(1, "a", "b")
	appendOps(2, "b", "c")
	check := func(j *journal, want map[string]string) {
		t.Helper()
		for _, id := range []string{"a", "b", "c"} {
			p, ok, err := j.payload(id)
			if w, in := want[id]; err != nil || ok != in || string(p) != w {
				t.Errorf("payload(%s) = %q, %v, %v; want %q, %v", id, p, ok, err, w, in)
			}
		}
	}
	check(j, map[string]string{"a": "a1", "b": "b2", "c": "c2"})
	if err := j.confirm([]uint64{1}); err != nil {
		t.Fatal(err)
	}
	check(j, map[string]string{"b": "b2", "c": "c2"})
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	// A record cut short after the file's last.
	files, _ := filepath.Glob(filepath.Join(dir, "*"+journalExt))
	if len(files) != 1 {
		t.Fatalf("journal files %v, want 1", files)
	}
	rec, _ := encodeJournal(3, []Op{{ID: "a", Payload: []byte("a3")}})
	f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(rec[:len(rec)-1]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	j, err = openJournal(dir, false, false)
	if err != nil {
		t.Fatal(err)
	}
	// Confirmation is in memory: seq 1 is read again, and b's latest
	// stays seq 2's.
	check(j, map[string]string{"a": "a1", "b": "b2", "c": "c2"})
	if err := j.confirmAll(); err != nil {
		t.Fatal(err)
	}
	check(j, nil)
	appendOps(4, "c")
	check(j, map[string]string{"c": "c4"})
	if err := j.confirm([]uint64{4}); err != nil {
		t.Fatal(err)
	}
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	files, _ = filepath.Glob(filepath.Join(dir, "*"+journalExt))
	for _, name := range files {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	if !slices.Equal(sizes, []int64{0}) {
		t.Errorf("journal files %v of sizes %v once everything is confirmed; want one, empty", files, sizes)
	}
}

// FuzzJournal reads arbitrary bytes as a journal file: an error or the
// records before the first that does not check, never a panic.
func FuzzJournal(f *testing.F) {
	rec, _ := encodeJournal(7, []Op{{ID: "a", Payload: []byte(`{"x":1}`)}, {ID: "b", Payload: []byte("y")}})
	f.Add(rec)
	f.Add([]byte{})
	f.Add([]byte{4, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "0000000000000000"+journalExt), b, 0o644); err != nil {
			t.Fatal(err)
		}
		j, err := openJournal(dir, false, true)
		if err != nil {
			return
		}
		for id := range j.byID {
			if _, ok, err := j.payload(id); !ok || err != nil {
				t.Errorf("%q listed, not read: %v", id, err)
			}
		}
	})
}

// TestJournalRotates: past journalFileBytes a new file is started, and a
// file goes once all its mutations are confirmed, its payloads readable
// until then.
func TestJournalRotates(t *testing.T) {
	dir := t.TempDir()
	j, err := openJournal(dir, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	big := make([]byte, 1<<20)
	n := journalFileBytes/len(big) + 4
	for seq := 1; seq <= n; seq++ {
		big[0] = byte(seq)
		if err := j.append(uint64(seq), []Op{{ID: fmt.Sprint("d", seq), Payload: big}}); err != nil {
			t.Fatal(err)
		}
	}
	files := func() int {
		names, _ := filepath.Glob(filepath.Join(dir, "*"+journalExt))
		return len(names)
	}
	if got := files(); got != 2 {
		t.Fatalf("%d files after %d MiB, want 2", got, n)
	}
	if p, ok, err := j.payload("d1"); err != nil || !ok || p[0] != 1 || len(p) != len(big) {
		t.Errorf("payload of d1 in the first file: %d bytes, %v, %v", len(p), ok, err)
	}
	var seqs []uint64
	for seq := 1; seq < n; seq++ {
		seqs = append(seqs, uint64(seq))
	}
	if err := j.confirm(seqs); err != nil {
		t.Fatal(err)
	}
	if got := files(); got != 1 {
		t.Errorf("%d files once the first file's mutations are confirmed, want 1", got)
	}
	if p, ok, err := j.payload(fmt.Sprint("d", n)); err != nil || !ok || p[0] != byte(n) {
		t.Errorf("payload of the last: %v, %v", ok, err)
	}
}
