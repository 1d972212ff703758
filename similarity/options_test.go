package similarity

import (
	"errors"
	"slices"
	"testing"
)

func TestParseMeasure(t *testing.T) {
	for _, m := range append(Measures(), Combined) {
		if got, err := ParseMeasure(m.String()); got != m || err != nil {
			t.Errorf("ParseMeasure(%q) = %v, %v", m, got, err)
		}
	}
	if got, err := ParseMeasures("charfreq, TagEdit"); err != nil || !slices.Equal(got, []Measure{CharFreq, TagEdit}) {
		t.Errorf("ParseMeasures = %v, %v", got, err)
	}
	if _, err := ParseMeasure("cosine"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseMeasure(cosine): err = %v, want ErrInvalidOptions", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Options)
	}{
		{"unknown measure", func(o *Options) { o.Measure = -1 }},
		{"no voters", func(o *Options) { o.Voters = nil }},
		{"zero votes", func(o *Options) { o.Votes = 0 }},
		{"votes over voters", func(o *Options) { o.Voters = []Measure{CharFreq}; o.Votes = 2 }},
		{"combined voting", func(o *Options) { o.Voters = []Measure{Combined, Pugh} }},
		{"voter twice", func(o *Options) { o.Voters = []Measure{Pugh, Pugh}; o.Votes = 1 }},
		{"containment voting at 0", func(o *Options) { o.ContainmentMin = 0 }},
		{"containment deciding over 1", func(o *Options) { o.Measure = Containment; o.ContainmentMin = 1.5 }},
	} {
		o := DefaultOptions()
		tt.edit(&o)
		if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", tt.name, err)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("DefaultOptions: %v", err)
	}
}
