package docbody

import (
	"errors"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
)

func TestCapture(t *testing.T) {
	c, err := NewCapture(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := c.NewBatch()
	for _, id := range []string{"c", "a", "b"} {
		if err := b.Index(id, map[string]any{"id": id}); err != nil {
			t.Fatal(err)
		}
	}
	b.Delete("gone")
	b.SetInternal([]byte("k"), []byte("v"))
	got, err := c.Take(b)
	if err != nil {
		t.Fatal(err)
	}
	seq := map[string]uint64{}
	for _, id := range []string{"a", "b", "c"} {
		doc, ok := got.IndexOps[id].(*document.Document)
		if !ok {
			t.Fatalf("IndexOps[%s] = %T, want a *document.Document", id, got.IndexOps[id])
		}
		data, n, ok := c.Recall(doc)
		if !ok {
			t.Fatalf("Recall(%s): nothing", id)
		}
		if m, _ := data.(map[string]any); m["id"] != id {
			t.Errorf("Recall(%s) = %v, want its data", id, data)
		}
		if _, _, again := c.Recall(doc); again {
			t.Errorf("Recall(%s) a second time: got data, want none", id)
		}
		seq[id] = n
	}
	if !(seq["c"] < seq["a"] && seq["a"] < seq["b"]) {
		t.Errorf("seqs %v, want them in the order added: c, a, b", seq)
	}
	if d, ok := got.IndexOps["gone"]; !ok || d != nil {
		t.Errorf("IndexOps[gone] = %v, %v: want a delete (nil)", d, ok)
	}
	if v := got.InternalOps["k"]; string(v) != "v" {
		t.Errorf("InternalOps[k] = %q, want v", v)
	}
	if _, _, ok := c.Recall(document.NewDocument("other")); ok {
		t.Error("Recall of a document of no batch: got data, want none")
	}
}

func TestCaptureHoldsNothing(t *testing.T) {
	c, err := NewCapture(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.scratch.Index("x", map[string]any{}); !errors.Is(err, errScratch) {
		t.Errorf("Index on the scratch index: %v, want errScratch", err)
	}
	if _, err := c.scratch.DocCount(); err == nil {
		t.Error("DocCount on the scratch index: no error, want one")
	}
}
