package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/synth"
)

// TestMain lets the test binary stand in for the command: the benchmark
// re-executes its own binary for each mode.
func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		if err := childMain(context.Background(), path, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func needData(t *testing.T) {
	t.Helper()
	if _, err := synth.FindData(); errors.Is(err, synth.ErrNoData) {
		t.Skipf("the shared data is absent (%v): it lives in ../shared/data beside the repository", err)
	}
}

// TestRun runs the whole benchmark on a tiny corpus, every mode in a
// child process, and checks what it writes.
func TestRun(t *testing.T) {
	needData(t)
	out, work := t.TempDir(), t.TempDir()
	var stdout, log bytes.Buffer
	args := []string{"-batch", "30", "-queries", "20", "-rounds", "1", "-work", work, "-out", out, "-format", "json", "-commit", "test", "300"}
	if err := mainArgs(context.Background(), args, &stdout, &log); err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, stdout.String())
	}
	if s.Pages != 300 || len(s.Modes) != 3 || len(s.Ratios) != 2 {
		t.Errorf("summary: pages %d, %d modes, %d ratios; want 300, 3, 2", s.Pages, len(s.Modes), len(s.Ratios))
	}
	for _, m := range s.Modes {
		if m.DocsPerS <= 0 || m.PeakRSSAnon == 0 || m.BleveBytes <= 0 || m.LastFirst <= 0 {
			t.Errorf("%s: incomplete summary %+v", m.Mode, m)
		}
		if m.Mode == modeDedup && (m.StoreBytes <= 0 || m.Duplicates == 0) {
			t.Errorf("dedup: store %d bytes, %d duplicates; want both > 0", m.StoreBytes, m.Duplicates)
		}
	}
	if s.Eval == nil || s.Eval.F1 < 0.8 || s.Eval.Docs != 300 {
		t.Errorf("eval %+v, want F1 >= 0.8 over 300 docs", s.Eval)
	}
	if s.Search == nil || s.Search.Queries != 20 || s.Search.CollapsedP50Ms <= 0 || s.Search.PlainP50Ms <= 0 {
		t.Errorf("search %+v, want 20 queries timed", s.Search)
	}
	// Policy mark, the default, indexes every page: none is left out.
	if l := s.LostContent; l == nil || l.LeftOut != 0 || l.Lost != 0 || l.Bound != eval.LostShare {
		t.Errorf("lost content %+v, want none left out, bound %v", l, eval.LostShare)
	}

	f, err := os.Open(filepath.Join(out, "scale-300.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows), 1+3*10; got != want {
		t.Errorf("csv: %d rows, want %d (a header and ten tenths of three modes)", got, want)
	}
	svg, err := os.ReadFile(filepath.Join(out, "scale-300.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := wellFormed(svg); err != nil {
		t.Errorf("svg: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(out, "scale-300.md"))
	for _, want := range []string{"F1", "lost content"} {
		if err != nil || !bytes.Contains(md, []byte(want)) {
			t.Errorf("md: %v, %q present: %v", err, want, bytes.Contains(md, []byte(want)))
		}
	}
	// The saved report gives the same summary again.
	replotted := t.TempDir()
	var again bytes.Buffer
	log.Reset()
	args = []string{"-replot", filepath.Join(out, "scale-300.json"), "-out", replotted, "-format", "json"}
	if err := mainArgs(context.Background(), args, &again, &log); err != nil {
		t.Fatalf("replot: %v\n%s", err, log.String())
	}
	if again.String() != stdout.String() {
		t.Errorf("replot summary differs:\n%s\nwant:\n%s", again.String(), stdout.String())
	}
	if _, err := os.Stat(filepath.Join(replotted, "scale-300.svg")); err != nil {
		t.Errorf("replot: %v", err)
	}

	// A second run reuses the corpus.
	log.Reset()
	stdout.Reset()
	args = []string{"-batch", "30", "-queries", "20", "-rounds", "1", "-work", work, "-out", "", "-modes", "default", "300"}
	if err := mainArgs(context.Background(), args, &stdout, &log); err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "reusing the corpus") {
		t.Errorf("second run did not reuse the corpus:\n%s", log.String())
	}
	if !strings.Contains(stdout.String(), "default") {
		t.Errorf("text summary lacks the default mode:\n%s", stdout.String())
	}

	// Policy suppress leaves copies out of the search index.
	stdout.Reset()
	args = []string{"-batch", "30", "-queries", "0", "-work", work, "-out", "", "-modes", "dedup", "-policy", "suppress", "-format", "json", "-commit", "test", "300"}
	if err := mainArgs(context.Background(), args, &stdout, &log); err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	s = summary{}
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, stdout.String())
	}
	if l := s.LostContent; l == nil || l.LeftOut == 0 || l.Lost > l.LeftOut || l.MinShare < 0 || l.MinShare > 1 {
		t.Errorf("suppress: lost content %+v, want pages left out, as many lost at most, a share in [0, 1]", l)
	}
}

func TestLostContentText(t *testing.T) {
	tests := []struct {
		name string
		lost *lostContent
		want []string // lines of the summary's lost content, in order
	}{
		{"not measured", nil, nil},
		{"none left out", &lostContent{MinShare: 1, Bound: 0.6}, []string{"lost content: none, no page left out of the search index (policy mark)"}},
		{"some lost", &lostContent{LeftOut: 40, Lost: 2, MinShare: 0.25, Bound: 0.6, IDs: []string{"a", "b"}}, []string{
			"lost content: 2 of 40 pages left out hold under 60% of their distinct terms in their kept page (lowest share 0.25)",
			"  lost, lowest share first: a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp := &report{Summary: summary{Policy: "mark", LostContent: tt.lost}}
			var b bytes.Buffer
			if err := rp.text(&b); err != nil {
				t.Fatal(err)
			}
			var got []string
			for line := range strings.Lines(b.String()) {
				if strings.HasPrefix(line, "lost content") || strings.HasPrefix(line, "  lost") {
					got = append(got, strings.TrimSuffix(line, "\n"))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
		})
	}
}

func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestConfigRejected(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"zero pages", []string{"0"}},
		{"bad mode", []string{"-modes", "dedup,fast", "100"}},
		{"repeated mode", []string{"-modes", "plain,plain", "100"}},
		{"bad format", []string{"-format", "xml", "100"}},
		{"zero batch", []string{"-batch", "0", "100"}},
		{"two arguments", []string{"100", "200"}},
		{"not a number", []string{"many"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, log bytes.Buffer
			if err := mainArgs(context.Background(), tt.args, &out, &log); err == nil {
				t.Errorf("mainArgs(%q) succeeded, want an error", tt.args)
			}
		})
	}
}

// TestCorpusOnly checks the corpus directory names: the options of shared
// text and of chains appear only when set, so that the default corpus
// keeps its name.
func TestCorpusOnly(t *testing.T) {
	needData(t)
	tests := []struct {
		name  string
		flags []string
		dir   string // "" for an error
	}{
		{"default", nil, "corpus-v1-n50-s1-d0.3"},
		{"chains", []string{"-chain-share", "0.5"}, "corpus-v1-n50-s1-d0.3-c0.5-k0"},
		{"shared text", []string{"-quote-share", "0.3", "-whole-share", "0.02"}, "corpus-v1-n50-s1-d0.3-q0.3-w0.02"},
		{"quotes and skew", []string{"-skew", "1", "-quote-share", "0.3"}, "corpus-v1-n50-s1-d0.3-c0-k1-q0.3-w0"},
		{"quote share above 1", []string{"-quote-share", "1.5"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			args := append([]string{"-corpus-only", "-queries", "0", "-work", work, "-n", "50"}, tt.flags...)
			var out, log bytes.Buffer
			err := mainArgs(context.Background(), args, &out, &log)
			if tt.dir == "" {
				if err == nil {
					t.Errorf("mainArgs(%q) succeeded, want an error", args)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\nlog:\n%s", err, log.String())
			}
			if _, err := os.Stat(filepath.Join(work, tt.dir, "pages.jsonl")); err != nil {
				t.Errorf("flags %q: %v", tt.flags, err)
			}
		})
	}
}

// fakeEngine records nothing; it lets the recorder be tested alone.
type fakeEngine struct{ engine }

func (fakeEngine) disk() (int64, map[string]int64) { return 10, map[string]int64{"a": 1, "b": 2} }

func TestRecorderTenths(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		reads     []int
		wantTenth []int
	}{
		{"batch per tenth", 1000, []int{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"small batches", 100, []int{3, 6, 9, 12, 15, 18, 21, 100}, []int{1, 2, 10}},
		{"batches past several tenths", 100, []int{25, 50, 75, 100}, []int{2, 5, 7, 10}},
		{"uneven n", 7, []int{1, 2, 3, 4, 5, 6, 7}, []int{1, 2, 4, 5, 7, 8, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pk := startPeaks(time.Hour)
			defer pk.close()
			r := &recorder{e: fakeEngine{}, n: tt.n, next: 1, peaks: pk, log: io.Discard, start: time.Now()}
			for _, read := range tt.reads {
				r.progress(read, 0)
			}
			var got []int
			for _, s := range r.samples {
				got = append(got, s.Tenth)
				if s.StoreBytes != 3 || s.BleveBytes != 10 || s.RSSAnon == 0 {
					t.Errorf("sample %+v: want store 3, bleve 10 and memory read", s)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantTenth) {
				t.Errorf("tenths %v, want %v", got, tt.wantTenth)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	ds := make([]time.Duration, 100)
	for i := range ds {
		ds[i] = time.Duration(100-i) * time.Millisecond
	}
	tests := []struct {
		p    int
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {0, time.Millisecond}, {100, 100 * time.Millisecond}}
	for _, tt := range tests {
		if got := percentile(ds, tt.p); got != tt.want {
			t.Errorf("percentile(%d) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
}

func TestAxis(t *testing.T) {
	steps := []struct{ in, want float64 }{{0.3, 0.5}, {7, 10}, {12, 20}, {2000, 2000}, {36000, 50000}, {0, 1}}
	for _, tt := range steps {
		if got := niceStep(tt.in); got != tt.want {
			t.Errorf("niceStep(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	ticks := []struct {
		in   float64
		want string
	}{{0, "0"}, {500, "500"}, {20000, "20k"}, {1500000, "1.5M"}, {0.5, "0.5"}}
	for _, tt := range ticks {
		if got := tick(tt.in); got != tt.want {
			t.Errorf("tick(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestProfilerTenths(t *testing.T) {
	dir := t.TempDir()
	p, err := startProfiler(childConfig{Mode: "dedup", Rep: 1, Profile: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tenth := range []int{1, 2, 5, 10} {
		if err := p.tenth(tenth); err != nil {
			t.Fatal(err)
		}
	}
	p.stop()
	for _, name := range []string{"cpu-dedup-1-t01.pprof", "cpu-dedup-1-t03.pprof", "cpu-dedup-1-t06.pprof", "heap-dedup-1-t05.pprof", "heap-dedup-1-t10.pprof"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu-dedup-1-t11.pprof")); err == nil {
		t.Error("a CPU profile was started after the last tenth")
	}
	none, err := startProfiler(childConfig{Mode: "dedup"})
	if none != nil || err != nil {
		t.Errorf("without a directory: %v, %v; want nil, nil", none, err)
	}
	if err := none.tenth(1); err != nil {
		t.Errorf("nil profiler: %v", err)
	}
}
