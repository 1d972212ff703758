package crawler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigErrors(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"unknown field", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nmax_pagez: 3\n", "max_pagez"},
		{"no topic", "seeds: [http://x/]\n", "topic"},
		{"both topics", "seeds: [http://x/]\ntopic: {profile: p.json, keywords: {a: 1}}\n", "not both"},
		{"missing profile", "seeds: [http://x/]\ntopic: {profile: p.json}\n", "p.json"},
		{"bad strategy", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nstrategy: random\n", "strategy"},
		{"bad weights", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\nweights: magic\n", "weights"},
		{"bad duration", "seeds: [http://x/]\ntopic: {keywords: {a: 1}}\ndelay: soon\n", "line 3"},
	}
	for _, tt := range tests {
		c, err := ParseConfig([]byte(tt.config), t.TempDir())
		if err == nil {
			_, err = c.Options(t.TempDir())
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.want)
		}
	}
}

func TestConfigPathsAndWeights(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "crawl.yaml")
	config := "seeds: [http://x.example/]\ntopic: {name: t, keywords: {river: 1}}\nweights_file: w.json\nmax_pages: 7\nstrategy: breadth-first\nretry_for: 5s\n"
	if err := os.WriteFile(name, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadConfig(name)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "w.json"); c.WeightsFile != want {
		t.Errorf("WeightsFile = %q, want %q (relative to the config)", c.WeightsFile, want)
	}
	o, err := c.Options(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxPages != 7 || o.Strategy != BreadthFirst || !o.Learn || o.LinkScorer != nil || o.RetryFor != 5*time.Second {
		t.Errorf("Options = MaxPages %d, Strategy %v, Learn %v, LinkScorer %v, RetryFor %v; want 7, breadth-first, true, nil (no weights file yet), 5s",
			o.MaxPages, o.Strategy, o.Learn, o.LinkScorer, o.RetryFor)
	}
	c2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := c.SaveWeights(c2.LinkScorer()); err != nil {
		t.Fatal(err)
	}
	o2, err := c.Options(filepath.Join(dir, "state2"))
	if err != nil {
		t.Fatal(err)
	}
	if o2.LinkScorer == nil {
		t.Error("after SaveWeights, Options did not load the weights file")
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("seeds: [http://x/]\ntopic: {keywords: {a: 1}, title_weight: 0}\ndelay: 1s\nworkers: 2\n"))
	f.Add([]byte("topic: {profile: p.json}\nstrategy: breadth-first\nweights: fixed\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data, t.TempDir())
		if err != nil {
			return
		}
		// Mapping to options may fail but must not panic.
		c.WeightsFile = ""
		c.Topic.Profile = ""
		c.Options(t.TempDir())
	})
}
