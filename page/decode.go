package page

import (
	"bytes"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	xunicode "golang.org/x/text/encoding/unicode"
)

// Where the charset of a page came from: Page.CharsetSource and
// Decoded.Source hold one of these.
const (
	SourceBOM        = "bom"        // a byte order mark
	SourceHeader     = "header"     // the HTTP Content-Type (WARC record, crawler)
	SourceMeta       = "meta"       // a <meta> charset declaration
	SourceSniffed    = "sniffed"    // no label: detected from the bytes
	SourceOverridden = "overridden" // labelled, but the bytes disagreed with every label
	SourceJSONL      = "jsonl"      // already text in a JSONL record, not decoded
)

// metaWindow is how far into the bytes <meta> charsets are looked for; the
// HTML standard says 1024, but real Chinese pages often put long comments
// or wrappers before <head>.
const metaWindow = 4096

// binaryWindow is how many leading bytes isBinary looks at.
const binaryWindow = 8192

// maxControlShare is the share of control bytes (see isBinary) in the
// leading bytes above which a document is taken for binary content. Text
// in any charset holds none but strays (a NUL a CMS left in a page);
// images, archives and executables about one byte in nine.
const maxControlShare = 0.02

// sniffWindow bounds the bytes that detection scores, so a large page
// costs one full decode, not one per candidate.
const sniffWindow = 64 << 10

// maxBadShare is the share of non-ASCII characters that may come out of a
// labelled decoding as errors (replacement, private-use or C1 control
// characters) before the label is distrusted. Real pages hold a few stray
// bytes; a wrong label turns most non-ASCII characters into errors.
const maxBadShare = 0.01

// Decoded is raw page bytes converted to UTF-8.
type Decoded struct {
	Text    string
	Charset string // WHATWG name of the encoding used ("utf-8", "gb18030", ...)
	Source  string // one of the Source constants
}

// label is a charset declaration found for a page.
type label struct {
	enc    encoding.Encoding
	name   string
	source string
}

// candidate is an encoding that detection tries.
type candidate struct {
	enc  encoding.Encoding
	name string
}

// candidates are tried by detection, in order of preference on a tie.
var candidates = []candidate{
	{xunicode.UTF8, "utf-8"},
	{simplifiedchinese.GB18030, "gb18030"},
	{traditionalchinese.Big5, "big5"},
	{japanese.ShiftJIS, "shift_jis"},
	{korean.EUCKR, "euc-kr"},
	{charmap.Windows1252, "windows-1252"},
}

var boms = []struct {
	bom  []byte
	enc  encoding.Encoding
	name string
}{
	{[]byte{0xEF, 0xBB, 0xBF}, xunicode.UTF8, "utf-8"},
	{[]byte{0xFE, 0xFF}, xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM), "utf-16be"},
	{[]byte{0xFF, 0xFE}, xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM), "utf-16le"},
}

// Decode converts raw page bytes to UTF-8 text. contentType is an optional
// HTTP Content-Type value ("text/html; charset=gbk"); pass "" when unknown.
// Labels are trusted only as far as the bytes agree with them; see the
// package documentation for the order. Errors: ErrEmpty, ErrBinary. Any
// other bytes decode, at worst as windows-1252.
func Decode(raw []byte, contentType string) (Decoded, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Decoded{}, ErrEmpty
	}
	d, err := decode(raw, contentType)
	if err != nil {
		return Decoded{}, err
	}
	d.Text = stripNUL(d.Text)
	if strings.TrimSpace(d.Text) == "" {
		return Decoded{}, ErrEmpty
	}
	return d, nil
}

func decode(raw []byte, contentType string) (Decoded, error) {
	overridden := SourceSniffed // the source when detection decides
	for _, b := range boms {
		if !bytes.HasPrefix(raw, b.bom) {
			continue
		}
		if b.enc != xunicode.UTF8 {
			s, _ := b.enc.NewDecoder().Bytes(raw) // the UTF-16 decoders replace, never fail
			return Decoded{string(s), b.name, SourceBOM}, nil
		}
		if utf8.Valid(raw[len(b.bom):]) {
			return Decoded{string(raw[len(b.bom):]), "utf-8", SourceBOM}, nil
		}
		// A UTF-8 BOM over other bytes: an editor's leftover.
		raw, overridden = raw[len(b.bom):], SourceOverridden
		break
	}
	if d, ok := utf16WithoutBOM(raw); ok {
		return d, nil
	}
	if isBinary(raw) {
		return Decoded{}, ErrBinary
	}
	labels := findLabels(raw, contentType)
	if len(labels) > 0 {
		overridden = SourceOverridden
	}
	ascii := isASCII(raw)
	switch {
	case ascii && len(labels) == 0:
		return Decoded{string(raw), "utf-8", SourceSniffed}, nil
	case !ascii && utf8.Valid(raw):
		// Legacy multi-byte text is practically never valid UTF-8, so valid
		// UTF-8 wins over any label.
		for _, l := range labels {
			if l.enc == xunicode.UTF8 {
				return Decoded{string(raw), "utf-8", l.source}, nil
			}
		}
		return Decoded{string(raw), "utf-8", overridden}, nil
	}
	var det *detection // computed at most once, when a label needs it
	for _, l := range labels {
		text, bad, nonASCII := decodeCount(l.enc, raw)
		if float64(bad) > maxBadShare*float64(nonASCII) {
			continue
		}
		if _, single := l.enc.(*charmap.Charmap); single && !ascii {
			// A single-byte charset decodes any bytes without errors, and
			// servers send iso-8859-1 by default: keep it unless a
			// multi-byte candidate reads the bytes better.
			if det == nil {
				det = detect(raw)
			}
			if det.beats(l, raw) {
				continue
			}
		}
		return Decoded{text, l.name, l.source}, nil
	}
	if det == nil {
		det = detect(raw)
	}
	text, _, _ := decodeCount(det.best.enc, raw)
	return Decoded{text, det.best.name, overridden}, nil
}

// isBinary reports whether the leading bytes of b hold more than
// maxControlShare of control bytes: C0 controls other than white space
// and the shifts and escape of the ISO-2022 encodings.
func isBinary[T ~string | ~[]byte](b T) bool {
	n := min(len(b), binaryWindow)
	ctl := 0
	for i := range n {
		if c := b[i]; c < 0x20 && !textControl[c] {
			ctl++
		}
	}
	return float64(ctl) > maxControlShare*float64(n)
}

// textControl are the C0 controls that text holds.
var textControl = [0x20]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, 0x0E: true, 0x0F: true, 0x1B: true}

// stripNUL removes NUL characters, which no text means and which
// consumers of the text may not expect.
func stripNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}

// utf16WithoutBOM decodes raw as UTF-16 when its leading bytes read as
// UTF-16 markup without a byte order mark: a NUL in the high byte of at
// least a quarter of the characters (the ASCII of the markup, even on a
// Chinese page), and almost never in the low byte.
func utf16WithoutBOM(raw []byte) (Decoded, bool) {
	w := prefix(raw, binaryWindow)
	var nul [2]int // by byte parity
	for i, c := range w {
		if c == 0 {
			nul[i%2]++
		}
	}
	pairs := len(w) / 2
	for _, o := range []struct {
		high  int // parity of the high byte
		order xunicode.Endianness
		name  string
	}{{1, xunicode.LittleEndian, "utf-16le"}, {0, xunicode.BigEndian, "utf-16be"}} {
		if pairs >= 8 && 4*nul[o.high] >= pairs && 64*nul[1-o.high] <= pairs {
			s, _ := xunicode.UTF16(o.order, xunicode.IgnoreBOM).NewDecoder().Bytes(raw) // replaces, never fails
			return Decoded{string(s), o.name, SourceSniffed}, true
		}
	}
	return Decoded{}, false
}

// decodeCount decodes raw with enc, replacing invalid sequences, and counts
// the non-ASCII characters and the bad ones among them.
func decodeCount(enc encoding.Encoding, raw []byte) (text string, bad, nonASCII int) {
	if enc == xunicode.UTF8 {
		text = strings.ToValidUTF8(string(raw), "\uFFFD")
	} else {
		b, _ := enc.NewDecoder().Bytes(raw) // x/text decoders replace, never fail
		text = string(b)
	}
	for _, r := range text {
		if r >= utf8.RuneSelf {
			nonASCII++
			if isBad(r) {
				bad++
			}
		}
	}
	return text, bad, nonASCII
}

// isBad reports characters that decoding errors produce and real text
// almost never holds.
func isBad(r rune) bool {
	return r == utf8.RuneError || (r >= 0x80 && r <= 0x9F) || unicode.Is(unicode.Co, r)
}

// findLabels returns the charset declarations of a page in the order they
// are trusted: the content type, then each <meta> in document order.
// Unknown labels are left out.
func findLabels(raw []byte, contentType string) []label {
	var out []label
	add := func(name, source string) {
		if enc, canonical := lookup(name); enc != nil {
			out = append(out, label{enc, canonical, source})
		}
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		add(params["charset"], SourceHeader)
	}
	for _, name := range metaCharsets(prefix(raw, metaWindow)) {
		add(name, SourceMeta)
	}
	return out
}

// lookup maps a WHATWG charset label to an encoding and the name reported
// for it, widening the GB family to GB18030: pages labelled gb2312
// routinely use GBK and GB18030 characters.
func lookup(label string) (encoding.Encoding, string) {
	if label == "" {
		return nil, ""
	}
	e, err := htmlindex.Get(label)
	if err != nil {
		return nil, ""
	}
	name, err := htmlindex.Name(e)
	switch {
	case err != nil:
		return nil, ""
	case name == "gbk" || name == "gb18030":
		return simplifiedchinese.GB18030, "gb18030"
	case name == "utf-8" || name == "utf-16le" || name == "utf-16be":
		// A label cannot truthfully declare UTF-16 for bytes read as ASCII
		// (HTML standard: treat as UTF-8).
		return xunicode.UTF8, "utf-8"
	}
	return e, name
}

// metaCharsets returns the charsets declared by the <meta charset> and
// <meta http-equiv=content-type content="...charset=..."> elements in b,
// in document order.
func metaCharsets(b []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var content, cs string
			httpEquiv := false
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					cs = strings.TrimSpace(string(v))
				case "http-equiv":
					httpEquiv = strings.EqualFold(string(v), "content-type")
				case "content":
					content = string(v)
				}
			}
			if cs == "" && httpEquiv {
				if _, params, err := mime.ParseMediaType(content); err == nil {
					cs = params["charset"]
				}
			}
			if cs != "" {
				out = append(out, cs)
			}
		}
	}
}

// detection is the outcome of scoring every candidate.
type detection struct {
	best  candidate
	score map[string]int // by candidate name
}

// detect scores each candidate's decoding of (the start of) raw and
// returns the best.
func detect(raw []byte) *detection {
	w := window(raw)
	d := &detection{score: make(map[string]int, len(candidates))}
	for i, c := range candidates {
		text, _, _ := decodeCount(c.enc, w)
		s := plausibility(c.name, text)
		d.score[c.name] = s
		if i == 0 || s > d.score[d.best.name] {
			d.best = c
		}
	}
	return d
}

// beats reports whether the best candidate is a multi-byte encoding that
// reads raw as real text and better than the single-byte label l does.
// Single-byte candidates never displace a single-byte label: Windows-1252
// is no better a guess than the windows-1251 a Russian page declares.
func (d *detection) beats(l label, raw []byte) bool {
	best := d.score[d.best.name]
	if _, single := d.best.enc.(*charmap.Charmap); single || best <= 0 {
		return false
	}
	s, ok := d.score[l.name]
	if !ok {
		text, _, _ := decodeCount(l.enc, window(raw))
		s = plausibility(l.name, text)
	}
	return best > s
}

// window returns the parts of raw that detection scores: the pieces
// between '>' and newline bytes (never part of a multi-byte character in
// the candidate encodings) that hold non-ASCII bytes, up to about
// sniffWindow bytes. Pages often start with long ASCII scripts and styles.
func window(raw []byte) []byte {
	if len(raw) <= sniffWindow {
		return raw
	}
	var w []byte
	for len(raw) > 0 && len(w) < sniffWindow {
		i := bytes.IndexAny(raw, ">\n") + 1
		if i == 0 {
			i = len(raw)
		}
		if !isASCII(raw[:i]) {
			w = append(w, raw[:i]...)
		}
		raw = raw[i:]
	}
	return w
}

// plausibility rates how much text, decoded as the named candidate, reads
// like real writing: common Chinese, Japanese or Korean characters and
// isolated Latin letters count; decoding errors, rare characters, scripts
// the candidate would not be used for and long runs of accented Latin
// letters (CJK bytes read as windows-1252) cost. Only the relative scores
// of candidates decoding the same bytes matter.
func plausibility(name, text string) int {
	score := 0
	var run []rune // the current run of non-ASCII Latin-repertoire characters
	var before rune
	flush := func(after rune) {
		switch {
		case len(run) == 1 && latinLikely(run[0], before, after):
			score++
		case len(run) == 1:
			score--
		case len(run) == 2 && latinLikely(run[0], before, 'a') && latinLikely(run[1], 'a', after):
			// "ação", "“État": pairs happen in European text.
		default:
			score -= len(run)
		}
		run = run[:0]
	}
	prev := ' '
	for _, r := range text {
		if isLatin(r) {
			if len(run) == 0 {
				before = prev
			}
			run = append(run, r)
			prev = r
			continue
		}
		if len(run) > 0 {
			flush(r)
		}
		prev = r
		if r < utf8.RuneSelf {
			continue
		}
		switch {
		case isBad(r):
			score -= 10
		case unicode.Is(unicode.Han, r):
			if inSet(commonHanSet, r) {
				score += 4
			} else {
				score--
			}
		case r >= 0x3040 && r <= 0x30FF: // hiragana, katakana
			switch name {
			case "shift_jis", "utf-8":
				score += 2
			case "gb18030": // GBK has kana, and Big5's common characters read as kana in it
				score++
			default:
				score -= 2
			}
		case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
			switch {
			case name != "euc-kr" && name != "utf-8":
				score -= 2
			case inSet(commonHangulSet, r):
				score += 4
			default:
				score--
			}
		case r >= 0xFF61 && r <= 0xFF9F: // half-width katakana: Shift_JIS misread
			score -= 2
		case strings.ContainsRune(commonCJKPunct, r):
			score += 2
		}
	}
	if len(run) > 0 {
		flush(' ')
	}
	return score
}

// latinLikely reports whether c, between before and after, reads like
// European text: a frequent symbol, or a letter next to an ASCII letter.
// Big5 and GBK lead bytes read as windows-1252 are mostly rare symbols
// (¤ ¦ § ¨ ª ¬ ...) and capitals next to punctuation.
func latinLikely(c, before, after rune) bool {
	return strings.ContainsRune(commonLatinSymbols, c) ||
		(unicode.IsLetter(c) && (isASCIILetter(before) || isASCIILetter(after)))
}

func isASCIILetter(r rune) bool { return (r|0x20) >= 'a' && (r|0x20) <= 'z' }

// commonLatinSymbols are the non-letters of windows-1252 that European
// pages use often.
const commonLatinSymbols = "\u00a0©®°·«»£€¿¡‘’“”–—…•™×"

// isLatin reports the non-ASCII characters of windows-1252: accented
// letters, typographic quotes and dashes, and symbols.
func isLatin(r rune) bool {
	return (r >= 0xA0 && r <= 0x17F) || (r >= 0x2010 && r <= 0x203A) || r == 0x20AC || r == 0x2122 ||
		r == 0x192 || r == 0x2C6 || r == 0x2DC
}

// commonHan holds very frequent Chinese characters in simplified and
// traditional forms (and so many frequent Japanese kanji); decoding with
// the wrong legacy encoding produces valid but rare characters, so their
// share tells the right decoder apart.
const commonHan = "的一是不了在人有我他这這中大来來上国國个個到说說们們为為子和你地出道也时時年得就那要下以生会會自着著去之过過家学學对對可里裡后後小么麼心多天而能好都然没沒日于於起还還发發成事只作当當想看文无無开開手十用主行方又如前所本见見经經头頭面公同三已老从從动動两兩长長与與业業新分市产產现現部高第加法机機全定政二进進实實此关關民将將工因理期位报報等重美間间体體外者被电電月最"

// commonHanSet and commonHangulSet hold the runes of commonHan and
// commonHangul: the lookup is the scoring's hot path on CJK pages.
var (
	commonHanSet    = runeSet(commonHan)
	commonHangulSet = runeSet(commonHangul)
)

func runeSet(s string) map[rune]struct{} {
	m := make(map[rune]struct{})
	for _, r := range s {
		m[r] = struct{}{}
	}
	return m
}

func inSet(m map[rune]struct{}, r rune) bool {
	_, ok := m[r]
	return ok
}

// commonHangul holds very frequent Korean syllables.
const commonHangul = "이다의는에하고을가한지기로서사도를있은리자수인적대어시일나해정주거보아위부구제소내요만게우전관장조것들면상성여국라"

// commonCJKPunct holds the punctuation of Chinese and Japanese text.
const commonCJKPunct = "，。、：；！？「」『』《》（）　・"

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func prefix(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
