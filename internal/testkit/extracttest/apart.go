package extracttest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/page"
	"golang.org/x/text/encoding/unicode"
)

// Extraction sets kept apart from ../shared/data (too large for it, or
// licensed for research use only): each is looked for as
// ../shared/data/extract/<name> and then as ../extdata/<name> beside the
// module; docs/extraction.md says where each comes from and how its
// directory is laid out. Tests that need one skip where neither exists.

// apartDir returns the directory of the set kept apart named name, or
// skips tb.
func apartDir(tb testing.TB, name string) string {
	tb.Helper()
	shared := filepath.Join(dataDir(tb), "extract", name)
	if _, err := os.Stat(shared); err == nil {
		return shared
	}
	dir := filepath.Join(ModuleRoot(tb), "..", "extdata", name)
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("extraction set %s absent from ../shared/data/extract and ../extdata (see docs/extraction.md, \"Sets kept apart\"): %v", name, err)
	}
	return dir
}

// commentsMark separates a Dragnet gold text's article from the page's
// comments: "!@#$%^&*()  COMMENTS" on a line of its own, which the
// annotators typed with a few variations ("!@ $%^&*()  COMMENTS").
var commentsMark = regexp.MustCompile(`(?m)^\s*[!@#$%^&*()][!@#$%^&*()\s]*COMMENTS\s*$`)

// LoadDragnet reads the Dragnet set (Moz, 2012; ../extdata/dragnet):
// html/<id>.html, decoded with page.Decode (charset detection), and
// gold/<id>.txt, whose text before the comments mark is the article (the
// comments after it are not main content here, as in Dragnet's
// "content" task). Its pages have no URL.
func LoadDragnet(tb testing.TB) []Sample {
	dir := apartDir(tb, "dragnet")
	names, err := filepath.Glob(filepath.Join(dir, "html", "*.html"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no pages in %s: %v", dir, err)
	}
	var out []Sample
	for _, name := range names {
		id := strings.TrimSuffix(filepath.Base(name), ".html")
		raw, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		d, err := page.Decode(raw, "")
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		gold, err := os.ReadFile(filepath.Join(dir, "gold", id+".txt"))
		if err != nil {
			tb.Fatal(err)
		}
		g, err := bomText(gold)
		if err != nil {
			tb.Fatalf("%s: %v", id, err)
		}
		if loc := commentsMark.FindStringIndex(g); loc != nil {
			g = g[:loc[0]]
		}
		out = append(out, Sample{Name: id, HTML: d.Text, Gold: g})
	}
	return out
}

// bomText returns b as text: UTF-16 when it starts with a byte-order mark
// (5 of Dragnet's gold files), else UTF-8.
func bomText(b []byte) (string, error) {
	if !bytes.HasPrefix(b, []byte{0xff, 0xfe}) && !bytes.HasPrefix(b, []byte{0xfe, 0xff}) {
		return string(b), nil
	}
	out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(b)
	if err != nil {
		return "", fmt.Errorf("extracttest: UTF-16 gold text: %w", err)
	}
	return string(out), nil
}

// l3sContent are the L3S-GN1 labels of main content: headline and full
// text (not supplemental text such as captions, related links or
// comments).
var l3sContent = map[string]bool{"x-nc-sel1": true, "x-nc-sel2": true}

// LoadL3S reads L3S-GN1 (Kohlschütter et al., 2010; ../extdata/l3s-gn1):
// original/<uuid>.html, decoded with page.Decode, and as gold the
// headline and full-text blocks marked in annotated/<uuid>.html; the URL
// of each page comes from url-mapping.txt.
func LoadL3S(tb testing.TB) []Sample {
	dir := apartDir(tb, "l3s-gn1")
	urls := map[string]string{}
	f, err := os.Open(filepath.Join(dir, "url-mapping.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, u, ok := strings.Cut(sc.Text(), "\t")
		if ok {
			urls[strings.TrimSuffix(strings.TrimPrefix(id, "<urn:uuid:"), ">")] = strings.TrimSpace(u)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "original", "*.html"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no pages in %s: %v", dir, err)
	}
	var out []Sample
	for _, name := range names {
		id := strings.TrimSuffix(filepath.Base(name), ".html")
		var text [2]string
		for i, path := range []string{name, filepath.Join(dir, "annotated", id+".html")} {
			raw, err := os.ReadFile(path)
			if err != nil {
				tb.Fatal(err)
			}
			d, err := page.Decode(raw, "")
			if err != nil {
				tb.Fatalf("%s: %v", path, err)
			}
			text[i] = d.Text
		}
		out = append(out, Sample{Name: id, URL: urls[id], HTML: text[0], Gold: markedText(text[1], l3sContent)})
	}
	return out
}
