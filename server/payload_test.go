package server

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPayloadText(t *testing.T) {
	tests := []struct {
		payload string
		max     int
		want    string
		err     bool
	}{
		{`{"text":"a\nb \"c\" \\ \/ \u00e9\ud83d\ude00 图书馆","title":"t"}`, 100, "a\nb \"c\" \\ / é😀 图书馆", false},
		{`{"a":{"text":"no"},"b":[1,"x"], "text" : "yes"}`, 100, "yes", false},
		{`{"title":"t"}`, 100, "", false},
		{`{"text":"图书馆开放"}`, 7, "图书", false}, // cut at a character boundary
		{`{"text":"abcdef"}`, 3, "abc", false},
		{`{"text":"\ud800x"}`, 100, "\uFFFDx", false}, // a lone surrogate
		{`{"text":1}`, 100, "", true},
		{`{"text":"abc`, 100, "", true},
		{`["text"]`, 100, "", true},
		{`{"text":"\q"}`, 100, "", true},
	}
	for _, tt := range tests {
		got, err := payloadText([]byte(tt.payload), tt.max)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("payloadText(%s, %d) = %q, %v; want %q, error %v", tt.payload, tt.max, got, err, tt.want, tt.err)
		}
	}
}

// FuzzPayloadText checks payloadText against encoding/json on payloads
// json.Marshal writes.
func FuzzPayloadText(f *testing.F) {
	f.Add("图书馆\n\"quoted\" \\ </script> \u2028 😀", "title", 40)
	f.Add("", "", 0)
	f.Fuzz(func(t *testing.T, text, title string, max int) {
		if max < 0 {
			max = -max
		}
		payload, err := json.Marshal(map[string]any{"text": text, "title": title, "url": "http://x/"})
		if err != nil {
			t.Skip()
		}
		var want struct{ Text string }
		json.Unmarshal(payload, &want)
		if len(want.Text) > max {
			want.Text = strings.ToValidUTF8(want.Text[:max], "")
		}
		got, err := payloadText(payload, max)
		if err != nil || got != want.Text || !utf8.ValidString(got) {
			t.Errorf("payloadText(%s, %d) = %q, %v; want %q", payload, max, got, err, want.Text)
		}
	})
}
