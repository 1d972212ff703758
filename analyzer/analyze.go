package analyzer

import (
	"crypto/sha1"
	"slices"
	"strings"
	"sync"
)

// Analyzer computes Features. It is immutable after New and safe for
// concurrent use by multiple goroutines.
type Analyzer struct {
	opts       Options
	delims     delimSet
	work       sync.Pool // *work: scratch memory reused between calls
	noCharFreq bool      // leave Features.CharFreq nil (WithoutCharFreq)
	termHashes bool      // Features.TermHashes in place of Terms (WithTermHashes)
}

// work is the per-call scratch memory of an Analyzer.
type work struct {
	text   []byte
	sc     scan
	pieces []byte
	ends   []int
	spans  []span
	block  []byte
	words  []word
	seg    segmenter
	hashes []uint64
	counts []uint32 // CharDims zeros, for the character frequencies
	terms  termCounter
}

// New returns an Analyzer for opts, or an error wrapping ErrInvalidOptions.
func New(opts Options) (*Analyzer, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	a := &Analyzer{opts: opts}
	a.delims.add(opts.Delimiters, gapDelim)
	a.delims.add(opts.BlockDelimiters, gapBlock)
	a.work.New = func() any { return new(work) }
	return a, nil
}

// WithoutCharFreq returns an Analyzer like a whose Features leave
// CharFreq nil: only the CharFreq measure reads the character
// frequencies, and counting them costs about a sixth of Analyze.
func (a *Analyzer) WithoutCharFreq() *Analyzer {
	b := a.clone()
	b.noCharFreq = true
	return b
}

// clone returns a new Analyzer with a's options and settings.
func (a *Analyzer) clone() *Analyzer {
	b, _ := New(a.opts) // a's options are valid
	b.noCharFreq, b.termHashes = a.noCharFreq, a.termHashes
	return b
}

// Options returns the options a was created with.
func (a *Analyzer) Options() Options { return a.opts }

// Analyze computes the features of a page's main text, given as its
// paragraphs in order (without the title, which reprints often change).
// Line breaks inside a paragraph are treated as spaces. The returned
// Features are newly allocated and owned by the caller.
func (a *Analyzer) Analyze(paragraphs []string) *Features {
	w := a.work.Get().(*work)
	defer a.work.Put(w)

	text := w.normalize(paragraphs)
	norm := string(text) // Terms keys are substrings of it

	f := &Features{}
	w.sc.reset(text, &a.delims)
	f.Pieces = a.pieces(w)
	f.Structure = w.sc.structure()
	f.Runes = w.sc.letters
	if !a.noCharFreq {
		if w.counts == nil {
			w.counts = make([]uint32, CharDims)
		}
		f.CharFreq = appendCharFreq(nil, text, w.counts)
	}

	w.words = appendWords(w.words[:0], text, &w.seg)
	var nums facts
	count := termCount(f, w, text, norm, a.termHashes)
	eachTerm(w.words, func(start, end int32) {
		count(start, end)
		nums.add(norm, start, end)
	})
	if a.termHashes {
		f.TermHashes = w.terms.sorted()
	}
	f.Numbers = nums.done()

	f.Blocks, w.spans, w.block = w.sc.appendBlocks(nil, w.spans, w.block, a.opts.Blocks)
	if a.opts.MinHashSize > 0 {
		f.MinHash, w.hashes = a.minHash(make([]uint64, 0, a.opts.MinHashSize), text, w.words, w.hashes)
	}
	return f
}

// facts collects Features.Numbers from a text's terms, given in order:
// the terms holding a digit of each line of at least MinFactTerms terms.
type facts struct {
	end   int // where the current line ends (0: not found yet)
	terms int // the current line's terms
	line  []string
	out   []string
}

func (f *facts) add(norm string, start, stop int32) {
	if f.end == 0 {
		f.end = lineEnd(norm, 0)
	}
	for int(start) >= f.end {
		f.flush()
		f.end = lineEnd(norm, f.end+1)
	}
	f.terms++
	if t := norm[start:stop]; hasDigit(t) {
		f.line = append(f.line, t)
	}
}

// hasDigit reports whether t holds an ASCII digit: a byte loop, as every
// term of a page passes here and strings.ContainsAny's set lookup cost
// an English page's analysis about a tenth of its time.
func hasDigit(t string) bool {
	for i := 0; i < len(t); i++ {
		if '0' <= t[i] && t[i] <= '9' {
			return true
		}
	}
	return false
}

func (f *facts) flush() {
	if f.terms >= MinFactTerms {
		f.out = append(f.out, f.line...)
	}
	f.line, f.terms = f.line[:0], 0
}

// done returns the numbers, sorted and distinct.
func (f *facts) done() []string {
	f.flush()
	slices.Sort(f.out)
	return slices.Compact(f.out)
}

// lineEnd is the index of the first '\n' in s at or after from, or len(s).
func lineEnd(s string, from int) int {
	if i := strings.IndexByte(s[from:], '\n'); i >= 0 {
		return from + i
	}
	return len(s)
}

// Terms returns the terms of paragraphs alone, as Features.Terms.
func (a *Analyzer) Terms(paragraphs []string) map[string]int {
	var f Features
	a.countInto(&f, paragraphs, false)
	return f.Terms
}

// SetLeft sets f's terms of the paragraphs a caller left out of the
// analysis: Features.Left, or LeftHashes from an Analyzer from
// WithTermHashes.
func (a *Analyzer) SetLeft(f *Features, paragraphs []string) {
	var left Features
	a.countInto(&left, paragraphs, a.termHashes)
	f.Left, f.LeftHashes = left.Terms, left.TermHashes
}

// countInto counts the terms of paragraphs into f's TermHashes when
// hashed, else into its Terms, as Analyze does.
func (a *Analyzer) countInto(f *Features, paragraphs []string, hashed bool) {
	w := a.work.Get().(*work)
	defer a.work.Put(w)
	text := w.normalize(paragraphs)
	w.words = appendWords(w.words[:0], text, &w.seg)
	eachTerm(w.words, termCount(f, w, text, string(text), hashed))
	if hashed {
		f.TermHashes = w.terms.sorted()
	}
}

// termCount prepares f and w to count the terms of text, by hash when
// hashed, else by name (norm is text as a string, whose substrings name
// the terms), and returns the function counting one.
func termCount(f *Features, w *work, text []byte, norm string, hashed bool) func(start, end int32) {
	if hashed {
		w.terms.reset(len(w.words))
		return func(start, end int32) { w.terms.add(text[start:end]) }
	}
	f.Terms = make(map[string]int, len(w.words)/2)
	return func(start, end int32) { f.Terms[norm[start:end]]++ }
}

// normalize normalises paragraphs into w.text, one line each, and
// returns it.
func (w *work) normalize(paragraphs []string) []byte {
	w.text = w.text[:0]
	for _, p := range paragraphs {
		n := len(w.text)
		if n > 0 {
			w.text = append(w.text, '\n')
		}
		if w.text = appendNormalized(w.text, p, ' '); n > 0 && len(w.text) == n+1 {
			w.text = w.text[:n] // empty paragraph: no separator
		}
	}
	return w.text
}

// pieces returns the feature-string pieces of the text scanned into w, as
// substrings of one allocation.
func (a *Analyzer) pieces(w *work) []string {
	w.pieces, w.ends = w.sc.appendPieces(w.pieces[:0], w.ends[:0], a.opts.HanWindow, a.opts.LatinWindow)
	if len(w.ends) == 0 {
		return nil
	}
	all := string(w.pieces)
	out := make([]string, len(w.ends))
	prev := 0
	for i, end := range w.ends {
		out[i] = all[prev:end]
		prev = end
	}
	return out
}

// Pieces returns the feature-string paper's pieces of normalised text (see
// AppendNormalized), in text order. Features.Pieces is the same for the
// page's paragraphs joined with '\n'.
func (a *Analyzer) Pieces(normalized []byte) []string {
	w := a.work.Get().(*work)
	defer a.work.Put(w)
	w.sc.reset(normalized, &a.delims)
	return a.pieces(w)
}

// Blocks returns the fingerprint paper's fingerprints of normalised text: the SHA-1 of
// its Options.Blocks longest blocks, longest first.
func (a *Analyzer) Blocks(normalized []byte) [][sha1.Size]byte {
	w := a.work.Get().(*work)
	defer a.work.Put(w)
	w.sc.reset(normalized, &a.delims)
	var fps [][sha1.Size]byte
	fps, w.spans, w.block = w.sc.appendBlocks(nil, w.spans, w.block, a.opts.Blocks)
	return fps
}

// MinHash returns the MinHash signature of normalised text, of length
// Options.MinHashSize, computed with fixed hash functions: signatures are
// comparable across processes, machines and versions of this package.
//
// It uses one-permutation hashing with optimal densification (Li, Owen and
// Zhang 2012; Shrivastava 2017): each shingle of Options.Shingle tokens
// (words; Han and kana characters one by one) is hashed once (FNV-1a per
// token, combined, splitmix64-finalised), the hash picks one of the bins and
// each bin keeps its minimum; empty bins copy a bin chosen by a fixed probe
// sequence. Two signatures agree in a position with probability equal to
// the Jaccard similarity of the shingle sets, as with independent
// permutations, at the cost of one hash per shingle instead of one per
// shingle and value.
func (a *Analyzer) MinHash(normalized []byte) []uint64 {
	w := a.work.Get().(*work)
	defer a.work.Put(w)
	w.words = appendWords(w.words[:0], normalized, &w.seg)
	var sig []uint64
	sig, w.hashes = a.minHash(make([]uint64, 0, a.opts.MinHashSize), normalized, w.words, w.hashes)
	return sig
}

// EachTerm calls yield with every boolean-model paper term of normalised text, once per
// occurrence, in text order: UAX #29 words and numbers, and runs of Han (and
// kana) characters as overlapping bigrams, a run of one as that character.
// term is a subslice of normalized.
func EachTerm(normalized []byte, yield func(term []byte)) {
	eachTerm(appendWords(nil, normalized, nil), func(start, end int32) { yield(normalized[start:end]) })
}
