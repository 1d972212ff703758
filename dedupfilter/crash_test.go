//go:build unix

package dedupfilter

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

// crashDirEnv makes the test binary act as the child of TestKillRecovery.
const crashDirEnv = "DEDUPFILTER_CRASH_DIR"

// TestKillRecovery adds documents in a child process that is killed with
// SIGKILL before Close, then checks the parent sees every committed Add,
// the unconfirmed ops as pending, and the posting lists (the table, left
// open, is rebuilt from the store).
func TestKillRecovery(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillRecovery$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
	}
	f, err := openCrash(dir)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer f.Close()
	s, err := f.backend.Stats()
	if err != nil || s.Docs != 3 {
		t.Fatalf("Stats = %+v, %v; want the 3 committed docs", s, err)
	}
	var pending []string
	err = f.pendingOps(func(op Op) error {
		// Pending marks hold no payload; it is read back from the document.
		pending = append(pending, op.Kind.String()+" "+op.ID+" "+string(op.Payload))
		return nil
	})
	if want := []string{"index b b", "index c c"}; err != nil || !slices.Equal(pending, want) {
		t.Errorf("pendingOps = %v, %v; want %v (a was confirmed)", pending, err, want)
	}
	p, err := f.prepare(Doc{ID: "d", Features: testAnalyzer(t).Analyze(newCorpus(13).article(5))})
	if err != nil {
		t.Fatal(err)
	}
	// b and c are copies of a: the cluster's representative is its
	// candidate, as without a crash.
	if cands, err := f.candidates(p); err != nil || !slices.Equal(cands, []string{"a"}) {
		t.Errorf("candidates of a copy = %v, %v; want [a]", cands, err)
	}
}

// openCrash opens the store in dir with the posting table in a file, as
// the indexer does.
func openCrash(dir string) (*Filter, error) {
	return openEmbedded(dir, DefaultOptions(), func(o *embedded.Options) { o.PostingTable = dir + ".postings" })
}

func crashChild(t *testing.T, dir string) {
	f, err := openCrash(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, an := newCorpus(13), testAnalyzer(t)
	for _, id := range []string{"a", "b", "c"} {
		d := mustAdd(t, f, Doc{ID: id, Features: an.Analyze(c.article(5)), Payload: []byte(id)})
		if id == "a" {
			if err := f.Applied(d.Ops...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {} // the signal ends the process
}
