package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestOwnMessages: a missing flag, argument or a clash is told in the
// command's own words, naming what to give, never in cobra's.
func TestOwnMessages(t *testing.T) {
	ix := fixtureIndex(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"index without an index", []string{"index", pagesDir}, "index: name the index to write: --index DIR (created when absent), or --server URL"},
		{"index without inputs", []string{"index", "--index", ix}, "index: name the pages to index: directories, .jsonl or .warc files"},
		{"index to an index and a server", []string{"index", "--index", ix, "--server", "http://127.0.0.1:1", pagesDir}, "--index and --server: give one or the other"},
		{"index into two indexes", []string{"index", "--index", ix, "--index", ix + "2", pagesDir}, "--index given 2 times"},
		{"crawl without a config", []string{"crawl", "--index", ix}, "crawl: name the crawl config: --config crawl.yaml"},
		{"crawl without an index", []string{"crawl", "--config", "c.yaml"}, "crawl: name the index to fill: --index DIR"},
		{"crawl with an argument", []string{"crawl", "x"}, "crawl: takes no arguments"},
		{"serve without an index", []string{"serve"}, "serve: name the index to serve: --index DIR"},
		{"serve --ingest into two", []string{"serve", "--ingest", "--index", ix, "--index", ix, "--store", "redis://127.0.0.1:1"}, "--ingest: --index given 2 times"},
		{"search without an index", []string{"search", "bees"}, "search: name the index to search: --index DIR, or --server URL"},
		{"search without a query", []string{"search", "--index", ix}, "search: name the query"},
		{"search an index and a server", []string{"search", "--index", ix, "--server", "http://127.0.0.1:1", "bees"}, "--index and --server: give one or the other"},
		{"dups without an index", []string{"dups"}, "dups: name the clusters to list: --index DIR, --store URL of a shared store, or --server URL"},
		{"dups --all through a server", []string{"dups", "--all", "--server", "http://127.0.0.1:1"}, "--all and --server: give one or the other"},
		{"extract without inputs", []string{"extract"}, "extract: name the pages to read"},
		{"compare one page", []string{"compare", "a.html"}, "compare: name two pages, A and B"},
		{"compare three pages", []string{"compare", "a", "b", "c"}, "compare: takes two pages, A and B; got 3: a b c"},
		{"eval without labels", []string{"eval", pagesDir}, "eval: name the labels to score against: --labels LABELS.jsonl"},
		{"recluster without an index", []string{"recluster"}, "recluster: name the index to refine: --index DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCmd(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
			if err != nil && (strings.Contains(err.Error(), "required") || strings.Contains(err.Error(), "[")) {
				t.Errorf("error %q is cobra's wording", err)
			}
		})
	}
}

// TestFormatFlag: every command that prints data takes --format table or
// jsonl, and no other spelling, saying which it takes.
func TestFormatFlag(t *testing.T) {
	root := newRootCmd()
	var with []string
	for _, c := range root.Commands() {
		f := c.Flags().Lookup("format")
		if f == nil {
			continue
		}
		with = append(with, c.Name())
		if f.DefValue != "table" {
			t.Errorf("%s --format defaults to %q, want table", c.Name(), f.DefValue)
		}
		for _, v := range []string{"table", "jsonl"} {
			if err := f.Value.Set(v); err != nil {
				t.Errorf("%s --format %s: %v", c.Name(), v, err)
			}
		}
		for _, v := range []string{"json", "text", "csv", ""} {
			if err := f.Value.Set(v); err == nil || err.Error() != "want table or jsonl" {
				t.Errorf("%s --format %q: error %v, want \"want table or jsonl\"", c.Name(), v, err)
			}
		}
	}
	want := []string{"adopt", "compare", "dups", "eval", "extract", "recluster", "search", "similar", "stats"}
	slices.Sort(with)
	if !slices.Equal(with, want) {
		t.Errorf("commands with --format %v, want %v", with, want)
	}
	// compare's jsonl is one line.
	out, err := runCmd(t, "compare", "--format", "jsonl", filepath.Join(pagesDir, "en/harbor-gazette/library-bees.html"), filepath.Join(pagesDir, "en/plain/tide-tables.txt"))
	if err != nil || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, `{"duplicate":false,`) {
		t.Errorf("compare --format jsonl: %v\n%q, want one JSON line", err, out)
	}
}

// TestSizeFlags: every flag of a number of bytes takes units through
// byteSize, and shows its default with one.
func TestSizeFlags(t *testing.T) {
	want := map[string]string{ // flag: default as help shows it
		"max-bytes":       "8MiB",
		"batch-bytes":     "", // differs by command, see below
		"max-text":        "256KiB",
		"warc-max-size":   "1GiB",
		"ingest-max-body": "256MiB",
		"memory-limit":    "448MiB",
	}
	found := map[string]bool{}
	root := newRootCmd()
	check := func(cmd string, f *pflag.Flag) {
		if f.Value.Type() != "size" {
			if strings.Contains(f.Name, "bytes") || strings.Contains(f.Name, "size") && f.Name != "size" {
				t.Errorf("%s --%s is a %s, want a size", cmd, f.Name, f.Value.Type())
			}
			return
		}
		found[f.Name] = true
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("%s --%s: a size flag the test does not know", cmd, f.Name)
		}
		if w != "" && f.DefValue != w {
			t.Errorf("%s --%s defaults to %q, want %q", cmd, f.Name, f.DefValue, w)
		}
		if err := f.Value.Set("32MiB"); err != nil || f.Value.String() != "32MiB" {
			t.Errorf("%s --%s 32MiB: %v, reads back %q", cmd, f.Name, err, f.Value.String())
		}
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { check("bleve-dedup", f) })
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) { check(c.Name(), f) })
	}
	for name := range want {
		if !found[name] {
			t.Errorf("--%s: no command has it as a size", name)
		}
	}
	for cmd, w := range map[string]string{"index": "1MiB", "eval": "1MiB", "serve": "256KiB"} {
		c, _, err := root.Find([]string{cmd})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Flags().Lookup("batch-bytes").DefValue; got != w {
			t.Errorf("%s --batch-bytes defaults to %q, want %q", cmd, got, w)
		}
	}
}

// TestMemoryLimit: --memory-limit is a size; a value too small to run in
// is refused, and a bare number is read as the unit left out.
func TestMemoryLimit(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"448MiB", 448 << 20, ""},
		{"2GiB", 2 << 30, ""},
		{"0", 0, ""},
		{"1000000000", 1_000_000_000, ""},
		{"96", 0, "96 bytes is too small for the heap (at least 16MiB; 0: no limit); for 96 MiB write 96MiB"},
		{"4096", 0, "for 4096 MiB write 4096MiB"},
		{"1MiB", 0, "1048576 bytes is too small"},
		{"16MiB", 16 << 20, ""},
		{"1000000", 0, "too small for the heap (at least 16MiB; 0: no limit)"},
		{"8M", 0, "ambiguous"},
	}
	for _, tt := range tests {
		var m memoryLimit
		err := m.Set(tt.in)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("--memory-limit %s: error %v, want one containing %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || int64(m.byteSize) != tt.want):
			t.Errorf("--memory-limit %s = %d, %v; want %d", tt.in, m.byteSize, err, tt.want)
		}
	}
	if _, err := runCmd(t, "--memory-limit", "96", "extract", pagesDir); err == nil || !strings.Contains(err.Error(), "96MiB") {
		t.Errorf("--memory-limit 96 on the command line: %v, want a refusal suggesting 96MiB", err)
	}
}

// TestHelp: every command's help has examples, and the flags whose
// defaults differ between commands say why; the root's help names every
// input kind and how to begin.
func TestHelp(t *testing.T) {
	root := newRootCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if !strings.Contains(c.Example, "bleve-dedup "+c.Name()) {
			t.Errorf("%s: no example of it in its help", c.Name())
		}
	}
	for _, cmd := range []string{"index", "eval", "serve"} {
		c, _, _ := root.Find([]string{cmd})
		for _, f := range []string{"batch", "batch-bytes"} {
			if u := c.Flags().Lookup(f).Usage; !strings.Contains(u, "serve --ingest takes") && !strings.Contains(u, "index takes") {
				t.Errorf("%s --%s: %q does not say why its default differs from the other commands'", cmd, f, u)
			}
		}
	}
	for _, w := range []string{".warc.gz", ".jsonl.gz", ".html", ".txt", "bleve-dedup index --index /tmp/idx testdata/pages", "Exit status", "SIGTERM"} {
		if !strings.Contains(root.Long, w) {
			t.Errorf("root help lacks %q", w)
		}
	}
}

// TestExamples runs the examples that work on the shipped pages, in order,
// in a directory where testdata is the repository's, and /tmp/... in a
// temporary directory.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	work := t.TempDir()
	abs, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	tmp := filepath.Join(work, "tmp")
	ran := 0
	for _, c := range newRootCmd().Commands() {
		made := map[string]bool{} // indexes of the examples not run
		for _, line := range exampleLines(c) {
			args := shellWords(strings.ReplaceAll(line, "/tmp/", tmp+"/"))
			if !runnable(args) || slices.ContainsFunc(args, func(a string) bool { return made[a] }) {
				for i, a := range args[:len(args)-1] {
					if a == "--index" || a == "--keep-index" {
						made[args[i+1]] = true
					}
				}
				continue
			}
			ran++
			if out, err := runCmd(t, args[1:]...); err != nil {
				t.Errorf("%s: %v\n%s", line, err, out)
			}
		}
	}
	if ran < 15 {
		t.Errorf("ran %d examples, want at least 15", ran)
	}
}

// exampleLines are the command lines of c's examples.
func exampleLines(c *cobra.Command) []string {
	var lines []string
	for _, l := range strings.Split(c.Example, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "bleve-dedup ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// runnable reports whether an example runs on the shipped pages alone: no
// server, network, crawl, index of the user's (adopt) or data set
// outside testdata, and no shell.
func runnable(args []string) bool {
	for _, a := range args {
		if strings.Contains(a, "://") || strings.Contains(a, "..") || strings.ContainsAny(a, "|>$") ||
			a == "serve" || a == "crawl" || a == "adopt" || strings.Contains(a, ".warc") || strings.Contains(a, "pages.jsonl") {
			return false
		}
	}
	return true
}

// shellWords splits a command line at spaces, but not inside single
// quotes.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	quoted, in := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
