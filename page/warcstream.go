package page

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
)

// A WARC stream (a request body) is read a record at a time as it
// arrives. ReadWARC reads a file it may seek in (to start again past a
// damaged record); here each record is cut out of the stream and handed
// to ReadWARC alone, so that a stream costs the memory of one record and
// its pages come out while it comes in.

// httpHeadroom is what a record's block may hold beyond the page's
// Options.MaxBytes: its HTTP header and chunked framing.
const httpHeadroom = 64 << 10

// ReadWARCStream yields the pages of the WARC stream src (already
// gunzipped), as ReadWARC does those of a file, with record numbers and offsets
// (uncompressed) in the stream. A record whose block is over the page size
// limit is cut to that size, which ReadWARC reports as too large if
// it is a page, and passes over if it is not. Between records, what does
// not start one is reported once and skipped to the next line that does.
func ReadWARCStream(name string, src io.Reader, opts Options) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		rd := &warcStream{br: bufio.NewReaderSize(src, 64<<10), name: name, opts: opts}
		rd.run(yield)
	}
}

type warcStream struct {
	br   *bufio.Reader
	name string
	opts Options
	off  int64 // of the next byte of br
	n    int   // records met
}

func (s *warcStream) run(yield func(Page, error) bool) {
	lost := false // in a stretch that is not a record, reported once
	for {
		start := s.off
		line, err := s.line(s.opts.headerLimit())
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				if err != io.EOF {
					yield(Page{}, s.fail(start, err))
				}
				return
			}
			continue // the blank lines that end a record
		}
		if !bytes.HasPrefix(line, []byte("WARC/")) {
			if !lost {
				lost = true
				s.n++
				if !yield(Page{}, s.fail(start, fmt.Errorf("not a WARC record: %w", ErrCorrupt))) {
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					yield(Page{}, s.fail(start, err))
				}
				return
			}
			continue
		}
		lost = false
		s.n++
		rec, err := s.record(line)
		if err != nil {
			if !yield(Page{}, s.fail(start, err)) || !errors.Is(err, ErrCorrupt) {
				return // a read error: the body is gone
			}
			lost = true
			continue
		}
		for p, err := range ReadWARC(s.name, bytes.NewReader(rec), int64(len(rec)), s.opts) {
			if pe, ok := errors.AsType[*Error](err); ok {
				pe.Record, pe.Offset = s.n, start
			}
			if err == nil {
				p.Source = s.name + "@" + strconv.FormatInt(start, 10)
			}
			if !yield(p, err) {
				return
			}
		}
	}
}

// fail is the error of the record at off.
func (s *warcStream) fail(off int64, err error) error {
	return &Error{Source: s.name, Record: s.n, Offset: off, Err: err}
}

// line reads a line with its end; past max bytes the rest of the line is
// discarded as it streams by and the kept part returned.
func (s *warcStream) line(max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.off += int64(len(chunk))
		if len(line) < max {
			line = append(line, chunk[:min(len(chunk), max-len(line))]...)
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// record reads the rest of a record whose version line is first: its
// header and block, returned whole, with the block cut to the page size
// limit (its Content-Length then says so, and digests, which no longer
// hold, are dropped). An error wrapping ErrCorrupt leaves the
// stream where the next record may start; any other is the body's.
func (s *warcStream) record(first []byte) ([]byte, error) {
	header := [][]byte{first}
	size := len(first)
	length := int64(-1)
	for {
		line, err := s.line(s.opts.headerLimit())
		size += len(line)
		if err != nil {
			return nil, cut(err)
		}
		if size > s.opts.headerLimit() {
			return nil, fmt.Errorf("WARC header over %d bytes: %w", s.opts.headerLimit(), ErrCorrupt)
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
		k, v, _ := strings.Cut(string(line), ":")
		if strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("Content-Length %q: %w", strings.TrimSpace(v), ErrCorrupt)
			}
			length = n
		}
		header = append(header, line)
	}
	if length < 0 {
		return nil, fmt.Errorf("no Content-Length: %w", ErrCorrupt)
	}
	keep := length
	if s.opts.MaxBytes > 0 {
		keep = min(length, s.opts.MaxBytes+httpHeadroom)
	}
	var rec bytes.Buffer
	for _, h := range header {
		k, _, _ := strings.Cut(string(h), ":")
		switch k = strings.TrimSpace(strings.ToLower(k)); {
		case keep < length && (k == "content-length" || k == "warc-block-digest" || k == "warc-payload-digest"):
			continue
		}
		rec.Write(h)
	}
	if keep < length {
		fmt.Fprintf(&rec, "Content-Length: %d\r\n", keep)
	}
	rec.WriteString("\r\n")
	n, err := io.CopyN(&rec, s.br, keep)
	s.off += n
	if err == nil {
		n, err = io.CopyN(io.Discard, s.br, length-keep)
		s.off += n
	}
	if err != nil {
		return nil, cut(err)
	}
	rec.WriteString("\r\n\r\n")
	return rec.Bytes(), nil
}

// cut is the error of a body that ended inside a record: a cut record,
// or the read error that ended it.
func cut(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("the body ends inside the record: %w", ErrCorrupt)
	}
	return err
}
