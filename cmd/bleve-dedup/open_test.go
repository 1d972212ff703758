package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runEnv makes the test binary run the command line it holds (JSON) as
// bleve-dedup would, for a child process of asOtherUser.
const runEnv = "BLEVE_DEDUP_TEST_RUN"

func TestMain(m *testing.M) {
	if v := os.Getenv(runEnv); v != "" {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			panic(err)
		}
		os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestNoIndexLeftBehind: a run that indexes nothing into a new index, or
// fails to open it (an unreachable store), leaves no directory behind; an
// existing directory keeps what it held.
func TestNoIndexLeftBehind(t *testing.T) {
	deadStore := "redis://" + freeAddr(t)
	tests := []struct {
		name     string
		args     func(dir string) []string
		existing []string // dir's files before the run (none); nil: no dir
	}{
		{"all inputs missing", func(dir string) []string { return []string{"index", "--index", dir, "no-such-dir"} }, nil},
		{"all inputs missing, in new parents", func(dir string) []string {
			return []string{"index", "--index", filepath.Join(dir, "a", "b"), "no-such-dir"}
		}, nil},
		{"nothing to index", func(dir string) []string {
			return []string{"index", "--index", dir, filepath.Join(pagesDir, "README.md")}
		}, nil},
		{"store unreachable", func(dir string) []string { return []string{"index", "--index", dir, "--store", deadStore, pagesDir} }, nil},
		{"store unreachable, in an empty directory", func(dir string) []string {
			return []string{"index", "--index", dir, "--store", deadStore, pagesDir}
		}, []string{}},
		{"serve --ingest, store unreachable", func(dir string) []string {
			return []string{"serve", "--ingest", "--index", dir, "--store", deadStore, "--addr", "127.0.0.1:0"}
		}, nil},
		{"eval --keep-index, store unreachable", func(dir string) []string {
			return []string{"eval", "--labels", pagesLabel, "--keep-index", dir, "--store", deadStore, pagesDir}
		}, nil},
		{"crawl that fetched nothing", func(dir string) []string {
			return []string{"crawl", "--config", writeConfig(t, "seeds: [http://"+freeAddr(t)+"/]\ntopic: {keywords: {a: 1}}\nretry_for: 1ms\n"), "--index", dir}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "ix")
			if tt.existing != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if code := run(context.Background(), tt.args(dir), io.Discard, io.Discard); code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			entries, _ := os.ReadDir(parent)
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			var inDir []string
			if ents, err := os.ReadDir(dir); err == nil {
				for _, e := range ents {
					inDir = append(inDir, e.Name())
				}
			}
			switch {
			case tt.existing == nil && len(got) != 0:
				t.Errorf("left behind: %v (in ix: %v)", got, inDir)
			case tt.existing != nil && strings.Join(inDir, " ") != strings.Join(tt.existing, " "):
				t.Errorf("ix holds %v after the run, want %v as before", inDir, tt.existing)
			}
		})
	}
}

// TestPermissionErrors: an index this user may not read or write is told
// as such, naming the path refused, by every command that opens one.
func TestPermissionErrors(t *testing.T) {
	ix := fixtureIndex(t)
	parent := t.TempDir()
	closed := filepath.Join(parent, "closed")
	if err := os.Mkdir(closed, 0o555); err != nil {
		t.Fatal(err)
	}
	readable := fixtureIndex(t) // by all, written by none
	filepath.WalkDir(readable, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chmod(p, 0o555)
		} else if err == nil {
			err = os.Chmod(p, 0o444)
		}
		return err
	})
	t.Cleanup(func() {
		filepath.WalkDir(readable, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	other := asOtherUser(t, ix)
	tests := []struct {
		name string
		args []string
		want []string // in the output; nil: exit status 0
	}{
		{"search one it may read", []string{"search", "--index", readable, "bees"}, nil},
		{"index into one it may read", []string{"index", "--index", readable, pagesDir}, []string{"may not write it", "permission denied", readable}},
		{"recluster one it may read", []string{"recluster", "--index", readable}, []string{"may not write it", "permission denied", readable}},
		{"search", []string{"search", "--index", ix, "bees"}, []string{"may not read it", "permission denied", ix}},
		{"dups", []string{"dups", "--index", ix}, []string{"may not read it", "permission denied", ix}},
		{"recluster", []string{"recluster", "--index", ix, "--dry-run"}, []string{"may not read it", "permission denied", ix}},
		{"serve", []string{"serve", "--index", ix, "--addr", "127.0.0.1:0"}, []string{"may not read it", "permission denied", ix}},
		{"index into it", []string{"index", "--index", ix, pagesDir}, []string{"may not", "permission denied", ix}},
		{"index into a directory it may not write", []string{"index", "--index", filepath.Join(closed, "new"), pagesDir}, []string{"may not write it", "permission denied", closed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := other(t, tt.args...)
			if want := min(len(tt.want), 1); code != want {
				t.Errorf("exit status %d, want %d\n%s", code, want, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q lacks %q", out, w)
				}
			}
			if strings.Contains(out, "no index there") {
				t.Errorf("output %q says there is no index", out)
			}
		})
	}
}

// asOtherUser returns a function that runs a command line as a user who
// does not own the index in ix and may not write closed directories: as
// root, user nobody in a child process, to whom the index's own
// directories are closed (bleve makes them 0700); as another user, this
// process with ix closed to all.
func asOtherUser(t *testing.T, ix string) func(t *testing.T, args ...string) (int, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return func(t *testing.T, args ...string) (int, string) {
			if err := os.Chmod(ix, 0); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(ix, 0o755)
			var out bytes.Buffer
			return run(context.Background(), args, &out, &out), out.String()
		}
	}
	// nobody must reach the index, the paths named and the test binary.
	open := func(t *testing.T, path string) {
		for d := path; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	open(t, ix)
	bin := filepath.Join(t.TempDir(), "bleve-dedup.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	open(t, filepath.Dir(bin))
	return func(t *testing.T, args ...string) (int, string) {
		for _, a := range args {
			if strings.HasPrefix(a, os.TempDir()) {
				open(t, filepath.Dir(a))
			}
		}
		js, _ := json.Marshal(args)
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), runEnv+"="+string(js))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if _, ok := errors.AsType[*exec.ExitError](err); err != nil && !ok {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
