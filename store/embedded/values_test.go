package embedded

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// TestLargeValues: values over the value log's threshold, up to what a
// page's payload can be, are kept and read back, on disk (in the value
// log) and in memory (where Badger has no value log and refuses a value
// over the threshold).
func TestLargeValues(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  string
	}{{"disk", t.TempDir()}, {"memory", ""}} {
		t.Run(c.name, func(t *testing.T) {
			l, err := OpenLocal(DefaultOptions(c.dir))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			r := rand.New(rand.NewPCG(1, 2))
			for _, n := range []int{100, 600, 5000, 200 << 10} {
				key := []byte(store.NSSite + "large-" + string(rune('a'+n%26)))
				val := make([]byte, n)
				for i := range val {
					val[i] = byte(r.Uint32())
				}
				if err := l.Update(func(kv store.KV) error { return kv.Set(key, val) }); err != nil {
					t.Fatalf("set %d bytes: %v", n, err)
				}
				var got []byte
				if err := l.View(func(kv store.KV) error {
					got, err = kv.Get(key)
					return err
				}); err != nil {
					t.Fatalf("get %d bytes: %v", n, err)
				}
				if !bytes.Equal(got, val) {
					t.Errorf("%d bytes: read back %d bytes, not the value written", n, len(got))
				}
			}
		})
	}
}
