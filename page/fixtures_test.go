package page

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
)

const (
	zhSimplified  = "新华社北京电，国务院总理今天在人民大会堂会见了来访的代表团，双方就经济合作问题交换了意见。"
	zhTraditional = "中央社台北電，行政院今天舉行會議，討論了經濟發展與國際合作的問題，並通過多項議案。"
)

func mustEncode(tb testing.TB, e encoding.Encoding, s string) []byte {
	tb.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		tb.Fatalf("encode %q: %v", s, err)
	}
	return b
}

func gz(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// fixtures returns the files under testdata/corpus, built with the x/text
// encoders so the legacy-encoded bytes are known to be right.
func fixtures(tb testing.TB) map[string][]byte {
	gbkMeta := append(append([]byte(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>t</title></head><body><p>`),
		mustEncode(tb, simplifiedchinese.GBK, zhSimplified)...), "</p></body></html>"...)
	return map[string][]byte{
		"a/gbk-meta.html":   gbkMeta,
		"a/gbk-sniff.html":  append([]byte("<p>"), mustEncode(tb, simplifiedchinese.GBK, zhSimplified)...),
		"b/big5-sniff.htm":  append([]byte("<p>"), mustEncode(tb, traditionalchinese.Big5, zhTraditional)...),
		"b/utf8.html.gz":    gz(tb, []byte("<p>"+zhSimplified+"</p>")),
		"note.txt":          []byte("plain text\n\nsecond paragraph\n"),
		"empty.html":        []byte(" \n"),
		"binary.html":       []byte("\x7fELF\x00\x00\x01"),
		"bad-utf8.html":     []byte("<meta charset=utf-8><p>caf\xe9</p>"),
		"ignored.json":      []byte("{}"),
		"big.html":          bytes.Repeat([]byte("<p>x</p>\n"), 200),
		"c/d/nested.htm.gz": gz(tb, []byte("<p>nested</p>")),
	}
}

// TestFixtures checks that testdata/corpus holds exactly what fixtures
// builds; run with -update to rewrite it.
func TestFixtures(t *testing.T) {
	for name, want := range fixtures(t) {
		path := filepath.Join("testdata", "corpus", filepath.FromSlash(name))
		if golden.Updating() {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestFixtures -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator (run go test -run TestFixtures -update)", path)
		}
	}
}
