// Command mislabel builds a folder of raw pages whose charset labels lie,
// the way real crawls do, from the development corpus (decoded text) and
// the real GBK pages of the Chinese extraction set, and checks how
// page.Decode reads them back.
//
//	go run ./tools/mislabel -out /tmp/mislabel          # write the set
//	go run ./tools/mislabel -out /tmp/mislabel -check   # and score the decoder
//	go run ./tools/mislabel -fixtures page/testdata/decode
//
// Each development page becomes one raw file, its bytes and labels chosen
// by language and position (see variantsZH and variantsEN); the Chinese
// extraction pages, in their own GBK bytes, get a lying UTF-8 meta or two
// metas. Beside the folder it writes same.jsonl, the very texts that were
// encoded (so "the same pages given as JSONL"), and labels.jsonl, the
// development labels under the folder's document ids. -check decodes every
// written file and reports, per variant, the pages rejected and those whose
// text differs from what was encoded; with -chardet it also reports how
// often github.com/gogs/chardet picks the encoding that was used, for the
// pages where detection decides.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// variant is one way of writing a page's bytes and labels.
type variant struct {
	name  string
	enc   encoding.Encoding // nil: UTF-8
	metas []string          // charset labels written as <meta> elements, in order
	trad  bool              // convert simplified to traditional first (for Big5)
	want  string            // the charset a correct decoder reports
}

var (
	variantsZH = []variant{
		{name: "utf8-labelled-gb2312", metas: []string{"gb2312"}, want: "utf-8"},
		{name: "gbk-labelled-utf8", enc: simplifiedchinese.GB18030, metas: []string{"utf-8"}, want: "gb18030"},
		{name: "gbk-utf8-then-gbk-meta", enc: simplifiedchinese.GB18030, metas: []string{"UTF-8", "gbk"}, want: "gb18030"},
		{name: "big5-unlabelled", enc: traditionalchinese.Big5, trad: true, want: "big5"},
		{name: "gb18030-unlabelled", enc: simplifiedchinese.GB18030, want: "gb18030"},
	}
	variantsEN = []variant{
		{name: "cp1252-labelled-utf8", enc: charmap.Windows1252, metas: []string{"utf-8"}, want: "windows-1252"},
		{name: "utf8-labelled-gbk", metas: []string{"gbk"}, want: "utf-8"},
		{name: "cp1252-unlabelled", enc: charmap.Windows1252, want: "windows-1252"},
	}
	// The Chinese extraction pages are real GBK bytes; only their labels change.
	variantsReal = []variant{
		{name: "real-gbk-labelled-utf8", enc: simplifiedchinese.GB18030, metas: []string{"utf-8"}, want: "gb18030"},
		{name: "real-gbk-utf8-then-gbk-meta", enc: simplifiedchinese.GB18030, metas: []string{"UTF-8", "gbk"}, want: "gb18030"},
	}
)

var (
	metaRE = regexp.MustCompile(`(?i)<meta[^>]*charset[^>]*>`)
	headRE = regexp.MustCompile(`(?i)<head[^>]*>`)
	// wrapRE is the <text id=URL title=... encoding=...> wrapper of the
	// Chinese extraction pages.
	wrapRE = regexp.MustCompile(`(?s)^\s*<text id="([^"]*)"[^>]*encoding="([^"]*)"[^>]*>`)
)

// relabel removes every charset declaration of doc and inserts metas.
func relabel(doc string, metas []string) string {
	doc = metaRE.ReplaceAllString(doc, "")
	var b strings.Builder
	for i, m := range metas {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<meta charset="%s">`, m)
		} else {
			fmt.Fprintf(&b, `<meta http-equiv="Content-Type" content="text/html; charset=%s">`, m)
		}
	}
	if loc := headRE.FindStringIndex(doc); loc != nil {
		return doc[:loc[1]] + b.String() + doc[loc[1]:]
	}
	return b.String() + doc
}

// encode writes s in e, characters e lacks as numeric references, as a
// browser submitting a form would.
func encode(e encoding.Encoding, s string) ([]byte, error) {
	if e == nil {
		return []byte(s), nil
	}
	return encoding.HTMLEscapeUnsupported(e.NewEncoder()).Bytes([]byte(s))
}

// written is one file of the set.
type written struct {
	id, path string
	v        variant
}

// reference decodes the bytes of f with the encoding they were written in,
// as a correctly labelled page would be (a UTF-8 byte order mark dropped).
func (f written) reference(raw []byte) string {
	if f.v.enc == nil {
		return strings.TrimPrefix(string(raw), "\uFEFF")
	}
	b, _ := f.v.enc.NewDecoder().Bytes(raw)
	return string(b)
}

func main() {
	corpus := flag.String("corpus", "../shared/data/neardup/dev-corpus.jsonl.gz", "development corpus")
	labels := flag.String("labels", "../shared/data/neardup/dev-labels.jsonl", "development labels")
	zhDir := flag.String("zh", "../shared/data/extract/zh/original", "Chinese extraction pages (real GBK bytes)")
	tables := flag.String("tables", "analyzer/simplified_table.go", "Go file holding simplifiedPairs")
	out := flag.String("out", "", "folder to write the raw pages into (created; must not exist)")
	check := flag.Bool("check", false, "decode the written pages and report")
	useChardet := flag.Bool("chardet", false, "with -check, also score github.com/gogs/chardet")
	fixtures := flag.String("fixtures", "", "write the decoder's small real-byte test fixtures into this folder instead")
	flag.Parse()
	trad, err := traditionalTable(*tables)
	if err != nil {
		log.Fatal(err)
	}
	if *fixtures != "" {
		if err := writeFixtures(*fixtures, *corpus, *zhDir, trad); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *out == "" {
		log.Fatal("-out is required")
	}
	if err := os.Mkdir(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	files, err := writeSet(*out, *corpus, *zhDir, trad)
	if err != nil {
		log.Fatal(err)
	}
	if err := copyLabels(*labels, filepath.Join(*out, "..", filepath.Base(*out)+"-labels.jsonl")); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %d pages to %s, %s-same.jsonl and %s-labels.jsonl\n", len(files), *out, *out, *out)
	if *check {
		report(files, *useChardet)
	}
}

// writeSet writes every development page and every Chinese extraction page
// as raw bytes, and the development pages' encoded texts as JSONL.
func writeSet(out, corpus, zhDir string, trad map[rune]rune) ([]written, error) {
	sameF, err := os.Create(out + "-same.jsonl")
	if err != nil {
		return nil, err
	}
	defer sameF.Close()
	same := json.NewEncoder(sameF)
	same.SetEscapeHTML(false)
	var files []written
	nZH, nEN := 0, 0
	err = eachRecord(corpus, func(id, url, doc string) error {
		var v variant
		if hanCount(doc) > 200 {
			v, nZH = variantsZH[nZH%len(variantsZH)], nZH+1
		} else {
			v, nEN = variantsEN[nEN%len(variantsEN)], nEN+1
		}
		text := relabel(doc, v.metas)
		if v.trad {
			text = toTraditional(text, trad)
		}
		raw, err := encode(v.enc, text)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		path := filepath.Join(out, id+".html")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			return err
		}
		files = append(files, written{id, path, v})
		return same.Encode(map[string]string{"id": id, "url": url, "html": text})
	})
	if err != nil {
		return nil, err
	}
	real, err := filepath.Glob(filepath.Join(zhDir, "*.html"))
	if err != nil {
		return nil, err
	}
	for i, p := range real {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		text, ok := realText(raw)
		if !ok {
			continue // declared UTF-8 or unset: not a GBK page
		}
		v := variantsReal[i%len(variantsReal)]
		text = relabel(text, v.metas)
		b, err := encode(v.enc, text)
		if err != nil {
			return nil, err
		}
		id := "zh-" + strings.TrimSuffix(filepath.Base(p), ".html")
		path := filepath.Join(out, id+".html")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, err
		}
		files = append(files, written{id, path, v})
	}
	return files, nil
}

// realText decodes a Chinese extraction page declared gb2312 or gbk, its
// <text> wrapper removed, with the encoding it declares.
func realText(raw []byte) (string, bool) {
	m := wrapRE.FindSubmatchIndex(raw)
	if m == nil {
		return "", false
	}
	switch strings.ToLower(string(raw[m[4]:m[5]])) {
	case "gb2312", "gbk":
	default:
		return "", false
	}
	body := bytes.TrimSuffix(bytes.TrimSpace(raw[m[1]:]), []byte("</text>"))
	b, err := simplifiedchinese.GB18030.NewDecoder().Bytes(body)
	return string(b), err == nil && !strings.ContainsRune(string(b), utf8.RuneError)
}

// report decodes each file and prints, per variant, pages, rejected,
// decoded to a text other than the correctly labelled page gives, and
// decoded with another charset.
func report(files []written, useChardet bool) {
	type row struct{ pages, nonASCII, rejected, differ, wrongCharset, detected, chardetRight, ownRight int }
	rows := map[string]*row{}
	var order []string
	total := row{}
	sources := map[string]int{}
	for _, f := range files {
		r := rows[f.v.name]
		if r == nil {
			r = &row{}
			rows[f.v.name] = r
			order = append(order, f.v.name)
		}
		raw, err := os.ReadFile(f.path)
		if err != nil {
			log.Fatal(err)
		}
		r.pages++
		if !isASCII(raw) {
			r.nonASCII++
		}
		d, err := page.Decode(raw, "")
		switch {
		case err != nil:
			r.rejected++
			fmt.Printf("rejected %s (%s): %v\n", f.id, f.v.name, err)
		case d.Text != f.reference(raw):
			r.differ++
			fmt.Printf("differs %s (%s): decoded as %s (%s)\n", f.id, f.v.name, d.Charset, d.Source)
		}
		sources[d.Source]++
		if err == nil && d.Charset != f.v.want && !isASCII(raw) {
			r.wrongCharset++
		}
		if useChardet && (d.Source == page.SourceSniffed || d.Source == page.SourceOverridden) && !isASCII(raw) {
			r.detected++
			if d.Charset == f.v.want {
				r.ownRight++
			}
			if res, err := chardet.NewHtmlDetector().DetectBest(raw); err == nil && sameCharset(res.Charset, f.v.want) {
				r.chardetRight++
			}
		}
	}
	fmt.Printf("\n%-30s %6s %9s %8s %7s %13s", "variant", "pages", "non-ascii", "rejected", "differ", "wrong-charset")
	if useChardet {
		fmt.Printf(" %8s %8s %8s", "detected", "own-ok", "chardet-ok")
	}
	fmt.Println()
	for _, name := range order {
		r := rows[name]
		fmt.Printf("%-30s %6d %9d %8d %7d %13d", name, r.pages, r.nonASCII, r.rejected, r.differ, r.wrongCharset)
		if useChardet {
			fmt.Printf(" %8d %8d %8d", r.detected, r.ownRight, r.chardetRight)
		}
		fmt.Println()
		total.pages += r.pages
		total.rejected += r.rejected
		total.differ += r.differ
		total.detected += r.detected
		total.ownRight += r.ownRight
		total.chardetRight += r.chardetRight
	}
	same := total.pages - total.rejected - total.differ
	fmt.Printf("total %d pages: rejected %d, same text %d (%.2f%%)\n", total.pages, total.rejected, same, 100*float64(same)/float64(total.pages))
	if useChardet {
		fmt.Printf("detection decided %d pages: own scoring right %d, chardet right %d\n", total.detected, total.ownRight, total.chardetRight)
	}
	fmt.Printf("charset sources: %v\n", sources)
}

// sameCharset compares a chardet (IANA) name with a WHATWG name, the
// supersets the decoder uses counting as right.
func sameCharset(iana, whatwg string) bool {
	switch strings.ToLower(iana) {
	case "gb18030", "gbk", "gb2312":
		return whatwg == "gb18030"
	case "big5":
		return whatwg == "big5"
	case "shift_jis":
		return whatwg == "shift_jis"
	case "euc-kr":
		return whatwg == "euc-kr"
	case "iso-8859-1", "windows-1252":
		return whatwg == "windows-1252"
	case "utf-8":
		return whatwg == "utf-8"
	}
	return false
}

// eachRecord calls fn for each page of a JSONL corpus (gzipped or not).
func eachRecord(path string, fn func(id, url, html string) error) error {
	for p, err := range page.Read([]string{path}, page.Options{}) {
		if err != nil {
			return err
		}
		if err := fn(p.ID, p.URL, p.HTML); err != nil {
			return err
		}
	}
	return nil
}

// copyLabels copies the development labels: the folder's ids are the
// corpus ids (page.Read names a file by its path without extension).
func copyLabels(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// traditionalTable inverts the analyzer's traditional-to-simplified pairs
// (read from its generated Go source), keeping the first traditional form
// of each simplified character.
func traditionalTable(path string) (map[rune]rune, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var pairs strings.Builder
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err == nil {
				pairs.WriteString(s)
			}
		}
		return true
	})
	m := map[rune]rune{}
	rs := []rune(pairs.String())
	for i := 0; i+1 < len(rs); i += 2 {
		if _, ok := m[rs[i+1]]; !ok {
			m[rs[i+1]] = rs[i]
		}
	}
	if len(m) < 1000 {
		return nil, fmt.Errorf("%s: only %d pairs found", path, len(m))
	}
	return m, nil
}

func toTraditional(s string, trad map[rune]rune) string {
	return strings.Map(func(r rune) rune {
		if t, ok := trad[r]; ok {
			return t
		}
		return r
	}, s)
}

func hanCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			n++
		}
	}
	return n
}

func isASCII(b []byte) bool {
	return !slices.ContainsFunc(b, func(c byte) bool { return c >= utf8.RuneSelf })
}

// The decoder's fixtures: small cuts of real pages (Chinese in its own GBK
// bytes, English news text), relabelled or re-encoded, plus short Japanese
// and Korean texts. Each is cut at a '>' so no multi-byte character is
// split.
func writeFixtures(dir, corpus, zhDir string, trad map[rune]rune) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gbkPage, err := os.ReadFile(filepath.Join(zhDir, "05e98007-d810-4036-b154-2ef2fe68c2af.html"))
	if err != nil {
		return err
	}
	gbkText, ok := realText(gbkPage)
	if !ok {
		return fmt.Errorf("fixture page is not GBK")
	}
	gbkText = cut(gbkText, 1500)
	var zhUTF8, en string
	err = eachRecord(corpus, func(id, url, doc string) error {
		if zhUTF8 == "" && hanCount(doc) > 200 && strings.Contains(doc, "，") {
			if i := strings.Index(doc, "<p"); i >= 0 {
				zhUTF8 = "<html><head><title>t</title></head><body>" + cut(doc[i:], 1200)
			}
		}
		if en == "" && strings.Contains(doc, "’") && strings.Contains(doc, "é") && hanCount(doc) == 0 {
			if i := strings.Index(doc, "é"); i >= 0 {
				if j := strings.LastIndex(doc[:i], "<p"); j >= 0 {
					en = "<html><head><title>t</title></head><body>" + cut(doc[j:], 1200)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if zhUTF8 == "" || en == "" {
		return fmt.Errorf("no fixture pages found in %s", corpus)
	}
	ja := "<html><head><title>t</title></head><body><p>東京都は今日、新しい交通計画を発表しました。市民の意見を聞きながら、来年から順番に実施する予定です。</p></body></html>"
	ko := "<html><head><title>t</title></head><body><p>서울시는 오늘 새로운 교통 계획을 발표했다. 시민들의 의견을 들으면서 내년부터 차례로 시행할 예정이다.</p></body></html>"
	type fx struct {
		name, text string
		enc        encoding.Encoding
		metas      []string
		trad       bool
	}
	for _, f := range []fx{
		{"gbk-meta-gb2312.html", gbkText, simplifiedchinese.GB18030, []string{"gb2312"}, false},
		{"gbk-meta-utf8.html", gbkText, simplifiedchinese.GB18030, []string{"utf-8"}, false},
		{"gbk-meta-utf8-then-gbk.html", gbkText, simplifiedchinese.GB18030, []string{"UTF-8", "gbk"}, false},
		{"gbk-unlabelled.html", gbkText, simplifiedchinese.GB18030, nil, false},
		{"big5-unlabelled.html", gbkText, traditionalchinese.Big5, nil, true},
		{"utf8-meta-gb2312.html", zhUTF8, nil, []string{"gb2312"}, false},
		{"cp1252-meta-utf8.html", en, charmap.Windows1252, []string{"utf-8"}, false},
		{"cp1252-unlabelled.html", en, charmap.Windows1252, nil, false},
		{"sjis-unlabelled.html", ja, japanese.ShiftJIS, nil, false},
		{"euckr-unlabelled.html", ko, korean.EUCKR, nil, false},
	} {
		text := relabel(f.text, f.metas)
		if f.trad {
			text = toTraditional(text, trad)
		}
		b, err := encode(f.enc, text)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// cut returns the start of s, about n bytes, ending at a '>'.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '>'); i > 0 {
		return s[:i+1]
	}
	return s[:n]
}
