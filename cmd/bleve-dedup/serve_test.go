package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/server"
)

func TestServeCmd(t *testing.T) {
	dir := fixtureIndex(t)
	tests := []struct {
		name string
		stop func(cancel context.CancelFunc) error
	}{
		{"context canceled", func(cancel context.CancelFunc) error { cancel(); return nil }},
		{"SIGTERM", func(context.CancelFunc) error { return syscall.Kill(os.Getpid(), syscall.SIGTERM) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pr, pw := io.Pipe()
			root := newRootCmd()
			root.SetOut(pw)
			// The request log goes to stderr; read once serve has returned.
			var logs bytes.Buffer
			root.SetErr(&logs)
			root.SetArgs([]string{"serve", "--index", dir, "--addr", "127.0.0.1:0"})
			done := make(chan error, 1)
			go func() {
				err := root.ExecuteContext(ctx)
				pw.Close()
				done <- err
			}()
			lines := bufio.NewScanner(pr)
			if !lines.Scan() {
				t.Fatalf("no output: %v", <-done)
			}
			url, ok := strings.CutPrefix(lines.Text(), "serving ")
			if !ok {
				t.Fatalf("first line %q, want serving URL", lines.Text())
			}
			resp, err := http.Get(url + "api/search?q=bees")
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Hits []struct {
					ID     string `json:"id"`
					Folded int    `json:"folded"`
				} `json:"hits"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(body.Hits) == 0 || body.Hits[0].Folded != 2 {
				t.Errorf("search: status %d err %v hits %+v, want the bees story with 2 folded", resp.StatusCode, err, body.Hits)
			}
			if err := tt.stop(cancel); err != nil {
				t.Fatal(err)
			}
			var rest []string
			for lines.Scan() {
				rest = append(rest, lines.Text())
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve returned %v, want nil after a graceful stop", err)
				}
			case <-time.After(2 * server.DefaultOptions().ShutdownTimeout):
				t.Fatal("serve did not stop")
			}
			if !slices.Contains(rest, "stopped") {
				t.Errorf("output after the stop %q, want \"stopped\"", rest)
			}
			var line struct{ ID, Path, Q string }
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil || line.ID == "" || line.Path != "/api/search" || line.Q != "bees" {
				t.Errorf("request log %q (%v), want a JSON line with the search's id, path and query", logs.String(), err)
			}
		})
	}
}

func TestServeCmdErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	tests := []struct {
		name string
		env  string // BLEVE_DEDUP_TOKEN
		args []string
		want string
	}{
		{"no index", "", []string{"serve", "--index", t.TempDir()}, "no index there"},
		{"bad address", "", []string{"serve", "--index", fixtureIndex(t), "--addr", "127.0.0.1:99999"}, "invalid port"},
		{"extra argument", "", []string{"serve", "--index", "x", "y"}, "takes no arguments"},
		{"ingest on the network without a token", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--addr", "0.0.0.0:0"}, "needs a token"},
		{"ingest on all addresses without a token", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--addr", ":0"}, "needs a token"},
		{"ingest behind a proxy without a token", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--allowed-hosts", "search.example.com"}, "needs a token"},
		{"a token without ingest", "0123456789abcdef", []string{"serve", "--index", fixtureIndex(t)}, "guards --ingest only"},
		{"a short token", "short", []string{"serve", "--ingest", "--index", t.TempDir(), "--addr", "127.0.0.1:0"}, "want at least 16"},
		{"no token file", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--token-file", filepath.Join(t.TempDir(), "none")}, "no such file"},
		{"an empty token file", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--token-file", empty}, "is empty"},
		{"a size without its unit", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--ingest-max-body", "256M"}, "ambiguous"},
		{"a bad allowed host", "", []string{"serve", "--index", fixtureIndex(t), "--addr", "127.0.0.1:0", "--allowed-hosts", "*.example.com"}, "AllowedHosts entry"},
		{"ingest with remote shards", "", []string{"serve", "--ingest", "--index", t.TempDir(), "--remote", "http://127.0.0.1:1"}, "serve the --remote shards from a server without --ingest"},
		{"a remote shard of an index without a shared store", "", []string{"serve", "--index", fixtureIndex(t), "--remote", "http://127.0.0.1:1"}, "without one shared store"},
		{"a remote shard that is no URL", "", []string{"serve", "--index", fixtureIndex(t), "--remote", "ftp://x"}, "want an http:// or https:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BLEVE_DEDUP_TOKEN", tt.env)
			_, err := runCmd(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
