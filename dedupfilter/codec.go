package dedupfilter

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// Stored values are versioned binary records: a version byte, then uvarint
// lengths and counts. Terms are written sorted so equal features encode to
// equal bytes.
const (
	featuresV1 = 1
	recordV1   = 1
	// opV2 leaves the payload out: it is in y/<id>, written in the same
	// transaction, and writing it twice cost a third of the store's bytes.
	opV2 = 2
)

func encodeFeatures(f *analyzer.Features) []byte { return encodeSignature(newSignature(f)) }

// encodePrepared encodes p's features with its already sorted terms.
func encodeSignature(p signature) []byte {
	f := p.f
	n := 16 + len(f.Blocks)*20 + len(f.MinHash)*8
	for _, s := range f.Pieces {
		n += len(s) + 2
	}
	for _, t := range p.terms {
		n += len(t.term) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, featuresV1)
	b = appendStrings(b, f.Pieces)
	b = binary.AppendUvarint(b, uint64(f.Structure.Paragraphs))
	b = binary.AppendUvarint(b, uint64(f.Structure.Length))
	b = binary.AppendUvarint(b, uint64(f.Structure.Sentences))
	b = binary.AppendUvarint(b, uint64(len(p.terms)))
	for _, t := range p.terms {
		b = appendString(b, t.term)
		b = binary.AppendUvarint(b, uint64(t.tf))
	}
	b = binary.AppendUvarint(b, uint64(len(f.Blocks)))
	for _, x := range f.Blocks {
		b = append(b, x[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(f.MinHash)))
	for _, x := range f.MinHash {
		b = binary.BigEndian.AppendUint64(b, x)
	}
	b = binary.AppendUvarint(b, uint64(f.Runes))
	return b
}

func decodeFeatures(b []byte) (*analyzer.Features, error) {
	p, err := decodeSignature(b)
	if err != nil {
		return nil, err
	}
	if len(p.terms) > 0 {
		p.f.Terms = make(map[string]int, len(p.terms))
		for _, t := range p.terms {
			p.f.Terms[t.term] = t.tf
		}
	}
	return p.f, nil
}

// decodePrepared decodes stored features into the form Compare uses,
// without building the terms map.
func decodeSignature(b []byte) (signature, error) {
	r := newReader(b)
	if v := r.byte(); v != featuresV1 && r.err == nil {
		return signature{}, fmt.Errorf("features version %d: %w", v, ErrCorrupt)
	}
	f := &analyzer.Features{}
	p := signature{f: f}
	f.Pieces = r.strings()
	f.Structure.Paragraphs = r.int()
	f.Structure.Length = r.int()
	f.Structure.Sentences = r.int()
	if n := r.count(2); n > 0 {
		p.terms = make([]termFreq, n)
		for i := range p.terms {
			p.terms[i] = termFreq{r.string(), r.int()}
			if i > 0 && p.terms[i].term <= p.terms[i-1].term {
				r.fail("term order") // the merge in compareTerms relies on it
			}
		}
	}
	if n := r.count(20); n > 0 {
		f.Blocks = make([][20]byte, n)
		for i := range f.Blocks {
			copy(f.Blocks[i][:], r.bytes(20))
		}
	}
	if n := r.count(8); n > 0 {
		f.MinHash = make([]uint64, n)
		for i := range f.MinHash {
			f.MinHash[i] = r.uint64()
		}
	}
	f.Runes = r.int()
	if err := r.done(); err != nil {
		return signature{}, err
	}
	p.pieces = hashStrings(f.Pieces)
	return p, nil
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
	b = binary.AppendUvarint(b, uint64(len(r.Keys)))
	for _, k := range r.Keys {
		b = appendString(b, string(k))
	}
	return b
}

func decodeRecord(b []byte) (*record, error) {
	r := newReader(b)
	if v := r.byte(); v != recordV1 && r.err == nil {
		return nil, fmt.Errorf("record version %d: %w", v, ErrCorrupt)
	}
	rec := &record{}
	rec.Seq = r.uvarint()
	rec.Time = time.Unix(0, r.varint()).UTC()
	rec.Runes = r.int()
	rec.Cluster = r.string()
	rec.Indexed = r.bool()
	rec.URL = r.string()
	rec.Title = r.string()
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

func encodeOp(op Op) []byte {
	b := make([]byte, 0, 12+len(op.ID)+len(op.Cluster))
	b = append(b, opV2, byte(op.Kind))
	b = binary.AppendUvarint(b, op.Seq)
	b = appendString(b, op.ID)
	return appendString(b, op.Cluster)
}

func decodeOp(b []byte) (Op, error) {
	r := newReader(b)
	if v := r.byte(); v != opV2 && r.err == nil {
		return Op{}, fmt.Errorf("pending op version %d: %w", v, ErrCorrupt)
	}
	op := Op{Kind: OpKind(r.byte())}
	op.Seq = r.uvarint()
	op.ID = r.string()
	op.Cluster = r.string()
	if err := r.done(); err != nil {
		return Op{}, err
	}
	if op.Kind != OpIndex && op.Kind != OpDelete {
		return Op{}, fmt.Errorf("pending op kind %d: %w", op.Kind, ErrCorrupt)
	}
	return op, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, s []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	for _, x := range s {
		b = appendString(b, x)
	}
	return b
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

func (r *reader) strings() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = r.string()
	}
	return s
}

func (r *reader) done() error {
	if r.err == nil && len(r.s) != 0 {
		r.fail("trailing bytes")
	}
	return r.err
}
