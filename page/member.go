package page

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// maxGzipString bounds a gzip header's file name and comment, as
// gzip.Reader does.
const maxGzipString = 512

// member reads one gzip member (RFC 1952) from a bufio.Reader, through
// its trailer and no further. Unlike gzip.Reader it keeps none of the
// header's fields (extra field, name, comment): a scan through damaged
// data meets a false header every few bytes, and each would cost an
// allocation of up to 64 KiB.
type member struct {
	r    *bufio.Reader
	fl   io.ReadCloser // the inflater, reset for each member
	crc  uint32
	size uint32
	err  error
}

// reset starts reading the member at r's position; r's buffer must hold
// 64 KiB (an extra field is peeked whole).
func (m *member) reset(r *bufio.Reader) error {
	*m = member{r: r, fl: m.fl}
	h, err := r.Peek(10)
	if err != nil {
		return unexpected(err)
	}
	flags := h[3]
	if !isMember(h) || flags&0xe0 != 0 {
		return gzip.ErrHeader
	}
	r.Discard(10)
	if flags&0x04 != 0 { // FEXTRA: its length, then the field
		x, err := r.Peek(2)
		if err != nil {
			return unexpected(err)
		}
		n := int(binary.LittleEndian.Uint16(x))
		if d, err := r.Discard(2 + n); d < 2+n {
			return unexpected(err)
		}
	}
	for _, f := range [...]byte{0x08, 0x10} { // FNAME, FCOMMENT: zero-terminated
		if flags&f == 0 {
			continue
		}
		b, err := r.Peek(maxGzipString)
		i := bytes.IndexByte(b, 0)
		switch {
		case i < 0 && len(b) < maxGzipString:
			return unexpected(err)
		case i < 0:
			return gzip.ErrHeader
		}
		r.Discard(i + 1)
	}
	if flags&0x02 != 0 {
		// FHCRC, not checked: a damaged header is caught by the
		// trailer's checksum.
		if d, err := r.Discard(2); d < 2 {
			return unexpected(err)
		}
	}
	if m.fl == nil {
		m.fl = flate.NewReader(r)
	} else {
		m.fl.(flate.Resetter).Reset(r, nil)
	}
	return nil
}

func (m *member) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.fl.Read(p)
	m.crc = crc32.Update(m.crc, crc32.IEEETable, p[:n])
	m.size += uint32(n)
	if err == io.EOF {
		t, terr := m.r.Peek(8)
		switch {
		case terr != nil:
			err = unexpected(terr)
		case binary.LittleEndian.Uint32(t) != m.crc || binary.LittleEndian.Uint32(t[4:]) != m.size:
			err = gzip.ErrChecksum
		default:
			m.r.Discard(8)
		}
	}
	m.err = err
	return n, err
}

// unexpected is err, io.ErrUnexpectedEOF for io.EOF: the input ended
// inside a member.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
