package similarity

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/s2"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
)

// Signature encodings: a version byte, then uvarint lengths and counts,
// and fixed-width hashes in big-endian order.
const (
	signatureV2 = 2
	// signatureV3 adds, after v2's fields, a byte of flags and the parts
	// it names: the character frequencies, the tag sequence, the URL hash
	// (see Of).
	signatureV3 = 3
)

// Flags of a v3 Signature's optional parts.
const (
	sigChars = 1 << iota
	sigTags
	sigURL
)

// Encode encodes a document's id and signature, as a store keeps them:
// the id tells a verified candidate's document. A signature without the
// optional parts is written as v2, byte for byte what earlier versions
// wrote.
func (sig Signature) Encode(id string) []byte {
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
	b = binenc.AppendString(b, id)
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
		b = binenc.AppendString(b, string(s2.Encode(nil, sig.tags[:min(len(sig.tags), maxTags)])))
	}
	if flags&sigURL != 0 {
		b = binary.BigEndian.AppendUint64(b, sig.url)
	}
	return b
}

// Decode decodes what Encode wrote: the document's id and signature.
func Decode(b []byte) (string, Signature, error) {
	r := binenc.NewReader(b)
	v := r.Byte()
	if v != signatureV2 && v != signatureV3 && r.Err() == nil {
		return "", Signature{}, fmt.Errorf("signature version %d: %w", v, ErrCorrupt)
	}
	id := r.String()
	var sig Signature
	if n := r.Count(4); n > 0 {
		sig.pieces = make([]uint32, n)
		for i := range sig.pieces {
			sig.pieces[i] = r.Uint32()
		}
	}
	sig.structure.Paragraphs = r.Int()
	sig.structure.Length = r.Int()
	sig.structure.Sentences = r.Int()
	if n := r.Count(5); n > 0 {
		sig.terms = make([]termFreq, n)
		for i := range sig.terms {
			sig.terms[i] = termFreq{r.Uint32(), r.Int()}
			if i > 0 && sig.terms[i].hash <= sig.terms[i-1].hash {
				r.Fail("term order") // the merge in compareTerms relies on it
			}
		}
	}
	if n := r.Count(8); n > 0 {
		sig.blocks = make([]uint64, n)
		for i := range sig.blocks {
			sig.blocks[i] = r.Uint64()
		}
	}
	if n := r.Count(4); n > 0 {
		sig.minhash = make([]uint32, n)
		for i := range sig.minhash {
			sig.minhash[i] = r.Uint32()
		}
	}
	sig.runes = r.Int()
	if v == signatureV3 {
		decodeOptional(&r, &sig)
	}
	if err := r.Done(); err != nil {
		return "", Signature{}, err
	}
	return id, sig, nil
}

// decodeOptional reads a v3 Signature's flags and optional parts.
func decodeOptional(r *binenc.Reader, sig *Signature) {
	flags := r.Byte()
	if flags == 0 || flags&^(sigChars|sigTags|sigURL) != 0 {
		r.Fail("Signature flags")
		return
	}
	if flags&sigChars != 0 {
		n := r.Count(2)
		sig.chars = make([]analyzer.CharCount, n)
		idx := 0
		for i := range sig.chars {
			d := r.Int()
			if i > 0 && d == 0 || idx+d >= analyzer.CharDims {
				r.Fail("character index") // cosine relies on ascending indexes
				return
			}
			idx += d
			c := r.Uvarint()
			if c == 0 || c > 1<<32-1 {
				r.Fail("character count")
				return
			}
			sig.chars[i] = analyzer.CharCount{Index: uint16(idx), Count: uint32(c)}
		}
	}
	if flags&sigTags != 0 {
		enc := r.String()
		n, err := s2.DecodedLen([]byte(enc))
		if err != nil || n > maxTags {
			r.Fail("tag sequence")
			return
		}
		if sig.tags, err = s2.Decode(nil, []byte(enc)); err != nil {
			r.Fail("tag sequence")
			return
		}
	}
	if flags&sigURL != 0 {
		sig.url = r.Uint64()
	}
}

// maxTags bounds a stored tag sequence's length, so a corrupt header
// cannot make the decoder allocate much.
const maxTags = 1 << 20
