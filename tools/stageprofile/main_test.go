package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// fakeProfile is a CPU profile whose samples have the given stacks (leaf
// first) and CPU (ns).
func fakeProfile(stacks [][]string, cpu []int64) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	fns := map[string]*profile.Function{}
	for i, stack := range stacks {
		s := &profile.Sample{Value: []int64{1, cpu[i]}}
		for _, name := range stack {
			fn := fns[name]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: name}
				fns[name] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

const (
	decide  = "github.com/bleve-dedup/bleve-dedup/dedupfilter.(*Decider).Decide"
	site    = "github.com/bleve-dedup/bleve-dedup/dedupfilter.(*Decider).sitePlan"
	batch   = "github.com/blevesearch/bleve/v2/index/scorch.(*Scorch).Batch"
	malloc  = "runtime.mallocgc"
	unknown = "main.main"
)

func TestCPUIn(t *testing.T) {
	p := fakeProfile([][]string{
		{site, decide},           // 3 ms
		{malloc, decide},         // 5 ms
		{malloc, decide, decide}, // 7 ms: recursion counts once
		{batch},                  // 11 ms
		{unknown},                // 13 ms
	}, []int64{3e6, 5e6, 7e6, 11e6, 13e6})
	for _, c := range []struct {
		stage string
		want  int64
	}{
		{"filter: ordered decisions (Decider.Decide)", 15e6},
		{"— site template text (Decider.sitePlan)", 3e6},
		{"memory allocation, everywhere (mallocgc)", 12e6},
		{"bleve: a batch's segment (Scorch.Batch)", 11e6},
		{"bleve: merges (Scorch.mergerLoop)", 0},
	} {
		i := stageIndex(t, c.stage)
		if got := cpuIn(p, stages[i].fn); got != c.want {
			t.Errorf("cpuIn(%q) = %d, want %d", c.stage, got, c.want)
		}
	}
	if got, want := cpuIn(p, nil), int64(39e6); got != want {
		t.Errorf("cpuIn(all) = %d, want %d", got, want)
	}
}

func stageIndex(t *testing.T, name string) int {
	t.Helper()
	for i, s := range stages {
		if s.name == name {
			return i
		}
	}
	t.Fatalf("no stage %q", name)
	return -1
}

// TestRun writes two repetitions' tenths of a mode "a" and one of a mode
// "b", and checks the table's figures a page.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, p *profile.Profile) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := p.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	// Mode a: 2 repetitions of 10 pages, 40 ms of Decide in all -> 2 ms a page.
	write("cpu-a-0-t01.pprof", fakeProfile([][]string{{decide}}, []int64{10e6}))
	write("cpu-a-0-t02.pprof", fakeProfile([][]string{{decide}}, []int64{10e6}))
	write("cpu-a-1-t01.pprof", fakeProfile([][]string{{decide}, {batch}}, []int64{20e6, 30e6}))
	// Mode b: 1 repetition, 5 ms of Batch -> 0.5 ms a page.
	write("cpu-b-0-t01.pprof", fakeProfile([][]string{{batch}}, []int64{5e6}))
	for _, c := range []struct {
		tenth int
		want  []string
	}{
		{0, []string{
			"| **all CPU sampled** | 3.500 | 0.500 | +3.000 |",
			"| filter: ordered decisions (Decider.Decide) | 2.000 | 0.000 | +2.000 |",
			"| bleve: a batch's segment (Scorch.Batch) | 1.500 | 0.500 | +1.000 |",
		}},
		// The first tenths alone: 1 page a repetition; a 10+20 ms, b 5 ms.
		{1, []string{
			"| filter: ordered decisions (Decider.Decide) | 15.000 | 0.000 | +15.000 |",
			"| bleve: a batch's segment (Scorch.Batch) | 15.000 | 5.000 | +10.000 |",
			"tenth 1 alone",
		}},
	} {
		var out strings.Builder
		if err := run(&out, dir, []string{"a", "b"}, 10, c.tenth); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("tenth %d: table lacks %q:\n%s", c.tenth, want, out.String())
			}
		}
	}
	var out strings.Builder
	if err := run(&out, dir, []string{"c"}, 10, 0); err == nil || !strings.Contains(err.Error(), `mode "c"`) {
		t.Errorf("run with a mode without profiles: error %v, want one naming the mode", err)
	}
	if err := run(&out, dir, []string{"b"}, 10, 2); err == nil || !strings.Contains(err.Error(), "t02") {
		t.Errorf("run with a tenth without profiles: error %v, want one naming it", err)
	}
}
