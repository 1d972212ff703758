package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtractCmd(t *testing.T) {
	// A GBK page without a charset declaration: the reader must sniff it.
	out, err := runCmd(t, "extract", "--format", "jsonl", filepath.Join(pagesDir, "zh", "forum", "greenway-repost.html"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID, Title, Text string
		Charset         string `json:"charset"`
		CharsetSource   string `json:"charset_source"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if got.ID != "greenway-repost" || !strings.Contains(got.Text, "绿道") || strings.ContainsRune(got.Text, '\uFFFD') ||
		got.Charset != "gb18030" || got.CharsetSource != "sniffed" {
		t.Errorf("extract = %+v, want id greenway-repost and clean Chinese text about the greenway", got)
	}
	if _, err := runCmd(t, "extract", "--format", "xml", pagesDir); err == nil {
		t.Error("--format xml: no error")
	}
}
