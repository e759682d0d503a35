package part

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Enc appends the fields of a partial's encoding: unsigned and signed
// varints, floats, strings and slices, each self-delimiting. Partials use it
// in MarshalBinary, starting with their own layout version.
type Enc struct{ B []byte }

// Uint appends v as a uvarint.
func (e *Enc) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Int appends v as a zig-zag varint.
func (e *Enc) Int(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Float appends v's IEEE 754 bits.
func (e *Enc) Float(v float64) { e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(v)) }

// Bool appends v as one byte.
func (e *Enc) Bool(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// String appends s with its length.
func (e *Enc) String(s string) { e.Uint(uint64(len(s))); e.B = append(e.B, s...) }

// Bytes appends b with its length.
func (e *Enc) Bytes(b []byte) { e.Uint(uint64(len(b))); e.B = append(e.B, b...) }

// Ints appends s with its length.
func Ints[T ~int | ~int8 | ~int16 | ~int32 | ~int64](e *Enc, s []T) {
	e.Uint(uint64(len(s)))
	for _, v := range s {
		e.Int(int64(v))
	}
}

// Uints appends s with its length.
func Uints[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](e *Enc, s []T) {
	e.Uint(uint64(len(s)))
	for _, v := range s {
		e.Uint(uint64(v))
	}
}

// Floats appends s with its length.
func (e *Enc) Floats(s []float64) {
	e.Uint(uint64(len(s)))
	for _, v := range s {
		e.Float(v)
	}
}

// Dec reads what Enc wrote. The first failure sticks: later reads return
// zero values and Err reports where the data ran out or went wrong, so a
// decoder reads every field and checks Err once.
type Dec struct {
	B   []byte
	off int
	err error
}

// NewDec returns a decoder of b.
func NewDec(b []byte) *Dec { return &Dec{B: b} }

// Err returns the first failure, nil if every read succeeded.
func (d *Dec) Err() error { return d.err }

// Done returns Err, or an error if bytes are left over.
func (d *Dec) Done() error {
	if d.err == nil && d.off != len(d.B) {
		d.err = fmt.Errorf("%d bytes left over at offset %d", len(d.B)-d.off, d.off)
	}
	return d.err
}

// Fail records a failure of the caller's own checks (a bad version, an
// impossible value) at the current offset.
func (d *Dec) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

// Version reads the layout version that an encoding starts with (Enc.Uint)
// and fails unless it is want: "<what> layout version 3, this build reads 1".
func (d *Dec) Version(what string, want uint64) {
	if v := d.Uint(); v != want && d.err == nil {
		d.Fail("%s layout version %d, this build reads %d", what, v, want)
	}
}

// Uint reads a uvarint.
func (d *Dec) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.B[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated unsigned varint")
		return 0
	}
	d.off += n
	return v
}

// Int reads a zig-zag varint.
func (d *Dec) Int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.B[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated varint")
		return 0
	}
	d.off += n
	return v
}

// Float reads a float64.
func (d *Dec) Float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.B)-d.off < 8 {
		d.Fail("truncated float")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.B[d.off:]))
	d.off += 8
	return v
}

// Bool reads a bool.
func (d *Dec) Bool() bool {
	if d.err != nil {
		return false
	}
	if d.off >= len(d.B) || d.B[d.off] > 1 {
		d.Fail("bad or truncated bool")
		return false
	}
	d.off++
	return d.B[d.off-1] == 1
}

// Len reads a length and checks that at least min(n, ...)*minSize bytes
// remain, so corrupt lengths cannot make a decoder allocate big.
func (d *Dec) Len(minSize int) int {
	n := d.Uint()
	if d.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > uint64(len(d.B)-d.off)/uint64(minSize) {
		d.Fail("length %d exceeds the %d bytes left", n, len(d.B)-d.off)
		return 0
	}
	return int(n)
}

// Bytes reads a byte slice (a copy).
func (d *Dec) Bytes() []byte {
	n := d.Len(1)
	if d.err != nil {
		return nil
	}
	b := append([]byte(nil), d.B[d.off:d.off+n]...)
	d.off += n
	return b
}

// String reads a string.
func (d *Dec) String() string { return string(d.Bytes()) }

// Floats reads a float64 slice.
func (d *Dec) Floats() []float64 {
	n := d.Len(8)
	s := make([]float64, n)
	for i := range s {
		s[i] = d.Float()
	}
	return s
}

// ReadInts reads a slice written by Ints.
func ReadInts[T ~int | ~int8 | ~int16 | ~int32 | ~int64](d *Dec) []T {
	n := d.Len(1)
	s := make([]T, n)
	for i := range s {
		v := d.Int()
		if int64(T(v)) != v {
			d.Fail("value %d out of range", v)
		}
		s[i] = T(v)
	}
	return s
}

// ReadUints reads a slice written by Uints.
func ReadUints[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](d *Dec) []T {
	n := d.Len(1)
	s := make([]T, n)
	for i := range s {
		v := d.Uint()
		if uint64(T(v)) != v {
			d.Fail("value %d out of range", v)
		}
		s[i] = T(v)
	}
	return s
}
