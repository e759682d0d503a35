package arrowio

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Arrow schemas are stored as FlatBuffers (in the footer of an IPC file and in the
// "ARROW:schema" metadata of a Parquet file). arrow-go trusts the vector lengths in them and
// allocates that many fields up front, so a corrupt length is a fatal out-of-memory error that
// recover cannot catch, and a cyclic children offset is a fatal stack overflow. The checks
// below walk the schema as arrow-go will, and reject it unless every vector fits in the
// buffer and nesting is shallow. Out-of-range reads during the walk panic and are turned into
// errCorruptSchema.

var errCorruptSchema = errors.New("corrupt Arrow schema metadata")

const maxSchemaDepth = 64

type fbuf []byte

func (b fbuf) u16(p int) int { return int(binary.LittleEndian.Uint16(b[p : p+2])) }
func (b fbuf) u32(p int) int { return int(binary.LittleEndian.Uint32(b[p : p+4])) }
func (b fbuf) i32(p int) int { return int(int32(binary.LittleEndian.Uint32(b[p : p+4]))) }

func bad() { panic(errCorruptSchema) }

// field returns the position of field i of the table at t, or -1 if the field is absent.
func (b fbuf) field(t, i int) int {
	vt := t - b.i32(t)
	vtLen, objLen := b.u16(vt), b.u16(vt+2)
	if vtLen < 4 || t+objLen > len(b) {
		bad()
	}
	if 4+2*i+2 > vtLen {
		return -1
	}
	o := b.u16(vt + 4 + 2*i)
	if o == 0 {
		return -1
	}
	if o >= objLen {
		bad()
	}
	return t + o
}

// deref follows the offset stored at p.
func (b fbuf) deref(p int) int {
	q := p + b.u32(p)
	if q >= len(b) {
		bad()
	}
	return q
}

// table returns the table referenced by field i of t, or -1.
func (b fbuf) table(t, i int) int {
	p := b.field(t, i)
	if p < 0 {
		return -1
	}
	q := b.deref(p)
	b.field(q, 0) // validates the vtable
	return q
}

// vector returns the first element and length of the vector in field i of t, checking that
// n elements of the given size fit in the buffer.
func (b fbuf) vector(t, i, size int) (start, n int) {
	p := b.field(t, i)
	if p < 0 {
		return 0, 0
	}
	v := b.deref(p)
	n = b.u32(v)
	if n > (len(b)-v-4)/size {
		bad()
	}
	return v + 4, n
}

func (b fbuf) keyValues(t, i int) {
	s, n := b.vector(t, i, 4)
	for k := range n {
		kv := b.deref(s + 4*k)
		b.vector(kv, 0, 1)
		b.vector(kv, 1, 1)
	}
}

// Arrow type union tags with offset fields (format/Schema.fbs).
const (
	fbTypeTimestamp = 10
	fbTypeUnion     = 14
)

func (b fbuf) arrowField(t, depth int) {
	if depth > maxSchemaDepth {
		bad()
	}
	b.vector(t, 0, 1) // name
	typeType := -1
	if p := b.field(t, 2); p >= 0 {
		typeType = int(b[p])
	}
	if tt := b.table(t, 3); tt >= 0 {
		switch typeType {
		case fbTypeTimestamp:
			b.vector(tt, 1, 1) // timezone
		case fbTypeUnion:
			b.vector(tt, 1, 4) // typeIds
		}
	}
	if d := b.table(t, 4); d >= 0 {
		b.table(d, 1) // index type
	}
	s, n := b.vector(t, 5, 4)
	for k := range n {
		b.arrowField(b.deref(s+4*k), depth+1)
	}
	b.keyValues(t, 6)
}

func (b fbuf) schema(t int) {
	if t < 0 {
		bad()
	}
	s, n := b.vector(t, 1, 4)
	for k := range n {
		b.arrowField(b.deref(s+4*k), 0)
	}
	b.keyValues(t, 2)
	b.vector(t, 3, 8) // features
}

// check runs walk over the root table and converts a panic into errCorruptSchema.
func (b fbuf) check(walk func(root int)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errCorruptSchema
		}
	}()
	walk(b.u32(0))
	return nil
}

// checkSchemaMessage checks an encapsulated IPC message holding a schema, as stored (base64)
// in Parquet's ARROW:schema metadata.
func checkSchemaMessage(data []byte) error {
	if len(data) < 8 {
		return errCorruptSchema
	}
	off := 4
	n := int(binary.LittleEndian.Uint32(data))
	if n == 0xFFFFFFFF { // continuation marker
		n, off = int(binary.LittleEndian.Uint32(data[4:])), 8
	}
	if n <= 0 || n > len(data)-off {
		return errCorruptSchema
	}
	b := fbuf(data[off : off+n])
	return b.check(func(root int) {
		b.field(root, 0)
		b.keyValues(root, 4)
		if p := b.field(root, 1); p >= 0 && b[p] == 1 { // header is a Schema
			b.schema(b.table(root, 2))
		}
	})
}

// checkParquetArrowSchema decodes the ARROW:schema value the way pqarrow does and checks it.
func checkParquetArrowSchema(v string) error {
	var decoded []byte
	var err error
	if len(v)%4 == 0 {
		decoded, err = base64.StdEncoding.DecodeString(v)
	}
	if len(decoded) == 0 || err != nil {
		decoded, err = base64.RawStdEncoding.DecodeString(v)
	}
	if err != nil {
		return nil // pqarrow reports the decoding error itself
	}
	return checkSchemaMessage(decoded)
}

// checkIPCFooter checks the footer of an Arrow IPC file of the given size, then the messages
// its blocks point to (checkIPCMessages).
func checkIPCFooter(r io.ReaderAt, size int64) error {
	const tail = 4 + 6 // footer length + "ARROW1"
	if size < 8+tail {
		return nil // ipc.NewFileReader reports "file too small"
	}
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(buf))
	// Exactly the footers ipc.NewFileReader decodes (it rejects a length
	// with length + 16 > size) are checked; it reports the others itself.
	if string(buf[4:]) != "ARROW1" || n <= 0 || n+16 > size {
		return nil
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-tail-n); err != nil {
		return err
	}
	b := fbuf(footer)
	f := &ipcFile{footer: b, dictFields: map[int64]int{}}
	err := b.check(func(root int) {
		f.schema = b.table(root, 1)
		b.schema(f.schema)
		s, n := b.vector(f.schema, 1, 4)
		for k := range n {
			b.dictionaryFields(b.deref(s+4*k), f.dictFields, 0)
		}
		f.dicts = b.blocks(root, 2)
		f.recs = b.blocks(root, 3)
		b.keyValues(root, 4)
	})
	if err != nil {
		return fmt.Errorf("file footer: %w", err)
	}
	return checkIPCMessages(r, f, size-tail-n)
}
