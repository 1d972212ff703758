package dedupfilter

import (
	"encoding/binary"
	"fmt"

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

// readSignature reads and decodes document seq's id and signature.
func readSignature(st store.Txn, seq uint64) (string, similarity.Signature, error) {
	b, err := st.Signature(seq)
	if err != nil {
		return "", similarity.Signature{}, err
	}
	id, sig, err := similarity.Decode(b)
	if err != nil {
		return "", similarity.Signature{}, fmt.Errorf("similarity.Signature of document %d: %w", seq, err)
	}
	return id, sig, nil
}
