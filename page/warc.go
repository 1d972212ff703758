package page

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/bleve-dedup/bleve-dedup/canon"
)

// sniffLen is how many bytes net/http's content sniffing looks at.
const sniffLen = 512

// warcMagic starts every WARC record.
var warcMagic = []byte("WARC/")

// errWhole: the first gzip member of a file holds more than one record,
// the file is gzipped as a whole (gzip crawl.warc).
var errWhole = errors.New("gzipped as a whole")

// errLongHeader: a header block is longer than Options.MaxHeaderBytes.
var errLongHeader = errors.New("header too long")

// errShortBlock: the input ends inside a record's block.
var errShortBlock = errors.New("block cut short")

// errDigest: a record's block is not the one its WARC-Block-Digest was
// computed from.
var errDigest = errors.New("block digest mismatch")

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

// warcReader reads the records of one WARC input, every read bounded: a
// header by Options.MaxHeaderBytes, a page by Options.MaxBytes (a larger
// block is passed over, not held), a gzip member by the record it holds.
type warcReader struct {
	*reader
	name string
	src  io.ReaderAt
	size int64

	in   offsetReader  // the input from a position on
	br   *bufio.Reader // over in
	gz   member        // a record's gzip member, over br
	mbr  *bufio.Reader // over gz
	blk  blockReader   // a record's block
	bbr  *bufio.Reader // over blk: a page's HTTP header and body
	head []byte        // the WARC header being read
	http []byte        // the HTTP header being read
	n    int           // records numbered so far
	// stream: the file is gzipped as a whole and in is its gunzipped
	// stream, where offsets are counted.
	stream bool
}

// warcStream yields the pages of a WARC input, one gzip member per record
// when compressed. A record that cannot be read whole is reported with its
// offset, and reading starts again one byte after that record's start (or
// after what was read of a header over the limit), scanning for the next
// gzip member or "WARC/", so a cut member does not take the records after
// it along. A damaged stretch is reported once, at its first record;
// failures met while scanning on through it are not reported again.
func (r *reader) warcStream(name string, src io.ReaderAt, size int64) bool {
	const bufSize = 64 << 10
	w := &warcReader{reader: r, name: name, src: src, size: size, in: offsetReader{at: src, end: size},
		br: bufio.NewReaderSize(nil, bufSize), mbr: bufio.NewReaderSize(nil, bufSize), bbr: bufio.NewReaderSize(nil, 4<<10)}
	for start, resync := int64(0), false; ; resync = true {
		w.seek(start)
		next, cont := w.records(resync)
		if cont && next < 0 && w.n == 0 && size > 0 {
			// Not one record, good or bad, in bytes that claim to be WARC.
			return w.fail(Error{Source: name}, "", fmt.Errorf("no WARC record in its %d bytes: %w", size, ErrCorrupt))
		}
		if !cont || next < 0 {
			return cont
		}
		start = next
	}
}

// pos is the offset of the next byte br returns.
func (w *warcReader) pos() int64 { return w.in.off - int64(w.br.Buffered()) }

// seek positions br at off in the file.
func (w *warcReader) seek(off int64) {
	w.in.off, w.in.step = off, firstStep
	w.br.Reset(&w.in)
}

// records yields the records from br's position until the end of the
// input (next < 0) or a record of the file that cannot be read whole
// (next is where to scan on from). With resync, reading starts inside a
// damaged stretch: failures before the first good record are not
// reported.
func (w *warcReader) records(resync bool) (next int64, cont bool) {
	for {
		if err := w.seekRecord(); err == io.EOF {
			return -1, true
		} else if err != nil {
			return -1, w.fail(Error{Source: w.name}, "", fmt.Errorf("%w: %w", w.readError(w.br, err), ErrCorrupt))
		}
		off := w.pos()
		b, _ := w.br.Peek(3)
		member := !w.stream && isMember(b)
		h, err := w.record(member, w.n == 0 && !resync)
		if errors.Is(err, errWhole) {
			if err := w.gunzip(); err != nil {
				return -1, w.fail(Error{Source: w.name}, "", fmt.Errorf("gzip: %w: %w", err, ErrCorrupt))
			}
			continue
		}
		if err != nil {
			if !resync {
				w.n++
				at := Error{Source: w.name, Record: w.n, Offset: off}
				if !w.fail(at, "", fmt.Errorf("%w: %w", err, ErrCorrupt)) {
					return -1, false
				}
			}
			switch {
			case w.stream && w.in.err != nil:
				return -1, true // the gunzipped stream is cut: nothing follows
			case w.stream:
				// No going back in a stream: scan on from what was read
				// (at least "WARC/").
				resync = true
				continue
			case !member && (errors.Is(err, errLongHeader) || errors.Is(err, errDigest)):
				// Scan on from what was read: rescanning a header over
				// the limit or a block would cost as much again for each
				// "WARC/" in it. (A member's inflater may have read into
				// the next member.)
				return w.pos(), true
			}
			return off + 1, true
		}
		resync = false
		w.n++
		at := Error{Source: w.name, Record: w.n, Offset: off}
		switch {
		case h.err != nil:
			cont = w.fail(at, h.id, h.err)
		case h.page.ID != "":
			h.page.Source = w.name + "@" + strconv.FormatInt(off, 10)
			cont = w.emit(h.page, at)
		default:
			cont = true
		}
		if !cont {
			return -1, false
		}
	}
}

// seekRecord discards the bytes before the next record: "WARC/" or, in a
// file, a gzip member. At the end of the input it returns io.EOF.
func (w *warcReader) seekRecord() error {
	for {
		b, err := w.br.Peek(len(warcMagic))
		if len(b) < len(warcMagic) {
			if err == io.EOF {
				w.br.Discard(len(b)) // too short to be a record
			}
			return err
		}
		if bytes.Equal(b, warcMagic) || (!w.stream && isMember(b)) {
			return nil
		}
		// On to the next byte that may start one.
		b, _ = w.br.Peek(w.br.Buffered())
		b = b[1:]
		i := bytes.IndexByte(b, 'W')
		if !w.stream {
			end := len(b)
			if i >= 0 {
				end = i
			}
			if j := bytes.IndexByte(b[:end], 0x1f); j >= 0 {
				i = j
			}
		}
		if i < 0 {
			i = len(b)
		}
		w.br.Discard(1 + i)
	}
}

// isMember reports whether b starts a gzip member (of deflate data, the
// only method there is).
func isMember(b []byte) bool { return len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 }

// gunzip makes the rest of the input the gunzipped stream of the whole
// file, read from its start.
func (w *warcReader) gunzip() error {
	z, err := gzip.NewReader(io.NewSectionReader(w.src, 0, w.size))
	if err != nil {
		return err
	}
	w.in = offsetReader{s: z}
	w.br.Reset(&w.in)
	w.name += " (gunzipped)"
	w.stream = true
	return nil
}

// held is what a record holds: a page, a problem with its page (id is the
// page's), or nothing (a record that is not a page).
type held struct {
	page Page
	id   string
	err  error
}

// record reads the record at br's position, a gzip member or "WARC/",
// through its end. An error means it cannot be read whole. With first, a
// gzip member may hold more records (errWhole).
func (w *warcReader) record(member, first bool) (held, error) {
	if !member {
		return w.readRecord(w.br)
	}
	if err := w.gz.reset(w.br); err != nil {
		return held{}, fmt.Errorf("damaged gzip member: %w", err)
	}
	w.mbr.Reset(&w.gz)
	if b, err := w.mbr.Peek(len(warcMagic)); !bytes.Equal(b, warcMagic) {
		if len(b) == 0 && err != nil {
			return held{}, w.readError(w.mbr, err)
		}
		return held{}, fmt.Errorf("not a WARC record: the gzip member starts with %q", b)
	}
	h, err := w.readRecord(w.mbr)
	if err != nil {
		return held{}, err
	}
	// The member ends with its record: decompressing on would be
	// unbounded.
	switch rest, err := w.mbr.Peek(len(warcMagic)); {
	case len(rest) == 0 && err == io.EOF:
		return h, nil
	case first && bytes.Equal(rest, warcMagic):
		return held{}, errWhole
	case len(rest) == 0:
		return held{}, w.readError(w.mbr, err)
	}
	return held{}, errors.New("the gzip member goes on after its record")
}

// readRecord reads the record at br's position, which holds "WARC/",
// through its end.
func (w *warcReader) readRecord(br *bufio.Reader) (held, error) {
	var err error
	if w.head, err = readHead(br, w.head[:0], w.opts.headerLimit()); errors.Is(err, errLongHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
		return held{}, fmt.Errorf("WARC header: %w", err)
	} else if err != nil {
		return held{}, w.readError(br, err)
	}
	f := parseFields(w.head)
	size, ok := parseLength(f[fieldLength])
	if !ok {
		return held{}, fmt.Errorf("WARC header: Content-Length %.40q", f[fieldLength])
	}
	inFile := br == w.br && !w.stream
	if left := w.size - w.pos(); inFile && size > left {
		return held{}, fmt.Errorf("block cut short: Content-Length %d, %d bytes left in the input", size, left)
	}
	w.blk = blockReader{r: br, n: size}
	h := w.page(f, size)
	if h.page.ID == "" {
		w.blk.h = nil // the digest is checked for pages only
	}
	if inFile && w.blk.h == nil && w.blk.n > int64(br.Buffered()) {
		w.seek(w.pos() + w.blk.n)
	} else if _, err := io.Copy(io.Discard, &w.blk); errors.Is(err, errShortBlock) {
		return held{}, fmt.Errorf("block cut short: %d of its %d bytes missing", w.blk.n, size)
	} else if err != nil {
		return held{}, w.readError(br, err)
	}
	if w.blk.h != nil && !digestMatches(w.blk.h.Sum(nil), f[fieldDigest]) {
		return held{}, fmt.Errorf("WARC-Block-Digest %.80s: %w", f[fieldDigest], errDigest)
	}
	// The end of the record: CRLF CRLF, tolerated missing or short.
	for range 4 {
		if c, err := br.ReadByte(); err != nil {
			break
		} else if c != '\r' && c != '\n' {
			br.UnreadByte()
			break
		}
	}
	return h, nil
}

// readError is a failure to read a record from br: in a gzip member,
// the member is damaged or cut; in a file gzipped as a whole, the file.
func (w *warcReader) readError(br *bufio.Reader, err error) error {
	switch {
	case br == w.mbr:
		return fmt.Errorf("damaged gzip member: %w", err)
	case w.stream:
		return fmt.Errorf("gzip: %w", err)
	}
	return err
}

// page returns the page of a response or resource record, whose block
// (of size bytes) is w.blk. Records of other types (warcinfo, request,
// metadata, revisit, ...) and records of URIs that are not http(s) (dns:,
// metadata:) are not pages: nothing.
func (w *warcReader) page(f fields, size int64) held {
	if typ := string(f[fieldType]); typ != "response" && typ != "resource" {
		return held{}
	}
	// wget writes the "<uri>" form of the WARC/1.0 grammar (corrected in
	// WARC/1.1).
	target := strings.TrimSuffix(strings.TrimPrefix(string(f[fieldTarget]), "<"), ">")
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return held{}
	}
	id, err := canon.URL(nil, target, nil)
	if err != nil {
		return held{id: target, err: err}
	}
	w.blk.h = newDigest(f[fieldDigest])
	w.bbr.Reset(&w.blk)
	body, contentType, err := w.payload(f, size)
	if err != nil {
		return held{id: id, err: err}
	}
	d, err := Decode(body, contentType)
	if err != nil {
		return held{id: id, err: err}
	}
	return held{page: Page{ID: id, URL: target, CanonicalURL: id, HTML: d.Text, Charset: d.Charset, CharsetSource: d.Source}}
}

// payload returns the body of an HTML page held by a record's block (in
// w.bbr, size bytes) and its declared content type, or ErrHTTPStatus,
// ErrNotHTML, ErrTruncated, ErrTooLarge.
func (w *warcReader) payload(f fields, size int64) (body []byte, contentType string, err error) {
	var src io.Reader = w.bbr
	var chunked bool
	header := http.Header{}
	if ct := strings.ToLower(string(f[fieldContentType])); strings.HasPrefix(ct, "application/http") {
		w.http, err = readHead(w.bbr, w.http[:0], w.opts.headerLimit())
		size -= int64(len(w.http))
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			// A header without its empty line, ended by the block.
			w.http = append(w.http, "\r\n\r\n"...)
		case err != nil:
			return nil, "", fmt.Errorf("HTTP header: %w: %w", err, ErrCorrupt)
		}
		if !bytes.HasPrefix(w.http, []byte("HTTP")) {
			return nil, "", fmt.Errorf("a request in a %s record: %w", f[fieldType], ErrNotHTML)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(w.http)), nil)
		if err != nil {
			return nil, "", fmt.Errorf("HTTP header: %w: %w", err, ErrCorrupt)
		}
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, "", fmt.Errorf("status %d: %w", resp.StatusCode, ErrHTTPStatus)
		}
		header, chunked = resp.Header, slices.Contains(resp.TransferEncoding, "chunked")
	} else {
		header.Set("Content-Type", string(f[fieldContentType]))
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
		return nil, "", fmt.Errorf("%w: %q", ErrEncoding, ce)
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
	if why := f[fieldTruncated]; len(why) > 0 {
		return nil, "", fmt.Errorf("WARC-Truncated %s: %w", why, ErrTruncated)
	}
	if max := w.opts.MaxBytes; max > 0 && size > max {
		// Passed over unread.
		return nil, "", fmt.Errorf("%d bytes, more than %d: %w", size, max, ErrTooLarge)
	}
	if body, err = readAtMost(br, w.opts.MaxBytes); err != nil && !errors.Is(err, ErrTooLarge) {
		return nil, "", fmt.Errorf("%w: %w", err, ErrCorrupt)
	} else if err != nil {
		return nil, "", err
	}
	return body, contentType, nil
}

// readHead appends to buf the header block at br's position, its lines
// through the first empty one, reading at most max bytes (errLongHeader
// past them). At the end of the input it returns io.EOF when nothing was
// read and io.ErrUnexpectedEOF when the header is cut.
func readHead(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	line := len(buf) // where the current line starts
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			if len(buf)-line+len(chunk) > max {
				return buf, fmt.Errorf("a line longer than %d bytes: %w", max, errLongHeader)
			}
			return buf, fmt.Errorf("longer than %d bytes: %w", max, errLongHeader)
		}
		buf = append(buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(buf) == 0:
			return buf, io.EOF
		case err == io.EOF:
			return buf, io.ErrUnexpectedEOF
		case err != nil:
			return buf, err
		}
		if l := buf[line:]; len(l) == 1 || (len(l) == 2 && l[0] == '\r') {
			return buf, nil
		}
		line = len(buf)
	}
}

// The WARC header fields a record is read by, indexes of fields.
const (
	fieldType = iota
	fieldTarget
	fieldContentType
	fieldLength
	fieldTruncated
	fieldDigest
	numFields
)

var fieldNames = [numFields]string{"WARC-Type", "WARC-Target-URI", "Content-Type", "Content-Length", "WARC-Truncated", "WARC-Block-Digest"}

// fields are the values of the fields a record is read by, in its header.
type fields [numFields][]byte

// parseFields returns the fields of a WARC header (the first of each).
// Lines that are not fields are passed over, and so are continuation
// lines: none of these fields is ever folded.
func parseFields(head []byte) fields {
	var f fields
	_, rest, _ := bytes.Cut(head, []byte("\n")) // the version line
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || name[0] == ' ' || name[0] == '\t' {
			continue
		}
		name = bytes.TrimRight(name, " \t")
		for i, n := range fieldNames {
			if f[i] == nil && strings.EqualFold(string(name), n) {
				f[i] = bytes.TrimSpace(value)
			}
		}
	}
	return f
}

// parseLength parses a Content-Length: decimal digits, at most 18.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// newDigest returns the hash a WARC-Block-Digest value ("sha1:...") was
// computed with, or nil when there is none or its algorithm is unknown.
func newDigest(field []byte) hash.Hash {
	alg, _, _ := bytes.Cut(field, []byte(":"))
	switch strings.ToLower(string(alg)) {
	case "sha1", "sha-1":
		return sha1.New()
	case "sha256", "sha-256":
		return sha256.New()
	case "sha512", "sha-512":
		return sha512.New()
	case "md5":
		return md5.New()
	}
	return nil
}

// digestMatches reports whether the digest value of a WARC-Block-Digest
// field, in base32 (the convention for SHA-1), base16 or base64, is sum;
// a value that decodes to no digest of sum's size is not checked.
func digestMatches(sum, field []byte) bool {
	_, v, _ := bytes.Cut(field, []byte(":"))
	s := strings.TrimRight(string(v), "=")
	for _, dec := range []func(string) ([]byte, error){
		hex.DecodeString,
		base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString,
		base64.RawStdEncoding.DecodeString,
	} {
		if d, err := dec(s); err == nil && len(d) == len(sum) {
			return bytes.Equal(d, sum)
		}
	}
	return true
}

// offsetReader reads the input from off on: the file's bytes at off, or
// the stream s (off counts what it returned).
type offsetReader struct {
	at   io.ReaderAt
	end  int64
	s    io.Reader
	off  int64
	step int   // when > 0, the most the next read returns
	err  error // the first error but io.EOF
}

// firstStep is the most the first read after a seek returns, doubling on
// each read: a scan through damaged data tries a record at every few
// bytes, and filling a whole buffer for each would cost 64 KiB a try.
const firstStep = 512

func (o *offsetReader) Read(p []byte) (n int, err error) {
	if o.step > 0 && len(p) > o.step {
		p = p[:o.step]
		if o.step *= 2; o.step > 1<<20 {
			o.step = 0
		}
	}
	if o.s != nil {
		n, err = o.s.Read(p)
	} else if o.off >= o.end {
		return 0, io.EOF
	} else {
		p = p[:min(int64(len(p)), o.end-o.off)]
		n, err = o.at.ReadAt(p, o.off)
		if n == len(p) {
			err = nil
		}
	}
	o.off += int64(n)
	if err != nil && err != io.EOF && o.err == nil {
		o.err = err
	}
	return n, err
}

// blockReader reads a record's block: the next n bytes of r, hashed into
// h when h is set.
type blockReader struct {
	r io.Reader
	n int64
	h hash.Hash
}

func (b *blockReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if b.h != nil {
		b.h.Write(p[:n])
	}
	if err == io.EOF && b.n > 0 {
		err = errShortBlock
	}
	return n, err
}
