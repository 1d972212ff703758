package store

import (
	"errors"
	"testing"
)

func TestClusterID(t *testing.T) {
	for _, n := range []uint64{0, 1, 255, 1<<64 - 1} {
		id := ClusterID(n)
		got, err := ParseClusterID(id)
		if err != nil || got != n || len(id) != clusterIDLen {
			t.Errorf("ClusterID(%d) = %q, parsed %d, %v", n, id, got, err)
		}
	}
	for _, bad := range []string{"", "1", "000000000000000A", "00000000000000xx", "00000000000000001"} {
		if _, err := ParseClusterID(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseClusterID(%q): err = %v, want ErrCorrupt", bad, err)
		}
	}
}
