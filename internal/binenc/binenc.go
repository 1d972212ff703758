// Package binenc holds the pieces of the stores' binary value formats:
// uvarint-prefixed strings and a decoder over one copy of a value. Stored
// values are versioned records: a version byte, then uvarint lengths and
// counts, and fixed-width integers in big-endian order.
package binenc

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrCorrupt: a value does not decode. Package store exports it as
// store.ErrCorrupt.
var ErrCorrupt = errors.New("corrupt store value")

// AppendString appends s with its length as a uvarint.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendBool appends v as one byte.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Reader decodes a value from one string copy of it, so every decoded
// string is a substring of it instead of an allocation of its own. The
// first error sticks and later reads return zero values, so decoders check
// once, at the end (Done).
type Reader struct {
	s   string
	err error
}

// NewReader returns a Reader over a copy of b.
func NewReader(b []byte) Reader { return Reader{s: string(b)} }

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// SetErr makes err the Reader's error unless it has one; later reads
// return zero values.
func (r *Reader) SetErr(err error) {
	if r.err == nil {
		r.err = err
	}
	r.s = ""
}

// Fail records a malformed part named what.
func (r *Reader) Fail(what string) {
	r.SetErr(fmt.Errorf("truncated or malformed %s: %w", what, ErrCorrupt))
}

// Len is the number of bytes left.
func (r *Reader) Len() int { return len(r.s) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.s) < 1 {
		r.Fail("byte")
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	switch r.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Fail("bool")
	return false
}

// Uvarint mirrors binary.Uvarint on the string.
func (r *Reader) Uvarint() uint64 {
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
	r.Fail("uvarint")
	return 0
}

// Varint undoes binary.AppendVarint's zig-zag encoding.
func (r *Reader) Varint() int64 {
	ux := r.Uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

// Uint64 reads 8 big-endian bytes.
func (r *Reader) Uint64() uint64 {
	b := r.Bytes(8)
	if len(b) < 8 {
		return 0
	}
	var x uint64
	for i := range 8 {
		x = x<<8 | uint64(b[i])
	}
	return x
}

// Uint32 reads 4 big-endian bytes.
func (r *Reader) Uint32() uint32 {
	b := r.Bytes(4)
	if len(b) < 4 {
		return 0
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// Uint16 reads 2 big-endian bytes.
func (r *Reader) Uint16() uint16 {
	b := r.Bytes(2)
	if len(b) < 2 {
		return 0
	}
	return uint16(b[0])<<8 | uint16(b[1])
}

// Int reads a uvarint that must fit a non-negative int32-sized value.
func (r *Reader) Int() int {
	v := r.Uvarint()
	if v > 1<<31-1 {
		r.Fail("int")
		return 0
	}
	return int(v)
}

// Count reads an element count and rejects counts that cannot fit the
// remaining bytes at minSize bytes each, so a bad value cannot make a
// decoder allocate much.
func (r *Reader) Count(minSize int) int {
	n := r.Uvarint()
	if n > uint64(len(r.s)/minSize) {
		r.Fail("count")
		return 0
	}
	return int(n)
}

// Bytes reads n bytes.
func (r *Reader) Bytes(n int) string {
	if n > len(r.s) {
		r.Fail("bytes")
		return ""
	}
	p := r.s[:n]
	r.s = r.s[n:]
	return p
}

// String reads a string written by AppendString.
func (r *Reader) String() string {
	return r.Bytes(r.Count(1))
}

// Done returns the first error, or an error if bytes are left over.
func (r *Reader) Done() error {
	if r.err == nil && len(r.s) != 0 {
		r.Fail("trailing bytes")
	}
	return r.err
}
