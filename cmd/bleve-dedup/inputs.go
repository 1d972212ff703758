package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// The INPUT arguments of index, eval and extract: checked before anything
// is read, so that a mistyped path fails the command at once (exit 1)
// instead of counting as a page that had an error after a long run, and
// read through package page with the bytes read counted, for progress.

// The kinds of inputs: page.FileFormat's, and a directory.
const (
	kindPage  = page.FormatPage  // one page a file
	kindJSONL = page.FormatJSONL // a page a line
	kindWARC  = page.FormatWARC  // an archive of records
	kindDir   = "dir"            // page files, walked by page.Read
)

// inputFile is one input to read, in the order given.
type inputFile struct {
	path string
	kind string
	size int64 // bytes to read (a directory's page files together); 0 unknown
}

// inputSet is what a command reads: its inputs, checked, with the JSONL
// files of its directories; and how many of their bytes were read (as
// stored: compressed bytes for .gz) against their total.
type inputSet struct {
	files []inputFile
	total int64
	done  atomic.Int64
	// notRead are the WARC archives found in directories, which are not
	// read (see openInputs).
	notRead []string
}

// openInputs checks every input before anything is read: each must exist,
// be readable and be a directory or a file of a kind package page reads.
// All that fail are named in one error. A directory is read for its page
// files (page.Read) and, after them, for the JSONL files in it, each as
// if given on its own (once, when it is given too). A WARC archive in a
// directory is not read but named in notRead: wget --mirror --warc-file
// writes it beside the very pages it holds, which would be indexed twice
// under two ids; named as an input of its own, it is read.
func openInputs(args []string) (*inputSet, error) {
	in := &inputSet{}
	var bad []string
	given := map[string]bool{} // the files named as inputs, by absolute path
	for _, a := range args {
		if abs, err := filepath.Abs(a); err == nil {
			given[abs] = true
		}
	}
	var checked []inputFile
	for _, a := range args {
		f, err := checkInput(a)
		if err != nil {
			bad = append(bad, err.Error())
		}
		checked = append(checked, f)
	}
	switch len(bad) {
	case 0:
	case 1:
		return nil, fmt.Errorf("input %s (nothing was read)", bad[0])
	default:
		return nil, fmt.Errorf("%d inputs cannot be read (nothing was read): %s", len(bad), strings.Join(bad, "; "))
	}
	for _, f := range checked {
		in.files = append(in.files, f)
		in.total += f.size
		if f.kind == kindDir {
			for _, j := range in.walk(f.path, given) {
				in.files = append(in.files, j)
				in.total += j.size
			}
		}
	}
	return in, nil
}

// checkInput returns the input at path, or why it cannot be read (the
// path first).
func checkInput(path string) (inputFile, error) {
	info, err := os.Stat(path)
	if err != nil {
		return inputFile{}, fmt.Errorf("%s: %w", path, pathErr(err))
	}
	f := inputFile{path: path, kind: kindDir}
	if !info.IsDir() {
		if f.kind = page.FileFormat(filepath.Base(path)); f.kind == "" {
			return f, fmt.Errorf("%s: not a file of pages (want .html, .htm, .txt, .jsonl or .warc, optionally .gz, or a directory)", path)
		}
		f.size = info.Size()
	}
	// Opening tells a file this user may not read. Only a regular file or
	// a directory: opening a named pipe would wait for its writer.
	if info.Mode().IsRegular() || info.IsDir() {
		h, err := os.Open(path)
		if err != nil {
			return f, fmt.Errorf("%s: %w", path, pathErr(err))
		}
		h.Close()
	}
	return f, nil
}

// pathErr is err without the path an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// walk adds up the size of the page files under dir (what page.Read
// reads of it) and returns its JSONL files not given as inputs, to read
// after it; WARC archives go to notRead. Errors are left to page.Read,
// which reports them as it meets them.
func (in *inputSet) walk(dir string, given map[string]bool) []inputFile {
	var jsonl []inputFile
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		switch page.FileFormat(d.Name()) {
		case kindPage:
			in.total += info.Size()
		case kindJSONL:
			if abs, err := filepath.Abs(p); err != nil || !given[abs] {
				jsonl = append(jsonl, inputFile{path: p, kind: kindJSONL, size: info.Size()})
			}
		case kindWARC:
			in.notRead = append(in.notRead, p)
		}
		return nil
	})
	return jsonl
}

// warnNotRead names on w the files of directories that are not read.
func (in *inputSet) warnNotRead(w io.Writer) {
	for _, p := range in.notRead {
		fmt.Fprintf(w, "bleve-dedup: not read: %s: a WARC archive in a directory is read only when given as an input of its own\n", p)
	}
}

// pages yields the pages of the inputs, in order, as page.Read would
// (its JSONL and WARC readers are given the files, so that the bytes they
// read are counted).
func (in *inputSet) pages(opts page.Options) iter.Seq2[page.Page, error] {
	return func(yield func(page.Page, error) bool) {
		for _, f := range in.files {
			if !in.read(f, opts, yield) {
				return
			}
		}
	}
}

// read yields the pages of one input; false when the caller stopped.
func (in *inputSet) read(f inputFile, opts page.Options, yield func(page.Page, error) bool) bool {
	switch f.kind {
	case kindJSONL:
		h, err := os.Open(f.path)
		if err != nil {
			return yield(page.Page{}, &page.Error{Source: f.path, Err: pathErr(err)})
		}
		defer h.Close()
		c := &countReader{r: h, n: &in.done}
		defer c.finish(f.size)
		for p, err := range page.ReadJSONL(f.path, c, opts) {
			if !yield(p, err) {
				return false
			}
		}
	case kindWARC:
		h, err := os.Open(f.path)
		if err != nil {
			return yield(page.Page{}, &page.Error{Source: f.path, Err: pathErr(err)})
		}
		defer h.Close()
		info, err := h.Stat()
		if err != nil {
			return yield(page.Page{}, &page.Error{Source: f.path, Err: pathErr(err)})
		}
		c := &countReaderAt{r: h, n: &in.done}
		defer c.finish(f.size)
		for p, err := range page.ReadWARC(f.path, c, info.Size(), opts) {
			if !yield(p, err) {
				return false
			}
		}
	default:
		// A page file is read whole before its page (or error) comes: its
		// size is counted then.
		for p, err := range page.Read([]string{f.path}, opts) {
			src := p.Source
			var pe *page.Error
			if errors.As(err, &pe) {
				src = pe.Source
			}
			if f.kind == kindPage {
				in.done.Add(f.size)
			} else if info, serr := os.Stat(src); serr == nil && info.Mode().IsRegular() {
				in.done.Add(info.Size())
			}
			if !yield(p, err) {
				return false
			}
		}
	}
	return true
}

// countReader counts the bytes read from r into n.
type countReader struct {
	r    io.Reader
	n    *atomic.Int64
	read int64
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.read += int64(k)
	c.n.Add(int64(k))
	return k, err
}

// finish counts what was not read of a file of size bytes (a reader that
// stopped before its end), so that a file read counts whole.
func (c *countReader) finish(size int64) {
	if size > c.read {
		c.n.Add(size - c.read)
	}
}

// countReaderAt counts the bytes of r read up to: the furthest offset
// read (a WARC reader passes over a record it does not take).
type countReaderAt struct {
	r    io.ReaderAt
	n    *atomic.Int64
	read int64 // the furthest offset read
}

func (c *countReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	if end := off + int64(k); end > c.read {
		c.n.Add(end - c.read)
		c.read = end
	}
	return k, err
}

func (c *countReaderAt) finish(size int64) {
	if size > c.read {
		c.n.Add(size - c.read)
	}
}
