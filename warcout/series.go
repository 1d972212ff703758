package warcout

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nlnwa/gowarc/v3"
)

// openSuffix marks a file being written (gowarc's default); it is
// removed when the file is closed.
const openSuffix = ".open"

// serialDigits pads serials so that a series' numbered files sort in
// the order they were written.
const serialDigits = 5

// series names the files of one recording: NAME.warc.gz, then
// NAME-00001.warc.gz, NAME-00002.warc.gz, ... (or .warc uncompressed).
// It is gowarc's file name generator, called by the writer's goroutine
// only.
type series struct {
	dir, stem, ext string // ext is ".warc" or ".warc.gz"
	next           int    // the serial to try next
}

func newSeries(name string) (*series, error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	for _, ext := range []string{".warc.gz", ".warc"} {
		if stem, ok := strings.CutSuffix(base, ext); ok && stem != "" {
			return &series{dir: filepath.Clean(dir), stem: stem, ext: ext}, nil
		}
	}
	return nil, fmt.Errorf("warcout: %q: want a name ending in .warc.gz or .warc: %w", name, ErrInvalidOptions)
}

func (s *series) compressed() bool { return s.ext == ".warc.gz" }

// base is the name of the file with the serial n.
func (s *series) base(n int) string {
	if n == 0 {
		return s.stem + s.ext
	}
	return fmt.Sprintf("%s-%0*d%s", s.stem, serialDigits, n, s.ext)
}

// serial returns the serial of a file of the series, open or closed.
func (s *series) serial(base string) (int, bool) {
	rest, ok := strings.CutSuffix(strings.TrimSuffix(base, openSuffix), s.ext)
	if !ok {
		return 0, false
	}
	if rest == s.stem {
		return 0, true
	}
	num, ok := strings.CutPrefix(rest, s.stem+"-")
	if !ok || len(num) < serialDigits || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n > 0
}

// scan finds the series' files already in the directory: the serial
// after the last one (a resumed recording goes on there, so earlier
// files are neither overwritten nor followed by older-numbered ones) and
// the files an interrupted run left open.
func (s *series) scan() (open []string, err error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n, ok := s.serial(e.Name())
		if !ok {
			continue
		}
		s.next = max(s.next, n+1)
		if strings.HasSuffix(e.Name(), openSuffix) {
			open = append(open, filepath.Join(s.dir, e.Name()))
		}
	}
	return open, nil
}

// NewWarcfileName returns the next free name of the series, without the
// ".gz" gowarc adds when it compresses.
func (s *series) NewWarcfileName() (string, string) {
	for {
		base := s.base(s.next)
		s.next++
		p := filepath.Join(s.dir, base)
		if !exists(p) && !exists(p+openSuffix) {
			return s.dir, strings.TrimSuffix(base, ".gz")
		}
	}
}

// exists reports whether a file is there. Other errors count as absent:
// creating the file then fails and says why.
func exists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

// finish closes a file a crashed run left open: it cuts the file after
// its last whole record (a crash may leave half a gzip member) and drops
// the ".open" suffix, or removes it when not one record is whole. It
// returns the name the records are under ("" when removed) and how many
// bytes were cut.
func finish(openName string) (name string, cut int64, err error) {
	info, err := os.Stat(openName)
	if err != nil {
		return "", 0, err
	}
	// The reader judges a record by what follows it too (a plain
	// record's end-of-record marker is checked only when fewer than four
	// bytes follow), so a record whole inside the file may not be whole
	// at its end: cut until the file reads whole to its last byte.
	size := info.Size()
	for {
		end, err := wholeRecords(openName)
		if err != nil {
			return "", 0, err
		}
		if end == 0 {
			return "", info.Size(), os.Remove(openName)
		}
		if end == size {
			break
		}
		if err := os.Truncate(openName, end); err != nil {
			return "", 0, err
		}
		size = end
	}
	cut = info.Size() - size
	name = strings.TrimSuffix(openName, openSuffix)
	if exists(name) {
		return "", 0, fmt.Errorf("%s: both it and %s exist", name, filepath.Base(openName))
	}
	return name, cut, os.Rename(openName, name)
}

// wholeRecords returns the offset just after the last record of the file
// that reads whole. Any validation finding counts as a cut: the records
// we write have none (the tests read them with strict validation), while
// a record cut short shows one, be it a block shorter than its
// Content-Length, a wrong digest or a missing end-of-record marker.
func wholeRecords(name string) (int64, error) {
	builderMu.Lock()
	rd, err := gowarc.NewWarcFileReader(name, 0)
	builderMu.Unlock()
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	var end int64
	for {
		rec, err := rd.Next()
		whole := err == nil && len(rec.Validation) == 0
		if whole {
			end = rec.Offset + rec.Size
		}
		rec.Close()
		if !whole {
			return end, nil
		}
	}
}
