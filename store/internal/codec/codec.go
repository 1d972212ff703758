// Package codec encodes what the stores of package store keep: records
// and posting lists, which both stores write, and the embedded store's
// keys (package store's key schema). It is the stores' own: package
// dedupfilter and other packages see records as store.Record and posting
// lists as store.PostingList, never encoded.
package codec

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Record versions: the same fields, but a version-2 record lists only the
// posting keys its document's signature does not give (the embedded
// store's Options.SignatureKeys gives the others).
const (
	recordV1 = 1
	recordV2 = 2
)

// EncodeRecord encodes r: a version byte, then its fields, the posting
// keys last so that DecodeRecordHead can stop before them. derived says
// that r.Keys are only the keys its signature does not give.
func EncodeRecord(r *store.Record, derived bool) []byte {
	n := 32 + len(r.Cluster) + len(r.URL) + len(r.Title)
	for _, k := range r.Keys {
		n += len(k) + 1
	}
	b := make([]byte, 0, n)
	if derived {
		b = append(b, recordV2)
	} else {
		b = append(b, recordV1)
	}
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
func DecodeRecord(b []byte) (*store.Record, error) {
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

// KeysDerived reports whether encoded record b lists only the posting
// keys its signature does not give.
func KeysDerived(b []byte) bool { return len(b) > 0 && b[0] == recordV2 }

// DecodeRecordHead decodes a record up to its posting keys, which only
// removing the document needs.
func DecodeRecordHead(b []byte) (*store.Record, error) {
	rec, r := decodeRecordHead(b)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return rec, nil
}

func decodeRecordHead(b []byte) (*store.Record, *binenc.Reader) {
	r := binenc.NewReader(b)
	if v := r.Byte(); v != recordV1 && v != recordV2 && r.Err() == nil {
		r.SetErr(fmt.Errorf("record version %d: %w", v, store.ErrCorrupt))
	}
	rec := &store.Record{}
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
// stop list: nothing follows, and nothing is added any more). The
// embedded store writes full lists only (its open lists live in its
// posting table).
const (
	postingsOpen = 1
	postingsFull = 2
)

// FullPostings is the value of a full list.
func FullPostings() []byte { return []byte{postingsFull} }

// DecodePostings decodes a posting list, appending its numbers to dst.
func DecodePostings(dst []uint64, b []byte) (store.PostingList, error) {
	if len(b) == 0 {
		return store.PostingList{}, fmt.Errorf("empty posting list: %w", store.ErrCorrupt)
	}
	switch b[0] {
	case postingsFull:
		if len(b) != 1 {
			return store.PostingList{}, fmt.Errorf("full posting list with %d bytes: %w", len(b), store.ErrCorrupt)
		}
		return store.PostingList{Full: true}, nil
	case postingsOpen:
	default:
		return store.PostingList{}, fmt.Errorf("posting list version %d: %w", b[0], store.ErrCorrupt)
	}
	b = b[1:]
	prev := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || (d == 0 && prev != 0) || prev+d < prev {
			return store.PostingList{}, fmt.Errorf("malformed posting list: %w", store.ErrCorrupt)
		}
		prev += d
		dst = append(dst, prev)
		b = b[n:]
	}
	return store.PostingList{Seqs: dst}, nil
}

// Key is ns followed by id.
func Key(ns, id string) []byte { return append([]byte(ns), id...) }

// SeqKey is ns followed by seq in 8 big-endian bytes, so keys sort by seq.
func SeqKey(ns string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(ns), seq)
}

// MemberKey is the key of id's membership in cluster.
func MemberKey(cluster, id string) []byte {
	return append(append([]byte(store.NSMember), cluster...), id...)
}

// foreign are the namespaces of other packages, the only keys a KV
// writes.
var foreign = [...]string{store.NSSite, store.NSSiteStale, store.NSURL}

// ForeignKey reports whether k lies in one of the namespaces of other
// packages (store.NSSite, store.NSSiteStale, store.NSURL).
func ForeignKey(k []byte) bool {
	for _, ns := range foreign {
		if len(k) > len(ns) && string(k[:len(ns)]) == ns {
			return true
		}
	}
	return false
}
