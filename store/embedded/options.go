package embedded

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Options configure an embedded store. Start from DefaultOptions; Open
// rejects out-of-range values (ErrInvalidOptions) rather than replacing
// them.
type Options struct {
	// Dir is the Badger directory.
	Dir string
	// InMemory keeps everything in memory (Dir must be ""). Default: true
	// for DefaultOptions(""), else false. Nothing survives Close; meant
	// for tests and one-shot runs.
	InMemory bool
	// ReadOnly opens the store for reading only: several processes may
	// then read it, and it may live on a read-only file system; writes
	// fail with store.ErrReadOnly. A store a crash left with writes to
	// replay cannot be opened read-only. Default false.
	ReadOnly bool
	// SyncWrites fsyncs every commit before it returns. Default false: a
	// crash of the process loses nothing, a power loss may lose the last
	// writes (Badger's own trade-off); true costs a disk flush per
	// decision.
	SyncWrites bool
	// MemTableSize, BlockCacheSize and IndexCacheSize are passed to
	// Badger. Defaults 16, 0 and 16 MiB, where Badger's own are 64, 256
	// and 0 (0 keeps every table's index and bloom filter in memory, which
	// grows with the store): the store's values are small, its tables
	// uncompressed and its reads point lookups, and a bounded index cache
	// keeps memory flat however many documents the store holds.
	// MemTableSize against 8, 32 and 64 MiB at 100,000 pages
	// (docs/scale.md): 32 and 64 cost about 6% less CPU, but the saving is
	// in the first pages, so per-page cost grows more with the store (CPU
	// a page, last tenth / first: 1.15-1.41 against 1.04-1.14); 8 costs
	// more.
	MemTableSize   int64
	BlockCacheSize int64
	IndexCacheSize int64
	// PostingTable is the file of the table that holds the posting lists
	// (see postingtable.go), mapped into memory: page cache, not heap,
	// 8 bytes a posting at a load of 0.47 to 0.7, 11 to 17 bytes a
	// posting (a document of the filter's defaults posts about 29).
	// "" keeps it in anonymous memory,
	// rebuilt from the store at every open (a read of every document
	// record: fine for tests and small stores). Default "".
	PostingTable string
	// SignatureKeys gives a document's posting keys from its stored
	// signature (the value of s/<seq>; package dedupfilter's
	// Options.SignatureKeys). Set, the store's records list only the keys
	// it does not give (with the filter's defaults, none: 430 of the
	// store's 5,500 bytes a page at 20,000 synthetic pages), and the
	// posting table is rebuilt
	// through it; the store is then marked so that it is never opened
	// without it (ErrInvalidOptions). nil: records list every key.
	SignatureKeys func(signature []byte) ([][]byte, error)
	// MinFree is the free space a write needs on the disk under Dir:
	// Badger's logs and tables and the posting table are written through
	// memory maps, and a write to a map on a full disk is a fault that
	// kills the process (SIGBUS), not an error. Below it a write fails
	// with store.ErrDiskFull before anything is written. The file system
	// is asked before each commit, or once every 100 ms while a check
	// found 256 MiB more than MinFree free. Default 64 MiB
	// (a memtable's flush and a transaction's value-log write fit four
	// times over); 0 turns the check off.
	MinFree int64
}

// DefaultOptions returns the defaults documented on Options, storing in
// dir, or in memory for "".
func DefaultOptions(dir string) Options {
	return Options{
		Dir:            dir,
		InMemory:       dir == "",
		MemTableSize:   16 << 20,
		BlockCacheSize: 0,
		IndexCacheSize: 16 << 20,
		MinFree:        64 << 20,
	}
}

func (o Options) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("embedded: "+format+": %w", append(args, ErrInvalidOptions)...)
	}
	switch {
	case o.InMemory && o.Dir != "":
		return bad("InMemory needs an empty Dir, got %q", o.Dir)
	case !o.InMemory && o.Dir == "":
		return bad("Dir is empty")
	case o.MemTableSize < 1<<20 || o.BlockCacheSize < 0 || o.IndexCacheSize < 0:
		return bad("MemTableSize %d must be at least 1 MiB, the cache sizes at least 0", o.MemTableSize)
	case o.MinFree < 0:
		return bad("MinFree %d is negative", o.MinFree)
	}
	return nil
}

// badgerOptions are the Badger settings, chosen for an ingest filter by
// measurement (docs/scale.md):
//   - values over 512 bytes (payloads, signatures) go to the value log,
//     so compactions move keys and small values only: at 100,000 pages
//     the CPU per page of the last tenth was 1.93 times the first's with
//     every value in the LSM tree, 1.23 with values over 1 KiB in the log,
//     and the whole run took 29% less CPU. Signatures (776 bytes a page on
//     average) went back into the tree under 1 KiB: 512 halves the
//     compactions' CPU again (0.067 to 0.035 ms a page at 100,000 pages)
//     for 40 bytes a page more on disk. The value log is not
//     garbage-collected: values replaced or deleted (updates, Replace)
//     keep their space. A store in memory has no value log, and Badger
//     refuses a value over the threshold there: it keeps every value in
//     the tree (up to Badger's largest threshold, 1 MiB);
//   - small memtables (two of 16 MiB, not five of 64);
//   - tables of one size (2 MiB) at every level, so a compaction's table
//     builders, which reserve twice a table's size, stay small;
//   - no block compression (the values are hashes and varints, and the
//     payloads are compressed once when written; uncompressed tables are
//     read straight from their mapping, so the block cache can be small or
//     none), a bounded index cache, two compactors;
//   - no conflict tracking (every read-write transaction runs under the
//     filter's lock).
func (o Options) badgerOptions() badger.Options {
	threshold := int64(512)
	if o.InMemory {
		threshold = 1 << 20
	}
	bo := badger.DefaultOptions(o.Dir)
	bo.TableSizeMultiplier = 1 // no With method for it
	return bo.
		WithInMemory(o.InMemory).
		WithReadOnly(o.ReadOnly).
		WithSyncWrites(o.SyncWrites).
		WithLogger(nil).
		WithDetectConflicts(false).
		WithValueThreshold(threshold).
		WithMemTableSize(o.MemTableSize).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithCompression(options.None).
		WithBlockCacheSize(o.BlockCacheSize).
		WithIndexCacheSize(o.IndexCacheSize).
		WithNumCompactors(2)
}
