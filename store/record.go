package store

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
)

// Record is what a store keeps about a document besides its signature and
// payload.
type Record struct {
	Seq     uint64 // the mutation that wrote this version
	Time    time.Time
	Runes   int
	Cluster string
	Indexed bool // whether the search index holds it (as the filter decided)
	URL     string
	Title   string
	Hash    uint64   // the caller's hash of the content
	Keys    [][]byte // posting keys written, so removal needs no recomputation
}

const recordV1 = 1

// EncodeRecord encodes r: a version byte, then its fields, the posting
// keys last so that DecodeRecordHead can stop before them.
func EncodeRecord(r *Record) []byte {
	n := 32 + len(r.Cluster) + len(r.URL) + len(r.Title)
	for _, k := range r.Keys {
		n += len(k) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, recordV1)
	b = binary.AppendUvarint(b, r.Seq)
	b = binary.AppendVarint(b, r.Time.UnixNano())
	b = binary.AppendUvarint(b, uint64(r.Runes))
	b = binenc.AppendString(b, r.Cluster)
	b = binenc.AppendBool(b, r.Indexed)
	b = binenc.AppendString(b, r.URL)
	b = binenc.AppendString(b, r.Title)
	b = binary.BigEndian.AppendUint64(b, r.Hash)
	b = binary.AppendUvarint(b, uint64(len(r.Keys)))
	for _, k := range r.Keys {
		b = binenc.AppendString(b, string(k))
	}
	return b
}

// DecodeRecord decodes a whole record.
func DecodeRecord(b []byte) (*Record, error) {
	rec, r := decodeRecordHead(b)
	if n := r.Count(1); n > 0 {
		rec.Keys = make([][]byte, n)
		for i := range rec.Keys {
			rec.Keys[i] = []byte(r.String())
		}
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return rec, nil
}

// DecodeRecordHead decodes a record up to its posting keys, which only
// removing the document needs.
func DecodeRecordHead(b []byte) (*Record, error) {
	rec, r := decodeRecordHead(b)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return rec, nil
}

func decodeRecordHead(b []byte) (*Record, *binenc.Reader) {
	r := binenc.NewReader(b)
	if v := r.Byte(); v != recordV1 && r.Err() == nil {
		r.SetErr(fmt.Errorf("record version %d: %w", v, ErrCorrupt))
	}
	rec := &Record{}
	rec.Seq = r.Uvarint()
	rec.Time = time.Unix(0, r.Varint()).UTC()
	rec.Runes = r.Int()
	rec.Cluster = r.String()
	rec.Indexed = r.Bool()
	rec.URL = r.String()
	rec.Title = r.String()
	rec.Hash = r.Uint64()
	return rec, &r
}

// Posting list values: a version byte that also says whether the list is
// open (document numbers follow, ascending, as uvarint deltas) or full (a
// stop list: nothing follows, and nothing is added any more).
const (
	postingsOpen = 1
	postingsFull = 2
)

// FullPostings is the value of a full list.
func FullPostings() []byte { return []byte{postingsFull} }

// EncodePostings encodes an open posting list of ascending numbers.
func EncodePostings(seqs []uint64) []byte {
	b := make([]byte, 0, 1+4*len(seqs))
	b = append(b, postingsOpen)
	prev := uint64(0)
	for _, s := range seqs {
		b = binary.AppendUvarint(b, s-prev)
		prev = s
	}
	return b
}

// DecodePostings decodes a posting list, appending its numbers to dst.
func DecodePostings(dst []uint64, b []byte) (PostingList, error) {
	if len(b) == 0 {
		return PostingList{}, fmt.Errorf("empty posting list: %w", ErrCorrupt)
	}
	switch b[0] {
	case postingsFull:
		if len(b) != 1 {
			return PostingList{}, fmt.Errorf("full posting list with %d bytes: %w", len(b), ErrCorrupt)
		}
		return PostingList{Full: true}, nil
	case postingsOpen:
	default:
		return PostingList{}, fmt.Errorf("posting list version %d: %w", b[0], ErrCorrupt)
	}
	b = b[1:]
	prev := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || (d == 0 && prev != 0) || prev+d < prev {
			return PostingList{}, fmt.Errorf("malformed posting list: %w", ErrCorrupt)
		}
		prev += d
		dst = append(dst, prev)
		b = b[n:]
	}
	return PostingList{Seqs: dst}, nil
}
