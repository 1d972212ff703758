package crawler

import (
	"errors"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/relevance"
)

func TestOptionsValidate(t *testing.T) {
	p, err := relevance.NewProfile("t", map[string]float64{"a": 1}, relevance.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(*Options)
	}{
		{"no dir", func(o *Options) { o.Dir = "" }},
		{"no profile", func(o *Options) { o.Profile = nil }},
		{"no workers", func(o *Options) { o.Workers = 0 }},
		{"negative depth", func(o *Options) { o.MaxDepth = -1 }},
		{"negative pages", func(o *Options) { o.MaxPages = -1 }},
		{"negative delay", func(o *Options) { o.Delay = -1 }},
		{"negative retry time", func(o *Options) { o.RetryFor = -1 }},
		{"zero timeout", func(o *Options) { o.ReadTimeout = 0 }},
		{"no user agent", func(o *Options) { o.UserAgent = "" }},
		{"bad strategy", func(o *Options) { o.Strategy = 7 }},
		{"zero max bytes", func(o *Options) { o.MaxBytes = 0 }},
		{"too many links", func(o *Options) { o.MaxLinks = maxLinksLimit + 1 }},
	}
	for _, tt := range tests {
		o := DefaultOptions(t.TempDir())
		o.Profile = p
		tt.edit(&o)
		if _, err := New(o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: New error %v, want ErrInvalidOptions", tt.name, err)
		}
	}
	o := DefaultOptions(t.TempDir())
	o.Profile = p
	c, err := New(o)
	if err != nil {
		t.Fatalf("defaults: %v", err)
	}
	c.Close()
}

func TestParseStrategy(t *testing.T) {
	for _, s := range []Strategy{BestFirst, BreadthFirst} {
		got, err := ParseStrategy(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
	}
	if _, err := ParseStrategy("depth-first"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseStrategy(depth-first) error %v, want ErrInvalidOptions", err)
	}
	if got := Strategy(9).String(); got != "Strategy(9)" {
		t.Errorf("String = %q", got)
	}
}
