package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// errPayload is a stored payload whose text field does not decode.
var errPayload = errors.New("stored payload: text is not a JSON string")

// payloadText returns the first max bytes (cut at a character boundary)
// of the text field of a stored payload, a JSON object, "" when it has
// none. Only the text is decoded, and only as far as max: a snippet needs
// the beginning of each hit's text, and decoding whole payloads was a
// fifth of a search page's CPU time.
func payloadText(payload []byte, max int) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", errPayload
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", errPayload
		}
		if k == "text" {
			rest := bytes.TrimLeft(payload[dec.InputOffset():], " \t\r\n")
			rest, ok := bytes.CutPrefix(rest, []byte(":"))
			rest = bytes.TrimLeft(rest, " \t\r\n")
			if !ok || len(rest) == 0 || rest[0] != '"' {
				return "", errPayload
			}
			return unquote(rest[1:], max)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", errPayload
		}
	}
	return "", nil
}

// unquote decodes the JSON string s begins (after its opening quote) up
// to its closing quote, or its first max bytes.
func unquote(s []byte, max int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if b.Len() >= max {
			return strings.ToValidUTF8(b.String()[:max], ""), nil
		}
		j := bytes.IndexAny(s[i:], `"\`)
		if j < 0 {
			return "", errPayload
		}
		b.Write(s[i : i+j])
		i += j
		if s[i] == '"' {
			if b.Len() > max {
				return strings.ToValidUTF8(b.String()[:max], ""), nil
			}
			return b.String(), nil
		}
		if i+1 >= len(s) {
			return "", errPayload
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return "", errPayload
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if len(s) >= i+6 && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(s[i+2:])
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
			continue
		default:
			return "", errPayload
		}
		i += 2
	}
	return "", errPayload
}

// hex4 parses the four hex digits s begins with.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s[:4]), 16, 32)
	return rune(n), err == nil
}
