package docbody

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
)

func TestStrings(t *testing.T) {
	var body map[string]any
	if err := json.Unmarshal([]byte(`{"title":"T","n":3,"ok":true,"none":null,
		"article":{"body":"B","tags":["x",["y","z"],{"k":"v"}]},
		"parts":[{"text":"p1"},{"text":"p2"},{"other":"o"}]}`), &body); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want []string
	}{
		{"title", []string{"T"}},
		{"n", []string{"3"}},
		{"ok", []string{"true"}},
		{"none", nil},
		{"missing", nil},
		{"", nil},
		{"article.body", []string{"B"}},
		{"article.tags", []string{"x", "y", "z"}}, // nested arrays flatten; objects are no strings
		{"article.tags.k", []string{"v"}},
		{"parts.text", []string{"p1", "p2"}}, // an array stands for each element
		{"title.x", nil},
	}
	for _, tt := range tests {
		if got := Strings(body, tt.path); !slices.Equal(got, tt.want) {
			t.Errorf("Strings(%q) = %q, want %q", tt.path, got, tt.want)
		}
		want := ""
		if len(tt.want) > 0 {
			want = tt.want[0]
		}
		if got := First(body, tt.path); got != want {
			t.Errorf("First(%q) = %q, want %q", tt.path, got, want)
		}
	}
}

type typed struct {
	Body string `json:"body"`
}

func (typed) Type() string { return "article" }

func TestOf(t *testing.T) {
	m := bleve.NewIndexMapping() // TypeField "_type"
	tests := []struct {
		name    string
		data    any
		want    string
		wantErr bool
	}{
		{"struct", struct{ Body, HTML string }{"b", "<p>x</p>"}, `{"Body":"b","HTML":"<p>x</p>"}`, false},
		{"map", map[string]any{"a": map[string]any{"b": 1}}, `{"a":{"b":1}}`, false},
		{"classifier", typed{"b"}, `{"_type":"article","body":"b"}`, false},
		{"not an object", []string{"a"}, "", true},
		{"not JSON", func() {}, "", true},
	}
	for _, tt := range tests {
		body, payload, err := Of(tt.data, m)
		if (err != nil) != tt.wantErr {
			t.Fatalf("%s: err %v, want error %v", tt.name, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		if string(payload) != tt.want {
			t.Errorf("%s: payload %s, want %s", tt.name, payload, tt.want)
		}
		var want map[string]any
		json.Unmarshal(payload, &want)
		if !reflect.DeepEqual(body, want) {
			t.Errorf("%s: body %v, want the payload decoded %v", tt.name, body, want)
		}
	}
}

func TestFromFields(t *testing.T) {
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m := bleve.NewIndexMapping()
	m.StoreDynamic = true
	tests := []struct {
		name string
		data map[string]any
		want string
	}{
		{"text and number", map[string]any{"title": "T", "n": 2.5}, `{"n":2.5,"title":"T"}`},
		{"nested", map[string]any{"a": map[string]any{"b": "x", "c": map[string]any{"d": true}}}, `{"a":{"b":"x","c":{"d":true}}}`},
		{"array in order", map[string]any{"tags": []any{"x", "y", "z"}}, `{"tags":["x","y","z"]}`},
		{"array of one", map[string]any{"tags": []any{"x"}}, `{"tags":["x"]}`},
		{"date", map[string]any{"when": when}, `{"when":"2026-03-01T12:00:00Z"}`},
	}
	for _, tt := range tests {
		doc := document.NewDocument("id")
		if err := m.MapDocument(doc, tt.data); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(FromFields(doc))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: FromFields = %s, want %s", tt.name, got, tt.want)
		}
	}
}
