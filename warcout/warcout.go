package warcout

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/nlnwa/gowarc/v3"
)

// Options configure a Recorder. Start from DefaultOptions.
type Options struct {
	// MaxSize is the size in bytes, as stored, past which a file is
	// closed and the next exchange starts the next one. A file exceeds it
	// by at most one exchange, so that a request and its response stay
	// together. Default 1 GiB; 0: a single file.
	MaxSize int64
	// Software names the writer in each file's warcinfo record, for the
	// tools that read the files later. Default "bleve-dedup".
	Software string
}

// DefaultMaxSize is the default Options.MaxSize: 1 GiB, the size the
// WARC 1.1 standard suggests.
const DefaultMaxSize = 1 << 30

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options {
	return Options{MaxSize: DefaultMaxSize, Software: "bleve-dedup"}
}

func (o Options) validate() error {
	if o.MaxSize < 0 {
		return fmt.Errorf("warcout: max size %d < 0: %w", o.MaxSize, ErrInvalidOptions)
	}
	return nil
}

// recordOptions make records with SHA-1 block and payload digests in
// base 32, the form CDX indexes and most WARC tools expect, and ids of
// our own (see builderMu).
var recordOptions = []gowarc.WarcRecordOption{
	gowarc.WithAddMissingDigest(true),
	gowarc.WithDefaultDigestAlgorithm("sha1"),
	gowarc.WithRecordIdFunc(recordID),
}

// builderMu serialises the making of gowarc record options: each sets a
// global of github.com/google/uuid (EnableRandPool), a data race when
// done at once, and gowarc's default record ids read it.
var builderMu sync.Mutex

func newBuilder(t gowarc.RecordType) gowarc.WarcRecordBuilder {
	builderMu.Lock()
	defer builderMu.Unlock()
	return gowarc.NewRecordBuilder(t, recordOptions...)
}

// recordID returns a random (version 4) UUID URN.
func recordID() (string, error) {
	var b [16]byte
	rand.Read(b[:]) // never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]), nil
}

// Recorder writes HTTP exchanges to a series of WARC files. Its methods
// are safe for concurrent use.
type Recorder struct {
	opts   Options
	series *series
	w      *gowarc.WarcFileWriter

	mu        sync.Mutex // serialises writes, rotation and Close
	fileOpen  bool       // a file is being written: a write makes no warcinfo
	files     []string   // this run's files, in order
	exchanges int
	truncated int
	err       error // the first exchange that could not be written
	closed    bool
	closeErr  error
	finished  []string
}

// Stats describe what a Recorder wrote.
type Stats struct {
	// Files are this run's files in the order written; until Close the
	// last one carries the ".open" suffix on disk.
	Files []string
	// Exchanges are the request and response pairs written; Truncated
	// counts those whose body is not all there (WARC-Truncated).
	Exchanges, Truncated int
	// Bytes is the size of Files as stored.
	Bytes int64
	// Finished says, a line each, what Open did with the files an
	// interrupted run left open.
	Finished []string
}

// Open starts recording to name, which ends in ".warc.gz" (a gzip member
// per record) or ".warc". The first file is name itself; when it grows
// past Options.MaxSize the next is NAME-00001.warc.gz, and so on. When
// files of the series exist already (a resumed crawl), recording goes on
// after the highest serial, so nothing is overwritten; a file an
// interrupted run left open (NAME.warc.gz.open) is first cut after its
// last whole record and closed. Files are created at the first
// exchange.
func Open(name string, o Options) (*Recorder, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	s, err := newSeries(name)
	if err != nil {
		return nil, err
	}
	open, err := s.scan()
	if err != nil {
		return nil, fmt.Errorf("warcout: %w", err)
	}
	r := &Recorder{opts: o, series: s}
	for _, f := range open {
		done, cut, err := finish(f)
		if err != nil {
			return nil, fmt.Errorf("warcout: finish %s: %w", f, err)
		}
		msg := fmt.Sprintf("%s: removed, no whole record", f)
		if done != "" {
			msg = fmt.Sprintf("%s: closed as %s, %d bytes of a cut record dropped", f, filepath.Base(done), cut)
		}
		r.finished = append(r.finished, msg)
	}
	r.w = gowarc.NewWarcFileWriter(
		gowarc.WithFileNameGenerator(s),
		gowarc.WithCompression(s.compressed()),
		gowarc.WithMaxFileSize(0), // rotated by write, whole exchanges at a time
		gowarc.WithAddWarcConcurrentToHeader(true),
		gowarc.WithWarcInfoFunc(r.warcinfo),
		gowarc.WithRecordOptions(recordOptions...),
	)
	return r, nil
}

// warcinfo fills the record that starts every file.
func (r *Recorder) warcinfo(b gowarc.WarcRecordBuilder) error {
	_, err := fmt.Fprintf(b, "software: %s\r\nformat: WARC File Format 1.1\r\n"+
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n", r.opts.Software)
	return err
}

// write writes one exchange's records to the current file, then closes
// the file when it has grown past MaxSize. The first failure is kept:
// later exchanges are dropped, as the archive would have a hole anyway.
func (r *Recorder) write(recs ...gowarc.WarcRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && r.closed {
		r.err = fmt.Errorf("warcout: %s: %w", recs[len(recs)-1].WarcHeader().Get(gowarc.WarcTargetURI), ErrClosed)
	}
	if r.err != nil {
		for _, rec := range recs {
			rec.Close()
		}
		return r.err
	}
	if !r.fileOpen { // the writer makes the new file's warcinfo
		builderMu.Lock()
	}
	res := r.w.Write(recs...)
	if !r.fileOpen {
		builderMu.Unlock()
		r.fileOpen = true
	}
	if len(res) != len(recs) {
		r.err = fmt.Errorf("warcout: write: %w", ErrClosed)
		return r.err
	}
	for _, x := range res {
		if x.Err != nil {
			r.err = fmt.Errorf("warcout: write: %w", x.Err)
			return r.err
		}
	}
	cur := filepath.Join(r.series.dir, res[0].FileName)
	if len(r.files) == 0 || r.files[len(r.files)-1] != cur {
		r.files = append(r.files, cur)
	}
	r.exchanges++
	if recs[len(recs)-1].WarcHeader().Has(gowarc.WarcTruncated) {
		r.truncated++
	}
	if r.opts.MaxSize == 0 {
		return nil
	}
	info, err := os.Stat(cur + openSuffix)
	if err == nil && info.Size() >= r.opts.MaxSize {
		err = r.w.Rotate()
		r.fileOpen = false
	}
	if err != nil {
		r.err = fmt.Errorf("warcout: rotate: %w", err)
	}
	return r.err
}

// Err returns the first failure to record an exchange (nil if none). A
// crawler checks it before taking a page as done, so that a page whose
// exchange is not in the archive is fetched again after a restart.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close closes the file being written, dropping its ".open" suffix. It
// returns the errors of closing only; Err reports failed exchanges.
// Later calls return the first call's result.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.closeErr
	}
	r.closed = true
	err := r.w.Rotate()
	r.w.Close()
	if err != nil {
		r.closeErr = fmt.Errorf("warcout: close: %w", err)
	}
	return r.closeErr
}

// Stats returns what was written so far.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Stats{Files: append([]string(nil), r.files...), Exchanges: r.exchanges, Truncated: r.truncated,
		Finished: append([]string(nil), r.finished...)}
	for _, f := range r.files {
		info, err := os.Stat(f)
		if errors.Is(err, os.ErrNotExist) {
			info, err = os.Stat(f + openSuffix)
		}
		if err == nil {
			st.Bytes += info.Size()
		}
	}
	return st
}
