package page

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	xunicode "golang.org/x/text/encoding/unicode"
)

func writeFile(tb testing.TB, path, s string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestDecode(t *testing.T) {
	gbk := mustEncode(t, simplifiedchinese.GBK, zhSimplified)
	gb18030 := mustEncode(t, simplifiedchinese.GB18030, "㐀"+zhSimplified) // 㐀 needs 4 bytes in GB18030
	big5 := mustEncode(t, traditionalchinese.Big5, zhTraditional)
	utf16 := mustEncode(t, xunicode.UTF16(xunicode.LittleEndian, xunicode.UseBOM), "<p>"+zhSimplified)
	tests := []struct {
		name, contentType string
		raw               []byte
		want              string // substring of the text
		charset, source   string
		err               error
	}{
		{"ascii", "", []byte("<p>hello"), "hello", "utf-8", SourceSniffed, nil},
		{"ascii labelled", "", []byte("<meta charset=iso-8859-1><p>hello"), "hello", "windows-1252", SourceMeta, nil},
		{"utf8 bom", "", append([]byte("\xef\xbb\xbf<p>"), zhSimplified...), "<p>" + zhSimplified, "utf-8", SourceBOM, nil},
		{"utf8 bom over gbk", "", append([]byte("\xef\xbb\xbf<p>"), gbk...), "<p>" + zhSimplified, "gb18030", SourceOverridden, nil},
		{"utf16 bom", "", utf16, zhSimplified, "utf-16le", SourceBOM, nil},
		{"content type gbk", "text/html; charset=GBK", gbk, zhSimplified, "gb18030", SourceHeader, nil},
		{"meta gb2312 holding gb18030", "", append([]byte(`<meta charset="gb2312">`), gb18030...), "㐀", "gb18030", SourceMeta, nil},
		{"meta big5", "", append([]byte(`<meta http-equiv=Content-Type content="text/html;charset=big5">`), big5...), zhTraditional, "big5", SourceMeta, nil},
		{"sniff gbk", "", gbk, zhSimplified, "gb18030", SourceSniffed, nil},
		{"sniff big5", "", big5, zhTraditional, "big5", SourceSniffed, nil},
		{"sniff latin1", "", []byte("caf\xe9 cr\xe8me"), "café crème", "windows-1252", SourceSniffed, nil},
		{"header beats meta", "text/html; charset=gbk", append([]byte("<meta charset=big5>"), gbk...), zhSimplified, "gb18030", SourceHeader, nil},
		{"header wrong, meta right", "text/html; charset=big5", append([]byte("<meta charset=gbk>"), gbk...), zhSimplified, "gb18030", SourceMeta, nil},
		{"valid utf8 beats header", "text/html; charset=gbk", []byte("<p>" + zhSimplified), zhSimplified, "utf-8", SourceOverridden, nil},
		{"stray byte in utf8", "", []byte("<meta charset=utf-8><p>" + strings.Repeat(zhSimplified, 4) + "\xff"), zhSimplified + "\uFFFD", "utf-8", SourceMeta, nil},
		{"declared utf8, windows-1252", "", []byte("<meta charset=utf-8>caf\xe9"), "café", "windows-1252", SourceOverridden, nil},
		{"cyrillic label kept", "text/html; charset=windows-1251", mustEncode(t, charmap.Windows1251, "<p>Москва — столица России, крупнейший по численности населения город страны."), "Москва", "windows-1251", SourceHeader, nil},
		{"latin1 header over gbk", "text/html; charset=iso-8859-1", gbk, zhSimplified, "gb18030", SourceOverridden, nil},
		{"unknown label", "", append([]byte("<meta charset=klingon>"), gbk...), zhSimplified, "gb18030", SourceSniffed, nil},
		{"binary", "", []byte("ab\x00cd"), "", "", "", ErrBinary},
		{"png", "", append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), pseudoRandom(4096)...), "", "", "", ErrBinary},
		{"stray nul in a page", "", []byte("<meta charset=utf-8><p>" + strings.Repeat(zhSimplified, 4) + "\x00</p>"), zhSimplified + "</p>", "utf-8", SourceMeta, nil},
		{"stray nul in a latin1 page", "", []byte("<p>caf\xe9 cr\xe8me, " + strings.Repeat("plain words ", 10) + "\x00</p>"), "crème, plain", "windows-1252", SourceSniffed, nil},
		{"iso-2022-jp escapes", "", []byte("<meta charset=iso-2022-jp><p>\x1b$B$3$s$K$A$O\x1b(B</p>"), "こんにちは", "iso-2022-jp", SourceMeta, nil},
		{"utf16le without bom", "", utf16LE("<html><body><p>" + zhSimplified + " text</p></body></html>"), zhSimplified + " text", "utf-16le", SourceSniffed, nil},
		{"utf16be without bom", "", utf16BE("<html><body><p>Grüße aus Köln</p></body></html>"), "Grüße aus Köln", "utf-16be", SourceSniffed, nil},
		{"empty", "", []byte(" \r\n"), "", "", "", ErrEmpty},
		{"bom only", "", []byte("\xef\xbb\xbf "), "", "", "", ErrEmpty},
	}
	for _, tt := range tests {
		d, err := Decode(tt.raw, tt.contentType)
		if !errors.Is(err, tt.err) || !strings.Contains(d.Text, tt.want) || d.Charset != tt.charset || d.Source != tt.source {
			t.Errorf("%s: got %q %s/%s, %v; want ~%q %s/%s, %v", tt.name, d.Text, d.Charset, d.Source, err, tt.want, tt.charset, tt.source, tt.err)
		}
	}
}

// TestDecodeRealBytes decodes the fixtures under testdata/decode: cuts of
// real pages (Chinese in its own GBK bytes, Portuguese news text) and short
// Japanese and Korean texts, written by internal/cmd/mislabel with lying,
// contradictory or missing labels. Each must decode to the same text as
// its bytes decoded with the encoding they are in.
func TestDecodeRealBytes(t *testing.T) {
	tests := []struct {
		file, contentType string
		enc               encoding.Encoding // what the bytes are
		charset, source   string
	}{
		{"gbk-meta-gb2312.html", "", simplifiedchinese.GB18030, "gb18030", SourceMeta},
		{"gbk-meta-gb2312.html", "text/html; charset=ISO-8859-1", simplifiedchinese.GB18030, "gb18030", SourceMeta},
		{"gbk-meta-gb2312.html", "text/html; charset=utf-8", simplifiedchinese.GB18030, "gb18030", SourceMeta},
		{"gbk-meta-utf8.html", "", simplifiedchinese.GB18030, "gb18030", SourceOverridden},
		{"gbk-meta-utf8-then-gbk.html", "", simplifiedchinese.GB18030, "gb18030", SourceMeta},
		{"gbk-unlabelled.html", "", simplifiedchinese.GB18030, "gb18030", SourceSniffed},
		{"gbk-unlabelled.html", "text/html; charset=gbk", simplifiedchinese.GB18030, "gb18030", SourceHeader},
		{"big5-unlabelled.html", "", traditionalchinese.Big5, "big5", SourceSniffed},
		{"big5-unlabelled.html", "text/html; charset=gb2312", traditionalchinese.Big5, "big5", SourceOverridden},
		{"utf8-meta-gb2312.html", "", xunicode.UTF8, "utf-8", SourceOverridden},
		{"cp1252-meta-utf8.html", "", charmap.Windows1252, "windows-1252", SourceOverridden},
		{"cp1252-unlabelled.html", "", charmap.Windows1252, "windows-1252", SourceSniffed},
		{"cp1252-unlabelled.html", "text/html; charset=iso-8859-1", charmap.Windows1252, "windows-1252", SourceHeader},
		{"sjis-unlabelled.html", "", japanese.ShiftJIS, "shift_jis", SourceSniffed},
		{"euckr-unlabelled.html", "", korean.EUCKR, "euc-kr", SourceSniffed},
	}
	for _, tt := range tests {
		raw, err := os.ReadFile(filepath.Join("testdata", "decode", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		want, err := tt.enc.NewDecoder().Bytes(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(raw, tt.contentType)
		if err != nil || got.Text != string(want) || got.Charset != tt.charset || got.Source != tt.source {
			t.Errorf("%s (%q): got %s/%s, %v, same text %t; want %s/%s", tt.file, tt.contentType,
				got.Charset, got.Source, err, got.Text == string(want), tt.charset, tt.source)
		}
	}
}

// TestDecodeMislabelledCorpus writes the development corpus as raw pages
// with lying labels (as internal/cmd/mislabel does) and checks that none
// is rejected and at least 99% decode to the text their bytes hold.
func TestDecodeMislabelledCorpus(t *testing.T) {
	path := devCorpus
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus absent: %v", err)
	}
	encs := []struct {
		enc  encoding.Encoding
		meta string
	}{
		{simplifiedchinese.GB18030, `<meta charset="utf-8">`},
		{simplifiedchinese.GB18030, ""},
		{xunicode.UTF8, `<meta charset="gb2312">`},
	}
	pages, same := 0, 0
	for p, err := range Read([]string{path}, DefaultOptions()) {
		if err != nil {
			continue
		}
		e := encs[pages%len(encs)]
		text := e.meta + p.HTML
		raw, err := encoding.HTMLEscapeUnsupported(e.enc.NewEncoder()).Bytes([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := e.enc.NewDecoder().Bytes(raw)
		pages++
		d, err := Decode(raw, "")
		if err != nil {
			t.Errorf("%s: rejected: %v", p.ID, err)
			continue
		}
		// A UTF-8 byte order mark is dropped, a GB18030 one kept: compare without.
		if strings.TrimPrefix(d.Text, "\uFEFF") == strings.TrimPrefix(string(want), "\uFEFF") {
			same++
		}
	}
	if pages == 0 || float64(same) < 0.99*float64(pages) {
		t.Errorf("%d of %d pages decoded to the same text, want at least 99%%", same, pages)
	}
}

// pseudoRandom returns n bytes of a fixed pseudo-random sequence, like
// compressed data.
func pseudoRandom(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf16BE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}
