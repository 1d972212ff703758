package page

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// kind is what a file holds, from its extension.
type kind int

const (
	kindNone kind = iota
	kindHTML
	kindText
	kindJSONL
	kindWARC
)

// classify returns the kind of a file and its name without the extensions
// that gave the kind away (".html.gz" etc.).
func classify(name string) (kind, string) {
	base := strings.TrimSuffix(name, ".gz")
	ext := strings.ToLower(filepath.Ext(base))
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	switch ext {
	case ".html", ".htm":
		return kindHTML, stem
	case ".txt":
		return kindText, stem
	case ".jsonl":
		return kindJSONL, stem
	case ".warc":
		return kindWARC, stem
	}
	return kindNone, name
}

// The formats of input files FileFormat names.
const (
	FormatPage  = "page"  // one page a file: .html, .htm, .txt
	FormatJSONL = "jsonl" // a page a line: .jsonl
	FormatWARC  = "warc"  // an archive of records: .warc
)

// FileFormat is how Read reads a file of this name (each extension
// optionally followed by .gz): FormatPage, FormatJSONL or FormatWARC; ""
// for a file it does not read.
func FileFormat(name string) string {
	switch k, _ := classify(name); k {
	case kindHTML, kindText:
		return FormatPage
	case kindJSONL:
		return FormatJSONL
	case kindWARC:
		return FormatWARC
	}
	return ""
}

// Read yields the pages of inputs: directories (walked recursively for
// .html, .htm and .txt files, each optionally gzipped; a JSONL or WARC file
// met in a directory is not read), single files of those kinds, JSONL files
// (.jsonl or .jsonl.gz) and WARC files (.warc or .warc.gz). Per-document
// problems are yielded as *Error and iteration continues; stop early by
// breaking out of the loop.
func Read(inputs []string, opts Options) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		r := reader{opts: opts, yield: yield}
		for _, in := range inputs {
			if !r.input(in) {
				return
			}
		}
	}
}

// reader carries the state of one Read iteration.
type reader struct {
	opts  Options
	yield func(Page, error) bool
	buf   []byte // decodeRecord's scratch space
}

// fail yields a problem with document id at the place at names; it
// returns false when the caller stopped.
func (r *reader) fail(at Error, id string, err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == at.Source {
		err = pe.Err // Error.Source names the path already
	}
	at.ID, at.Err = id, err
	return r.yield(Page{}, &at)
}

// emit yields p. A page whose id came before is yielded too: for an
// index it is a newer version of the same document (a page crawled
// again), and remembering every id would cost memory that grows with the
// input.
func (r *reader) emit(p Page, _ Error) bool {
	return r.yield(p, nil)
}

func (r *reader) input(path string) bool {
	info, err := os.Stat(path)
	if err != nil {
		return r.fail(Error{Source: path}, "", err)
	}
	if !info.IsDir() {
		k, stem := classify(filepath.Base(path))
		switch k {
		case kindJSONL:
			return r.jsonl(path)
		case kindWARC:
			return r.warc(path)
		case kindNone:
			return r.fail(Error{Source: path}, "", fmt.Errorf("unsupported file type (want .html, .htm, .txt, .jsonl or .warc, optionally .gz): %w", errors.ErrUnsupported))
		}
		return r.file(path, stem, k)
	}
	cont := true
	walkErr := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			cont = r.fail(Error{Source: p}, "", err)
		} else if !d.IsDir() {
			if k, _ := classify(d.Name()); k == kindHTML || k == kindText {
				rel, _ := filepath.Rel(path, p) // p is under path: cannot fail
				_, id := classify(filepath.ToSlash(rel))
				cont = r.file(p, id, k)
			}
		}
		if !cont {
			return fs.SkipAll
		}
		return nil
	})
	if walkErr != nil {
		return r.fail(Error{Source: path}, "", walkErr)
	}
	return cont
}

// file reads one HTML or text file.
func (r *reader) file(path, id string, k kind) bool {
	raw, err := r.readFile(path)
	if err == nil {
		var d Decoded
		if d, err = Decode(raw, ""); err == nil {
			p := Page{ID: id, Source: path, Charset: d.Charset, CharsetSource: d.Source}
			if k == kindText {
				p.Text = d.Text
			} else {
				p.HTML = d.Text
			}
			return r.emit(p, Error{Source: path})
		}
	}
	return r.fail(Error{Source: path}, id, err)
}

// readFile reads a file, gunzipping .gz, refusing more than MaxBytes.
func (r *reader) readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var src io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		src = gz
	} else if info, err := f.Stat(); err == nil && r.opts.MaxBytes > 0 && info.Size() > r.opts.MaxBytes {
		return nil, fmt.Errorf("%d bytes, more than %d: %w", info.Size(), r.opts.MaxBytes, ErrTooLarge)
	}
	return readAtMost(src, r.opts.MaxBytes)
}

// readAtMost reads src to its end, refusing more than max bytes
// (ErrTooLarge; no limit when max <= 0). Its buffer grows by doubling
// but never past max+1 bytes, so a refused input costs at most that.
func readAtMost(src io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		return io.ReadAll(src)
	}
	b := make([]byte, 0, min(512, max+1))
	for {
		b = grow(b, 1, max+1)
		n, err := src.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case int64(len(b)) > max:
			return nil, fmt.Errorf("more than %d bytes: %w", max, ErrTooLarge)
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		}
	}
}

// record is one JSONL line.
type record struct {
	ID    *string `json:"id"`
	URL   string  `json:"url"`
	Title string  `json:"title"`
	HTML  *string `json:"html"`
	Text  *string `json:"text"`
}

func (r *reader) jsonl(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return r.fail(Error{Source: path}, "", err)
	}
	defer f.Close()
	return r.jsonlStream(path, f)
}

// ReadJSONL yields the pages of one JSONL stream, gzipped or not (told by
// its first bytes), such as a request body; name stands for it in
// errors. Problems are yielded as *Error as by Read.
func ReadJSONL(name string, src io.Reader, opts Options) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		r := reader{opts: opts, yield: yield}
		r.jsonlStream(name, src)
	}
}

// gzipMagic starts every gzip member.
var gzipMagic = []byte{0x1f, 0x8b}

func (r *reader) jsonlStream(name string, src io.Reader) bool {
	br := bufio.NewReaderSize(src, 64<<10)
	if magic, _ := br.Peek(2); bytes.Equal(magic, gzipMagic) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return r.fail(Error{Source: name}, "", err)
		}
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	for n := 1; ; n++ {
		line, err := readLine(br, r.opts.lineLimit())
		if errors.Is(err, ErrTooLarge) {
			if !r.fail(Error{Source: name, Line: n}, "", fmt.Errorf("a line longer than %d bytes: %w", r.opts.lineLimit(), err)) {
				return false
			}
			continue
		}
		if err != nil && err != io.EOF {
			// The line is cut short: the read error says why.
			return r.fail(Error{Source: name, Line: n}, "", err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, boms[0].bom) // (a UTF-8 BOM: some Windows tools write one)
		}
		if len(bytes.TrimSpace(line)) > 0 && !r.jsonLine(line, name, n) {
			return false
		}
		if err == io.EOF {
			return true
		}
	}
}

// jsonLine parses and yields one non-blank JSONL line.
func (r *reader) jsonLine(line []byte, path string, n int) bool {
	at := Error{Source: path, Line: n}
	var rec record
	if err := decodeRecord(line, &rec, &r.buf); err != nil {
		return r.fail(at, "", fmt.Errorf("%w: %w", err, ErrSyntax))
	}
	if rec.ID == nil || *rec.ID == "" {
		return r.fail(at, "", fmt.Errorf("missing id: %w", ErrSyntax))
	}
	id := *rec.ID
	p := Page{ID: id, URL: rec.URL, Title: rec.Title, Source: path + ":" + strconv.Itoa(n), Charset: "utf-8", CharsetSource: SourceJSONL}
	var body string
	switch {
	case rec.HTML != nil:
		body, p.HTML = *rec.HTML, stripNUL(*rec.HTML)
	case rec.Text != nil:
		body, p.Text = *rec.Text, stripNUL(*rec.Text)
	default:
		return r.fail(at, id, fmt.Errorf("neither html nor text: %w", ErrSyntax))
	}
	switch {
	case r.opts.MaxBytes > 0 && int64(len(body)) > r.opts.MaxBytes:
		return r.fail(at, id, fmt.Errorf("%d bytes, more than %d: %w", len(body), r.opts.MaxBytes, ErrTooLarge))
	case isBinary(body):
		return r.fail(at, id, ErrBinary)
	case strings.TrimSpace(body) == "":
		return r.fail(at, id, ErrEmpty)
	}
	return r.emit(p, at)
}

// readLine returns the next line without its newline; the line is valid
// until the next read from br. A line longer than limit (when limit > 0)
// is consumed without being kept and reported as ErrTooLarge. At the end
// of input it returns the last line with io.EOF.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	keep := int64(0) // the most kept of a line, newline included; 0: all
	if limit > 0 {
		keep = limit + 1
	}
	chunk, err := br.ReadSlice('\n')
	var line []byte
	for tooLarge := false; ; {
		if !tooLarge {
			if keep > 0 && int64(len(line)+len(chunk)) > keep {
				tooLarge, line = true, nil
			} else if line == nil && err != bufio.ErrBufferFull {
				line = chunk // the whole line, in br's buffer
			} else {
				line = append(grow(line, len(chunk), keep), chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			if tooLarge {
				return nil, ErrTooLarge // a read error resurfaces on the next call
			}
			return bytes.TrimRight(line, "\r\n"), err
		}
		chunk, err = br.ReadSlice('\n')
	}
}

// grow returns b with room for n more bytes, doubling its capacity but
// not past limit bytes (when limit > 0) unless n needs more.
func grow(b []byte, n int, limit int64) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := max(2*cap(b), need)
	if limit > 0 {
		c = max(min(c, int(limit)), need)
	}
	return append(make([]byte, 0, c), b...)
}
