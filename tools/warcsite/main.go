// Command warcsite serves the development corpus as a web site on
// loopback, for archiving with a real crawler (wget --warc-file), and
// writes the very bytes it serves into a folder, so the archive and the
// folder can be indexed and compared. It also writes large WARC files with
// gowarc's own writer, for throughput and memory measurements.
//
//	go run ./tools/warcsite -dir /tmp/site -addr 127.0.0.1:8089 serve
//	wget --recursive --level=1 --no-verbose --delete-after --warc-file=/tmp/site http://127.0.0.1:8089/
//	go run ./tools/warcsite -dir /tmp/site -out /tmp/big.warc -passes 10 write
//
// Pages are served at /p/<id>.html, listed by the home page. Chinese pages
// alternate between GBK with "charset=gbk" in the Content-Type header and
// UTF-8 with "charset=utf-8" (their old <meta charset=gb2312> left in);
// English pages are UTF-8. The folder holds p/<id>.html with the served
// bytes and charsets.json with the header charset of each.
//
// write archives the folder's pages -passes times as response records
// (pass k at /r<k>/p/<id>.html, a pass number added to the title so no two
// records are byte-identical), with one gzip member per record when -out
// ends in .gz.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/nlnwa/gowarc/v3"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func main() {
	corpus := flag.String("corpus", "../shared/data/neardup/dev-corpus.jsonl.gz", "development corpus")
	dir := flag.String("dir", "", "folder of the site's pages (written by serve when absent)")
	addr := flag.String("addr", "127.0.0.1:8089", "serve: loopback address to listen on")
	out := flag.String("out", "", "write: WARC file to write (.warc or .warc.gz)")
	passes := flag.Int("passes", 10, "write: how many times each page is archived")
	flag.Parse()
	if *dir == "" || flag.NArg() != 1 {
		log.Fatal("usage: warcsite -dir DIR [flags] serve|write")
	}
	if _, err := os.Stat(filepath.Join(*dir, "charsets.json")); err != nil {
		if err := writeSite(*dir, *corpus); err != nil {
			log.Fatal(err)
		}
	}
	charsets, err := readCharsets(*dir)
	if err != nil {
		log.Fatal(err)
	}
	switch flag.Arg(0) {
	case "serve":
		if !strings.HasPrefix(*addr, "127.") && !strings.HasPrefix(*addr, "localhost:") {
			log.Fatal("-addr must be a loopback address")
		}
		log.Printf("serving %d pages of %s on http://%s/", len(charsets), *dir, *addr)
		log.Fatal(http.ListenAndServe(*addr, handler(*dir, charsets)))
	case "write":
		if err := writeWARC(*out, *dir, charsets, *passes); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatalf("unknown command %q", flag.Arg(0))
	}
}

// writeSite writes the corpus pages as served bytes and their header
// charsets.
func writeSite(dir, corpus string) error {
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		return err
	}
	charsets := map[string]string{}
	nZH := 0
	for r, err := range page.Read([]string{corpus}, page.Options{}) {
		if err != nil {
			return err
		}
		raw, cs := []byte(r.HTML), "utf-8"
		if hanCount(r.HTML) > 200 {
			if nZH%2 == 0 {
				if raw, err = encoding.HTMLEscapeUnsupported(simplifiedchinese.GBK.NewEncoder()).Bytes(raw); err != nil {
					return err
				}
				cs = "gbk"
			}
			nZH++
		}
		if err := os.WriteFile(filepath.Join(dir, "p", r.ID+".html"), raw, 0o644); err != nil {
			return err
		}
		charsets[r.ID] = cs
	}
	b, err := json.Marshal(charsets)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "charsets.json"), b, 0o644)
}

func readCharsets(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "charsets.json"))
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	return m, json.Unmarshal(b, &m)
}

// handler serves the home page and the pages with their header charsets.
func handler(dir string, charsets map[string]string) http.Handler {
	ids := make([]string, 0, len(charsets))
	for id := range charsets {
		ids = append(ids, id)
	}
	// Listed in the order a directory walk reads the folder (by file name),
	// so that the archive and the folder are indexed in one order: the
	// filter's decisions depend on it.
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(a+".html", b+".html") })
	var home bytes.Buffer
	home.WriteString("<!DOCTYPE html><html><head><title>Pages</title></head><body><ul>\n")
	for _, id := range ids {
		fmt.Fprintf(&home, "<li><a href=\"/p/%s.html\">%s</a>\n", html.EscapeString(id), html.EscapeString(id))
	}
	home.WriteString("</ul></body></html>\n")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(home.Bytes())
	})
	mux.HandleFunc("GET /p/{name}", func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimSuffix(r.PathValue("name"), ".html")
		cs, ok := charsets[id]
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, "p", id+".html"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset="+cs)
		w.Write(b)
	})
	return mux
}

// writeWARC archives the folder's pages passes times with gowarc's writer.
func writeWARC(out, dir string, charsets map[string]string, passes int) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	ids := make([]string, 0, len(charsets))
	for id := range charsets {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	compress := strings.HasSuffix(out, ".gz")
	w := gowarc.NewWarcFileWriter(
		gowarc.WithCompression(compress),
		gowarc.WithMaxFileSize(1<<40),
		gowarc.WithFileNameGenerator(&gowarc.PatternNameGenerator{Directory: filepath.Dir(out), Pattern: strings.TrimSuffix(filepath.Base(out), ".gz")}),
		gowarc.WithCompressedFileSuffix(".gz"),
	)
	date := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	for k := range passes {
		for _, id := range ids {
			body, err := os.ReadFile(filepath.Join(dir, "p", id+".html"))
			if err != nil {
				return err
			}
			// Vary each pass so no two records are byte-identical.
			body = bytes.Replace(body, []byte("</title>"), fmt.Appendf(nil, " (%d)</title>", k), 1)
			rb := gowarc.NewRecordBuilder(gowarc.Response, gowarc.WithFixContentLength(true), gowarc.WithAddMissingDigest(true))
			fmt.Fprintf(rb, "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=%s\r\nContent-Length: %d\r\n\r\n", charsets[id], len(body))
			rb.Write(body)
			rb.AddWarcHeader(gowarc.WarcTargetURI, fmt.Sprintf("http://127.0.0.1:8089/r%d/p/%s.html", k, id))
			rb.AddWarcHeaderTime(gowarc.WarcDate, date)
			rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
			rec, _, err := rb.Build()
			if err != nil {
				return err
			}
			for _, resp := range w.Write(rec) {
				if resp.Err != nil {
					return resp.Err
				}
			}
			rec.Close()
			n++
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	log.Printf("wrote %d response records", n)
	return nil
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
