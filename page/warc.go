package page

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nlnwa/gowarc/v3"

	"github.com/bleve-dedup/bleve-dedup/canon"
)

// sniffLen is how many bytes net/http's content sniffing looks at.
const sniffLen = 512

// warc yields the HTML pages of a WARC file (.warc or .warc.gz).
func (r *reader) warc(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return r.fail(Error{Source: path}, "", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return r.fail(Error{Source: path}, "", err)
	}
	return r.warcStream(path, f, info.Size())
}

// ReadWARC yields the HTML pages of the WARC file in src's first size
// bytes, gzipped per record or not, such as a request body spooled to a
// temporary file; name stands for it in errors. Problems are yielded as
// *Error as by Read.
func ReadWARC(name string, src io.ReaderAt, size int64, opts Options) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		r := reader{opts: opts, yield: yield}
		r.warcStream(name, src, size)
	}
}

// warcStream yields the pages of a WARC file, one gzip member per record
// when compressed. A record that cannot be read is reported with its
// offset, and reading starts again one byte after that record's start:
// gowarc scans forward to the next gzip member or "WARC/" line, so a cut
// member does not take the records after it along. A damaged stretch is
// reported once, at its first record; failures met while scanning on
// through it are not reported again.
func (r *reader) warcStream(name string, src io.ReaderAt, size int64) bool {
	whole, err := gzippedWhole(src)
	if err != nil {
		return r.fail(Error{Source: name}, "", fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	if whole {
		return r.gunzipped(name, src, size)
	}
	n, resync := 0, false
	for start := int64(0); ; {
		wf, err := gowarc.NewWarcFileReaderFromStream(io.NewSectionReader(src, 0, size), start)
		if err != nil {
			return r.fail(Error{Source: name}, "", err)
		}
		next, cont := r.records(wf, src, name, &n, resync)
		wf.Close()
		if !cont || next < 0 {
			return cont
		}
		start, resync = next, true
	}
}

// gzippedWhole reports whether src is gzipped as a whole (gzip
// crawl.warc) rather than a member per record: its first member holds
// more than one record. gowarc would read that record alone and take the
// rest of the member for its padding.
func gzippedWhole(src io.ReaderAt) (bool, error) {
	var magic [2]byte
	if _, err := src.ReadAt(magic[:], 0); err != nil || !bytes.Equal(magic[:], gzipMagic) {
		return false, nil
	}
	z, err := gzip.NewReader(io.NewSectionReader(src, 0, 1<<62))
	if err != nil {
		return false, err
	}
	z.Multistream(false)
	br := bufio.NewReader(z)
	tp := textproto.NewReader(br)
	if _, err := tp.ReadLine(); err != nil { // WARC/1.x
		return false, nil // not a record: the reader says what is wrong
	}
	h, err := tp.ReadMIMEHeader()
	n, cerr := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || cerr != nil {
		return false, nil
	}
	if _, err := br.Discard(int(n)); err != nil {
		return false, nil
	}
	rest, _ := br.Peek(64)
	return len(bytes.TrimLeft(rest, "\r\n")) > 0, nil
}

// gunzipped reads a WARC file gzipped as a whole from a decompressed
// temporary copy (one member can only be read from its start); offsets in
// its errors are those of the decompressed file.
func (r *reader) gunzipped(name string, src io.ReaderAt, size int64) bool {
	z, err := gzip.NewReader(io.NewSectionReader(src, 0, size))
	if err != nil {
		return r.fail(Error{Source: name}, "", fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	tmp, err := os.CreateTemp("", "bleve-dedup-gunzipped-*.warc")
	if err != nil {
		return r.fail(Error{Source: name}, "", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	// What was decompressed before a cut is read; the cut is reported
	// after it.
	n, cutErr := io.Copy(tmp, z)
	if cont := r.warcStream(name+" (gunzipped)", tmp, n); !cont || cutErr == nil {
		return cont
	}
	return r.fail(Error{Source: name}, "", fmt.Errorf("gzip: %w: %w", cutErr, ErrCorrupt))
}

// records yields the pages of wf's records, numbering them from *n, until
// the end of the file (next < 0) or a record that cannot be read (next is
// one byte past its start). With resync, the reader starts inside a
// damaged stretch: failures before the first good record are not reported.
func (r *reader) records(wf *gowarc.WarcFileReader, f io.ReaderAt, path string, n *int, resync bool) (next int64, cont bool) {
	for {
		rec, err := wf.Next()
		if err == nil {
			err = truncated(rec.Validation)
		}
		if err != nil {
			rec.Close()
			switch {
			case errors.Is(err, io.EOF) || (resync && errors.Is(err, gowarc.ErrNoRecord)):
				return -1, true
			case resync:
				return rec.Offset + 1, true
			}
			*n++
			at := Error{Source: path, Record: *n, Offset: rec.Offset}
			return rec.Offset + 1, r.fail(at, "", fmt.Errorf("%w: %w", err, ErrCorrupt))
		}
		resync = false
		*n++
		cont := r.record(rec.WarcRecord, f, Error{Source: path, Record: *n, Offset: rec.Offset})
		rec.Close()
		if !cont {
			return -1, false
		}
	}
}

// truncated returns the validation finding that means a record's content
// is not all there: a block shorter than its Content-Length (a cut file)
// or a block digest mismatch. Other findings (a missing CR, a payload
// digest computed by another convention) do not make the page wrong.
func truncated(validation []error) error {
	for _, v := range validation {
		var cl *gowarc.ContentLengthError
		var de *gowarc.DigestError
		if errors.As(v, &cl) || (errors.As(v, &de) && strings.HasPrefix(v.Error(), "block:")) {
			return v
		}
	}
	return nil
}

// rawTarget reads the WARC-Target-URI of the record at off from the file
// itself, without its angle brackets: gowarc blanks a value it cannot
// parse, and wget writes "<uri>", the form of the WARC/1.0 grammar
// (corrected in WARC/1.1). Only the record's header is read (and
// decompressed).
func rawTarget(f io.ReaderAt, off int64) (string, error) {
	var src io.Reader = io.NewSectionReader(f, off, 1<<62)
	var magic [2]byte
	if _, err := f.ReadAt(magic[:], off); err == nil && magic == [2]byte{0x1f, 0x8b} {
		z, err := gzip.NewReader(src)
		if err != nil {
			return "", err
		}
		src = z
	}
	tp := textproto.NewReader(bufio.NewReader(io.LimitReader(src, 64<<10)))
	if _, err := tp.ReadLine(); err != nil { // WARC/1.0
		return "", err
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(h.Get(gowarc.WarcTargetURI)), "<"), ">"), nil
}

// record yields the page of one response or resource record. Records of
// other types (warcinfo, request, metadata, revisit, ...) and records of
// URIs that are not http(s) (dns:, metadata:) are not pages and are passed
// over silently.
func (r *reader) record(rec gowarc.WarcRecord, f io.ReaderAt, at Error) bool {
	if rec.Type() != gowarc.Response && rec.Type() != gowarc.Resource {
		return true
	}
	target := rec.WarcHeader().Get(gowarc.WarcTargetURI)
	if target == "" {
		var err error
		if target, err = rawTarget(f, at.Offset); err != nil {
			return r.fail(at, "", fmt.Errorf("WARC-Target-URI: %w: %w", err, ErrCorrupt))
		}
	}
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return true
	}
	id, err := canon.URL(nil, target, nil)
	if err != nil {
		return r.fail(at, target, err)
	}
	body, contentType, err := r.payload(rec)
	if err != nil {
		return r.fail(at, id, err)
	}
	d, err := Decode(body, contentType)
	if err != nil {
		return r.fail(at, id, err)
	}
	p := Page{ID: id, URL: target, HTML: d.Text, Source: at.Source + "@" + strconv.FormatInt(at.Offset, 10),
		Charset: d.Charset, CharsetSource: d.Source}
	return r.emit(p, at)
}

// payload returns the body of an HTML page held by rec and its declared
// content type, or ErrHTTPStatus, ErrNotHTML, ErrTooLarge.
func (r *reader) payload(rec gowarc.WarcRecord) (body []byte, contentType string, err error) {
	var src io.Reader
	var chunked bool
	header := http.Header{}
	switch b := rec.Block().(type) {
	case gowarc.HttpResponseBlock:
		// Parsed again because gowarc's parsed header drops Transfer-Encoding.
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b.ProtocolHeaderBytes())), nil)
		if err != nil {
			return nil, "", fmt.Errorf("http header: %w: %w", err, ErrCorrupt)
		}
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, "", fmt.Errorf("status %d: %w", resp.StatusCode, ErrHTTPStatus)
		}
		header, chunked = resp.Header, slices.Contains(resp.TransferEncoding, "chunked")
		if src, err = b.PayloadBytes(); err != nil {
			return nil, "", fmt.Errorf("%w: %w", err, ErrCorrupt)
		}
	case gowarc.HttpRequestBlock:
		return nil, "", fmt.Errorf("a request in a %s record: %w", rec.Type(), ErrNotHTML)
	default: // a resource: the block is the document
		header.Set("Content-Type", rec.WarcHeader().Get(gowarc.ContentType))
		if src, err = b.RawBytes(); err != nil {
			return nil, "", fmt.Errorf("%w: %w", err, ErrCorrupt)
		}
	}
	if chunked {
		src = httputil.NewChunkedReader(src)
	}
	switch ce := strings.ToLower(header.Get("Content-Encoding")); ce {
	case "", "identity":
	case "gzip", "x-gzip":
		if src, err = gzip.NewReader(src); err != nil {
			return nil, "", fmt.Errorf("content encoding: %w: %w", err, ErrCorrupt)
		}
	case "deflate":
		if src, err = zlib.NewReader(src); err != nil {
			return nil, "", fmt.Errorf("content encoding: %w: %w", err, ErrCorrupt)
		}
	default:
		return nil, "", fmt.Errorf("content encoding %q: %w", ce, errors.ErrUnsupported)
	}
	br := bufio.NewReader(src)
	contentType = header.Get("Content-Type")
	mediaType := contentType
	if contentType == "" {
		head, _ := br.Peek(sniffLen) // a short body is sniffed as it is
		mediaType = http.DetectContentType(head)
	}
	if mt, _, _ := mime.ParseMediaType(mediaType); mt != "text/html" && mt != "application/xhtml+xml" {
		return nil, "", fmt.Errorf("content type %q: %w", mediaType, ErrNotHTML)
	}
	if body, err = readAll(br, r.opts.MaxBytes); err != nil {
		return nil, "", err
	}
	return body, contentType, nil
}

// readAll reads src, refusing more than max bytes (no limit when max <= 0).
func readAll(src io.Reader, max int64) ([]byte, error) {
	if max > 0 {
		src = io.LimitReader(src, max+1)
	}
	b, err := io.ReadAll(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrCorrupt)
	}
	if max > 0 && int64(len(b)) > max {
		return nil, ErrTooLarge
	}
	return b, nil
}
