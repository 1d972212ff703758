package page

import (
	"encoding/binary"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeRecord decodes one JSONL line into rec as json.Unmarshal does.
// Lines of the usual shape, an object of strings, numbers, booleans and
// nulls, are decoded in one pass, about three times faster than
// json.Unmarshal's validating pass, decoding pass and unquoting of a
// page's HTML (BenchmarkDecodeRecord), which were a seventh of the CPU of
// indexing raw pages.
// Any other line (nested values, keys that match a field only when case
// is folded, a field of the wrong type, invalid JSON) goes to
// json.Unmarshal, for its result and its error messages. buf is scratch
// space kept between lines.
func decodeRecord(line []byte, rec *record, buf *[]byte) error {
	d := lineDecoder{s: line, buf: *buf}
	ok := d.object(rec)
	*buf = d.buf[:0]
	if ok {
		return nil
	}
	*rec = record{}
	return json.Unmarshal(line, rec)
}

// lineDecoder reads one line's object; every method returns false for
// what it does not take, leaving the line to json.Unmarshal.
type lineDecoder struct {
	s   []byte
	i   int
	buf []byte
}

// stringEnd marks the bytes that end a run of a string's bytes copied as
// they are: its closing quote, an escape, and the control characters JSON
// does not allow in strings.
var stringEnd = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (d *lineDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// punct consumes c after any white space.
func (d *lineDecoder) punct(c byte) bool {
	d.space()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *lineDecoder) object(rec *record) bool {
	if !d.punct('{') {
		return false
	}
	if d.punct('}') {
		return d.end()
	}
	for {
		d.space()
		if !d.unquote() || !d.punct(':') {
			return false
		}
		d.space()
		if !d.field(rec, d.buf) {
			return false
		}
		if d.punct('}') {
			return d.end()
		}
		if !d.punct(',') {
			return false
		}
	}
}

// end accepts only white space after the object.
func (d *lineDecoder) end() bool {
	d.space()
	return d.i == len(d.s)
}

// field decodes the value of key into rec's field of that name. key may
// be d.buf: it is read before the value is.
func (d *lineDecoder) field(rec *record, key []byte) bool {
	var dst **string // a pointer field: null clears it
	var str *string  // a string field: null leaves it as it is
	switch string(key) {
	case "id":
		dst = &rec.ID
	case "html":
		dst = &rec.HTML
	case "text":
		dst = &rec.Text
	case "url":
		str = &rec.URL
	case "title":
		str = &rec.Title
	default:
		if !lowerASCII(key) {
			return false // it may match a field with case folded
		}
		return d.skip()
	}
	if d.literal("null") {
		if dst != nil {
			*dst = nil
		}
		return true
	}
	v, ok := d.quoted()
	if !ok {
		return false
	}
	if dst != nil {
		*dst = &v
	} else {
		*str = v
	}
	return true
}

// lowerASCII reports whether key has no byte that case folding could
// match to another: only ASCII, no capital letters.
func lowerASCII(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// skip consumes a value of a field the record does not have.
func (d *lineDecoder) skip() bool {
	if d.i >= len(d.s) {
		return false
	}
	switch c := d.s[d.i]; {
	case c == '"':
		return d.unquote()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	default:
		return d.literal("null") || d.literal("true") || d.literal("false")
	}
}

func (d *lineDecoder) literal(lit string) bool {
	if len(d.s)-d.i >= len(lit) && string(d.s[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *lineDecoder) number() bool {
	d.literal("-")
	switch {
	case d.literal("0"):
	case d.i < len(d.s) && '1' <= d.s[d.i] && d.s[d.i] <= '9':
		d.digits()
	default:
		return false
	}
	if d.literal(".") && d.digits() == 0 {
		return false
	}
	if d.literal("e") || d.literal("E") {
		if !d.literal("+") {
			d.literal("-")
		}
		if d.digits() == 0 {
			return false
		}
	}
	return true
}

func (d *lineDecoder) digits() int {
	start := d.i
	for d.i < len(d.s) && '0' <= d.s[d.i] && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// quoted returns the string at d.i, decoded (unquote).
func (d *lineDecoder) quoted() (string, bool) {
	if !d.unquote() {
		return "", false
	}
	return string(d.buf), true
}

// unquote decodes the string at d.i into d.buf as encoding/json does:
// escapes resolved, a lone or broken surrogate escape and each byte of
// invalid UTF-8 made U+FFFD.
func (d *lineDecoder) unquote() bool {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return false
	}
	d.i++
	d.buf = d.buf[:0]
	for {
		start := d.i
		d.plain()
		for d.i < len(d.s) && !stringEnd[d.s[d.i]] {
			d.i++
		}
		d.appendUTF8(d.s[start:d.i])
		if d.i >= len(d.s) {
			return false
		}
		switch d.s[d.i] {
		case '"':
			d.i++
			return true
		case '\\':
			if !d.escape() {
				return false
			}
		default:
			return false // a control character
		}
	}
}

// plain skips eight bytes at a time while none can end a run (stringEnd).
// A word may be taken for one that has such a byte when it has not: the
// caller's byte loop goes on from there.
func (d *lineDecoder) plain() {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for d.i+8 <= len(d.s) {
		w := binary.LittleEndian.Uint64(d.s[d.i:])
		q, bs := w^('"'*ones), w^('\\'*ones)
		if ((w-0x20*ones)&^w|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			return
		}
		d.i += 8
	}
}

// appendUTF8 appends run with each byte of invalid UTF-8 made U+FFFD.
func (d *lineDecoder) appendUTF8(run []byte) {
	if utf8.Valid(run) {
		d.buf = append(d.buf, run...)
		return
	}
	for len(run) > 0 {
		r, n := utf8.DecodeRune(run)
		d.buf = utf8.AppendRune(d.buf, r)
		run = run[n:]
	}
}

// escape decodes the escape at d.i, its backslash.
func (d *lineDecoder) escape() bool {
	if d.i+1 >= len(d.s) {
		return false
	}
	c := d.s[d.i+1]
	d.i += 2
	switch c {
	case '"', '\\', '/':
		d.buf = append(d.buf, c)
	case 'b':
		d.buf = append(d.buf, '\b')
	case 'f':
		d.buf = append(d.buf, '\f')
	case 'n':
		d.buf = append(d.buf, '\n')
	case 'r':
		d.buf = append(d.buf, '\r')
	case 't':
		d.buf = append(d.buf, '\t')
	case 'u':
		r, ok := d.hex4()
		if !ok {
			return false
		}
		if utf16.IsSurrogate(r) {
			// A valid pair is consumed whole; else only the first half,
			// made U+FFFD, as encoding/json does.
			save, pair := d.i, utf8.RuneError
			if d.literal(`\u`) {
				if r2, ok := d.hex4(); ok {
					pair = utf16.DecodeRune(r, r2)
				}
			}
			if pair == utf8.RuneError {
				d.i = save
			}
			r = pair
		}
		d.buf = utf8.AppendRune(d.buf, r)
	default:
		return false
	}
	return true
}

// hex4 consumes four hexadecimal digits.
func (d *lineDecoder) hex4() (rune, bool) {
	if len(d.s)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.s[d.i : d.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}
