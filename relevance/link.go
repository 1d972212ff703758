package relevance

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path"
	"strings"
	"sync"
	"unicode"
)

// Link is what a crawler knows about an unfetched link when it must decide
// how soon to fetch it.
type Link struct {
	// URL is the absolute link target.
	URL string
	// Anchor is the link's anchor text.
	Anchor string
	// Siblings are the anchor texts of the links next to it on the parent
	// page (the same list or block); the link's own anchor may be left out.
	Siblings []string
	// ParentRelevance is the parent page's Score.Value, in [0, 1].
	ParentRelevance float64
}

// Signals are the link-value paper's four predictions of a link's relevance, each in
// [0, 1], or the four weights that combine them (non-negative, summing
// to 1).
type Signals struct {
	Anchor   float64 `json:"anchor"`
	Siblings float64 `json:"siblings"`
	Parent   float64 `json:"parent"`
	URL      float64 `json:"url"`
}

func (s Signals) array() [4]float64 { return [4]float64{s.Anchor, s.Siblings, s.Parent, s.URL} }

func signalsOf(a [4]float64) Signals { return Signals{a[0], a[1], a[2], a[3]} }

// LinkScorer predicts link values (the link-value paper): I(p) = Σ w_k·I_k(p) over the
// four signals, and learns the weights w_k from fetched pages.
//
// Learning rule. The link-value paper compares each signal's prediction I_k with the
// fetched page's actual relevance R through the deviation
// f_k = |I_k − R| / R and gives the accurate (low-deviation) signals more
// weight; its exact update formula did not survive in the source text, so
// this is the rule implemented:
//
//	f_k  = |I_k − R| / max(R, MinRelevance)       (per observation)
//	F_k  = mean of f_k over all observations
//	w_k  = (1/(F_k + Smoothing)) / Σ_j 1/(F_j + Smoothing)
//
// Weights start equal (0.25) and stay non-negative and sum to 1. A signal
// whose deviation is half another's gets about twice its weight. Because
// the weights depend only on the sums of deviations, they do not depend
// on the order of observations — crawler workers may report pages in any
// order and two runs over the same pages agree.
//
// A LinkScorer is safe for concurrent use. Its learnt state persists
// through MarshalJSON/UnmarshalJSON; the options and profile do not (the
// caller rebuilds the scorer with them and then loads the state).
type LinkScorer struct {
	profile *Profile
	opts    LinkOptions

	mu      sync.RWMutex
	n       int64      // observations
	sum     [4]float64 // Σ f_k
	weights [4]float64 // derived from n and sum
}

// NewLinkScorer returns a scorer for the topic with equal weights.
func NewLinkScorer(p *Profile, opts LinkOptions) (*LinkScorer, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("relevance: nil profile: %w", ErrInvalidOptions)
	}
	s := &LinkScorer{profile: p, opts: opts}
	s.reweight()
	return s, nil
}

// Signals returns the four predictions for l: the anchor text's, the
// siblings' joined text's and the URL's terms' Similarity with the topic,
// and the parent's relevance clamped to [0, 1].
func (s *LinkScorer) Signals(l Link) Signals {
	p := s.profile
	return Signals{
		Anchor:   p.Similarity(l.Anchor),
		Siblings: p.Similarity(strings.Join(l.Siblings, "\n")),
		Parent:   clamp01(l.ParentRelevance),
		URL:      p.similarity(urlTerms(p.opts.Tokenizer, l.URL)),
	}
}

// Value returns I(p) = Σ w_k·I_k(p) in [0, 1] with the current weights.
func (s *LinkScorer) Value(l Link) float64 {
	sig := s.Signals(l).array()
	s.mu.RLock()
	w := s.weights
	s.mu.RUnlock()
	var v float64
	for k := range sig {
		v += w[k] * sig[k]
	}
	return v
}

// Observe records that l's target, once fetched, had relevance actual
// (its Score.Value) and updates the weights. actual is clamped to [0, 1];
// NaN is ignored.
func (s *LinkScorer) Observe(l Link, actual float64) {
	s.ObserveSignals(s.Signals(l), actual)
}

// ObserveSignals is Observe with the link's Signals computed earlier, so
// a crawler can keep four numbers per queued link instead of its texts.
func (s *LinkScorer) ObserveSignals(signals Signals, actual float64) {
	if math.IsNaN(actual) {
		return
	}
	r := clamp01(actual)
	sig := signals.array()
	for k := range sig {
		sig[k] = clamp01(sig[k])
	}
	var f [4]float64
	for k := range sig {
		f[k] = math.Abs(sig[k]-r) / max(r, s.opts.MinRelevance)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	for k := range f {
		s.sum[k] += f[k]
	}
	s.reweight()
}

// Weights returns the current weights w_k.
func (s *LinkScorer) Weights() Signals {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return signalsOf(s.weights)
}

// Observations returns how many fetched pages the weights were learnt from.
func (s *LinkScorer) Observations() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.n
}

// reweight derives weights from n and sum; the caller holds mu for writing
// (or owns s exclusively).
func (s *LinkScorer) reweight() {
	if s.n == 0 {
		s.weights = [4]float64{0.25, 0.25, 0.25, 0.25}
		return
	}
	var inv [4]float64
	var total float64
	for k := range inv {
		inv[k] = 1 / (s.sum[k]/float64(s.n) + s.opts.Smoothing)
		total += inv[k]
	}
	for k := range inv {
		s.weights[k] = inv[k] / total
	}
}

// state is the persisted form of a LinkScorer. Weights are written for
// people reading the file and recomputed on load.
type state struct {
	Observations int64   `json:"observations"`
	Deviation    Signals `json:"deviation_sums"`
	Weights      Signals `json:"weights"`
}

// MarshalJSON saves the learnt state: the number of observations, the
// per-signal sums of deviations and (informative only) the weights.
func (s *LinkScorer) MarshalJSON() ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return json.Marshal(state{s.n, signalsOf(s.sum), signalsOf(s.weights)})
}

// UnmarshalJSON replaces the learnt state with one saved by MarshalJSON;
// later observations add to it. s must come from NewLinkScorer. The
// weights are recomputed with s's options.
func (s *LinkScorer) UnmarshalJSON(data []byte) error {
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("relevance: %w: %w", err, ErrBadState)
	}
	if st.Observations < 0 {
		return fmt.Errorf("relevance: %d observations: %w", st.Observations, ErrBadState)
	}
	sum := st.Deviation.array()
	for _, v := range sum {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (st.Observations == 0 && v != 0) {
			return fmt.Errorf("relevance: deviation sum %v with %d observations: %w", v, st.Observations, ErrBadState)
		}
	}
	if s.profile == nil {
		return fmt.Errorf("relevance: scorer not made by NewLinkScorer: %w", ErrBadState)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n, s.sum = st.Observations, sum
	s.reweight()
	return nil
}

// urlTerms tokenises a URL for the URL signal: the host's labels except
// "www", the unescaped path with its file extension dropped, and the query
// values, split at every character that is not a letter or digit
// (/2019/11/south-dakota-meth-campaign.html -> 2019 11 south dakota meth
// campaign). An unparsable URL is tokenised as it is.
func urlTerms(tok Tokenizer, raw string) []string {
	var parts []string
	if u, err := url.Parse(raw); err != nil {
		parts = append(parts, raw)
	} else {
		for _, label := range strings.Split(u.Hostname(), ".") {
			if label != "www" {
				parts = append(parts, label)
			}
		}
		// A file extension (".html", ".php") names a format, not a topic.
		p := u.Path
		if ext := path.Ext(p); ext != "" && len(ext) <= 6 && strings.IndexFunc(ext[1:], notLetter) < 0 {
			p = strings.TrimSuffix(p, ext)
		}
		parts = append(parts, p)
		for _, vs := range u.Query() {
			parts = append(parts, vs...)
		}
	}
	text := strings.Map(func(r rune) rune {
		if notLetterOrDigit(r) {
			return ' '
		}
		return r
	}, strings.Join(parts, " "))
	return tok(text)
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

func notLetterOrDigit(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return min(max(v, 0), 1)
}
