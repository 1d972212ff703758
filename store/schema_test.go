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

func TestPartName(t *testing.T) {
	for _, tt := range []struct{ key, want string }{
		{"d/doc", PartRecords},
		{"y/doc", PartPayloads},
		{"t/site/para", PartSites},
		{"t!stale/doc", PartSites},
		{"u/example.org/", PartURLs},
		{"!/seq", PartCounters},
		{"zz", PartOther},
		{"q/x", PartOther},
	} {
		if got := PartName([]byte(tt.key)); got != tt.want {
			t.Errorf("PartName(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
