package dedupfilter

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/blevesearch/mmap-go"
	"github.com/dgraph-io/badger/v4"
)

// keyFilter is a Bloom filter over the store's posting keys. Most posting
// lists a new document looks up do not exist (its MinHash bands, blocks
// and pieces are its own unless it is a copy), and a Badger Get of a
// missing key still walks the memtables and the levels, about 10 µs; the
// filter answers for most of them with four memory reads.
//
// It is a fixed-size bit array, so it does not grow with the store; its
// false-positive rate does: with k = 4 and the default 2^29 bits (64 MiB),
// 0.003% at 10 million keys and 1.4% at 57 million (a million documents
// of 57 keys), where a false positive only costs the Get it would have
// saved. Bits are only ever set: a removed list leaves its bits, a false
// positive too.
//
// With a path, the array lives in a file mapped into memory (page cache,
// not heap) and survives restarts. Its header says whether it was closed
// cleanly, and on which boot it was opened: after a process crash the
// mapped pages are intact (the kernel keeps them), after a machine crash
// they may be older than the store, so the filter is rebuilt from the
// store's keys. Without a path it is anonymous memory, rebuilt at every
// open.
type keyFilter struct {
	bits  mmap.MMap // header page, then the bit array
	words []byte    // the bit array
	mask  uint64    // number of bits - 1
	file  *os.File  // nil for an anonymous filter
}

const (
	keyFilterMagic  = "bdkf0001"
	keyFilterHeader = 4096 // one page: the bit array stays page-aligned
	keyFilterHashes = 4
	// Header layout: magic, log2 of the bit count (1 byte), clean flag
	// (1 byte), boot id (the rest of the page, zero-padded).
	offLogBits = len(keyFilterMagic)
	offClean   = offLogBits + 1
	offBoot    = offClean + 1
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

// openKeyFilter opens or creates the filter of 2^logBits bits at path
// ("" for anonymous memory), rebuilding it from db's posting keys unless
// the file can be trusted. It marks the file as open (not clean) before
// returning.
func openKeyFilter(path string, logBits int, db *badger.DB) (*keyFilter, error) {
	size := keyFilterHeader + (1<<logBits)/8
	kf := &keyFilter{mask: 1<<logBits - 1}
	trusted := false
	var err error
	if path == "" {
		kf.bits, err = mmap.MapRegion(nil, size, mmap.RDWR, mmap.ANON, 0)
	} else {
		trusted, err = kf.mapFile(path, logBits, size)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("dedupfilter: key filter %s: %w", path, err), kf.close(false))
	}
	kf.words = kf.bits[keyFilterHeader:]
	if !trusted {
		clear(kf.words)
		if err := kf.rebuild(db); err != nil {
			return nil, errors.Join(err, kf.close(false))
		}
	}
	hdr := kf.bits[:keyFilterHeader]
	clear(hdr)
	copy(hdr, keyFilterMagic)
	hdr[offLogBits] = byte(logBits)
	hdr[offClean] = 0
	copy(hdr[offBoot:], bootID())
	if kf.file != nil {
		if err := kf.bits.Flush(); err != nil {
			return nil, errors.Join(fmt.Errorf("dedupfilter: key filter %s: %w", path, err), kf.close(false))
		}
	}
	return kf, nil
}

// mapFile maps the file at path, creating it when absent, and reports
// whether its bits can be trusted: same size, and closed cleanly or left
// open by a process of this boot.
func (kf *keyFilter) mapFile(path string, logBits, size int) (trusted bool, err error) {
	_, statErr := os.Stat(path)
	if kf.file, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return false, err
	}
	if err := kf.file.Truncate(int64(size)); err != nil { // sparse: untouched pages take no disk
		return false, err
	}
	if kf.bits, err = mmap.Map(kf.file, mmap.RDWR, 0); err != nil {
		return false, err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		return false, nil
	}
	hdr := kf.bits[:keyFilterHeader]
	if !bytes.HasPrefix(hdr, []byte(keyFilterMagic)) || int(hdr[offLogBits]) != logBits {
		return false, nil
	}
	boot := string(bytes.TrimRight(hdr[offBoot:], "\x00"))
	return hdr[offClean] == 1 || (boot != "" && boot == bootID()), nil
}

// rebuild adds every posting key of db.
func (kf *keyFilter) rebuild(db *badger.DB) error {
	return db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsPosting)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			kf.add(it.Item().Key())
		}
		return nil
	})
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
	kf.positions(key, func(bit uint64) bool {
		kf.words[bit>>3] |= 1 << (bit & 7)
		return true
	})
}

// mayHave reports whether key may be in the store; false is certain.
func (kf *keyFilter) mayHave(key []byte) bool {
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
