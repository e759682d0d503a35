package otf2

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Error is a read error: the file, the byte offset in it (-1 when unknown)
// and the cause.
type Error struct {
	File   string
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("otf2: %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("otf2: %s: offset %d: %v", e.File, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Internal buffer markers (OTF2_Buffer.h).
const (
	markEndOfChunk  = 0
	markEndOfBuffer = 1
	markEndOfFile   = 2
	markChunkHeader = 3
	markTimestamp   = 5
	markAttrList    = 6

	endianBig    = 0x23
	endianLittle = 0x42
)

// decoder reads OTF2 primitives from buf; base is the file offset of
// buf[0]. Decoding errors panic with *Error and are recovered at the API
// boundary (catch), so the hot path carries no error plumbing.
type decoder struct {
	file string
	buf  []byte
	pos  int
	base int64
	be   bool
}

// flipRecorder, when set by a test (see byteorder_test.go), records for
// each file where the multi-byte values (offset, length) and the byte-order
// marks (length 0) lie, so that the test can write the same archive in the
// other byte order. It is nil in normal use.
var flipRecorder map[string][][2]int64

func (d *decoder) flip(pos, n int) {
	if flipRecorder != nil {
		flipRecorder[d.file] = append(flipRecorder[d.file], [2]int64{d.base + int64(pos), int64(n)})
	}
}

func (d *decoder) fail(format string, args ...any) {
	panic(&Error{File: d.file, Offset: d.base + int64(d.pos), Err: fmt.Errorf(format, args...)})
}

func (d *decoder) failAt(pos int, format string, args ...any) {
	panic(&Error{File: d.file, Offset: d.base + int64(pos), Err: fmt.Errorf(format, args...)})
}

// catch turns a decoding panic into *err; other panics propagate.
func catch(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(*Error); ok {
			*err = e
			return
		}
		panic(r)
	}
}

func (d *decoder) need(n int) {
	if n > len(d.buf)-d.pos {
		d.fail("unexpected end of data: need %d bytes, %d left", n, len(d.buf)-d.pos)
	}
}

func (d *decoder) u8() uint8 {
	if d.pos >= len(d.buf) {
		d.fail("unexpected end of data")
	}
	v := d.buf[d.pos]
	d.pos++
	return v
}

func (d *decoder) u16() uint16 {
	d.need(2)
	d.flip(d.pos, 2)
	b := d.buf[d.pos : d.pos+2]
	d.pos += 2
	if d.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (d *decoder) u32full() uint32 {
	d.need(4)
	d.flip(d.pos, 4)
	b := d.buf[d.pos : d.pos+4]
	d.pos += 4
	if d.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *decoder) u64full() uint64 {
	d.need(8)
	d.flip(d.pos, 8)
	b := d.buf[d.pos : d.pos+8]
	d.pos += 8
	if d.be {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64full()) }

// u64c reads a compressed integer of at most max bytes: a length byte n
// (0 means the value 0, 0xff all ones) followed by the n low-order bytes in
// the file's byte order.
func (d *decoder) uc(max int, ones uint64) uint64 {
	if d.pos >= len(d.buf) {
		d.fail("unexpected end of data in compressed integer")
	}
	n := int(d.buf[d.pos])
	switch {
	case n == 0:
		d.pos++
		return 0
	case n == 0xff:
		d.pos++
		return ones
	case n > max:
		d.fail("invalid compressed integer length %d (max %d)", n, max)
	}
	if !d.be && d.pos+9 <= len(d.buf) && flipRecorder == nil {
		// fast path: one unaligned 8-byte load, masked to n bytes
		v := binary.LittleEndian.Uint64(d.buf[d.pos+1:])
		if n < 8 {
			v &= 1<<(8*uint(n)) - 1
		}
		d.pos += 1 + n
		return v
	}
	if n >= len(d.buf)-d.pos {
		d.fail("unexpected end of data in compressed integer")
	}
	b := d.buf[d.pos+1 : d.pos+1+n]
	d.flip(d.pos+1, n)
	d.pos += 1 + n
	var v uint64
	if d.be {
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
	} else {
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
	}
	return v
}

func (d *decoder) u32() uint32 { return uint32(d.uc(4, math.MaxUint32)) }
func (d *decoder) u64() uint64 { return d.uc(8, math.MaxUint64) }
func (d *decoder) i64() int64  { return int64(d.uc(8, math.MaxUint64)) }

func (d *decoder) str() string {
	for i := d.pos; i < len(d.buf); i++ {
		if d.buf[i] == 0 {
			s := string(d.buf[d.pos:i])
			d.pos = i + 1
			return s
		}
	}
	d.fail("unterminated string")
	return ""
}

// recordLen reads a record length (one byte, or 0xff and 8 bytes) and
// returns the end position of the record, checked against the buffer.
func (d *decoder) recordEnd() int {
	n := uint64(d.u8())
	if n == 0xff {
		n = d.u64full()
	}
	if n > uint64(len(d.buf)-d.pos) {
		d.fail("record length %d exceeds the %d bytes left", n, len(d.buf)-d.pos)
	}
	return d.pos + int(n)
}

// checkEnd fails if the fields read overran the record's declared end.
func (d *decoder) checkEnd(end int, what string) {
	if d.pos > end {
		d.failAt(end, "%s record fields overrun the record length", what)
	}
}

// left returns the bytes left before the record end, failing if the fields
// read so far already overran it.
func (d *decoder) left(end int) uint64 {
	if d.pos > end {
		d.failAt(end, "record fields overrun the record length")
	}
	return uint64(end - d.pos)
}
