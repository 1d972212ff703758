package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
)

// crawlDocs are the pages of a small synthetic web: fish and others.
func crawlDocs() []testweb.Doc {
	var docs []testweb.Doc
	for _, n := range []string{"salmon", "trout", "carp", "cod"} {
		docs = append(docs, testweb.Doc{ID: n, Title: n + " fish", Body: "The " + n + " is a fish with fins.\nA " + n + " fish swims.", Topic: "fish", Lang: "en"})
	}
	for _, n := range []string{"opera", "tennis", "bridges", "tea", "poetry"} {
		docs = append(docs, testweb.Doc{ID: n, Title: n, Body: n + " is the subject here.\nNothing about water animals.", Lang: "en"})
	}
	return docs
}

// crawlWeb serves a small synthetic web on loopback.
func crawlWeb(tb testing.TB) string {
	tb.Helper()
	srv := httptest.NewServer(testweb.Build(crawlDocs(), testweb.Options{Seed: 1, OutLinks: 4, Duplicates: 2}).Handler())
	tb.Cleanup(srv.Close)
	return srv.URL
}

func writeConfig(tb testing.TB, body string) string {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "crawl.yaml")
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
	return name
}

func TestCrawlCmd(t *testing.T) {
	base := crawlWeb(t)
	cfg := writeConfig(t, `seeds: [`+base+`/]
topic:
  name: fish
  keywords: {fish: 1, fins: 0.5, swims: 0.5}
delay: 0s
workers: 2
max_pages: 6
weights_file: weights.json
`)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "crawl.jsonl")
	out, err := runCmd(t, "crawl", "--config", cfg, "--index", dir, "--log", logFile)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	if !strings.Contains(out, "fetched 6,") || !strings.Contains(out, "harvest rate") {
		t.Errorf("summary %q, want 6 pages fetched and a harvest rate", out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), "weights.json")); err != nil {
		t.Errorf("learnt weights not written: %v", err)
	}

	// A second run resumes: the budget is cumulative, so raising it fetches more.
	cfg2 := strings.Replace(mustRead(t, cfg), "max_pages: 6", "max_pages: 9", 1)
	if err := os.WriteFile(cfg, []byte(cfg2), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runCmd(t, "crawl", "--config", cfg, "--index", dir, "--log", logFile)
	if err != nil || !strings.Contains(out, "fetched 9,") {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}

	f, err := os.Open(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line %d: %v", lines+1, err)
		}
		for _, k := range []string{"url", "status", "depth", "link_value", "relevance", "relevant"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("log line %d lacks %q: %s", lines+1, k, sc.Text())
			}
		}
		u := rec["url"].(string)
		if seen[u] {
			t.Errorf("%s logged twice: the resumed crawl fetched it again", u)
		}
		seen[u] = true
	}
	if lines != 9 {
		t.Errorf("log has %d lines, want 9", lines)
	}
}

func mustRead(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestCrawlCmdConfigErrors(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"unknown field", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nmax_pagez: 3\n", "max_pagez"},
		{"no topic", "seeds: [http://x/]\n", "topic"},
		{"both topics", "seeds: [http://x/]\ntopic: {profile: p.json, keywords: {a: 1}}\n", "not both"},
		{"bad strategy", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nstrategy: random\n", "strategy"},
		{"bad weights", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nweights: magic\n", "weights"},
		{"bad duration", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\ndelay: soon\n", "line 3"},
		{"bad option", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nworkers: 0\n", "workers"},
	}
	for _, tt := range tests {
		out, err := runCmd(t, "crawl", "--config", writeConfig(t, tt.config), "--index", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v (output %q), want one mentioning %q", tt.name, err, out, tt.want)
		}
	}
}

// TestCrawlCmdLateServer starts the command a second before its web
// server: it waits for the server and crawls the site; with no server at
// all it says why and exits 1.
func TestCrawlCmdLateServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	web := testweb.Build(crawlDocs(), testweb.Options{Seed: 1, OutLinks: 4, Duplicates: 2})
	srv := &http.Server{Addr: addr, Handler: web.Handler()}
	up := make(chan struct{})
	go func() {
		defer close(up)
		time.Sleep(time.Second)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen: %v", err)
			return
		}
		go srv.Serve(ln)
	}()
	defer func() { <-up; srv.Close() }()
	config := "seeds: [http://" + addr + "/]\ntopic: {name: fish, keywords: {fish: 1, fins: 0.5, swims: 0.5}}\ndelay: 0s\nretry_for: 10s\n"
	out, err := runCmd(t, "crawl", "--config", writeConfig(t, config), "--index", t.TempDir())
	if err != nil || strings.Contains(out, "fetched 0,") || !strings.Contains(out, "errors 0, disallowed 0") {
		t.Errorf("crawl of a late server: %v\n%s", err, out)
	}

	dead := freeAddr(t)
	config = "seeds: [http://" + dead + "/]\ntopic: {name: fish, keywords: {fish: 1}}\nretry_for: 1s\n"
	cfg := writeConfig(t, config)
	if code := run(context.Background(), []string{"crawl", "--config", cfg, "--index", t.TempDir()}, io.Discard, io.Discard); code != 1 {
		t.Errorf("crawl of no server: exit status %d, want 1", code)
	}
	_, err = runCmd(t, "crawl", "--config", cfg, "--index", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no page fetched") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("crawl of no server: error %v, want one naming the refused connection", err)
	}
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
