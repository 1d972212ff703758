package relevance

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func TestURLTerms(t *testing.T) {
	tests := []struct {
		url  string
		want []string
	}{
		{"https://www.nj.com/2019/11/south-dakota-meth-campaign.html",
			[]string{"nj", "com", "2019", "11", "south", "dakota", "meth", "campaign"}},
		{"https://news.example.org/sports/football_league/", []string{"news", "example", "org", "sports", "football", "league"}},
		{"http://example.com/a/index.php?topic=football", []string{"example", "com", "a", "index", "football"}},
		{"http://example.cn/%E4%BD%93%E8%82%B2/%E8%B6%B3%E7%90%83", []string{"example", "cn", "体育", "足球"}},
		{"/relative/path.v2.tar", []string{"relative", "path", "v2"}},
		{"", nil},
		{"http://[::1", []string{"http", "1"}}, // unparsable: tokenised as text
	}
	for _, tt := range tests {
		if got := urlTerms(DefaultTokenizer, tt.url); !slices.Equal(got, tt.want) {
			t.Errorf("urlTerms(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func newScorer(tb testing.TB) *LinkScorer {
	tb.Helper()
	p := mustProfile(tb, map[string]float64{"football": 1, "league": 1}, DefaultOptions())
	s, err := NewLinkScorer(p, DefaultLinkOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestSignalsAndValue(t *testing.T) {
	s := newScorer(t)
	tests := []struct {
		name string
		link Link
		want Signals
	}{
		{"empty", Link{}, Signals{}},
		{"anchor only", Link{Anchor: "Football league table"}, Signals{Anchor: 1}},
		{"siblings joined", Link{Siblings: []string{"football", "league"}}, Signals{Siblings: 1}},
		{"parent clamped", Link{ParentRelevance: 3}, Signals{Parent: 1}},
		{"parent NaN", Link{ParentRelevance: math.NaN()}, Signals{}},
		{"url", Link{URL: "http://x.com/football/"}, Signals{URL: 1 / math.Sqrt2}},
	}
	for _, tt := range tests {
		got := s.Signals(tt.link)
		for k, g := range got.array() {
			if math.Abs(g-tt.want.array()[k]) > 1e-12 {
				t.Errorf("%s: Signals = %+v, want %+v", tt.name, got, tt.want)
				break
			}
		}
		// Equal initial weights: the value is the mean of the signals.
		sum := 0.0
		for _, v := range tt.want.array() {
			sum += v
		}
		if v := s.Value(tt.link); math.Abs(v-sum/4) > 1e-12 {
			t.Errorf("%s: Value = %v, want %v", tt.name, v, sum/4)
		}
	}
	if w := s.Weights(); w != (Signals{0.25, 0.25, 0.25, 0.25}) {
		t.Errorf("initial Weights = %+v, want 0.25 each", w)
	}
}

// synthetic makes a link whose four signals are independent random values
// of the kind a crawler sees, and the relevance its accurate signal
// predicts. The anchor, sibling and URL texts mix topic and filler words
// so their similarities vary over [0, 1].
func synthetic(rng *rand.Rand, s *LinkScorer, accurate int) (Link, float64) {
	text := func() string {
		switch rng.IntN(4) {
		case 0:
			return "football league"
		case 1:
			return "football news"
		case 2:
			return "league football football"
		default:
			return "weather report"
		}
	}
	l := Link{
		URL:             "http://example.com/" + text(),
		Anchor:          text(),
		Siblings:        []string{text(), text()},
		ParentRelevance: rng.Float64(),
	}
	sig := s.Signals(l).array()
	actual := sig[accurate] + (rng.Float64()-0.5)*0.05 // small noise
	return l, clamp01(actual)
}

func TestObserveConverges(t *testing.T) {
	names := []string{"anchor", "siblings", "parent", "url"}
	for accurate, name := range names {
		s := newScorer(t)
		rng := rand.New(rand.NewPCG(1, uint64(accurate)))
		for range 500 {
			s.Observe(synthetic(rng, s, accurate))
		}
		w := s.Weights().array()
		sum := 0.0
		for k, v := range w {
			sum += v
			if v < 0 {
				t.Errorf("%s accurate: weight %s = %v < 0", name, names[k], v)
			}
			if k != accurate && v >= w[accurate] {
				t.Errorf("%s accurate: weight %s = %v >= %v", name, names[k], v, w[accurate])
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s accurate: weights sum to %v, want 1", name, sum)
		}
		if w[accurate] < 0.5 {
			t.Errorf("%s accurate: its weight %v, want >= 0.5 (weights %v)", name, w[accurate], w)
		}
		if got := s.Observations(); got != 500 {
			t.Errorf("Observations = %d, want 500", got)
		}
	}
}

func TestObserveRelevanceEdgeCases(t *testing.T) {
	s := newScorer(t)
	l := Link{Anchor: "football", ParentRelevance: 0}
	s.Observe(l, math.NaN()) // ignored
	if n := s.Observations(); n != 0 {
		t.Fatalf("NaN observation counted: %d", n)
	}
	// R = 0: deviations are |I_k|/MinRelevance; the parent (0) is exact.
	s.Observe(l, 0)
	w := s.Weights()
	if !(w.Parent > w.Anchor) || math.IsNaN(w.Anchor) {
		t.Errorf("after R=0 with parent 0: weights %+v, want parent above anchor", w)
	}
	s.Observe(l, 7) // clamped to 1
	for _, v := range s.Weights().array() {
		if math.IsNaN(v) || v < 0 {
			t.Errorf("weights %+v after out-of-range relevance", s.Weights())
		}
	}
}

func TestObserveConcurrent(t *testing.T) {
	s, seq := newScorer(t), newScorer(t)
	rng := rand.New(rand.NewPCG(7, 7))
	type obs struct {
		l Link
		r float64
	}
	var all []obs
	for range 400 {
		l, r := synthetic(rng, s, 0)
		all = append(all, obs{l, r})
		seq.Observe(l, r)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(all); i += 8 {
				s.Observe(all[i].l, all[i].r)
				_ = s.Value(all[i].l)
				_ = s.Weights()
			}
		})
	}
	wg.Wait()
	// Order-independent rule: concurrent and sequential learning agree
	// (up to the rounding of sums in a different order).
	got, want := s.Weights().array(), seq.Weights().array()
	for k := range got {
		if math.Abs(got[k]-want[k]) > 1e-9 {
			t.Errorf("concurrent weights %v, sequential %v", got, want)
			break
		}
	}
}

func TestLinkScorerPersistence(t *testing.T) {
	s := newScorer(t)
	rng := rand.New(rand.NewPCG(3, 3))
	for range 50 {
		s.Observe(synthetic(rng, s, 2))
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	loaded := newScorer(t)
	if err := json.Unmarshal(data, loaded); err != nil {
		t.Fatalf("Unmarshal(%s): %v", data, err)
	}
	if got, want := loaded.Weights(), s.Weights(); got != want {
		t.Errorf("loaded Weights = %+v, want %+v", got, want)
	}
	if got := loaded.Observations(); got != 50 {
		t.Errorf("loaded Observations = %d, want 50", got)
	}
	again, _ := json.Marshal(loaded)
	if string(again) != string(data) {
		t.Errorf("second save differs:\n%s\n%s", again, data)
	}
	// Learning continues from the loaded state.
	l, r := synthetic(rng, s, 2)
	s.Observe(l, r)
	loaded.Observe(l, r)
	if got, want := loaded.Weights(), s.Weights(); got != want {
		t.Errorf("after one more observation: %+v, want %+v", got, want)
	}
}

func TestLinkScorerUnmarshalErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not json", `{`},
		{"negative count", `{"observations": -1}`},
		{"negative sum", `{"observations": 2, "deviation_sums": {"anchor": -1}}`},
		{"sums without observations", `{"observations": 0, "deviation_sums": {"url": 1}}`},
		{"wrong type", `{"observations": "many"}`},
	}
	for _, tt := range tests {
		s := newScorer(t)
		if err := s.UnmarshalJSON([]byte(tt.in)); !errors.Is(err, ErrBadState) {
			t.Errorf("%s: Unmarshal error = %v, want %v", tt.name, err, ErrBadState)
		}
	}
	var zero LinkScorer
	if err := zero.UnmarshalJSON([]byte(`{"observations": 0}`)); !errors.Is(err, ErrBadState) {
		t.Errorf("zero LinkScorer: Unmarshal error = %v, want %v", err, ErrBadState)
	}
}

func TestNewLinkScorerErrors(t *testing.T) {
	p := mustProfile(t, map[string]float64{"a": 1}, DefaultOptions())
	for _, o := range []LinkOptions{{Smoothing: 0, MinRelevance: 0.1}, {Smoothing: 0.1, MinRelevance: 0}, {Smoothing: 0.1, MinRelevance: 2}} {
		if _, err := NewLinkScorer(p, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("NewLinkScorer(%+v) error = %v, want %v", o, err, ErrInvalidOptions)
		}
	}
	if _, err := NewLinkScorer(nil, DefaultLinkOptions()); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewLinkScorer(nil profile) error = %v, want %v", err, ErrInvalidOptions)
	}
}

func FuzzLinkScorerUnmarshal(f *testing.F) {
	f.Add([]byte(`{"observations":3,"deviation_sums":{"anchor":1,"siblings":2,"parent":0,"url":9}}`))
	f.Add([]byte(`{"observations":1,"deviation_sums":{"anchor":1e308,"siblings":1e308}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newScorer(t)
		if err := s.UnmarshalJSON(data); err != nil {
			return
		}
		sum := 0.0
		for _, w := range s.Weights().array() {
			if !(w >= 0 && w <= 1) {
				t.Fatalf("loaded %s: weight %v outside [0, 1]", data, w)
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("loaded %s: weights sum to %v", data, sum)
		}
	})
}

func FuzzSignals(f *testing.F) {
	f.Add("https://www.nj.com/2019/11/south-dakota-meth-campaign.html", "Football league", "news", 0.5)
	f.Add("http://[::1", "", "", math.Inf(-1))
	f.Fuzz(func(t *testing.T, url, anchor, sibling string, parent float64) {
		s := newScorer(t)
		l := Link{URL: url, Anchor: anchor, Siblings: []string{sibling}, ParentRelevance: parent}
		for _, v := range s.Signals(l).array() {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("Signals(%+v) = %+v outside [0, 1]", l, s.Signals(l))
			}
		}
		s.Observe(l, parent)
		if v := s.Value(l); !(v >= 0 && v <= 1) {
			t.Fatalf("Value(%+v) = %v outside [0, 1]", l, v)
		}
	})
}
