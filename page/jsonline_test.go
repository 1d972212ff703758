package page

import (
	"encoding/json"
	"reflect"
	"testing"
)

// jsonLines are lines of the usual shape, which decodeRecord decodes
// itself, and lines it leaves to json.Unmarshal.
var jsonLines = []struct {
	line string
	own  bool // decoded without json.Unmarshal
}{
	{`{"id":"a","url":"https://x/","title":"T","html":"<p>x</p>"}`, true},
	{` { "id" : "a" , "text" : "x\n\"y\"\\\/\b\f\r\t" } `, true},
	{`{"id":"a","text":"\u00e9\u4e2d\ud83d\ude00 é"}`, true},
	{`{"id":"a","text":"\ud83d","html":"\ud83dx\udc00\ud83d\u0041"}`, true},
	{"{\"id\":\"a\",\"text\":\"\xff\xe4\xb8\"}", true},
	{`{"id":"a","status":200,"size":-1.5e+3,"ok":true,"gone":false,"meta":null,"text":"x"}`, true},
	{`{"id":"a","text":"x","text":null,"html":"y","url":"u","url":null}`, true},
	{`{"id":"a","text":"x","\u0069d":"b"}`, true},
	{`{}`, true},
	{`{"ID":"a","text":"x"}`, false},
	{`{"id":"a","Text":"x"}`, false},
	{`{"id":"a","text":"x","meta":{"k":[1,2]}}`, false},
	{`{"id":1,"text":"x"}`, false},
	{`{"id":"a","text":"x"} x`, false},
	{`{"id":"a","text":"x",}`, false},
	{`{"id":"a","text":"x\'"}`, false},
	{"{\"id\":\"a\",\"text\":\"x\ty\"}", false},
	{`{"id":"a","n":01}`, false},
	{`{"id":"a","n":1.}`, false},
	{`{"id":"a","text":"\u12"}`, false},
	{`{"id":"a","text":"x`, false},
	{`["id"]`, false},
}

func TestDecodeRecord(t *testing.T) {
	for _, tc := range jsonLines {
		var want record
		wantErr := json.Unmarshal([]byte(tc.line), &want)
		var got record
		var buf []byte
		err := decodeRecord([]byte(tc.line), &got, &buf)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeRecord(%q) = %s, %v; json.Unmarshal: %s, %v", tc.line, show(got), err, show(want), wantErr)
		}
		d := lineDecoder{s: []byte(tc.line)}
		if own := d.object(new(record)); own != tc.own {
			t.Errorf("decodeRecord(%q) decodes it itself: %v, want %v", tc.line, own, tc.own)
		}
	}
}

// FuzzDecodeRecord requires the result and the error of json.Unmarshal.
func FuzzDecodeRecord(f *testing.F) {
	for _, tc := range jsonLines {
		f.Add([]byte(tc.line))
	}
	var buf []byte
	f.Fuzz(func(t *testing.T, line []byte) {
		var want record
		wantErr := json.Unmarshal(line, &want)
		var got record
		err := decodeRecord(line, &got, &buf)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeRecord(%q) = %s, %v; json.Unmarshal: %s, %v", line, show(got), err, show(want), wantErr)
		}
	})
}

func show(r record) string {
	b, _ := json.Marshal(r)
	return string(b)
}
