package component

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		config  map[string]interface{}
		want    int
		wantErr bool
	}{
		{"absent", map[string]interface{}{}, 7, false},
		{"json number", map[string]interface{}{"k": 3.0}, 3, false},
		{"go int", map[string]interface{}{"k": 5}, 5, false},
		{"fraction", map[string]interface{}{"k": 2.5}, 0, true},
		{"huge", map[string]interface{}{"k": 1e20}, 0, true},
		{"string", map[string]interface{}{"k": "3"}, 0, true},
	} {
		got, err := Int(tc.config, "k", 7)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: Int = %d, %v; want %d, error %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		name    string
		config  map[string]interface{}
		want    string
		wantErr bool
	}{
		{"absent", map[string]interface{}{}, "def", false},
		{"present", map[string]interface{}{"k": "。"}, "。", false},
		{"empty", map[string]interface{}{"k": ""}, "", false},
		{"number", map[string]interface{}{"k": 1.0}, "", true},
	} {
		got, err := String(tc.config, "k", "def")
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: String = %q, %v; want %q, error %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestStream(t *testing.T) {
	ts := Stream([][]byte{[]byte("a"), []byte("b")}, 10, analysis.Ideographic)
	if len(ts) != 2 {
		t.Fatalf("len = %d, want 2", len(ts))
	}
	for i, tok := range ts {
		if tok.Position != i+1 || tok.Start != 0 || tok.End != 10 || tok.Type != analysis.Ideographic {
			t.Errorf("token %d = %+v, want position %d spanning 0..10", i, tok, i+1)
		}
	}
	if got := string(ts[1].Term); got != "b" {
		t.Errorf("token 1 term = %q, want %q", got, "b")
	}
}
