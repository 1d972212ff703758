package dedupfilter

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Stored values are versioned binary records: a version byte, then uvarint
// lengths and counts, and fixed-width hashes in big-endian order.
const (
	// pendingV3 holds the ops of one mutation, without payloads: they are
	// in y/<id>, written in the same transaction.
	pendingV3 = 3
)

// encodePending encodes the ops of one mutation (w/<seq>), without their
// payloads.
func encodePending(ops []Op) []byte {
	b := make([]byte, 0, 8+32*len(ops))
	b = append(b, pendingV3)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = append(b, byte(op.Kind))
		b = binenc.AppendString(b, op.ID)
		b = binenc.AppendString(b, op.Cluster)
	}
	return b
}

// decodePending decodes the ops of mutation seq.
func decodePending(seq uint64, b []byte) ([]Op, error) {
	r := binenc.NewReader(b)
	if v := r.Byte(); v != pendingV3 && r.Err() == nil {
		return nil, fmt.Errorf("pending ops version %d: %w", v, ErrCorrupt)
	}
	ops := make([]Op, r.Count(3))
	for i := range ops {
		ops[i] = Op{Kind: OpKind(r.Byte()), ID: r.String(), Cluster: r.String(), Seq: seq}
		if r.Err() == nil && ops[i].Kind != OpIndex && ops[i].Kind != OpDelete {
			return nil, fmt.Errorf("pending op kind %d: %w", ops[i].Kind, ErrCorrupt)
		}
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return ops, nil
}

// A stored signature (s/<seq>): the document's id first, as package
// store's key schema says (a store may read it), then its time in
// microseconds (varint), then package similarity's encoding, without the
// id.

// encodeSignature encodes a document's stored signature.
func encodeSignature(id string, t time.Time, sig similarity.Signature) []byte {
	b := binenc.AppendString(make([]byte, 0, 640), id)
	b = binary.AppendVarint(b, t.UnixMicro())
	return sig.AppendEncode(b, "")
}

// stored is a decoded stored signature.
type stored struct {
	id   string
	time time.Time
	sig  similarity.Signature
}

// decodeSignature decodes what encodeSignature wrote.
func decodeSignature(b []byte) (stored, error) {
	r := binenc.NewReader(b)
	s := stored{id: r.String(), time: time.UnixMicro(r.Varint()).UTC()}
	if err := r.Err(); err != nil {
		return stored{}, err
	}
	var err error
	_, s.sig, err = similarity.Decode(b[len(b)-r.Len():])
	return s, err
}

// readStored reads and decodes document seq's stored signature.
func readStored(st store.Txn, seq uint64) (stored, error) {
	b, err := st.Signature(seq)
	if err != nil {
		return stored{}, err
	}
	s, err := decodeSignature(b)
	if err != nil {
		return stored{}, fmt.Errorf("similarity.Signature of document %d: %w", seq, err)
	}
	return s, nil
}

// readSignature reads and decodes document seq's id and signature.
func readSignature(st store.Txn, seq uint64) (string, similarity.Signature, error) {
	s, err := readStored(st, seq)
	return s.id, s.sig, err
}
