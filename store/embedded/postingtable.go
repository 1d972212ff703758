package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/blevesearch/mmap-go"
	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/bleve-dedup/bleve-dedup/store/internal/codec"
)

// postingTable holds the embedded store's posting lists: an open-addressing
// hash table of 8-byte slots, each one posting (a key's 32-bit fingerprint
// and a document number), in a file mapped into memory (page cache, not
// heap).
//
// Why not a Badger key per list, as before: a document posts to about 57
// lists and looks up as many. As Badger values, every post rewrote a list
// (a memtable insert, later compactions) and every lookup walked the
// memtables and the levels: at 100,000 pages that was a quarter of the
// filter's CPU. Here a lookup or a post reads one or two cache lines.
//
// A key's postings are found by linear probing from a home slot derived
// from its fingerprint, so the table can be rehashed from its own slots.
// Keys with the same fingerprint share a list: at a million documents
// (about 30 million keys) about one key in a hundred shares its list with
// another, which only adds candidates that verification turns down. A
// removed posting leaves a tombstone until the next rehash. A full list (a
// stop list) is one marker slot; the marker is also written to Badger, so
// that the table can be rebuilt from the store alone: the markers, then
// each document record's posting keys.
//
// Writes are applied after the store's commit, under the filter's lock;
// lookups take the read lock. The header says whether the file was closed
// cleanly: any other file (a crash may leave the table ahead of or behind
// the store) is rebuilt from the store at open, which takes about as long
// as reading every document record.
//
// A table grows (or is rehashed) without stalling the writes: the new
// table takes every write at once, and the old one's slots move over a
// few at a time with each later write (moveRate a reserved slot), while
// lookups read both. Slots move in index order, which is the order of
// their home slots in the new table too, so moving writes it almost
// sequentially. A table still moving when closed cleanly finishes first.
// A table grows by half (growth), not twice: it is then 47% to 70%
// full, where a doubling table is 35% to 70%, and each growth's new file
// is a smaller step.
type postingTable struct {
	mu    sync.RWMutex // writes and rehashes hold it; lookups read-lock it
	path  string       // "" for anonymous memory
	ro    bool         // a read-only file: never written
	slots              // the table
	// old is the table whose slots are moving into slots, or nil; its
	// slots below moved have moved, and left of the rest hold a posting
	// or a marker. Its file is path+".old".
	old     *slots
	moved   uint64
	left    uint64
	used    uint64 // slots of the table not empty: postings, markers, tombstones
	entries uint64 // postings (not markers), in both tables
	lists   uint64 // keys with a posting or a marker
	markers uint64 // full lists
	// seq is the store's mutation counter the table is current with: set
	// by the store before a clean close, checked at open, so that a table
	// is not trusted beside another store, or one changed without it.
	seq uint64
}

const (
	// postingTableMagic names the layout: a file of another (bdpt0001
	// had 2^n slots and a byte for n) is rebuilt from the store.
	postingTableMagic  = "bdpt0002"
	postingTableHeader = 4096 // one page: the slots stay page-aligned
	// minTableSlots is the size of a new table: 2^16 slots, 512 KiB.
	minTableSlots = 1 << 16
	// maxTableSlots bounds the table (2^32 slots, 32 GiB): home slots come
	// from the fingerprint's 32 bits, so a larger table would not spread
	// keys over more of them.
	maxTableSlots = 1 << 32
	// slotsPage is the unit of a table's size: a page of slots.
	slotsPage = 512
	// A table grows or is rehashed at its size (tombstones dropped) once
	// its used slots pass maxLoad: linear probing stays short below about
	// 0.7.
	maxLoad = 0.7
	// growth is how much a table grows: to growth times the size its live
	// slots fill to maxLoad.
	growth = 1.5
	// moveRate is how many of the old table's slots move with each slot
	// a write reserves: the old table has moved long before the new one
	// fills (at most 1/growth of its slots hold what moves in), and
	// lookups read two tables for a short while only.
	moveRate = 16
	// Header layout: magic, the slot count (8 bytes), clean flag (1
	// byte), then the counters and the store's seq.
	offTableSize  = len(postingTableMagic)
	offTableClean = offTableSize + 8
	offTableCount = offTableClean + 1 // used, entries, lists, markers, seq: 8 bytes each

	// Slot values: 0 is empty; a fingerprint of all ones is a tombstone;
	// a document number of all ones marks a full list.
	tombstone  = uint64(0xffffffff) << 32
	fullMarker = uint64(0xffffffff)
	// maxTableSeq is the largest document number a slot holds.
	maxTableSeq = 0xfffffffe
)

// postingChange is a mutation's change to one list, applied to the table
// after the store's commit.
type postingChange struct {
	fp             uint32
	full           bool // the list became full: its postings go, a marker stays
	added, removed []uint64
}

// fingerprint is key's 32-bit fingerprint: never 0 (empty) or all ones
// (tombstone).
func fingerprint(key []byte) uint32 {
	return uint32(store.Hash(key)>>32%0xfffffffe) + 1
}

// slots is a table's memory: a header page, then n slots.
type slots struct {
	data mmap.MMap
	file *os.File // nil for anonymous memory
	n    uint64
}

// newSlots maps an empty table of n slots: anonymous memory for path
// "", else a new file at path+".new" that the caller renames.
func newSlots(path string, n uint64) (slots, error) {
	size := postingTableHeader + 8*int(n)
	next := slots{n: n}
	var err error
	if path == "" {
		next.data, err = mmap.MapRegion(nil, size, mmap.RDWR, mmap.ANON, 0)
	} else {
		next.data, next.file, err = mapNewFile(path+".new", size)
	}
	return next, err
}

// unmap unmaps the slots and closes their file.
func (s *slots) unmap() error {
	var errs []error
	if s.data != nil {
		errs = append(errs, s.data.Unmap())
	}
	if s.file != nil {
		errs = append(errs, s.file.Close())
	}
	s.data, s.file = nil, nil
	return errors.Join(errs...)
}

// openPostingTable opens the table at path ("" for anonymous memory), or
// builds it from db (the markers and records of the store) unless the file
// was closed cleanly with the store at seq. A read-only table is never
// written: a file that is not trusted is rebuilt in anonymous memory
// instead.
func openPostingTable(path string, db *badger.DB, readOnly bool, seq uint64, sigKeys func([]byte) ([][]byte, error)) (*postingTable, error) {
	t := &postingTable{path: path, seq: seq}
	if path != "" {
		if !readOnly {
			// A growth's old table that a crash left (the table then
			// is not trusted either).
			if err := os.Remove(path + ".old"); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("embedded: posting table: %w", err)
			}
		}
		trusted, err := t.openFile(readOnly)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("embedded: posting table %s: %w", path, err), t.close(false))
		}
		if trusted {
			return t, nil
		}
		if err := t.close(false); err != nil {
			return nil, err
		}
		if readOnly {
			t.path, t.ro = "", false // rebuilt in memory
		}
	}
	if err := t.build(db, sigKeys); err != nil {
		return nil, err
	}
	return t, nil
}

// openFile maps the file at path and reports whether it can be trusted:
// closed cleanly with the store at t.seq, of the size its header names. A
// trusted file opened for writing is marked open (not clean) on disk
// before it is changed.
func (t *postingTable) openFile(readOnly bool) (trusted bool, err error) {
	flag, prot := os.O_RDWR, mmap.RDWR
	if readOnly {
		flag, prot, t.ro = os.O_RDONLY, mmap.RDONLY, true
	}
	if t.file, err = os.OpenFile(t.path, flag, 0); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	// Only a file of a size the header could name is mapped: a crash may
	// leave an empty or short one, and an empty file cannot be mapped.
	info, err := t.file.Stat()
	if err != nil {
		return false, err
	}
	n := info.Size() - postingTableHeader
	if n <= 0 || n%(8*slotsPage) != 0 {
		return false, nil
	}
	if t.data, err = mmap.Map(t.file, prot, 0); err != nil {
		return false, err
	}
	hdr := t.data[:postingTableHeader]
	if !bytes.HasPrefix(hdr, []byte(postingTableMagic)) || hdr[offTableClean] != 1 ||
		binary.LittleEndian.Uint64(hdr[offTableSize:]) != uint64(n/8) || n/8 > maxTableSlots {
		return false, nil
	}
	t.n = uint64(n / 8)
	c := hdr[offTableCount:]
	t.used, t.entries = binary.LittleEndian.Uint64(c), binary.LittleEndian.Uint64(c[8:])
	t.lists, t.markers = binary.LittleEndian.Uint64(c[16:]), binary.LittleEndian.Uint64(c[24:])
	if t.used >= t.n || t.entries+t.markers > t.used || binary.LittleEndian.Uint64(c[32:]) != t.seq {
		return false, nil
	}
	if readOnly {
		return true, nil
	}
	t.writeHeader(false)
	return true, t.syncHeader()
}

// build fills a new table with the store's lists: its full-list markers,
// then the posting keys of every document record, with those its
// signature gives (sigKeys) where the record lists only the others.
func (t *postingTable) build(db *badger.DB, sigKeys func([]byte) ([][]byte, error)) error {
	err := t.grow(minTableSlots)
	if err == nil {
		err = db.View(func(txn *badger.Txn) error {
			err := eachValue(txn, store.NSPosting, func(k, v []byte) error {
				l, err := codec.DecodePostings(nil, v)
				if err != nil {
					return fmt.Errorf("posting list %x: %w", k, err)
				}
				return t.change(postingChange{fp: fingerprint(k), full: l.Full, added: l.Seqs})
			})
			if err != nil {
				return err
			}
			return eachValue(txn, store.NSDoc, func(k, v []byte) error {
				rec, err := codec.DecodeRecord(v)
				if err != nil {
					return fmt.Errorf("document %q: %w", k[len(store.NSDoc):], err)
				}
				if codec.KeysDerived(v) {
					derived, err := signatureKeys(txn, rec.Seq, sigKeys)
					if err != nil {
						return fmt.Errorf("document %q: %w", k[len(store.NSDoc):], err)
					}
					rec.Keys = append(rec.Keys, derived...)
				}
				for _, pk := range rec.Keys {
					if err := t.change(postingChange{fp: fingerprint(pk), added: []uint64{rec.Seq}}); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
	if err != nil {
		return errors.Join(fmt.Errorf("embedded: posting table: %w", err), t.close(false))
	}
	t.writeHeader(false)
	return nil
}

// signatureKeys gives the posting keys of document seq's stored
// signature; none for a document withdrawn (no signature: in no list).
func signatureKeys(txn *badger.Txn, seq uint64, sigKeys func([]byte) ([][]byte, error)) ([][]byte, error) {
	if sigKeys == nil {
		return nil, fmt.Errorf("its keys are derived from its signature and Options.SignatureKeys is nil: %w", ErrInvalidOptions)
	}
	var keys [][]byte
	err := getValue(txn, codec.SeqKey(store.NSSignature, seq), func(sig []byte) error {
		var err error
		keys, err = sigKeys(sig)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return keys, err
}

// change reserves room for c and applies it.
func (t *postingTable) change(c postingChange) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.reserveLocked(len(c.added) + 1); err != nil {
		return err
	}
	return t.applyLocked(c)
}

// grow puts an empty table of n slots in place of the current one,
// whose slots then move to it (moveSome); a growth still under way
// finishes first. A file is written beside the current one and renamed
// over it, the current one renamed to path+".old". On error the current
// one stays.
func (t *postingTable) grow(n uint64) error {
	if err := t.moveSome(^uint64(0)); err != nil {
		return err
	}
	next, err := newSlots(t.path, n)
	if err != nil {
		return err
	}
	if t.path != "" {
		if t.file != nil {
			err = os.Rename(t.path, t.path+".old")
		}
		if err == nil {
			err = os.Rename(t.path+".new", t.path)
		}
		if err != nil {
			return errors.Join(err, next.unmap())
		}
	}
	if t.data != nil {
		old := t.slots
		t.old, t.moved, t.left = &old, 0, t.entries+t.markers
	}
	t.slots, t.used = next, 0
	t.writeHeader(false) // (not synced: a file without a clean header is rebuilt anyway)
	return t.moveSome(0)
}

// moveSome moves up to n of the old table's slots into the table, and
// lets the old table go once all have moved.
func (t *postingTable) moveSome(n uint64) error {
	if t.old == nil {
		return nil
	}
	for end := t.moved + min(n, t.old.size()-t.moved); t.moved < end; t.moved++ {
		if s := t.old.slot(t.moved); s != 0 && s != tombstone {
			t.put(s)
			t.left--
		}
	}
	if t.moved < t.old.size() {
		return nil
	}
	err := t.old.unmap()
	if t.path != "" {
		err = errors.Join(err, os.Remove(t.path+".old"))
	}
	t.old = nil
	return err
}

// mapNewFile creates (or truncates) the file at path with size bytes,
// its blocks allocated, and maps it: a write to a map on a full disk is a
// fault that kills the process, while allocating first fails with an
// error. (The table's slots are spread by hashing, so a table past a few
// entries a page touches every page anyway.)
func mapNewFile(path string, size int) (mmap.MMap, *os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Truncate(int64(size)); err != nil {
		return nil, nil, errors.Join(err, f.Close())
	}
	if err := allocate(f, int64(size)); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("%d bytes: %w", size, err), f.Close())
	}
	data, err := mmap.Map(f, mmap.RDWR, 0)
	if err != nil {
		return nil, nil, errors.Join(err, f.Close())
	}
	return data, f, nil
}

// writeHeader writes the header: magic, size, counters and the clean flag.
func (t *postingTable) writeHeader(clean bool) {
	hdr := t.data[:postingTableHeader]
	clear(hdr)
	copy(hdr, postingTableMagic)
	binary.LittleEndian.PutUint64(hdr[offTableSize:], t.n)
	if clean {
		hdr[offTableClean] = 1
	}
	c := hdr[offTableCount:]
	binary.LittleEndian.PutUint64(c, t.used)
	binary.LittleEndian.PutUint64(c[8:], t.entries)
	binary.LittleEndian.PutUint64(c[16:], t.lists)
	binary.LittleEndian.PutUint64(c[24:], t.markers)
	binary.LittleEndian.PutUint64(c[32:], t.seq)
}

func (t *slots) slot(i uint64) uint64 {
	return binary.LittleEndian.Uint64(t.data[postingTableHeader+8*i:])
}

func (t *slots) setSlot(i, s uint64) {
	binary.LittleEndian.PutUint64(t.data[postingTableHeader+8*i:], s)
}

// home is the first slot of fingerprint fp's run: the fingerprint mixed
// (Fibonacci hashing: the top 32 bits of the product), then scaled to the
// table's size (h*n/2^32), which keeps the home slots of two tables of
// any sizes in the same order.
func (t *slots) home(fp uint32) uint64 {
	return (uint64(fp) * 0x9e3779b97f4a7c15 >> 32) * t.n >> 32
}

func (t *slots) size() uint64 { return t.n }

// probe calls fn with each slot of fp's run (from its home to the first
// empty slot), and returns that empty slot, or size() when every slot is
// used (only a damaged file can be so full).
func (t *slots) probe(fp uint32, fn func(i, s uint64)) uint64 {
	i := t.home(fp)
	for range t.size() {
		s := t.slot(i)
		if s == 0 {
			return i
		}
		fn(i, s)
		if i++; i == t.n {
			i = 0
		}
	}
	return t.size()
}

// probeOld calls fn with each slot of fp's run in the old table that has
// not moved yet.
func (t *postingTable) probeOld(fp uint32, fn func(i, s uint64)) {
	if t.old != nil {
		t.old.probe(fp, func(i, s uint64) {
			if i >= t.moved && s != tombstone {
				fn(i, s)
			}
		})
	}
}

// put writes slot value s in the first free slot of its run (a new table:
// no tombstones, no duplicates).
func (t *postingTable) put(s uint64) {
	t.setSlot(t.probe(uint32(s>>32), func(uint64, uint64) {}), s)
	t.used++
}

// getAll returns the lists of keys: for each, its document numbers in
// ascending order, or full. One lock and one array serve them all.
// Each list is a random place in a table far larger than the caches: the
// first pass only reads each home slot, loads that do not wait for one
// another, so that their cache and TLB misses overlap; the probes then
// find their runs cached.
func (t *postingTable) getAll(keys [][]byte) []store.PostingList {
	fps := make([]uint32, len(keys))
	for i, k := range keys {
		fps[i] = fingerprint(k)
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	var touch uint64
	for _, fp := range fps {
		touch |= t.slot(t.home(fp))
		if t.old != nil {
			touch |= t.old.slot(t.old.home(fp))
		}
	}
	out := make([]store.PostingList, len(keys))
	seqs := make([]uint64, 0, 8*len(keys)) // the lists' postings, each list a slice of it
	for i, fp := range fps {
		from := len(seqs)
		each := func(_, s uint64) {
			switch {
			case uint32(s>>32) != fp:
			case s&fullMarker == fullMarker:
				out[i].Full = true
			default:
				seqs = append(seqs, s&fullMarker)
			}
		}
		t.probe(fp, each)
		t.probeOld(fp, each)
		if out[i].Full {
			seqs = seqs[:from]
			continue
		}
		if len(seqs) > from {
			out[i].Seqs = seqs[from:len(seqs):len(seqs)]
			slices.Sort(out[i].Seqs)
		}
	}
	runtime.KeepAlive(touch) // (the first pass must not be optimised away)
	return out
}

// count is the number of lists: keys with a posting or a marker.
func (t *postingTable) count() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return int(t.lists)
}

// bytes is the size of the table's memory, a growth's old table included.
func (t *postingTable) bytes() int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n := int64(len(t.data))
	if t.old != nil {
		n += int64(len(t.old.data))
	}
	return n
}

// reserve makes room for n more used slots, growing or rehashing the table
// if they would pass maxLoad.
func (t *postingTable) reserve(n int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reserveLocked(n)
}

func (t *postingTable) reserveLocked(n int) error {
	if err := t.moveSome(moveRate * uint64(n)); err != nil {
		return fmt.Errorf("embedded: posting table %s: %w", t.path, err)
	}
	if float64(t.used+t.left+uint64(n)) <= maxLoad*float64(t.size()) {
		return nil
	}
	live := float64(t.entries + t.markers + uint64(n))
	if live > maxLoad*maxTableSlots {
		return fmt.Errorf("embedded: posting table: %d postings: %w", t.entries, store.ErrFull)
	}
	// Grow so that the live slots fill maxLoad/growth of the table,
	// unless tombstones are what fills it: then rehash at this size.
	size := t.size()
	if want := uint64(live*growth/maxLoad)/slotsPage*slotsPage + slotsPage; want > size {
		size = min(want, maxTableSlots)
	}
	if err := t.grow(size); err != nil {
		return fmt.Errorf("embedded: posting table %s: %w", t.path, err)
	}
	return nil
}

// apply makes a mutation's list changes, under one lock. The caller
// reserved room for their slots.
func (t *postingTable) apply(cs []postingChange) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range cs {
		if err := t.applyLocked(c); err != nil {
			return err
		}
	}
	return nil
}

func (t *postingTable) applyLocked(c postingChange) error {
	if c.full {
		return t.setFull(c.fp)
	}
	for _, seq := range c.removed {
		t.remove(c.fp, seq)
	}
	for _, seq := range c.added {
		if seq > maxTableSeq {
			return fmt.Errorf("embedded: posting table: document number %d: %w", seq, store.ErrFull)
		}
		if err := t.add(c.fp, seq); err != nil {
			return err
		}
	}
	return nil
}

// insert writes slot value s in its run's first tombstone, else in the
// empty slot that ends the run, and counts a new list unless the key was
// listed.
func (t *postingTable) insert(s, tomb, empty uint64, listed bool) error {
	i := tomb
	if tomb == t.size() {
		if empty == t.size() || float64(t.used+1) > maxLoad*float64(t.size()) {
			// Room is reserved before each commit; past it, probing
			// would slow down without bound.
			return fmt.Errorf("embedded: posting table over its reserved load: %w", store.ErrCorrupt)
		}
		i = empty
		t.used++
	}
	t.setSlot(i, s)
	if !listed {
		t.lists++
	}
	return nil
}

// add posts seq under fp unless it is there or the list is full.
func (t *postingTable) add(fp uint32, seq uint64) error {
	tomb, listed, done := t.size(), false, false
	empty := t.probe(fp, func(i, s uint64) {
		switch {
		case s == tombstone:
			tomb = min(tomb, i)
		case uint32(s>>32) == fp:
			done = done || s&fullMarker == seq || s&fullMarker == fullMarker
			listed = true
		}
	})
	t.probeOld(fp, func(_, s uint64) {
		if uint32(s>>32) == fp {
			done = done || s&fullMarker == seq || s&fullMarker == fullMarker
			listed = true
		}
	})
	if done {
		return nil
	}
	if err := t.insert(uint64(fp)<<32|seq, tomb, empty, listed); err != nil {
		return err
	}
	t.entries++
	return nil
}

// remove drops the posting of seq under fp, if any.
func (t *postingTable) remove(fp uint32, seq uint64) {
	found, others := false, false
	drop := func(tab *slots, old bool) func(i, s uint64) {
		return func(i, s uint64) {
			switch {
			case s == tombstone || uint32(s>>32) != fp:
			case s&fullMarker == seq && !found:
				tab.setSlot(i, tombstone)
				found = true
				t.entries--
				if old {
					t.left--
				}
			default:
				others = true
			}
		}
	}
	t.probe(fp, drop(&t.slots, false))
	t.probeOld(fp, drop(t.old, true))
	if found && !others {
		t.lists--
	}
}

// setFull replaces fp's postings with a full marker.
func (t *postingTable) setFull(fp uint32) error {
	tomb, listed, marked := t.size(), false, false
	empty := t.probe(fp, func(i, s uint64) {
		switch {
		case s == tombstone:
			tomb = min(tomb, i)
		case uint32(s>>32) != fp:
		case s&fullMarker == fullMarker:
			marked = true
		default:
			t.setSlot(i, tombstone)
			tomb = min(tomb, i)
			t.entries--
			listed = true
		}
	})
	t.probeOld(fp, func(i, s uint64) {
		switch {
		case uint32(s>>32) != fp:
		case s&fullMarker == fullMarker:
			marked = true
		default:
			t.old.setSlot(i, tombstone)
			t.entries--
			t.left--
			listed = true
		}
	})
	if marked {
		return nil
	}
	if err := t.insert(uint64(fp)<<32|fullMarker, tomb, empty, listed); err != nil {
		return err
	}
	t.markers++
	return nil
}

// close unmaps the table; clean marks the file as closed cleanly after
// flushing it.
func (t *postingTable) close(clean bool) error {
	var errs []error
	if t.data != nil && t.file != nil && clean && !t.ro {
		if err := t.moveSome(^uint64(0)); err != nil {
			errs = append(errs, err)
			clean = false
		}
	}
	if t.data != nil && t.file != nil && clean && !t.ro {
		errs = append(errs, t.data.Flush())
		t.writeHeader(true)
		errs = append(errs, t.syncHeader())
	}
	if t.old != nil {
		errs = append(errs, t.old.unmap())
		t.old = nil
	}
	errs = append(errs, t.unmap())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("embedded: posting table: %w", err)
	}
	return nil
}
