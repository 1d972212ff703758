package page

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
)

// warcRecord returns one WARC record with the given header fields (a
// Content-Length is added) and block.
func warcRecord(version, typ, uri string, fields map[string]string, block string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "WARC/%s\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\nWARC-Date: 2024-05-01T10:00:00Z\r\n", version, typ, len(uri)+len(block))
	if uri != "" {
		fmt.Fprintf(&b, "WARC-Target-URI: %s\r\n", uri)
	}
	for k, v := range fields {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s\r\n\r\n", len(block), block)
	return b.Bytes()
}

// httpResponse returns an HTTP/1.1 response as a WARC response block.
func httpResponse(status, header, body string) string {
	return "HTTP/1.1 " + status + "\r\n" + header + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
}

func gzipMember(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// testRecords are a small crawl: what a crawler archives besides pages,
// pages in several shapes, and records to skip.
func testRecords(tb testing.TB) [][]byte {
	tb.Helper()
	gbkBody := string(mustEncode(tb, simplifiedchinese.GBK, "<html><body><p>"+zhSimplified+"</p></body></html>"))
	var chunked bytes.Buffer
	gz := gzip.NewWriter(&chunked)
	gz.Write([]byte("<html><body><p>gzip and chunked</p></body></html>"))
	gz.Close()
	zipped := chunked.String()
	chunkedBody := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(zipped), zipped)
	http := "application/http; msgtype=response"
	return [][]byte{
		warcRecord("1.1", "warcinfo", "", map[string]string{"Content-Type": "application/warc-fields"}, "software: test\r\n"),
		warcRecord("1.1", "request", "http://example.com/", map[string]string{"Content-Type": "application/http; msgtype=request"}, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
		warcRecord("1.1", "response", "http://Example.com:80/news/index.html?utm_source=feed#top", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "Content-Type: text/html; charset=gbk\r\n", gbkBody)),
		warcRecord("1.0", "response", "http://example.com/missing", map[string]string{"Content-Type": http},
			httpResponse("404 Not Found", "Content-Type: text/html\r\n", "<p>gone</p>")),
		// The "<uri>" form of the WARC/1.0 grammar, as wget writes it.
		warcRecord("1.0", "response", "<http://example.com/bracketed>", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "Content-Type: text/html\r\n", "<p>bracketed</p>")),
		warcRecord("1.1", "response", "http://example.com/logo.png", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "Content-Type: image/png\r\n", "\x89PNG\r\n\x1a\n")),
		warcRecord("1.1", "response", "http://example.com/zipped", map[string]string{"Content-Type": http},
			"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"+chunkedBody),
		warcRecord("1.1", "response", "http://example.com/untyped", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "", "<!DOCTYPE html><html><body><p>no content type</p></body></html>")),
		warcRecord("1.1", "resource", "http://example.com/saved.html", map[string]string{"Content-Type": "text/html"}, "<p>a resource record</p>"),
		warcRecord("1.1", "resource", "metadata://example.com/crawl.log", map[string]string{"Content-Type": "text/plain"}, "log line\n"),
		warcRecord("1.1", "response", "dns:example.com", map[string]string{"Content-Type": "text/dns"}, "example.com. 300 IN A 127.0.0.1\n"),
		warcRecord("1.1", "response", "http://example.com/news/", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "Content-Type: text/html\r\n", "<p>the same page again</p>")),
		warcRecord("1.1", "response", "http://example.com/empty", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "Content-Type: text/html\r\n", "  ")),
		warcRecord("1.1", "response", "http://example.com/brotli", map[string]string{"Content-Type": http},
			httpResponse("200 OK", "Content-Type: text/html\r\nContent-Encoding: br\r\n", "xx")),
		// Cut at the archiver's size limit (warcout marks such bodies).
		warcRecord("1.1", "response", "http://example.com/cut", map[string]string{"Content-Type": http, "WARC-Truncated": "length"},
			httpResponse("200 OK", "Content-Type: text/html\r\n", "<html><body><p>the first part of a long p")),
	}
}

// describe flattens what Read yields for a golden file.
func describe(tb testing.TB, inputs []string, opts Options) string {
	tb.Helper()
	var b strings.Builder
	for p, err := range Read(inputs, opts) {
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		body := p.HTML
		if len(body) > 60 {
			body = body[:60]
		}
		fmt.Fprintf(&b, "page %s url=%s charset=%s/%s source=%s\n  %q\n", p.ID, p.URL, p.Charset, p.CharsetSource, p.Source, body)
	}
	return b.String()
}

func TestReadWARC(t *testing.T) {
	dir := t.TempDir()
	var plain, gz []byte
	for _, r := range testRecords(t) {
		plain = append(plain, r...)
		gz = append(gz, gzipMember(t, r)...)
	}
	writeFile(t, filepath.Join(dir, "crawl.warc"), string(plain))
	writeFile(t, filepath.Join(dir, "crawl.warc.gz"), string(gz))
	for _, name := range []string{"crawl.warc", "crawl.warc.gz"} {
		got := strings.ReplaceAll(describe(t, []string{filepath.Join(dir, name)}, DefaultOptions()), dir+string(filepath.Separator), "")
		golden.Check(t, name+".golden", got)
	}
}

// TestReadWARCCorrupt damages records of a gzipped and a plain WARC and
// checks that each damage is reported at its record's offset and that the
// records after it are still read.
func TestReadWARCCorrupt(t *testing.T) {
	page := func(path string) []byte {
		return warcRecord("1.1", "resource", "http://example.com/"+path, map[string]string{"Content-Type": "text/html"}, "<p>page "+path+"</p>")
	}
	members := [][]byte{gzipMember(t, page("a")), gzipMember(t, page("b")), gzipMember(t, page("c")), gzipMember(t, page("d"))}
	offsets := []int64{0}
	for _, m := range members {
		offsets = append(offsets, offsets[len(offsets)-1]+int64(len(m)))
	}
	flipped := bytes.Clone(members[1])
	for i := 20; i < len(flipped)-8; i++ {
		flipped[i] ^= 0x55 // deflate data garbled, header intact
	}
	plainB := page("b")
	tests := []struct {
		name   string
		data   []byte
		want   []string // ids of the pages read, in order
		offset []int64  // offsets of the corrupt records reported
	}{
		{"gzip member cut short", bytes.Join([][]byte{members[0], members[1][:len(members[1])/2], members[2], members[3]}, nil),
			[]string{"a", "c", "d"}, []int64{offsets[1]}},
		{"gzip member garbled", bytes.Join([][]byte{members[0], flipped, members[2], members[3]}, nil),
			[]string{"a", "c", "d"}, []int64{offsets[1]}},
		{"last gzip member truncated", bytes.Join([][]byte{members[0], members[1], members[2], members[3][:30]}, nil),
			[]string{"a", "b", "c"}, []int64{offsets[3]}},
		{"garbage between records", bytes.Join([][]byte{members[0], []byte("\x00junk\x1f"), members[1]}, nil),
			[]string{"a", "b"}, nil},
		{"plain record cut short", bytes.Join([][]byte{page("a"), plainB[:len(plainB)-20]}, nil),
			[]string{"a"}, []int64{int64(len(page("a")))}},
		{"plain header broken", bytes.Join([][]byte{page("a"), []byte("WARC/1.1\r\nContent-Length: x\r\n\r\n"), page("c")}, nil),
			[]string{"a", "c"}, []int64{int64(len(page("a")))}},
	}
	for _, tt := range tests {
		name := "x.warc.gz"
		if !bytes.HasPrefix(tt.data, []byte{0x1f, 0x8b}) {
			name = "x.warc"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var ids []string
		var offs []int64
		for p, err := range Read([]string{path}, DefaultOptions()) {
			var pe *Error
			switch {
			case errors.As(err, &pe) && errors.Is(err, ErrCorrupt) && pe.Record > 0:
				offs = append(offs, pe.Offset)
			case err != nil:
				t.Errorf("%s: unexpected error %v", tt.name, err)
			default:
				ids = append(ids, strings.TrimPrefix(p.ID, "http://example.com/"))
			}
		}
		if fmt.Sprint(ids) != fmt.Sprint(tt.want) || fmt.Sprint(offs) != fmt.Sprint(tt.offset) {
			t.Errorf("%s: read %v, corrupt at %v; want %v, corrupt at %v", tt.name, ids, offs, tt.want, tt.offset)
		}
	}
}

// TestReadWARCOtherWriters reads archives written by other tools: GNU Wget
// 1.21 (testdata/wget.warc.gz, a loopback site of a home page, a UTF-8
// page linked twice, a GBK page under "UTF-8" and "gbk" metas, an image and
// a missing page) and gowarc's own writer.
func TestReadWARCOtherWriters(t *testing.T) {
	golden.Check(t, "wget.warc.gz.golden", describe(t, []string{filepath.Join("testdata", "wget.warc.gz")}, DefaultOptions()))

	dir := t.TempDir()
	w := gowarc.NewWarcFileWriter(gowarc.WithCompression(true),
		gowarc.WithFileNameGenerator(&gowarc.PatternNameGenerator{Directory: dir, Pattern: "gowarc.warc"}))
	gbk := mustEncode(t, simplifiedchinese.GBK, "<p>"+zhSimplified+"</p>")
	for _, rec := range []struct {
		typ        gowarc.RecordType
		uri, ctype string
		block      string
	}{
		{gowarc.Response, "http://example.com/a?utm_medium=x", "application/http;msgtype=response",
			fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=gb2312\r\nContent-Length: %d\r\n\r\n%s", len(gbk), gbk)},
		{gowarc.Resource, "http://example.com/b/default.aspx", "text/html", "<p>a resource</p>"},
	} {
		rb := gowarc.NewRecordBuilder(rec.typ, gowarc.WithAddMissingDigest(true), gowarc.WithFixContentLength(true))
		rb.WriteString(rec.block)
		rb.AddWarcHeader(gowarc.WarcTargetURI, rec.uri)
		rb.AddWarcHeader(gowarc.ContentType, rec.ctype)
		rb.AddWarcHeaderTime(gowarc.WarcDate, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))
		r, _, err := rb.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, resp := range w.Write(r) {
			if resp.Err != nil {
				t.Fatal(resp.Err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, err := range Read([]string{filepath.Join(dir, "gowarc.warc.gz")}, DefaultOptions()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.ID+" "+p.Charset+"/"+p.CharsetSource+" "+strings.TrimSpace(p.HTML))
	}
	want := []string{"http://example.com/a gb18030/header <p>" + zhSimplified + "</p>", "http://example.com/b/ utf-8/sniffed <p>a resource</p>"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gowarc's archive read as\n%q\nwant\n%q", got, want)
	}
}

// TestReadWARCBounds reads inputs past each of the reader's bounds: each
// is reported with the file, the record number and its offset, without
// being held in memory, and the record after it is still read.
func TestReadWARCBounds(t *testing.T) {
	opts := Options{MaxBytes: 1 << 10, MaxHeaderBytes: 512}
	resource := func(name, body string) []byte {
		return warcRecord("1.1", "resource", "http://example.com/"+name, map[string]string{"Content-Type": "text/html"}, body)
	}
	response := func(name, header, body string) []byte {
		return warcRecord("1.1", "response", "http://example.com/"+name, map[string]string{"Content-Type": "application/http; msgtype=response"},
			httpResponse("200 OK", header, body))
	}
	good := resource("good", "<p>good</p>")
	longLine := warcRecord("1.1", "resource", "http://example.com/a", map[string]string{"X-Long": strings.Repeat("a", 600)}, "<p>a</p>")
	big := "<p>" + strings.Repeat("x", 2<<10) + "</p>"
	manyFields := map[string]string{"Content-Type": "text/html"}
	for i := range 60 {
		manyFields[fmt.Sprintf("X-Field-%02d", i)] = "v"
	}
	encoded := gzipMember(t, []byte(big))
	// A record declaring a block of 8 MiB of zeros, all there.
	huge := append(append([]byte("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.com/huge\r\n"+
		"Content-Type: text/html\r\nContent-Length: 8388608\r\n\r\n"), zeros...), "\r\n\r\n"...)
	var noise strings.Builder // text that does not compress
	for i := range 100 {
		fmt.Fprintf(&noise, "%x", sha1.Sum([]byte{byte(i)}))
	}
	cut := gzipMember(t, resource("cut", "<p>"+noise.String()+"</p>"))
	short := resource("short", "<p>short</p>") // a 12-byte block
	tests := []struct {
		name   string
		parts  [][]byte // records (a gzip member is kept as it is)
		layout layout
		want   []string // per part: the id of its page, or the error after "record N at byte M"; then one about the file
	}{
		{"header line too long", [][]byte{longLine, good},
			plain, []string{": WARC header: a line longer than 512 bytes: header too long: corrupt record", "http://example.com/good"}},
		{"header block too long", [][]byte{warcRecord("1.1", "resource", "http://example.com/a", manyFields, "<p>a</p>"), good},
			plain, []string{": WARC header: longer than 512 bytes: header too long: corrupt record", "http://example.com/good"}},
		{"header without an end", [][]byte{append([]byte("WARC/1.1"), zeros[:1<<20]...), good},
			plain, []string{": WARC header: a line longer than 512 bytes: header too long: corrupt record", "http://example.com/good"}},
		{"record over the limit", [][]byte{resource("big", big), good},
			plain, []string{fmt.Sprintf(" (http://example.com/big): %d bytes, more than 1024: document too large", len(big)), "http://example.com/good"}},
		{"gzipped record over the limit", [][]byte{resource("big", big), good},
			members, []string{fmt.Sprintf(" (http://example.com/big): %d bytes, more than 1024: document too large", len(big)), "http://example.com/good"}},
		{"response body over the limit", [][]byte{response("big", "Content-Type: text/html\r\n", big), good},
			plain, []string{fmt.Sprintf(" (http://example.com/big): %d bytes, more than 1024: document too large", len(big)), "http://example.com/good"}},
		{"content-encoded body past the limit", [][]byte{
			response("enc", "Content-Type: text/html\r\nContent-Encoding: gzip\r\n", string(encoded)), good},
			plain, []string{" (http://example.com/enc): more than 1024 bytes: document too large", "http://example.com/good"}},
		{"HTTP header line too long", [][]byte{response("h", "Set-Cookie: "+strings.Repeat("c", 600)+"\r\n", "<p>h</p>"), good},
			plain, []string{" (http://example.com/h): HTTP header: a line longer than 512 bytes: header too long: corrupt record", "http://example.com/good"}},
		{"HTTP header too long", [][]byte{response("h", strings.Repeat("X-Some-Field: some value\r\n", 30), "<p>h</p>"), good},
			plain, []string{" (http://example.com/h): HTTP header: longer than 512 bytes: header too long: corrupt record", "http://example.com/good"}},
		{"gzip member without a record", [][]byte{zeros, good},
			members, []string{`: not a WARC record: the gzip member starts with "\x00\x00\x00\x00\x00": corrupt record`, "http://example.com/good"}},
		{"gzip member going on past its record", [][]byte{append(resource("a", "<p>a</p>"), zeros...), good},
			members, []string{": the gzip member goes on after its record: corrupt record", "http://example.com/good"}},
		{"gzip member declaring a huge record", [][]byte{huge, good},
			members, []string{" (http://example.com/huge): 8388608 bytes, more than 1024: document too large", "http://example.com/good"}},
		{"block past the end of the file", [][]byte{good, resource("cut", "<p>cut</p>")[:len(resource("cut", "<p>cut</p>"))-10]},
			plain, []string{"http://example.com/good", ": block cut short: Content-Length 10, 4 bytes left in the input: corrupt record"}},
		{"gzip member cut short", [][]byte{good, cut[:len(cut)/2]},
			members, []string{"http://example.com/good", ": damaged gzip member: unexpected EOF: corrupt record"}},
		{"gzip member without its trailer", [][]byte{good, cut[:len(cut)-8]},
			members, []string{"http://example.com/good", ": damaged gzip member: unexpected EOF: corrupt record"}},
		{"gzip member with a wrong checksum", [][]byte{append(cut[:len(cut)-8:len(cut)-8], 0, 0, 0, 0, 0, 0, 0, 0), good},
			members, []string{": damaged gzip member: gzip: invalid checksum: corrupt record", "http://example.com/good"}},
		{"gzip member shorter than its record", [][]byte{short[:len(short)-14], good},
			members, []string{": block cut short: 10 of its 12 bytes missing: corrupt record", "http://example.com/good"}},
		{"gzipped whole, a header line too long", [][]byte{good, longLine, resource("b", "<p>b</p>")},
			whole, []string{"http://example.com/good", ": WARC header: a line longer than 512 bytes: header too long: corrupt record", "http://example.com/b"}},
		{"gzipped whole, ending in zeros", [][]byte{good, resource("b", "<p>b</p>"), zeros},
			whole, []string{"http://example.com/good", "http://example.com/b"}},
		{"gzipped whole, cut", [][]byte{good, resource("b", "<p>b</p>")},
			cutWhole, []string{"http://example.com/good", "http://example.com/b", "file: gzip: unexpected EOF: corrupt record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "x.warc"
			if tt.layout != plain {
				name += ".gz"
			}
			path := filepath.Join(t.TempDir(), name)
			var data []byte
			var offsets []int64
			for _, p := range tt.parts {
				offsets = append(offsets, int64(len(data)))
				if tt.layout == members && !bytes.HasPrefix(p, []byte{0x1f, 0x8b}) {
					p = gzipMember(t, p)
				}
				data = append(data, p...)
			}
			source := path
			if tt.layout >= whole {
				data = gzipMember(t, data)
				source += " (gunzipped)"
			}
			if tt.layout == cutWhole {
				data = data[:len(data)-4]
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for i, w := range tt.want {
				switch {
				case strings.HasPrefix(w, "http://"):
					want = append(want, "page "+w)
				case strings.HasPrefix(w, "file: "):
					want = append(want, "page: "+source+": "+strings.TrimPrefix(w, "file: "))
				default:
					want = append(want, fmt.Sprintf("page: %s: record %d at byte %d%s", source, i+1, offsets[i], w))
				}
			}
			before := allocated()
			for p, err := range Read([]string{path}, opts) {
				if err != nil {
					got = append(got, err.Error())
				} else {
					got = append(got, "page "+p.ID)
				}
			}
			if a := allocated() - before; a > 2<<20 {
				t.Errorf("reading allocated %d bytes, want at most 2 MiB", a)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// layout is how a test WARC is stored.
type layout int

const (
	plain    layout = iota
	members         // a gzip member per record
	whole           // gzipped as a whole
	cutWhole        // gzipped as a whole, the end of its trailer cut off
)

// TestReadWARCEncoding checks that a page in an encoding the reader does
// not decode is a problem with that page (ErrEncoding), not one with the
// input: errors.ErrUnsupported says a file cannot be read at all.
func TestReadWARCEncoding(t *testing.T) {
	rec := warcRecord("1.1", "response", "http://example.com/br", map[string]string{"Content-Type": "application/http; msgtype=response"},
		httpResponse("200 OK", "Content-Type: text/html\r\nContent-Encoding: br\r\n", "xx"))
	for _, err := range ReadWARC("x.warc", bytes.NewReader(rec), int64(len(rec)), DefaultOptions()) {
		if !errors.Is(err, ErrEncoding) || errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("got %v, want ErrEncoding and not errors.ErrUnsupported", err)
		}
	}
}

// TestReadWARCNoRecord: bytes named .warc that hold no WARC record at all
// are reported, once; an empty file holds nothing to report.
func TestReadWARCNoRecord(t *testing.T) {
	noise := make([]byte, 100000)
	for i, x := 0, uint32(1); i < len(noise); i++ {
		x = x*1664525 + 1013904223
		noise[i] = byte(x >> 24)
	}
	tests := []struct {
		name    string
		data    []byte
		wantErr string // "" for none
	}{
		{"random bytes", noise, "x.warc: no WARC record in its 100000 bytes"},
		{"text", []byte("hello, this is not an archive\n"), "x.warc: no WARC record in its 30 bytes"},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "x.warc")
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var errs []string
		pages := 0
		for _, err := range Read([]string{path}, DefaultOptions()) {
			if err == nil {
				pages++
				continue
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: error %v, want ErrCorrupt", tt.name, err)
			}
			errs = append(errs, err.Error())
		}
		switch {
		case pages != 0:
			t.Errorf("%s: %d pages read, want none", tt.name, pages)
		case tt.wantErr == "" && len(errs) != 0:
			t.Errorf("%s: errors %q, want none", tt.name, errs)
		case tt.wantErr != "" && (len(errs) != 1 || !strings.Contains(errs[0], tt.wantErr)):
			t.Errorf("%s: errors %q, want one containing %q", tt.name, errs, tt.wantErr)
		}
	}
}
