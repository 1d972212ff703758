package indexer_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
)

// TestReadOnly opens an index read-only after its writer closed it:
// reads work, writes fail with ErrReadOnly.
func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	w := testindex.Pages(t, dir, dedupfilter.Mark)
	want := clusters(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	o := indexer.Options{}
	o.ReadOnly = true
	ix, err := indexer.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := clusters(t, ix); got != want {
		t.Errorf("read-only clusters\n%s\nwant\n%s", got, want)
	}
	if n, err := ix.Unwrap().DocCount(); err != nil || n == 0 {
		t.Errorf("read-only bleve: %d documents, %v", n, err)
	}
	if err := ix.Index("x", indexer.Document{Paragraphs: []string{"text"}}); !errors.Is(err, indexer.ErrReadOnly) {
		t.Errorf("Index on a read-only index: %v, want ErrReadOnly", err)
	}
	if err := ix.Delete("x"); !errors.Is(err, indexer.ErrReadOnly) {
		t.Errorf("Delete on a read-only index: %v, want ErrReadOnly", err)
	}
}

// TestLocked: an index another process holds is refused with ErrLocked
// and the holder's pid, not Badger's lock message.
func TestLocked(t *testing.T) {
	dir := t.TempDir()
	ix := testindex.Pages(t, dir, dedupfilter.Mark)
	defer ix.Close()
	_, err := indexer.Open(dir, indexer.Options{})
	if !errors.Is(err, indexer.ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	if want := "process " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
}

// TestReadOnlyFileSystem opens an index through a read-only bind mount
// (in a mount namespace of its own; skipped where that is not allowed).
func TestReadOnlyFileSystem(t *testing.T) {
	if os.Getenv("INDEXER_RO_DIR") != "" {
		o := indexer.Options{}
		o.ReadOnly = true
		ix, err := indexer.Open(os.Getenv("INDEXER_RO_DIR"), o)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if n, err := ix.Unwrap().DocCount(); err != nil || n == 0 {
			t.Fatalf("%d documents, %v", n, err)
		}
		return
	}
	if _, err := exec.LookPath("unshare"); err != nil || os.Getuid() != 0 {
		t.Skip("needs root and unshare for a read-only bind mount")
	}
	probe := t.TempDir()
	if out, err := exec.Command("unshare", "-m", "mount", "--bind", probe, probe).CombinedOutput(); err != nil {
		t.Skipf("no mount namespace here: %v %s", err, out)
	}
	src, ro := t.TempDir(), t.TempDir()
	testindex.Pages(t, filepath.Join(src, "ix"), dedupfilter.Mark).Close()
	script := `mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && INDEXER_RO_DIR="$2/ix" "$3" -test.run '^TestReadOnlyFileSystem$'`
	out, err := exec.Command("unshare", "-m", "sh", "-c", script, "sh", src, ro, os.Args[0]).CombinedOutput()
	if err != nil {
		t.Fatalf("read-only mount: %v\n%s", err, out)
	}
}
