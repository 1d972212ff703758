package similarity

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/klauspost/compress/s2"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
)

// signatureV5 is the compact signature (see Signature): a version byte,
// the id, then uvarint lengths and counts and fixed-width big-endian
// hashes, and a byte of flags naming the optional parts that follow (the
// character frequencies, the tag sequence, the URL hash, the whole text's
// terms, the numbers: see Of). Version 4, still read, wrote a sketch bin
// as its value, then its frequency (see appendBin), and the whole text's
// sketch in full. Earlier versions kept whole 32-bit hashes of every part
// and are not read: their stores are refused by their layout's version.
const (
	signatureV4 = 4
	signatureV5 = 5
)

// Flags of a Signature's optional parts.
const (
	sigChars = 1 << iota
	sigTags
	sigURL
	sigWhole
	sigNumbers
	// sigWholeDiff modifies sigWhole: the whole text's sketch is written
	// as the bins where it differs from the kept text's (see
	// appendWholeDiff).
	sigWholeDiff
)

// maxSketch bounds a stored sketch's bins, so a corrupt header cannot
// make the decoder allocate much.
const maxSketch = 1 << 12

// Encode encodes a document's id and signature, as a store keeps them:
// the id tells a verified candidate's document.
func (sig Signature) Encode(id string) []byte {
	return sig.AppendEncode(nil, id)
}

// AppendEncode appends Encode's bytes to b.
func (sig Signature) AppendEncode(b []byte, id string) []byte {
	b = append(b, signatureV5)
	b = binenc.AppendString(b, id)
	b = binary.AppendUvarint(b, uint64(len(sig.pieces)))
	for _, h := range sig.pieces {
		b = binary.BigEndian.AppendUint16(b, h)
	}
	b = binary.AppendUvarint(b, uint64(len(sig.sample)))
	for _, h := range sig.sample {
		b = binary.BigEndian.AppendUint32(b, h)
	}
	b = binary.AppendUvarint(b, uint64(sig.structure.Paragraphs))
	b = binary.AppendUvarint(b, uint64(sig.structure.Length))
	b = binary.AppendUvarint(b, uint64(sig.structure.Sentences))
	b = sig.terms.append(b)
	b = binary.AppendUvarint(b, uint64(len(sig.blocks)))
	for _, h := range sig.blocks {
		b = binary.BigEndian.AppendUint32(b, h)
	}
	b = binenc.AppendString(b, string(sig.minhash))
	b = binary.AppendUvarint(b, uint64(sig.runes))
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
	if sig.whole != nil {
		flags |= sigWhole
	}
	if sig.numberCount > 0 {
		flags |= sigNumbers
	}
	wholeDiff := sig.whole != nil && len(sig.terms.bins) > 0 && len(sig.whole.bins) == len(sig.terms.bins)
	if wholeDiff {
		flags |= sigWholeDiff
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
	switch {
	case wholeDiff:
		b = appendWholeDiff(b, *sig.whole, sig.terms.bins)
	case flags&sigWhole != 0:
		b = sig.whole.append(b)
	}
	if flags&sigNumbers != 0 {
		b = binary.AppendUvarint(b, uint64(sig.numberCount))
		b = binary.AppendUvarint(b, uint64(len(sig.numbers)))
		for _, h := range sig.numbers {
			b = binary.BigEndian.AppendUint32(b, h)
		}
	}
	return b
}

// append appends t's encoding to b: its counts, then its bins or its
// exact terms.
func (t *termSet) append(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(t.distinct))
	b = binary.AppendUvarint(b, uint64(t.total))
	b = binary.AppendUvarint(b, uint64(len(t.bins)))
	if t.bins != nil {
		for _, x := range t.bins {
			b = appendBin(b, x)
		}
		return b
	}
	for _, x := range t.exact {
		b = binary.BigEndian.AppendUint32(b, x.Hash)
		b = binary.AppendUvarint(b, uint64(x.N))
	}
	return b
}

// appendBin appends a sketch bin: its term's frequency (0: empty), then
// its value less one in two bytes. Three bytes a bin where version 4's
// uvarint value (three bytes past 2^14), then frequency, took 3.3 on
// average on synthetic pages.
func appendBin(b []byte, x termFreq) []byte {
	if x.Hash == 0 {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(x.N))
	return binary.BigEndian.AppendUint16(b, uint16(x.Hash-1))
}

// appendWholeDiff appends the sketch of a page's whole text, whose bins
// are as many as those of its kept text, kept: the counts, a bitmap of
// the bins that differ, then those bins. The whole text holds the kept
// text, so most of its bins keep the same term: where a site's template
// was left out of a synthetic crawl's pages, 12.8 of 64 differ, and the
// sketch takes about 50 bytes instead of 213.
func appendWholeDiff(b []byte, whole termSet, kept []termFreq) []byte {
	b = binary.AppendUvarint(b, uint64(whole.distinct))
	b = binary.AppendUvarint(b, uint64(whole.total))
	at := len(b)
	b = append(b, make([]byte, (len(kept)+7)/8)...)
	for i, x := range whole.bins {
		if x != kept[i] {
			b[at+i/8] |= 1 << (i % 8)
			b = appendBin(b, x)
		}
	}
	return b
}

// Decode decodes what Encode wrote: the document's id and signature.
func Decode(b []byte) (string, Signature, error) {
	r := binenc.NewReader(b)
	v := r.Byte()
	if v != signatureV4 && v != signatureV5 && r.Err() == nil {
		return "", Signature{}, fmt.Errorf("signature version %d: %w", v, ErrCorrupt)
	}
	id := r.String()
	var sig Signature
	if n := r.Count(2); n > 0 {
		sig.pieces = make([]uint16, n)
		for i := range sig.pieces {
			sig.pieces[i] = r.Uint16()
		}
	}
	if n := r.Count(4); n > 0 {
		sig.sample = make([]uint32, n)
		for i := range sig.sample {
			sig.sample[i] = r.Uint32()
		}
	}
	sig.structure.Paragraphs = r.Int()
	sig.structure.Length = r.Int()
	sig.structure.Sentences = r.Int()
	decodeTerms(&r, v, &sig.terms)
	if n := r.Count(4); n > 0 {
		sig.blocks = make([]uint32, n)
		for i := range sig.blocks {
			sig.blocks[i] = r.Uint32()
		}
	}
	if mh := r.String(); mh != "" {
		sig.minhash = []byte(mh)
	}
	sig.runes = r.Int()
	decodeOptional(&r, v, &sig)
	if err := r.Done(); err != nil {
		return "", Signature{}, err
	}
	return id, sig, nil
}

// decodeTerms reads a termSet: exact terms in ascending hash order, or a
// sketch of a power of two bins, as version v wrote it.
func decodeTerms(r *binenc.Reader, v byte, t *termSet) {
	t.distinct, t.total = r.Int(), r.Int()
	k := r.Int()
	if k > 0 {
		if k > maxSketch || bits.OnesCount(uint(k)) != 1 {
			r.Fail("sketch size")
			return
		}
		t.bins = make([]termFreq, k)
		for i := range t.bins {
			t.bins[i] = readBin(r, v)
		}
		return
	}
	if t.distinct > r.Len()/5 {
		r.Fail("term count")
		return
	}
	t.exact = make([]termFreq, t.distinct)
	for i := range t.exact {
		t.exact[i] = termFreq{Hash: r.Uint32(), N: r.Int()}
		if i > 0 && t.exact[i].Hash <= t.exact[i-1].Hash {
			r.Fail("term order") // the merge in compareTerms relies on it
			return
		}
	}
}

// readBin reads a bin as version v wrote it (appendBin's, or version
// 4's: its value, then its frequency unless empty).
func readBin(r *binenc.Reader, v byte) termFreq {
	var x termFreq
	if v == signatureV4 {
		h := r.Uvarint()
		if h > 1<<binBits {
			r.Fail("sketch bin")
			return termFreq{}
		}
		if x.Hash = uint32(h); h != 0 {
			x.N = r.Int()
		}
	} else if x.N = r.Int(); x.N != 0 {
		x.Hash = uint32(r.Uint16()) + 1
	}
	if x.Hash != 0 && x.N == 0 {
		r.Fail("sketch bin") // a term occurs at least once
	}
	return x
}

// readWholeDiff reads what appendWholeDiff wrote, against kept.
func readWholeDiff(r *binenc.Reader, kept []termFreq) *termSet {
	t := &termSet{distinct: r.Int(), total: r.Int(), bins: slices.Clone(kept)}
	bitmap := r.Bytes((len(kept) + 7) / 8)
	if len(kept) == 0 || len(bitmap) < (len(kept)+7)/8 {
		r.Fail("whole text's sketch")
		return t
	}
	for i := range t.bins {
		if bitmap[i/8]&(1<<(i%8)) != 0 {
			t.bins[i] = readBin(r, signatureV5)
		}
	}
	return t
}

// decodeOptional reads a Signature's flags and optional parts, as version
// v wrote them.
func decodeOptional(r *binenc.Reader, v byte, sig *Signature) {
	flags := r.Byte()
	known := byte(sigChars | sigTags | sigURL | sigWhole | sigNumbers | sigWholeDiff)
	if v == signatureV4 {
		known &^= sigWholeDiff
	}
	if flags&^known != 0 || flags&sigWholeDiff != 0 && flags&sigWhole == 0 {
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
	switch {
	case flags&sigWholeDiff != 0:
		sig.whole = readWholeDiff(r, sig.terms.bins)
	case flags&sigWhole != 0:
		sig.whole = &termSet{}
		decodeTerms(r, v, sig.whole)
	}
	if flags&sigNumbers != 0 {
		sig.numberCount = r.Int()
		n := r.Int()
		if n > maxNumbers || n > sig.numberCount || n < min(sig.numberCount, maxNumbers) {
			r.Fail("numbers")
			return
		}
		sig.numbers = make([]uint32, n)
		for i := range sig.numbers {
			if sig.numbers[i] = r.Uint32(); i > 0 && sig.numbers[i] <= sig.numbers[i-1] {
				r.Fail("number order") // numberShare merges them
				return
			}
		}
	}
}

// maxTags bounds a stored tag sequence's length, so a corrupt header
// cannot make the decoder allocate much.
const maxTags = 1 << 20
