package dedupfilter

import (
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
	cur   *os.File // the file appended to, nil until the first append
	size  int64    // its size
	next  uint64   // the number of the next file
	files []*journalFile
	byID  map[string]journalEntry // the latest payload of each document
	bySeq map[uint64][]string     // the documents of each open mutation
}

type journalFile struct {
	name string
	open map[uint64]bool // its mutations not yet confirmed
}

type journalEntry struct {
	seq     uint64
	payload []byte
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
			j.put(seq, d.ID, d.Payload)
		}
		b = b[8+n:]
	}
	return nil
}

func (j *journal) put(seq uint64, id string, payload []byte) {
	if e, ok := j.byID[id]; ok && e.seq > seq {
		return
	}
	j.byID[id] = journalEntry{seq, payload}
	j.bySeq[seq] = append(j.bySeq[seq], id)
}

func encodeJournal(seq uint64, ops []Op) []byte {
	n := 8 + binary.MaxVarintLen64*2
	for _, op := range ops {
		n += len(op.ID) + len(op.Payload) + 2*binary.MaxVarintLen64
	}
	b := make([]byte, 8, n)
	b = binary.AppendUvarint(b, seq)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = binenc.AppendString(b, op.ID)
		b = binenc.AppendString(b, string(op.Payload))
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)-8))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], castagnoli))
	return b
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
	if j.cur == nil || j.size >= journalFileBytes {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	rec := encodeJournal(seq, ops)
	if _, err := j.cur.Write(rec); err != nil {
		// A record written in part would hide the ones after it (the
		// file is appended to: writes go to its end, wherever that is).
		return errors.Join(fmt.Errorf("dedupfilter: journal: %w", err), j.cur.Truncate(j.size))
	}
	if j.sync {
		if err := j.cur.Sync(); err != nil {
			return fmt.Errorf("dedupfilter: journal: %w", err)
		}
	}
	j.size += int64(len(rec))
	j.files[len(j.files)-1].open[seq] = true
	for _, op := range ops {
		j.put(seq, op.ID, op.Payload)
	}
	return nil
}

// rotate starts a new file, removing the last one when nothing in it is
// open.
func (j *journal) rotate() error {
	if j.cur != nil {
		if err := j.cur.Close(); err != nil {
			return fmt.Errorf("dedupfilter: journal: %w", err)
		}
		j.cur = nil
		if err := j.removeDone(); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("%016x%s", j.next, journalExt)
	f, err := os.OpenFile(filepath.Join(j.dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	j.next++
	j.cur, j.size = f, 0
	j.files = append(j.files, &journalFile{name: name, open: map[uint64]bool{}})
	return nil
}

// payload returns the journal's payload of id.
func (j *journal) payload(id string) ([]byte, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.byID[id]
	return e.payload, ok
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
	seqs := make([]uint64, 0, len(j.bySeq))
	for _, f := range j.files {
		for seq := range f.open {
			seqs = append(seqs, seq)
		}
	}
	j.mu.Unlock()
	return j.confirm(seqs)
}

// removeDone removes the files with nothing open and empties the one
// appended to when nothing in it is open; j.mu is held.
func (j *journal) removeDone() error {
	if j.readOnly {
		return nil
	}
	var errs []error
	j.files = slices.DeleteFunc(j.files, func(f *journalFile) bool {
		if len(f.open) > 0 || j.cur != nil && f == j.files[len(j.files)-1] {
			return false
		}
		if err := os.Remove(filepath.Join(j.dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			return false
		}
		return true
	})
	if last := len(j.files) - 1; j.cur != nil && j.size > 0 && len(j.files[last].open) == 0 {
		if err := j.cur.Truncate(0); err != nil {
			errs = append(errs, err)
		} else {
			j.size = 0
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	return nil
}

// close closes the file appended to.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil {
		return nil
	}
	err := j.cur.Close()
	j.cur = nil
	if err != nil {
		return fmt.Errorf("dedupfilter: journal: %w", err)
	}
	return nil
}
