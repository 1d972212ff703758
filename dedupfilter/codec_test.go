package dedupfilter

import (
	"errors"
	"reflect"
	"testing"
)

func TestPendingRoundTrip(t *testing.T) {
	want := []Op{{Kind: OpIndex, ID: "a", Cluster: "c", Seq: 7}, {Kind: OpDelete, ID: "b", Seq: 7}}
	got, err := decodePending(7, encodePending(want))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}

func TestDecodePendingCorrupt(t *testing.T) {
	for _, b := range [][]byte{nil, {9}, {pendingV3, 1, 9, 0, 0}, {pendingV3, 2}} {
		if _, err := decodePending(1, b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodePending(%v): err = %v, want ErrCorrupt", b, err)
		}
	}
}

func FuzzDecodePending(f *testing.F) {
	f.Add(encodePending([]Op{{Kind: OpIndex, ID: "a", Cluster: "c"}, {Kind: OpDelete, ID: "b"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := decodePending(300, b)
		if err != nil {
			return
		}
		if again, err := decodePending(300, encodePending(ops)); err != nil || !reflect.DeepEqual(again, ops) {
			t.Errorf("re-encoding %+v: got %+v, %v", ops, again, err)
		}
	})
}
