package embedded

import (
	"errors"
	"math"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// TestRoomChecked: a check that found far more than MinFree free spares
// the next commits the file system's answer for a while, and a check
// near the limit spares none.
func TestRoomChecked(t *testing.T) {
	l, err := OpenLocal(DefaultOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	free, err := freeBytes(l.path)
	if err != nil {
		t.Skipf("free space unknown here: %v", err)
	}
	if free < 2*roomSlack {
		t.Skipf("%d MiB free: too little to tell a spared check", free>>20)
	}
	l.minFree = 1
	if err := l.room(); err != nil {
		t.Fatalf("room with MinFree 1: %v", err)
	}
	l.minFree = math.MaxInt64 // a full disk from here on
	if err := l.room(); err != nil {
		t.Errorf("room right after a roomy check: %v, want nil (spared)", err)
	}
	l.roomUntil.Store(0) // the spared while is over
	for range 2 {
		if err := l.room(); !errors.Is(err, store.ErrDiskFull) {
			t.Errorf("room on a full disk: %v, want store.ErrDiskFull", err)
		}
	}
}
