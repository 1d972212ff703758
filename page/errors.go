package page

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors wrapped by [*Error]; test them with errors.Is.
var (
	// ErrEmpty: the document has no content (or only white space).
	ErrEmpty = errors.New("empty document")
	// ErrTooLarge: the document exceeds Options.MaxBytes.
	ErrTooLarge = errors.New("document too large")
	// ErrBinary: the document is not text: control bytes (NUL and the
	// other C0 controls text does not use) make up more than 2% of its
	// first 8 KiB. A stray NUL in a page is dropped, not an error.
	ErrBinary = errors.New("binary content")
	// ErrSyntax: a JSONL line is not a JSON object with an id and an html
	// or text field.
	ErrSyntax = errors.New("syntax error")
	// ErrCorrupt: a WARC record cannot be read whole (truncated, a broken
	// gzip member or header, a header over Options.MaxHeaderBytes, a
	// block shorter than its Content-Length or not matching its digest, a
	// gzip member that is not one record); reading goes on at the next
	// record.
	ErrCorrupt = errors.New("corrupt record")
	// ErrSkipped: a WARC record holds no page to index. ErrNotHTML and
	// ErrHTTPStatus wrap it, so a caller can count skips apart from
	// failures, and each reason apart.
	ErrSkipped = errors.New("skipped")
	// ErrNotHTML: the record's content type is not HTML.
	ErrNotHTML = fmt.Errorf("not html: %w", ErrSkipped)
	// ErrHTTPStatus: the archived response's status is not 2xx.
	ErrHTTPStatus = fmt.Errorf("http status: %w", ErrSkipped)
	// ErrEncoding: a WARC record's page is in a content encoding this
	// reader does not decode (br, zstd, ...). The input is readable: only
	// the page is skipped.
	ErrEncoding = errors.New("content encoding not supported")
	// ErrTruncated: a WARC record holds part of its page only
	// (WARC-Truncated: the archiver stopped at a size or time limit).
	// Like a page over MaxBytes it is not read: an error, not a skip.
	ErrTruncated = errors.New("truncated record")
)

// Error reports a problem with one document or one input.
type Error struct {
	Source string // file path
	Line   int    // 1-based JSONL line; 0 for other inputs
	Record int    // 1-based WARC record number; 0 for other inputs
	Offset int64  // byte offset of the WARC record in the file as stored (compressed for .warc.gz)
	ID     string // document id when known
	Err    error  // wraps a sentinel, or an I/O error
}

func (e *Error) Error() string {
	s := "page: " + e.Source
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Record > 0 {
		s += ": record " + strconv.Itoa(e.Record) + " at byte " + strconv.FormatInt(e.Offset, 10)
	}
	if e.ID != "" {
		s += " (" + e.ID + ")"
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
