package dedupfilter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
)

// A journal keeps the payloads of documents on their way to a search index
// that keeps them (see Filter.KeepPayloadsIn) until it has them: the store
// holds an empty payload for such a document from its decision on, and
// its text would be nowhere if the process stopped before the search
// index's write. Its files are written before the store's commit, and
// removed once every mutation whose payloads they hold is confirmed
// (Applied, Replay).
//
// A file holds records, one a mutation: a 4-byte length and a CRC-32C of
// the body, then the body: the mutation's sequence number, and each
// document's id and payload. A record cut short by a crash is the last
// one written and its mutation never committed: reading stops there.
//
// Files, not the store's keys: the store's value log is not
// garbage-collected, and payloads written there only to be replaced
// would keep their space.
type journal struct {
	dir      string
	sync     bool
	readOnly bool

	mu    sync.Mutex
	cur   *journalFile // the file appended to, nil until the first append
	next  uint64       // the number of the next file
	files []*journalFile
	byID  map[string]journalEntry // the latest payload of each document
	bySeq map[uint64][]string     // the documents of each open mutation
}

type journalFile struct {
	name string
	// f is open for reading and appending; nil for a file read whole at
	// open, whose entries hold their payloads.
	f    *os.File
	size int64
	open map[uint64]bool // its mutations not yet confirmed
}

// A journalEntry is where a payload is: in memory, or n bytes at off in
// file (the filter keeps no reference to a caller's payload).
type journalEntry struct {
	seq     uint64
	payload []byte
	file    *journalFile
	off     int64
	n       int
}

// journalFileBytes is the size past which a journal starts a new file:
// a file is removed only once all its mutations are confirmed, and while
// the search index's write of one batch goes on the next is decided.
const journalFileBytes = 16 << 20

const journalExt = ".journal"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openJournal reads the journal in dir, creating dir unless readOnly.
func openJournal(dir string, sync, readOnly bool) (*journal, error) {
	j := &journal{dir: dir, sync: sync, readOnly: readOnly, byID: map[string]journalEntry{}, bySeq: map[uint64][]string{}}
	if !readOnly {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("dedupfilter: journal: %w", err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !(readOnly && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("dedupfilter: journal: %w", err)
	}
	for _, e := range entries {
		num, ok := strings.CutSuffix(e.Name(), journalExt)
		n, err := strconv.ParseUint(num, 16, 64)
		if !ok || err != nil || e.IsDir() {
			continue
		}
		j.next = max(j.next, n+1)
		if err := j.load(e.Name()); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// load reads the records of file name.
func (j *journal) load(name string) error {
	b, err := os.ReadFile(filepath.Join(j.dir, name))
	if err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	f := &journalFile{name: name, open: map[uint64]bool{}}
	j.files = append(j.files, f)
	for len(b) >= 8 {
		n, sum := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		if uint64(len(b)-8) < uint64(n) || crc32.Checksum(b[8:8+n], castagnoli) != sum {
			break // the record a crash cut short
		}
		seq, docs, err := decodeJournal(b[8 : 8+n])
		if err != nil {
			return fmt.Errorf("dedupfilter: journal %s: %w", filepath.Join(j.dir, name), err)
		}
		f.open[seq] = true
		for _, d := range docs {
			j.put(d.ID, journalEntry{seq: seq, payload: d.Payload})
		}
		b = b[8+n:]
	}
	return nil
}

func (j *journal) put(id string, e journalEntry) {
	if old, ok := j.byID[id]; ok && old.seq > e.seq {
		return
	}
	j.byID[id] = e
	j.bySeq[e.seq] = append(j.bySeq[e.seq], id)
}

// encodeJournal is mutation seq's record, and where each op's payload
// is in it.
func encodeJournal(seq uint64, ops []Op) ([]byte, []int) {
	n := 8 + binary.MaxVarintLen64*2
	for _, op := range ops {
		n += len(op.ID) + len(op.Payload) + 2*binary.MaxVarintLen64
	}
	b := make([]byte, 8, n)
	b = binary.AppendUvarint(b, seq)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	offs := make([]int, len(ops))
	for i, op := range ops {
		b = binenc.AppendString(b, op.ID)
		b = binary.AppendUvarint(b, uint64(len(op.Payload)))
		offs[i] = len(b)
		b = append(b, op.Payload...)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)-8))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], castagnoli))
	return b, offs
}

func decodeJournal(b []byte) (uint64, []Doc, error) {
	r := binenc.NewReader(b)
	seq := r.Uvarint()
	docs := make([]Doc, r.Count(2))
	for i := range docs {
		docs[i] = Doc{ID: r.String(), Payload: []byte(r.String())}
	}
	return seq, docs, r.Done()
}

// append records mutation seq's payloads, the Payload of each op. It
// returns once the file holds them (on disk, when the journal syncs).
func (j *journal) append(seq uint64, ops []Op) error {
	if len(ops) == 0 {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil || j.cur.size >= journalFileBytes {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	cur := j.cur
	rec, offs := encodeJournal(seq, ops)
	if _, err := cur.f.Write(rec); err != nil {
		// A record written in part would hide the ones after it (the
		// file is appended to: writes go to its end, wherever that is).
		return errors.Join(fmt.Errorf("dedupfilter: journal: %w", err), cur.f.Truncate(cur.size))
	}
	if j.sync {
		if err := cur.f.Sync(); err != nil {
			return fmt.Errorf("dedupfilter: journal: %w", err)
		}
	}
	cur.open[seq] = true
	for i, op := range ops {
		j.put(op.ID, journalEntry{seq: seq, file: cur, off: cur.size + int64(offs[i]), n: len(op.Payload)})
	}
	cur.size += int64(len(rec))
	return nil
}

// rotate starts a new file, removing the last one when nothing in it is
// open.
func (j *journal) rotate() error {
	if j.cur != nil {
		j.cur = nil // (kept open while its entries are read)
		if err := j.removeDone(); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("%016x%s", j.next, journalExt)
	f, err := os.OpenFile(filepath.Join(j.dir, name), os.O_CREATE|os.O_EXCL|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	j.next++
	j.cur = &journalFile{name: name, f: f, open: map[uint64]bool{}}
	j.files = append(j.files, j.cur)
	return nil
}

// payload returns the journal's payload of id, a copy of its own.
func (j *journal) payload(id string) ([]byte, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.byID[id]
	switch {
	case !ok:
		return nil, false, nil
	case e.file == nil:
		return bytes.Clone(e.payload), true, nil
	}
	p := make([]byte, e.n)
	if _, err := e.file.f.ReadAt(p, e.off); err != nil {
		return nil, false, fmt.Errorf("dedupfilter: journal %s: %w", filepath.Join(j.dir, e.file.name), err)
	}
	return p, true, nil
}

// confirm forgets the payloads of mutations seqs, which the search index
// has: files left with nothing open are removed, and the file being
// appended is emptied.
func (j *journal) confirm(seqs []uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, seq := range seqs {
		for _, id := range j.bySeq[seq] {
			if j.byID[id].seq == seq {
				delete(j.byID, id)
			}
		}
		delete(j.bySeq, seq)
		for _, f := range j.files {
			delete(f.open, seq)
		}
	}
	return j.removeDone()
}

// confirmAll forgets every payload: Replay has written the search index
// as the store holds it.
func (j *journal) confirmAll() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.byID)
	clear(j.bySeq)
	for _, f := range j.files {
		clear(f.open)
	}
	return j.removeDone()
}

// removeDone removes the files with nothing open and empties the one
// appended to when nothing in it is open; j.mu is held.
func (j *journal) removeDone() error {
	if j.readOnly {
		return nil
	}
	var errs []error
	j.files = slices.DeleteFunc(j.files, func(f *journalFile) bool {
		if len(f.open) > 0 || f == j.cur {
			return false
		}
		if f.f != nil {
			if err := f.f.Close(); err != nil {
				errs = append(errs, err)
			}
			f.f = nil
		}
		if err := os.Remove(filepath.Join(j.dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			return false
		}
		return true
	})
	if cur := j.cur; cur != nil && cur.size > 0 && len(cur.open) == 0 {
		if err := cur.f.Truncate(0); err != nil {
			errs = append(errs, err)
		} else {
			cur.size = 0
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	return nil
}

// close closes the journal's files.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var errs []error
	for _, f := range j.files {
		if f.f != nil {
			errs = append(errs, f.f.Close())
			f.f = nil
		}
	}
	j.cur = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	return nil
}
