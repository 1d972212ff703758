package page

import (
	"bytes"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	xunicode "golang.org/x/text/encoding/unicode"
)

// metaWindow is how far into the bytes a <meta> charset is looked for; the
// HTML standard says 1024, but real Chinese pages often put long comments
// or wrappers before <head>.
const metaWindow = 4096

// binaryWindow is how many leading bytes are checked for NUL bytes.
const binaryWindow = 8192

var boms = []struct {
	bom []byte
	enc encoding.Encoding
}{
	{[]byte{0xEF, 0xBB, 0xBF}, xunicode.UTF8},
	{[]byte{0xFE, 0xFF}, xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM)},
	{[]byte{0xFF, 0xFE}, xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM)},
}

// Decode converts raw page bytes to UTF-8 text. contentType is an optional
// HTTP Content-Type value ("text/html; charset=gbk"); pass "" when unknown.
// See the package documentation for the detection order. Errors: ErrEmpty,
// ErrBinary, ErrInvalidUTF8 (bytes declared UTF-8 that are not).
func Decode(raw []byte, contentType string) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", ErrEmpty
	}
	enc := declared(raw, contentType)
	if enc == nil && bytes.IndexByte(prefix(raw, binaryWindow), 0) >= 0 {
		return "", ErrBinary
	}
	var text string
	switch {
	case enc == xunicode.UTF8:
		if !utf8.Valid(raw) {
			return "", ErrInvalidUTF8
		}
		text = string(bytes.TrimPrefix(raw, boms[0].bom))
	case enc != nil:
		b, err := enc.NewDecoder().Bytes(raw)
		if err != nil {
			return "", err
		}
		text = string(b)
	case utf8.Valid(raw):
		text = string(raw)
	default:
		text = sniff(raw)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return "", ErrBinary
	}
	if strings.TrimSpace(text) == "" {
		return "", ErrEmpty
	}
	return text, nil
}

// declared returns the encoding named by a BOM, the content type or a meta
// element, or nil when there is none.
func declared(raw []byte, contentType string) encoding.Encoding {
	for _, b := range boms {
		if bytes.HasPrefix(raw, b.bom) {
			return b.enc
		}
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if e := lookup(params["charset"]); e != nil {
			return e
		}
	}
	return lookup(metaCharset(prefix(raw, metaWindow)))
}

// lookup maps a WHATWG charset label to an encoding, widening the GB family
// to GB18030: pages labelled gb2312 routinely use GBK/GB18030 characters.
func lookup(label string) encoding.Encoding {
	if label == "" {
		return nil
	}
	e, name := charset.Lookup(label)
	switch {
	case e == nil:
		return nil
	case name == "gbk" || name == "gb18030":
		return simplifiedchinese.GB18030
	case name == "utf-8" || name == "utf-16le" || name == "utf-16be":
		// A meta cannot truthfully declare UTF-16 (HTML standard: treat as UTF-8).
		return xunicode.UTF8
	}
	return e
}

// metaCharset returns the charset declared by the first <meta charset> or
// <meta http-equiv=content-type content="...charset=..."> in b.
func metaCharset(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var content string
			httpEquiv := false
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					return strings.TrimSpace(string(v))
				case "http-equiv":
					httpEquiv = strings.EqualFold(string(v), "content-type")
				case "content":
					content = string(v)
				}
			}
			if httpEquiv {
				if _, params, err := mime.ParseMediaType(content); err == nil && params["charset"] != "" {
					return params["charset"]
				}
			}
		}
	}
}

// sniff decodes undeclared, non-UTF-8 bytes: as GB18030 or Big5 when one of
// them reads as Chinese, otherwise as windows-1252 like a browser would.
func sniff(raw []byte) string {
	best, bestScore := "", 0
	for _, e := range []encoding.Encoding{simplifiedchinese.GB18030, traditionalchinese.Big5} {
		b, err := e.NewDecoder().Bytes(raw)
		if err != nil {
			continue
		}
		s := string(b)
		if score := chineseScore(s); score > bestScore {
			best, bestScore = s, score
		}
	}
	if best != "" {
		return best
	}
	b, _ := charmap.Windows1252.NewDecoder().Bytes(raw) // windows-1252 maps every byte
	return string(b)
}

// commonHan holds very frequent Chinese characters in simplified and
// traditional forms; decoding with the wrong legacy encoding produces valid
// but rare characters, so their share tells the right decoder apart.
const commonHan = "的一是不了在人有我他这這中大来來上国國个個到说說们們为為子和你地出道也时時年得就那要下以生会會自着著去之过過家学學对對可里裡后後小么麼心多天而能好都然没沒日于於起还還发發成事只作当當想看文无無开開手十用主行方又如前所本见見经經头頭面公同三已老从從动動两兩长長"

// chineseScore rates how much s looks like Chinese text: common characters
// count, replacement and private-use characters (decoding errors) cost.
func chineseScore(s string) int {
	score := 0
	for _, r := range s {
		switch {
		case r == utf8.RuneError || unicode.Is(unicode.Co, r):
			score -= 20
		case strings.ContainsRune(commonHan, r):
			score += 3
		case unicode.Is(unicode.Han, r):
			score++
		}
	}
	return score
}

func prefix(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
