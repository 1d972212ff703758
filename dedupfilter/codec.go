package dedupfilter

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/s2"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// Stored values are versioned binary records: a version byte, then uvarint
// lengths and counts, and fixed-width hashes in big-endian order.
const (
	signatureV2 = 2
	// signatureV3 adds, after v2's fields, a byte of flags and the parts
	// it names: the character frequencies, the tag sequence, the URL hash
	// (see Options.Voters).
	signatureV3 = 3
	recordV1    = 1
	// pendingV3 holds the ops of one mutation, without payloads: they are
	// in y/<id>, written in the same transaction.
	pendingV3 = 3
	// Posting lists: a version byte that also says whether the list is
	// open (seqs follow, ascending, as uvarint deltas) or full (a stop
	// list: nothing follows, and nothing is added any more).
	postingsOpen = 1
	postingsFull = 2
)

// Payloads are stored compressed (S2, Snappy's successor): they are a
// page's text, the store's largest values, and the store runs without
// Badger's block compression, which would compress them again at every
// compaction along with values that do not compress.

// getPayload reads and decompresses the payload of id.
func getPayload(txn *badger.Txn, id string) ([]byte, error) {
	var out []byte
	err := getValue(txn, key(nsPayload, id), func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		var err error
		if out, err = s2.Decode(nil, b); err != nil {
			return fmt.Errorf("payload: %v: %w", err, ErrCorrupt)
		}
		return nil
	})
	return out, err
}

func encodePayload(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	return s2.Encode(nil, p)
}

// Flags of a v3 signature's optional parts.
const (
	sigChars = 1 << iota
	sigTags
	sigURL
)

// encodeSignature encodes a document's id and signature (s/<seq>): the id
// tells a verified candidate's document. A signature without the optional
// parts is written as v2, byte for byte what earlier versions wrote.
func encodeSignature(id string, sig signature) []byte {
	b := make([]byte, 0, 24+len(id)+4*len(sig.pieces)+5*len(sig.terms)+8*len(sig.blocks)+4*len(sig.minhash))
	var flags byte
	if len(sig.chars) > 0 {
		flags |= sigChars
	}
	if len(sig.tags) > 0 {
		flags |= sigTags
	}
	if sig.url != 0 {
		flags |= sigURL
	}
	if flags == 0 {
		b = append(b, signatureV2)
	} else {
		b = append(b, signatureV3)
	}
	b = appendString(b, id)
	b = binary.AppendUvarint(b, uint64(len(sig.pieces)))
	for _, h := range sig.pieces {
		b = binary.BigEndian.AppendUint32(b, h)
	}
	b = binary.AppendUvarint(b, uint64(sig.structure.Paragraphs))
	b = binary.AppendUvarint(b, uint64(sig.structure.Length))
	b = binary.AppendUvarint(b, uint64(sig.structure.Sentences))
	b = binary.AppendUvarint(b, uint64(len(sig.terms)))
	for _, t := range sig.terms {
		b = binary.BigEndian.AppendUint32(b, t.hash)
		b = binary.AppendUvarint(b, uint64(t.tf))
	}
	b = binary.AppendUvarint(b, uint64(len(sig.blocks)))
	for _, h := range sig.blocks {
		b = binary.BigEndian.AppendUint64(b, h)
	}
	b = binary.AppendUvarint(b, uint64(len(sig.minhash)))
	for _, h := range sig.minhash {
		b = binary.BigEndian.AppendUint32(b, h)
	}
	b = binary.AppendUvarint(b, uint64(sig.runes))
	if flags == 0 {
		return b
	}
	b = append(b, flags)
	if flags&sigChars != 0 {
		// Index deltas and counts as uvarints: about 2.5 bytes a distinct
		// character.
		b = binary.AppendUvarint(b, uint64(len(sig.chars)))
		prev := uint16(0)
		for _, c := range sig.chars {
			b = binary.AppendUvarint(b, uint64(c.Index-prev))
			b = binary.AppendUvarint(b, uint64(c.Count))
			prev = c.Index
		}
	}
	if flags&sigTags != 0 {
		// A page's tags repeat (div, a, li...): S2 makes them a fraction.
		b = appendString(b, string(s2.Encode(nil, sig.tags[:min(len(sig.tags), maxTags)])))
	}
	if flags&sigURL != 0 {
		b = binary.BigEndian.AppendUint64(b, sig.url)
	}
	return b
}

func decodeSignature(b []byte) (string, signature, error) {
	r := newReader(b)
	v := r.byte()
	if v != signatureV2 && v != signatureV3 && r.err == nil {
		return "", signature{}, fmt.Errorf("signature version %d: %w", v, ErrCorrupt)
	}
	id := r.string()
	var sig signature
	if n := r.count(4); n > 0 {
		sig.pieces = make([]uint32, n)
		for i := range sig.pieces {
			sig.pieces[i] = r.uint32()
		}
	}
	sig.structure.Paragraphs = r.int()
	sig.structure.Length = r.int()
	sig.structure.Sentences = r.int()
	if n := r.count(5); n > 0 {
		sig.terms = make([]termFreq, n)
		for i := range sig.terms {
			sig.terms[i] = termFreq{r.uint32(), r.int()}
			if i > 0 && sig.terms[i].hash <= sig.terms[i-1].hash {
				r.fail("term order") // the merge in compareTerms relies on it
			}
		}
	}
	if n := r.count(8); n > 0 {
		sig.blocks = make([]uint64, n)
		for i := range sig.blocks {
			sig.blocks[i] = r.uint64()
		}
	}
	if n := r.count(4); n > 0 {
		sig.minhash = make([]uint32, n)
		for i := range sig.minhash {
			sig.minhash[i] = r.uint32()
		}
	}
	sig.runes = r.int()
	if v == signatureV3 {
		decodeOptional(&r, &sig)
	}
	if err := r.done(); err != nil {
		return "", signature{}, err
	}
	return id, sig, nil
}

// decodeOptional reads a v3 signature's flags and optional parts.
func decodeOptional(r *reader, sig *signature) {
	flags := r.byte()
	if flags == 0 || flags&^(sigChars|sigTags|sigURL) != 0 {
		r.fail("signature flags")
		return
	}
	if flags&sigChars != 0 {
		n := r.count(2)
		sig.chars = make([]analyzer.CharCount, n)
		idx := 0
		for i := range sig.chars {
			d := r.int()
			if i > 0 && d == 0 || idx+d >= analyzer.CharDims {
				r.fail("character index") // cosine relies on ascending indexes
				return
			}
			idx += d
			c := r.uvarint()
			if c == 0 || c > 1<<32-1 {
				r.fail("character count")
				return
			}
			sig.chars[i] = analyzer.CharCount{Index: uint16(idx), Count: uint32(c)}
		}
	}
	if flags&sigTags != 0 {
		enc := r.string()
		n, err := s2.DecodedLen([]byte(enc))
		if err != nil || n > maxTags {
			r.fail("tag sequence")
			return
		}
		if sig.tags, err = s2.Decode(nil, []byte(enc)); err != nil {
			r.fail("tag sequence")
			return
		}
	}
	if flags&sigURL != 0 {
		sig.url = r.uint64()
	}
}

// maxTags bounds a stored tag sequence's length, so a corrupt header
// cannot make the decoder allocate much.
const maxTags = 1 << 20

// encodePostings encodes an open posting list of ascending seqs.
func encodePostings(seqs []uint64) []byte {
	b := make([]byte, 0, 1+4*len(seqs))
	b = append(b, postingsOpen)
	prev := uint64(0)
	for _, s := range seqs {
		b = binary.AppendUvarint(b, s-prev)
		prev = s
	}
	return b
}

// decodePostings decodes a posting list into dst; full reports a stop
// list.
func decodePostings(dst []uint64, b []byte) (seqs []uint64, full bool, err error) {
	if len(b) == 0 {
		return dst, false, fmt.Errorf("empty posting list: %w", ErrCorrupt)
	}
	switch b[0] {
	case postingsFull:
		if len(b) != 1 {
			return dst, false, fmt.Errorf("full posting list with %d bytes: %w", len(b), ErrCorrupt)
		}
		return dst, true, nil
	case postingsOpen:
	default:
		return dst, false, fmt.Errorf("posting list version %d: %w", b[0], ErrCorrupt)
	}
	b = b[1:]
	prev := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || (d == 0 && prev != 0) || prev+d < prev {
			return dst, false, fmt.Errorf("malformed posting list: %w", ErrCorrupt)
		}
		prev += d
		dst = append(dst, prev)
		b = b[n:]
	}
	return dst, false, nil
}

// record is what the store keeps about a document besides its features and
// payload.
type record struct {
	Seq     uint64 // order of the Add that wrote this version
	Time    time.Time
	Runes   int
	Cluster string
	Indexed bool // whether the search index holds it (as far as the filter decided)
	URL     string
	Title   string
	Hash    uint64   // the caller's hash of the content (Doc.Hash)
	Keys    [][]byte // posting keys written, so removal needs no recomputation
}

func encodeRecord(r *record) []byte {
	n := 32 + len(r.Cluster) + len(r.URL) + len(r.Title)
	for _, k := range r.Keys {
		n += len(k) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, recordV1)
	b = binary.AppendUvarint(b, r.Seq)
	b = binary.AppendVarint(b, r.Time.UnixNano())
	b = binary.AppendUvarint(b, uint64(r.Runes))
	b = appendString(b, r.Cluster)
	b = appendBool(b, r.Indexed)
	b = appendString(b, r.URL)
	b = appendString(b, r.Title)
	b = binary.BigEndian.AppendUint64(b, r.Hash)
	b = binary.AppendUvarint(b, uint64(len(r.Keys)))
	for _, k := range r.Keys {
		b = appendString(b, string(k))
	}
	return b
}

func decodeRecord(b []byte) (*record, error) {
	rec, r := decodeRecordHead(b)
	if n := r.count(1); n > 0 {
		rec.Keys = make([][]byte, n)
		for i := range rec.Keys {
			rec.Keys[i] = []byte(r.string())
		}
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return rec, nil
}

// decodeRecordHead decodes a record up to its posting keys, which only
// removing the document needs, and returns the reader left before them.
func decodeRecordHead(b []byte) (*record, *reader) {
	r := newReader(b)
	if v := r.byte(); v != recordV1 && r.err == nil {
		r.err = fmt.Errorf("record version %d: %w", v, ErrCorrupt)
	}
	rec := &record{}
	rec.Seq = r.uvarint()
	rec.Time = time.Unix(0, r.varint()).UTC()
	rec.Runes = r.int()
	rec.Cluster = r.string()
	rec.Indexed = r.bool()
	rec.URL = r.string()
	rec.Title = r.string()
	rec.Hash = r.uint64()
	return rec, &r
}

// encodePending encodes the ops of one mutation (w/<seq>), without their
// payloads.
func encodePending(ops []Op) []byte {
	b := make([]byte, 0, 8+32*len(ops))
	b = append(b, pendingV3)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = append(b, byte(op.Kind))
		b = appendString(b, op.ID)
		b = appendString(b, op.Cluster)
	}
	return b
}

// decodePending decodes the ops of mutation seq.
func decodePending(seq uint64, b []byte) ([]Op, error) {
	r := newReader(b)
	if v := r.byte(); v != pendingV3 && r.err == nil {
		return nil, fmt.Errorf("pending ops version %d: %w", v, ErrCorrupt)
	}
	ops := make([]Op, r.count(3))
	for i := range ops {
		ops[i] = Op{Kind: OpKind(r.byte()), ID: r.string(), Cluster: r.string(), Seq: seq}
		if r.err == nil && ops[i].Kind != OpIndex && ops[i].Kind != OpDelete {
			return nil, fmt.Errorf("pending op kind %d: %w", ops[i].Kind, ErrCorrupt)
		}
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return ops, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// reader decodes the records above from one string copy of the value, so
// every decoded string is a substring of it instead of an allocation of its
// own. The first error sticks and later reads return zero values, so
// decoders check once at the end.
type reader struct {
	s   string
	err error
}

func newReader(b []byte) reader { return reader{s: string(b)} }

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or malformed %s: %w", what, ErrCorrupt)
	}
	r.s = ""
}

func (r *reader) byte() byte {
	if len(r.s) < 1 {
		r.fail("byte")
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *reader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail("bool")
	return false
}

// uvarint mirrors binary.Uvarint on a string.
func (r *reader) uvarint() uint64 {
	var x uint64
	var shift uint
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflows 64 bits
			}
			r.s = r.s[i+1:]
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	r.fail("uvarint")
	return 0
}

// varint undoes binary.AppendVarint's zig-zag encoding.
func (r *reader) varint() int64 {
	ux := r.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (r *reader) uint64() uint64 {
	b := r.bytes(8)
	if len(b) < 8 {
		return 0
	}
	var x uint64
	for i := range 8 {
		x = x<<8 | uint64(b[i])
	}
	return x
}

func (r *reader) uint32() uint32 {
	b := r.bytes(4)
	if len(b) < 4 {
		return 0
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// int reads a uvarint that must fit a non-negative int32-sized value.
func (r *reader) int() int {
	v := r.uvarint()
	if v > 1<<31-1 {
		r.fail("int")
		return 0
	}
	return int(v)
}

// count reads an element count and rejects counts that cannot fit the
// remaining bytes at minSize bytes each (guards allocations on bad input).
func (r *reader) count(minSize int) int {
	n := r.uvarint()
	if n > uint64(len(r.s)/minSize) {
		r.fail("count")
		return 0
	}
	return int(n)
}

func (r *reader) bytes(n int) string {
	if n > len(r.s) {
		r.fail("bytes")
		return ""
	}
	p := r.s[:n]
	r.s = r.s[n:]
	return p
}

func (r *reader) string() string {
	return r.bytes(r.count(1))
}

func (r *reader) done() error {
	if r.err == nil && len(r.s) != 0 {
		r.fail("trailing bytes")
	}
	return r.err
}
