package analyzer

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/segwords"
)

// Gap flags: what lies between two consecutive content characters.
const (
	gapDelim uint8 = 1 << iota // an effective Options.Delimiters character
	gapBlock                   // an effective Options.BlockDelimiters character
	gapPara                    // a paragraph break ('\n')
)

// delimSet maps delimiter characters to gap flags.
type delimSet struct {
	ascii [utf8.RuneSelf]uint8
	// other holds the few non-ASCII delimiters; a linear scan of a handful
	// beats a map lookup on every Han character.
	other []delimFlag
}

type delimFlag struct {
	r    rune
	flag uint8
}

// add records the normalised characters of chars with flag.
func (d *delimSet) add(chars string, flag uint8) {
	for _, r := range string(AppendNormalized(nil, chars)) {
		if r < utf8.RuneSelf {
			d.ascii[r] |= flag
			continue
		}
		i := slices.IndexFunc(d.other, func(o delimFlag) bool { return o.r == r })
		if i < 0 {
			i = len(d.other)
			d.other = append(d.other, delimFlag{r: r})
		}
		d.other[i].flag |= flag
	}
}

func (d *delimSet) lookup(r rune) uint8 {
	if r < utf8.RuneSelf {
		return d.ascii[r]
	}
	for _, o := range d.other {
		if o.r == r {
			return o.flag
		}
	}
	return 0
}

// scan is normalised text reduced to what the structural features need:
// its content characters (letters, digits, marks; delimiters excluded) and
// what separates them. gaps[i] describes the separators before runes[i];
// gaps[len(runes)] those after the last one.
type scan struct {
	runes   []rune
	gaps    []uint8
	letters int // content characters including letters used as delimiters
}

// reset scans normalised text with the delimiters in d, reusing s's memory.
//
// An ASCII delimiter written directly between two ASCII letters or digits
// is not effective: the feature-string paper's rule that a '.' with digits on both sides is
// a decimal point, extended to "e.g", "example.com", "1,000" and "10:30",
// where a space-separated language never ends a sentence. Full-width and
// Han delimiters are always effective, since Chinese has no spaces.
func (s *scan) reset(text []byte, d *delimSet) {
	s.runes, s.gaps, s.letters = s.runes[:0], s.gaps[:0], 0
	var gap uint8
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && d.ascii[c] == 0 && c != '\n' { // fast path
			if segwords.IsASCIIAlnum(c) {
				s.letters++
				s.gaps = append(s.gaps, gap)
				s.runes = append(s.runes, rune(c))
				gap = 0
			}
			i++
			continue
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if f := d.lookup(r); f != 0 {
			if isContent(r) {
				s.letters++
			}
			if r >= utf8.RuneSelf || i == 0 || i+1 >= len(text) || !segwords.IsASCIIAlnum(text[i-1]) || !segwords.IsASCIIAlnum(text[i+1]) {
				gap |= f
			}
		} else if r == '\n' {
			gap |= gapPara
		} else if isContent(r) {
			s.letters++
			s.gaps = append(s.gaps, gap)
			s.runes = append(s.runes, r)
			gap = 0
		}
		i += size
	}
	s.gaps = append(s.gaps, gap)
}

// isContent reports whether r carries text: letters, digits and combining
// marks. Everything else (spaces, punctuation, symbols) only separates.
func isContent(r rune) bool {
	if r < utf8.RuneSelf {
		return segwords.IsASCIIAlnum(byte(r))
	}
	if r >= 0x4E00 && r <= 0x9FFF {
		return true
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isHan reports whether r belongs to a large script, where one character
// is as distinctive as several letters: Han ideographs and Hangul.
func isHan(r rune) bool {
	if r < 0x1100 {
		return false
	}
	if r >= 0x4E00 && r <= 0x9FFF {
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hangul)
}

// appendPieces appends the feature-string paper's pieces to dst, one per
// effective delimiter gap holding a content character on either side,
// and returns it with the byte offsets where each piece ends.
//
// A piece is the window before the gap followed by the window after it.
// A window collects content characters moving away from the gap, skipping
// spaces and punctuation and crossing paragraph breaks (so reprints that
// split or merge paragraphs keep their pieces), but never crossing another
// delimiter gap. Its size is decided by the character nearest the gap:
// han characters if it is Han or Hangul, otherwise latin characters, of any
// script. A run of delimiters ("?!", "。」") is one gap.
func (s *scan) appendPieces(dst []byte, ends []int, han, latin int) ([]byte, []int) {
	n := len(s.runes)
	for g, flags := range s.gaps {
		if flags&gapDelim == 0 || n == 0 {
			continue
		}
		if g > 0 {
			size := windowSize(s.runes[g-1], han, latin)
			k := g - 1
			for k > 0 && g-k < size && s.gaps[k]&gapDelim == 0 {
				k--
			}
			for _, r := range s.runes[k:g] {
				dst = utf8.AppendRune(dst, r)
			}
		}
		if g < n {
			size := windowSize(s.runes[g], han, latin)
			k := g + 1
			for k < n && k-g < size && s.gaps[k]&gapDelim == 0 {
				k++
			}
			for _, r := range s.runes[g:k] {
				dst = utf8.AppendRune(dst, r)
			}
		}
		ends = append(ends, len(dst))
	}
	return dst, ends
}

func windowSize(nearest rune, han, latin int) int {
	if isHan(nearest) {
		return han
	}
	return latin
}

// count returns the number of runs of content characters separated by gaps
// with any of the given flags (0 for empty text).
func (s *scan) count(flags uint8) int {
	if len(s.runes) == 0 {
		return 0
	}
	c := 1
	for _, g := range s.gaps[1:len(s.runes)] {
		if g&flags != 0 {
			c++
		}
	}
	return c
}

// structure returns the feature-string paper's (gn, cn, kl) of the scanned text.
func (s *scan) structure() Structure {
	return Structure{
		Paragraphs: clamp(s.count(gapPara), 1, MaxParagraphs),
		Length:     clamp((s.letters+LengthUnit-1)/LengthUnit, 1, MaxLength),
		Sentences:  clamp(s.count(gapDelim|gapPara), 1, MaxSentences),
	}
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
