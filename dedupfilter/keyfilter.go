package dedupfilter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/blevesearch/mmap-go"
	"github.com/dgraph-io/badger/v4"
)

// keyFilter is a Bloom filter over the store's posting keys. Most posting
// lists a new document looks up do not exist (its MinHash bands, blocks
// and pieces are its own unless it is a copy), and a Badger Get of a
// missing key still walks the memtables and the levels, about 10 µs; the
// filter answers for most of them with four memory reads.
//
// It grows with the store, so that a small index does not carry the
// bits of a large one: it starts at 2^minKeyFilterBits bits, and once it
// holds a key per growAtBits bits (false positives about 0.6% with k = 4)
// it is rebuilt from the store's keys at growToBits bits a key, up to
// 2^maxLogBits bits (Options.KeyFilterBits; the default 2^29, 64 MiB,
// holds 57 million keys, a million documents, at 9.4 bits a key: 1.4%).
// Past that its false-positive rate grows, where a false positive only
// costs the Get it would have saved. Bits are only ever set: a removed
// list leaves its bits, a false positive too.
//
// With a path, the array lives in a file mapped into memory (page cache,
// not heap) and survives restarts. Its header says whether it was closed
// cleanly, and on which boot it was opened: after a process crash the
// mapped pages are intact (the kernel keeps them), after a machine crash
// they may be older than the store, so the filter is rebuilt from the
// store's keys. Without a path it is anonymous memory, rebuilt at every
// open.
type keyFilter struct {
	mu      sync.RWMutex // grow replaces the array under it
	path    string       // "" for an anonymous filter
	maxLog  int          // log2 of the largest size, in bits
	bits    mmap.MMap    // header page, then the bit array
	words   []byte       // the bit array
	logBits int
	mask    uint64   // number of bits - 1
	file    *os.File // nil for an anonymous filter
	keys    uint64   // keys added that set a bit (about the distinct keys)
	nextTry uint64   // after a failed grow: keys at which to try again
}

const (
	keyFilterMagic  = "bdkf0002"
	keyFilterHeader = 4096 // one page: the bit array stays page-aligned
	keyFilterHashes = 4
	// minKeyFilterBits is the size of a new filter (1 MiB); growAtBits
	// and growToBits are the bits a key at which it grows and to which.
	minKeyFilterBits = 23
	growAtBits       = 12
	growToBits       = 24
	// Header layout: magic, log2 of the bit count (1 byte), clean flag
	// (1 byte), the key count (8 bytes), boot id (the rest of the page,
	// zero-padded).
	offLogBits = len(keyFilterMagic)
	offClean   = offLogBits + 1
	offKeys    = offClean + 1
	offBoot    = offKeys + 8
)

// bootID identifies the running kernel's boot, or "" where the system
// does not tell (then a filter file left open is never trusted).
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// openKeyFilter opens the filter at path ("" for anonymous memory), of at
// most 2^maxLog bits, or builds it from db's posting keys unless the file
// can be trusted. It marks the file as open (not clean) before returning.
func openKeyFilter(path string, maxLog int, db *badger.DB) (*keyFilter, error) {
	kf := &keyFilter{path: path, maxLog: maxLog}
	if path != "" {
		trusted, err := kf.openFile()
		if err != nil {
			return nil, errors.Join(fmt.Errorf("dedupfilter: key filter %s: %w", path, err), kf.close(false))
		}
		if trusted {
			return kf, nil
		}
		if err := kf.close(false); err != nil {
			return nil, err
		}
	}
	var n uint64
	if err := eachPostingKey(db, func([]byte) { n++ }); err != nil {
		return nil, fmt.Errorf("dedupfilter: key filter: %w", err)
	}
	if err := kf.build(db, kf.sizeFor(n)); err != nil {
		return nil, err
	}
	return kf, nil
}

// sizeFor is log2 of the bits for n keys: growToBits a key, within the
// bounds.
func (kf *keyFilter) sizeFor(n uint64) int {
	log := minKeyFilterBits
	for log < kf.maxLog && uint64(1)<<log < n*growToBits {
		log++
	}
	return min(log, kf.maxLog)
}

// openFile maps an existing file at path and reports whether its bits
// can be trusted: closed cleanly, or left open by a process of this
// boot, and not larger than the largest size. A trusted file is marked
// open.
func (kf *keyFilter) openFile() (trusted bool, err error) {
	if kf.file, err = os.OpenFile(kf.path, os.O_RDWR, 0); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	// Only a file of a size the header could name is mapped: a crash may
	// leave an empty or short one, and an empty file cannot be mapped.
	info, err := kf.file.Stat()
	if err != nil {
		return false, err
	}
	if n := info.Size() - keyFilterHeader; n <= 0 || n&(n-1) != 0 { // the array is a power of two
		return false, nil
	}
	if kf.bits, err = mmap.Map(kf.file, mmap.RDWR, 0); err != nil {
		return false, err
	}
	hdr := kf.bits[:keyFilterHeader]
	if !bytes.HasPrefix(hdr, []byte(keyFilterMagic)) {
		return false, nil
	}
	log := int(hdr[offLogBits])
	if log > kf.maxLog || log < 3 || len(kf.bits) != keyFilterHeader+(1<<log)/8 {
		return false, nil
	}
	boot := string(bytes.TrimRight(hdr[offBoot:], "\x00"))
	if hdr[offClean] != 1 && (boot == "" || boot != bootID()) {
		return false, nil
	}
	kf.setArray(log)
	kf.keys = binary.LittleEndian.Uint64(hdr[offKeys:])
	return true, kf.markOpen()
}

// build makes a new array of 2^log bits holding every posting key of db,
// written beside the file and renamed over it, and puts it in place of
// the current one. On error the current one stays.
func (kf *keyFilter) build(db *badger.DB, log int) error {
	size := keyFilterHeader + (1<<log)/8
	var bits mmap.MMap
	var file *os.File
	var err error
	if kf.path == "" {
		bits, err = mmap.MapRegion(nil, size, mmap.RDWR, mmap.ANON, 0)
	} else {
		bits, file, err = mapNewFile(kf.path+".new", size)
	}
	if err != nil {
		return fmt.Errorf("dedupfilter: key filter %s: %w", kf.path, err)
	}
	next := &keyFilter{path: kf.path, maxLog: kf.maxLog, bits: bits, file: file}
	next.setArray(log)
	err = eachPostingKey(db, next.add)
	if err == nil {
		err = next.markOpen()
	}
	if err == nil && file != nil {
		err = os.Rename(kf.path+".new", kf.path)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("dedupfilter: key filter %s: %w", kf.path, err), next.close(false))
	}
	kf.mu.Lock()
	oldBits, oldFile := kf.bits, kf.file
	kf.bits, kf.words, kf.logBits, kf.mask, kf.file, kf.keys = next.bits, next.words, next.logBits, next.mask, next.file, next.keys
	kf.mu.Unlock()
	var errs []error
	if oldBits != nil {
		errs = append(errs, oldBits.Unmap())
	}
	if oldFile != nil { // renamed over: nothing to flush
		errs = append(errs, oldFile.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("dedupfilter: key filter: %w", err)
	}
	return nil
}

// mapNewFile creates (or truncates) the file at path with size bytes,
// sparse, and maps it.
func mapNewFile(path string, size int) (mmap.MMap, *os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Truncate(int64(size)); err != nil { // sparse: untouched pages take no disk
		return nil, nil, errors.Join(err, f.Close())
	}
	bits, err := mmap.Map(f, mmap.RDWR, 0)
	if err != nil {
		return nil, nil, errors.Join(err, f.Close())
	}
	return bits, f, nil
}

func (kf *keyFilter) setArray(log int) {
	kf.logBits = log
	kf.words = kf.bits[keyFilterHeader:]
	kf.mask = 1<<log - 1
}

// markOpen writes the header of an open filter: not clean, this boot.
func (kf *keyFilter) markOpen() error {
	hdr := kf.bits[:keyFilterHeader]
	clear(hdr)
	copy(hdr, keyFilterMagic)
	hdr[offLogBits] = byte(kf.logBits)
	binary.LittleEndian.PutUint64(hdr[offKeys:], kf.keys)
	copy(hdr[offBoot:], bootID())
	if kf.file == nil {
		return nil
	}
	return kf.bits.Flush()
}

// eachPostingKey calls fn with each posting key of db (valid only during
// the call).
func eachPostingKey(db *badger.DB, fn func(key []byte)) error {
	return db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsPosting)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			fn(it.Item().Key())
		}
		return nil
	})
}

// growIfFull rebuilds the filter larger from db's keys once it holds a
// key per growAtBits bits. Run it where no key is being added (after a
// commit, under the Filter's lock): the rebuilt array has only what db
// has committed. A failed rebuild leaves the filter as it was, only
// fuller, and is tried again at twice the keys.
func (kf *keyFilter) growIfFull(db *badger.DB) {
	if kf.logBits >= kf.maxLog || kf.keys*growAtBits < uint64(1)<<kf.logBits || kf.keys < kf.nextTry {
		return
	}
	if kf.build(db, kf.sizeFor(kf.keys)) != nil {
		kf.nextTry = 2 * kf.keys
	}
}

// positions calls fn with the bit positions of key, by double hashing,
// until fn returns false.
func (kf *keyFilter) positions(key []byte, fn func(bit uint64) bool) {
	h := hashBytes(key)
	h2 := (h>>32 | h<<32) | 1
	for i := range uint64(keyFilterHashes) {
		if !fn((h + i*h2) & kf.mask) {
			return
		}
	}
}

func (kf *keyFilter) add(key []byte) {
	kf.mu.RLock() // readers may share; one mutation adds at a time
	defer kf.mu.RUnlock()
	set := false
	kf.positions(key, func(bit uint64) bool {
		if b := byte(1) << (bit & 7); kf.words[bit>>3]&b == 0 {
			kf.words[bit>>3] |= b
			set = true
		}
		return true
	})
	if set {
		kf.keys++
		binary.LittleEndian.PutUint64(kf.bits[offKeys:], kf.keys)
	}
}

// mayHave reports whether key may be in the store; false is certain.
func (kf *keyFilter) mayHave(key []byte) bool {
	kf.mu.RLock()
	defer kf.mu.RUnlock()
	has := true
	kf.positions(key, func(bit uint64) bool {
		has = kf.words[bit>>3]&(1<<(bit&7)) != 0
		return has
	})
	return has
}

// close unmaps the filter; clean marks the file as closed cleanly after
// flushing its bits.
func (kf *keyFilter) close(clean bool) error {
	var errs []error
	if kf.bits != nil && kf.file != nil && clean {
		errs = append(errs, kf.bits.Flush())
		kf.bits[offClean] = 1
		errs = append(errs, kf.bits.Flush())
	}
	if kf.bits != nil {
		errs = append(errs, kf.bits.Unmap())
	}
	if kf.file != nil {
		errs = append(errs, kf.file.Close())
	}
	kf.bits, kf.words, kf.file = nil, nil, nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("dedupfilter: key filter: %w", err)
	}
	return nil
}

// hashBytes is 64-bit FNV-1a, as hashString, with splitmix64's finaliser
// so that the low bits the filter indexes by are well mixed.
func hashBytes(b []byte) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, c := range b {
		h ^= uint64(c)
		h *= prime
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
