package arrowio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// arrow-go trusts the sizes an IPC file declares in its messages: it allocates a block's
// metadata and body lengths, and a compressed buffer's uncompressed length, before reading
// them, and later steps (concatenating batches) allocate by the lengths of the field nodes. A
// corrupt size is a fatal out-of-memory error that recover cannot catch (a 3 KB file declared
// a 500 GB dictionary buffer). checkIPCMessages checks every such size against the bytes
// present, before arrow-go reads the file:
//
//   - a block (offset, metadata length, body length) lies between the magic and the footer;
//   - a message's metadata is a well-formed flatbuffer whose body length is the block's;
//   - every buffer lies inside the body; a compressed one has its 8-byte length prefix and
//     declares at most what its codec can expand its bytes to (maxExpansion);
//   - every variadic buffer count is at most the buffers of the message;
//   - every field node (walked against the schema as arrow-go loads it) has a null count
//     within its length, and its length fits the buffers that hold its values. Lengths no
//     buffer holds (null arrays, structs without nulls, run-end encoded arrays) may not exceed
//     maxUnbackedRows or the longest length that buffers hold in the same message.

// errCorruptIPC is the sentinel of every error of checkIPCMessages (errors.Is finds it).
var errCorruptIPC = errors.New("corrupt Arrow IPC file")

// maxUnbackedRows bounds lengths that no buffer holds (see above): a batch of only null
// columns may have this many rows.
const maxUnbackedRows = 1 << 24

// maxExpansion is the most that one byte of a compressed buffer can decompress to: an LZ4
// frame encodes at most about 255 bytes per byte (a match length grows by 255 per byte), a
// Zstandard frame at most a 128 KiB block per 4 bytes (an RLE block).
var maxExpansion = map[int]int64{0: 256, 1: 32 << 10}

var codecName = map[int]string{0: "LZ4 frame", 1: "Zstandard"}

// ipcBlock is one entry of the footer's dictionary or record batch blocks.
type ipcBlock struct {
	offset, body int64
	meta         int64
}

// ipcFile is what checkIPCMessages needs of the footer.
type ipcFile struct {
	footer      fbuf
	schema      int           // schema table in footer
	dictFields  map[int64]int // dictionary id -> field table in footer
	dicts, recs []ipcBlock
}

// blocks reads the block vector in field i of the footer table root.
func (b fbuf) blocks(root, i int) []ipcBlock {
	s, n := b.vector(root, i, 24)
	out := make([]ipcBlock, n)
	for k := range out {
		p := s + 24*k
		out[k] = ipcBlock{offset: b.i64(p), meta: int64(b.i32(p + 8)), body: b.i64(p + 16)}
	}
	return out
}

func (b fbuf) i64(p int) int64 { return int64(binary.LittleEndian.Uint64(b[p : p+8])) }

// scalar returns the little-endian value of size bytes in field i of t, or def if absent.
func (b fbuf) scalar(t, i, size int, def int64) int64 {
	p := b.field(t, i)
	if p < 0 {
		return def
	}
	switch size {
	case 1:
		return int64(int8(b[p]))
	case 2:
		return int64(int16(b.u16(p)))
	case 4:
		return int64(b.i32(p))
	}
	return b.i64(p)
}

// dictionaryFields maps the dictionary ids of the fields under field table f to their fields.
func (b fbuf) dictionaryFields(f int, into map[int64]int, depth int) {
	if depth > maxSchemaDepth {
		bad()
	}
	if d := b.table(f, 4); d >= 0 {
		into[b.scalar(d, 0, 8, 0)] = f
	}
	s, n := b.vector(f, 5, 4)
	for k := range n {
		b.dictionaryFields(b.deref(s+4*k), into, depth+1)
	}
}

// checkIPCMessages checks the messages of the blocks in the footer (see above). footerStart
// is the file offset of the footer: every block ends before it.
func checkIPCMessages(r io.ReaderAt, f *ipcFile, footerStart int64) error {
	for _, kind := range []struct {
		name   string
		blocks []ipcBlock
	}{{"dictionary batch", f.dicts}, {"record batch", f.recs}} {
		for i, blk := range kind.blocks {
			if err := checkIPCBlock(r, f, blk, footerStart, kind.name == "dictionary batch"); err != nil {
				return fmt.Errorf("%s %d (block at byte %d): %w", kind.name, i, blk.offset, err)
			}
		}
	}
	return nil
}

// ipcFail is the panic of a failed message check, turned into an error by checkIPCBlock.
type ipcFail struct{ msg string }

func failf(format string, args ...any) { panic(ipcFail{fmt.Sprintf(format, args...)}) }

func checkIPCBlock(r io.ReaderAt, f *ipcFile, blk ipcBlock, footerStart int64, dict bool) (err error) {
	const magic = 8 // "ARROW1" and padding
	switch {
	case blk.offset < magic || blk.offset > footerStart:
		return fmt.Errorf("offset %d outside the %d bytes of messages: %w", blk.offset, footerStart, errCorruptIPC)
	case blk.meta < 8 || blk.meta > footerStart-blk.offset:
		return fmt.Errorf("metadata length %d does not fit before the footer at byte %d: %w", blk.meta, footerStart, errCorruptIPC)
	case blk.body < 0 || blk.body > footerStart-blk.offset-blk.meta:
		return fmt.Errorf("body length %d does not fit before the footer at byte %d: %w", blk.body, footerStart, errCorruptIPC)
	}
	meta := make([]byte, blk.meta)
	if _, err := r.ReadAt(meta, blk.offset); err != nil {
		return err
	}
	prefix := 4
	if binary.LittleEndian.Uint32(meta) == 0xFFFFFFFF { // continuation marker
		prefix = 8
	}
	if n := int64(binary.LittleEndian.Uint32(meta[prefix-4:])); n != blk.meta-int64(prefix) {
		return fmt.Errorf("metadata length prefix %d does not match the block's %d: %w", n, blk.meta-int64(prefix), errCorruptIPC)
	}
	defer func() {
		switch p := recover().(type) {
		case nil:
		case ipcFail:
			err = fmt.Errorf("%s: %w", p.msg, errCorruptIPC)
		default:
			err = fmt.Errorf("message metadata is not a valid flatbuffer: %w", errCorruptIPC)
		}
	}()
	b := fbuf(meta[prefix:])
	root := b.u32(0)
	version := b.scalar(root, 0, 2, 0)
	headerType := b.scalar(root, 1, 1, 0)
	if n := b.scalar(root, 3, 8, 0); n != blk.body {
		failf("message body length %d does not match the block's %d", n, blk.body)
	}
	b.keyValues(root, 4)
	want := int64(3) // RecordBatch
	if dict {
		want = 2 // DictionaryBatch
	}
	if headerType != want {
		failf("message header type %d, want %d", headerType, want)
	}
	header := b.table(root, 2)
	if header < 0 {
		failf("message has no header")
	}
	batch, valueField := header, -1
	if dict {
		if batch = b.table(header, 1); batch < 0 {
			failf("dictionary batch has no data")
		}
		if vf, ok := f.dictFields[b.scalar(header, 0, 8, 0)]; ok {
			valueField = vf
		} else {
			return nil // arrow-go reports the unknown id before loading anything
		}
	}
	c := batchCheck{b: b, file: f, r: r, bodyStart: blk.offset + blk.meta, body: blk.body, version: version}
	c.buffersOf(batch)
	rows := b.scalar(batch, 0, 8, 0)
	if dict {
		c.field(valueField, true, 0)
	} else {
		s, n := f.footer.vector(f.schema, 1, 4)
		for k := range n {
			c.field(f.footer.deref(s+4*k), false, 0)
		}
	}
	if c.node != c.nodes {
		failf("%d field nodes for the %d the schema needs", c.nodes, c.node)
	}
	c.unbacked = append(c.unbacked, rows)
	for _, l := range c.unbacked {
		if l < 0 || l > max(maxUnbackedRows, c.longest) {
			failf("length %d is held by no buffer and exceeds both %d and the longest length buffers hold (%d)", l, maxUnbackedRows, c.longest)
		}
	}
	return nil
}

// batchCheck walks the field nodes and buffers of one RecordBatch table against the schema.
type batchCheck struct {
	b         fbuf
	file      *ipcFile
	r         io.ReaderAt
	bodyStart int64 // file offset of the body
	body      int64 // its length
	version   int64 // MetadataVersion: V5 is 4

	nodesAt, nodes     int
	buffersAt, buffers int
	variadicAt, nvar   int
	node, buffer, vari int

	sizes    []int64 // bytes each buffer holds (uncompressed)
	longest  int64   // the longest length a buffer holds
	unbacked []int64 // lengths no buffer holds
}

// buffersOf checks the buffers of the RecordBatch table t against the body and reads the
// sizes they hold.
func (c *batchCheck) buffersOf(t int) {
	b := c.b
	c.nodesAt, c.nodes = b.vector(t, 1, 16)
	c.buffersAt, c.buffers = b.vector(t, 2, 16)
	c.variadicAt, c.nvar = b.vector(t, 4, 8)
	codec := -1
	if comp := b.table(t, 3); comp >= 0 {
		codec = int(b.scalar(comp, 0, 1, 0))
	}
	if _, ok := maxExpansion[codec]; !ok {
		codec = -1 // arrow-go reads an unknown codec as uncompressed
	}
	c.sizes = make([]int64, c.buffers)
	var prefix [8]byte
	for k := range c.buffers {
		p := c.buffersAt + 16*k
		off, n := b.i64(p), b.i64(p+8)
		switch {
		case n == 0:
			continue // arrow-go ignores the offset of an empty buffer
		case n < 0 || off < 0 || off > c.body || n > c.body-off:
			failf("buffer %d (offset %d, length %d) is not inside the body of %d bytes", k, off, n, c.body)
		}
		c.sizes[k] = n
		if codec < 0 {
			continue
		}
		if n < 8 {
			failf("compressed buffer %d of %d bytes has no 8-byte length", k, n)
		}
		if _, err := c.r.ReadAt(prefix[:], c.bodyStart+off); err != nil {
			failf("buffer %d: %v", k, err)
		}
		switch u := int64(binary.LittleEndian.Uint64(prefix[:])); {
		case u == -1:
			c.sizes[k] = n - 8 // stored uncompressed
		case u < 0 || u > maxExpansion[codec]*(n-8):
			failf("compressed buffer %d declares %d bytes from %d (%s expands at most %d times)", k, u, n-8, codecName[codec], maxExpansion[codec])
		default:
			c.sizes[k] = u
		}
	}
	for k := range c.nvar {
		if v := b.i64(c.variadicAt + 8*k); v < 0 || v > int64(c.buffers) {
			failf("variadic buffer count %d of %d buffers", v, c.buffers)
		}
	}
}

// nextNode returns the length and null count of the next field node.
func (c *batchCheck) nextNode() (length, nulls int64) {
	if c.node >= c.nodes {
		failf("%d field nodes, fewer than the schema needs", c.nodes)
	}
	p := c.nodesAt + 16*c.node
	c.node++
	length, nulls = c.b.i64(p), c.b.i64(p+8)
	if length < 0 || nulls < 0 || nulls > length {
		failf("field node %d: length %d with null count %d", c.node-1, length, nulls)
	}
	return length, nulls
}

// nextBuffer returns the bytes the next buffer holds.
func (c *batchCheck) nextBuffer() int64 {
	if c.buffer >= c.buffers {
		failf("%d buffers, fewer than the schema needs", c.buffers)
	}
	c.buffer++
	return c.sizes[c.buffer-1]
}

// holds checks that the next buffer holds n values of width bytes (width 0: n bits) and
// records n as a length that buffers hold.
func (c *batchCheck) holds(what string, n, width int64) {
	size := c.nextBuffer()
	if n == 0 {
		return
	}
	fit := size * 8
	if width > 0 {
		fit = size / width
	}
	if n > fit {
		failf("field node %d: %d values do not fit the %d bytes of its %s buffer", c.node-1, n, size, what)
	}
	c.longest = max(c.longest, n)
}

// validity consumes the validity buffer slot of a node (a bitmap, read only with nulls).
func (c *batchCheck) validity(n, nulls int64) {
	if nulls > 0 {
		c.holds("validity", n, 0)
	} else {
		c.nextBuffer()
	}
}

// offsets consumes an offsets buffer of n+1 values of width bytes (empty when n is 0).
func (c *batchCheck) offsets(n, width int64) {
	if n == 0 {
		c.nextBuffer()
		return
	}
	c.holds("offsets", n+1, width)
}

// Type union tags of format/Schema.fbs.
const (
	fbNull = iota + 1
	fbInt
	fbFloatingPoint
	fbBinary
	fbUtf8
	fbBool
	fbDecimal
	fbDate
	fbTime
	fbTimestamp
	fbInterval
	fbList
	fbStruct
	fbUnion
	fbFixedSizeBinary
	fbFixedSizeList
	fbMap
	fbDuration
	fbLargeBinary
	fbLargeUtf8
	fbLargeList
	fbRunEndEncoded
	fbBinaryView
	fbUtf8View
	fbListView
	fbLargeListView
)

// metadataV5 is MetadataVersion V5, from which null, union and run-end encoded arrays have no
// validity buffer.
const metadataV5 = 4

// field walks the nodes and buffers of field table fld of the footer's schema as arrow-go
// loads them (asValue: the values of a dictionary-encoded field, not its indices) and returns
// the field's length.
func (c *batchCheck) field(fld int, asValue bool, depth int) int64 {
	sc := c.file.footer
	if depth > maxSchemaDepth {
		failf("fields nested deeper than %d", maxSchemaDepth)
	}
	n, nulls := c.nextNode()
	tt := sc.scalar(fld, 2, 1, 0) & 0xff
	typ := sc.table(fld, 3)
	param := func(i, size int, def int64) int64 {
		if typ < 0 {
			return def
		}
		return sc.scalar(typ, i, size, def)
	}
	if d := sc.table(fld, 4); d >= 0 && !asValue {
		width := int64(4)
		if it := sc.table(d, 1); it >= 0 {
			width = sc.scalar(it, 0, 4, 0) / 8
		}
		if width <= 0 {
			failf("dictionary index width %d bytes", width)
		}
		c.validity(n, nulls)
		c.holds("dictionary index", n, width)
		return n
	}
	fixed := func(width int64) {
		c.validity(n, nulls)
		if width <= 0 {
			c.nextBuffer()
			c.unbacked = append(c.unbacked, n)
			return
		}
		c.holds("data", n, width)
	}
	children := func() {
		s, k := sc.vector(fld, 5, 4)
		for j := range k {
			c.field(sc.deref(s+4*j), false, depth+1)
		}
	}
	switch tt {
	case fbNull:
		c.unbacked = append(c.unbacked, n)
	case fbInt, fbTime:
		def := int64(0)
		if tt == fbTime {
			def = 32
		}
		fixed(param(map[int64]int{fbInt: 0, fbTime: 1}[tt], 4, def) / 8)
	case fbFloatingPoint:
		fixed(map[int64]int64{0: 2, 1: 4, 2: 8}[param(0, 2, 0)])
	case fbBool:
		c.validity(n, nulls)
		c.holds("data", n, 0)
	case fbDecimal:
		fixed(param(2, 4, 128) / 8)
	case fbDate:
		fixed(map[int64]int64{0: 4, 1: 8}[param(0, 2, 1)])
	case fbTimestamp, fbDuration:
		fixed(8)
	case fbInterval:
		fixed(map[int64]int64{0: 4, 1: 8, 2: 16}[param(0, 2, 0)])
	case fbFixedSizeBinary:
		fixed(param(0, 4, 0))
	case fbBinary, fbUtf8, fbLargeBinary, fbLargeUtf8:
		c.validity(n, nulls)
		c.offsets(n, map[bool]int64{false: 4, true: 8}[tt == fbLargeBinary || tt == fbLargeUtf8])
		c.nextBuffer() // the bytes, checked by validate once read
	case fbBinaryView, fbUtf8View:
		if c.vari >= c.nvar {
			failf("%d variadic buffer counts, fewer than the schema needs", c.nvar)
		}
		nv := c.b.i64(c.variadicAt + 8*c.vari)
		c.vari++
		c.validity(n, nulls)
		c.holds("views", n, 16)
		for range nv {
			c.nextBuffer()
		}
	case fbList, fbMap, fbLargeList:
		c.validity(n, nulls)
		c.offsets(n, map[bool]int64{false: 4, true: 8}[tt == fbLargeList])
		children()
	case fbListView, fbLargeListView:
		w := map[bool]int64{false: 4, true: 8}[tt == fbLargeListView]
		c.validity(n, nulls)
		c.holds("offsets", n, w)
		c.holds("sizes", n, w)
		children()
	case fbStruct, fbFixedSizeList:
		c.validity(n, nulls)
		if nulls == 0 {
			c.unbacked = append(c.unbacked, n)
		}
		children()
	case fbUnion:
		if c.version < metadataV5 {
			c.validity(n, nulls)
		}
		c.holds("type ids", n, 1)
		if param(0, 2, 0) == 1 { // dense
			c.holds("offsets", n, 4)
		}
		children()
	case fbRunEndEncoded:
		if c.version < metadataV5 {
			c.validity(n, nulls)
		}
		c.unbacked = append(c.unbacked, n)
		children()
	default:
		failf("field of unknown type %d", tt)
	}
	return n
}
