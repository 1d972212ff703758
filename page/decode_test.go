package page

import (
	"errors"
	"os"
	"strings"
	"testing"

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
		want              string // substring of the result
		err               error
	}{
		{"ascii", "", []byte("<p>hello"), "hello", nil},
		{"utf8 bom", "", append([]byte("\xef\xbb\xbf<p>"), zhSimplified...), "<p>" + zhSimplified, nil},
		{"utf16 bom", "", utf16, zhSimplified, nil},
		{"content type gbk", "text/html; charset=GBK", gbk, zhSimplified, nil},
		{"meta gb2312 holding gb18030", "", append([]byte(`<meta charset="gb2312">`), gb18030...), "㐀", nil},
		{"meta big5", "", append([]byte(`<meta http-equiv=Content-Type content="text/html;charset=big5">`), big5...), zhTraditional, nil},
		{"sniff gbk", "", gbk, zhSimplified, nil},
		{"sniff big5", "", big5, zhTraditional, nil},
		{"sniff latin1", "", []byte("caf\xe9 cr\xe8me"), "café crème", nil},
		{"header beats meta", "text/html; charset=gbk", append([]byte("<meta charset=big5>"), gbk...), zhSimplified, nil},
		{"declared utf8 invalid", "", []byte("<meta charset=utf-8>caf\xe9"), "", ErrInvalidUTF8},
		{"binary", "", []byte("ab\x00cd"), "", ErrBinary},
		{"empty", "", []byte(" \r\n"), "", ErrEmpty},
	}
	for _, tt := range tests {
		got, err := Decode(tt.raw, tt.contentType)
		if !errors.Is(err, tt.err) || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, %v; want ~%q, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}
