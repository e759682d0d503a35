package ccg

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/internal/atomicfile"
)

// Persistent storage of a graph (Knüpfer 3.5, 4.6): the nodes are written
// bottom-up, children before parents, so that restoring is one pass that
// fills the store's arenas directly (no pointer translation table, no
// replacement index: queries do not need it, and Recompress and Merge put
// into new stores).
//
// File format, version 2 (version 1, without metric modes, is read too).
// Integers are unsigned (uv) or zig-zag signed (v)
// varints as encoding/binary writes them, u16/u32/u64 little-endian,
// f64 the IEEE bits as u64, a string is uv(length) and the bytes, a list
// is uv(n+1) and its n elements, or uv(0) for an absent (nil) list.
//
//	magic    "TBCCG\x00"
//	version  u16 (2)
//	header   bounds: v(Abs) f64(Rel) v(Bytes) v(CollBytes) f64(Counter) v(Requests)
//	         f64(MPIRel) (MPIRel: version 2);
//	         uv(branch b) uv(search L*)
//	defs     the trace's definitions, so that the file is self-contained:
//	         list Strings: string
//	         list Regions: Name Canonical Role Paradigm File, uv(BeginLine) uv(EndLine)
//	         list SystemTree: Name Class, v(Parent)
//	         list LocationGroups: Name Type, v(SystemNode)
//	         list Locations: Name Type, v(Group) uv(NumEvents)
//	         list Groups: Name Type Paradigm, list Members: uv
//	         list Comms: Name, v(Group) v(Parent)
//	         list MetricMembers: Name Description Unit ValueType Mode (Mode: version 2)
//	         list MetricClasses: list Members: v
//	         list Attributes: Name Description Type
//	         Clock: uv(Resolution) uv(Offset) uv(Length)
//	         list Properties (sorted by key): key value
//	locs     uv(count), per location: v(Index) Name v(Rank) v(Thread) v(Events)
//	         v(End) uv(Root) v(N) v(M) v(Replaced) v(DevMin) v(DevMax)
//	         byte(DevExact) f64(MaxRel), Repairs: v(OuterLeaves) v(ClosedInside)
//	         v(UnmatchedLeaves) v(LeavesWithoutCall) v(OpenAtEnd)
//	nodes    uv(count) uv(child references) uv(arena bytes), then per node in
//	         id order (ids dense from 0, children before parents):
//	         byte tag = kind | x<<2 (kind 0 call, 1 artificial, 2 atomic;
//	           x = log2 of the duration width for calls and artificial nodes,
//	           the trace.EventKind for atomic nodes), uv(n);
//	         call: v(region id, -1 for a location's root);
//	         call, artificial: n times uv(parent id - child id) (> 0), then the
//	           2n+1 durations at the node's width (1, 2, 4 or 8 bytes each);
//	         atomic: the n payload values as v (layouts at field; a metric
//	           value whose type has bit 8 set, deltaType, is the difference
//	           from the location's previous sample of that counter).
//	trailer  u32 CRC-32C (Castagnoli) of every byte before it, u64 file length
//
// Only the nodes reachable from the graph's locations are written (a view
// of some locations of a larger graph saves just those), renumbered densely
// in their original order. Artificial and atomic nodes have region 0.

const (
	fileMagic     = "TBCCG\x00"
	formatVersion = 2
	headBytes     = len(fileMagic) + 2 // magic and version
	trailerBytes  = 4 + 8              // CRC-32C and file length

)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maxGraphDepth is the depth of the deepest graph Load accepts: queries
// recurse per level (a variable for tests).
var maxGraphDepth uint64 = 1 << 20

// Save writes the graph to path in the binary format described at
// WriteTo, atomically as internal/atomicfile writes: to a temporary
// file beside path's target (a symlink is followed), synced and then
// renamed over it, so that the file holds either the old graph or the
// whole new one; a new file gets mode 0666 less the umask, an existing one
// keeps its mode. A save that fails panics with an *Error naming
// "ccg.Graph.Save", the path and the cause, so the cell fails (a notebook run
// headless stops there instead of going on without the file).
func (g *Graph) Save(path string) {
	if err := g.save(path); err != nil {
		panic(err)
	}
}

// save is Save returning its *Error.
func (g *Graph) save(path string) error {
	const fn = "ccg.Graph.Save"
	if g == nil {
		return &Error{Func: fn, Msg: "nil graph"}
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := g.WriteTo(w)
		return err
	})
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) && ce.Func != fn {
		return &Error{Func: fn, Msg: path + ": " + ce.Msg, Err: ce.Err}
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) { // named by path already
		msg = pe.Op + ": " + pe.Err.Error()
	}
	return &Error{Func: fn, Msg: path + ": " + msg, Err: err}
}

// WriteTo writes the graph to w in the binary format of Save (the format
// is documented in persist.go): magic "TBCCG\x00", a version, the bounds
// and parameters, the definitions, the locations, the reachable nodes
// children first, a CRC-32C and the length. It writes in chunks of 64 KiB
// and returns the bytes written. Errors are *Error naming
// "ccg.Graph.WriteTo".
func (g *Graph) WriteTo(w io.Writer) (n int64, err error) {
	const fn = "ccg.Graph.WriteTo"
	if g == nil {
		return 0, &Error{Func: fn, Msg: "nil graph"}
	}
	defer func() {
		if r := recover(); r != nil {
			e := work.StopError(r)
			if e == nil {
				panic(r)
			}
			err = &Error{Func: fn, Msg: e.Error(), Err: e}
		}
	}()
	st := g.st
	reach := g.reach()
	// New ids: the reachable nodes in their order (children stay first).
	ren := make([]uint32, len(st.nodes))
	var count, nkids, ndata uint64
	nreg := 0
	if g.defs != nil {
		nreg = len(g.defs.Regions)
	}
	for i, ok := range reach {
		if !ok {
			continue
		}
		nd := &st.nodes[i]
		ren[i] = uint32(count)
		count++
		if nd.kind == kAtomic {
			ndata += uint64(payloadLen(st, nd))
			continue
		}
		nkids += uint64(nd.n)
		ndata += uint64(nd.width) * uint64(2*nd.n+1)
		if nd.kind == kCall && (int(nd.ref) >= nreg || nd.ref < 0 && !isRoot(g, uint32(i))) {
			// Load would refuse it (queries index region tables by it).
			return 0, &Error{Func: fn, Msg: fmt.Sprintf("node %d calls region %d, which is not in the definitions' %d regions: the file could not be loaded", i, nd.ref, nreg)}
		}
	}
	e := &encoder{w: w, buf: make([]byte, 0, 1<<16+1<<10)}
	e.buf = append(e.buf, fileMagic...)
	e.buf = binary.LittleEndian.AppendUint16(e.buf, formatVersion)
	b := g.bounds
	e.varint(b.Abs)
	e.f64(b.Rel)
	e.varint(b.Bytes)
	e.varint(b.CollBytes)
	e.f64(b.Counter)
	e.varint(b.Requests)
	e.f64(b.MPIRel)
	e.uvarint(uint64(g.branch))
	e.uvarint(uint64(g.search))
	e.defs(g.defs)

	e.uvarint(uint64(len(g.locs)))
	for _, l := range g.locs {
		e.varint(int64(l.Index))
		e.str(l.Name)
		e.varint(int64(l.Rank))
		e.varint(int64(l.Thread))
		e.varint(l.Events)
		e.varint(l.End)
		e.uvarint(uint64(ren[l.Root]))
		e.varint(l.N)
		e.varint(l.M)
		e.varint(l.Replaced)
		e.varint(l.DevMin)
		e.varint(l.DevMax)
		if l.DevExact {
			e.buf = append(e.buf, 1)
		} else {
			e.buf = append(e.buf, 0)
		}
		e.f64(l.MaxRel)
		r := l.Repairs
		for _, v := range [...]int64{r.OuterLeaves, r.ClosedInside, r.UnmatchedLeaves, r.LeavesWithoutCall, r.OpenAtEnd} {
			e.varint(v)
		}
		e.spill()
	}

	e.uvarint(count)
	e.uvarint(nkids)
	e.uvarint(ndata)
	for i, ok := range reach {
		if i&(1<<14-1) == 0 {
			work.Check()
		}
		if !ok {
			continue
		}
		nd := &st.nodes[i]
		if nd.kind == kAtomic {
			e.buf = append(e.buf, kAtomic|nd.ev<<2)
			e.uvarint(uint64(nd.n))
			k := payloadLen(st, nd)
			e.buf = append(e.buf, st.data[nd.data:nd.data+uint64(k)]...)
			e.spill()
			continue
		}
		e.buf = append(e.buf, nd.kind|widthCode(nd.width)<<2)
		e.uvarint(uint64(nd.n))
		if nd.kind == kCall {
			e.varint(int64(nd.ref))
		}
		id := ren[i]
		for _, c := range st.children(nd) {
			e.uvarint(uint64(id - ren[c]))
		}
		k := uint64(nd.width) * uint64(2*nd.n+1)
		e.buf = append(e.buf, st.data[nd.data:nd.data+k]...)
		e.spill()
	}
	e.flush()
	if e.err != nil {
		return e.n, &Error{Func: fn, Msg: e.err.Error(), Err: e.err}
	}
	total := uint64(e.n) + trailerBytes
	e.buf = binary.LittleEndian.AppendUint32(e.buf, e.crc)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, total)
	e.flush()
	if e.err != nil {
		return e.n, &Error{Func: fn, Msg: e.err.Error(), Err: e.err}
	}
	return e.n, nil
}

func isRoot(g *Graph, id uint32) bool {
	for _, l := range g.locs {
		if l.Root == id {
			return true
		}
	}
	return false
}

// payloadLen is the number of bytes of an atomic node's payload.
func payloadLen(st *store, nd *node) int {
	b := st.data[nd.data:]
	n := 0
	for range nd.n {
		_, k := varintLen(b[n:])
		n += k
	}
	return n
}

func widthCode(w uint8) uint8 {
	switch w {
	case 1:
		return 0
	case 2:
		return 1
	case 4:
		return 2
	}
	return 3
}

// encoder appends to buf and hands it to w (with the running CRC and
// length) whenever it exceeds 64 KiB.
type encoder struct {
	w   io.Writer
	buf []byte
	crc uint32
	n   int64
	err error
}

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		e.crc = crc32.Update(e.crc, castagnoli, e.buf)
		k, err := e.w.Write(e.buf)
		e.n += int64(k)
		if err == nil && k < len(e.buf) {
			err = io.ErrShortWrite
		}
		e.err = err
	}
	e.buf = e.buf[:0]
}

func (e *encoder) spill() {
	if len(e.buf) >= 1<<16 {
		e.flush()
	}
}

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) varint(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }
func (e *encoder) f64(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
}

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	if len(s) > 1<<15 {
		e.flush()
		if e.err == nil {
			// Large strings go straight through.
			e.crc = crc32.Update(e.crc, castagnoli, []byte(s))
			k, err := io.WriteString(e.w, s)
			e.n += int64(k)
			e.err = err
		}
		return
	}
	e.buf = append(e.buf, s...)
	e.spill()
}

// list writes a list header: uv(n+1), or uv(0) when the list is nil.
func (e *encoder) list(n int, isNil bool) {
	if isNil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(n) + 1)
}

func (e *encoder) defs(d *trace.Definitions) {
	if d == nil {
		d = &trace.Definitions{}
	}
	e.list(len(d.Strings), d.Strings == nil)
	for _, s := range d.Strings {
		e.str(s)
	}
	e.list(len(d.Regions), d.Regions == nil)
	for _, r := range d.Regions {
		e.str(r.Name)
		e.str(r.Canonical)
		e.str(r.Role)
		e.str(r.Paradigm)
		e.str(r.File)
		e.uvarint(uint64(r.BeginLine))
		e.uvarint(uint64(r.EndLine))
	}
	e.list(len(d.SystemTree), d.SystemTree == nil)
	for _, s := range d.SystemTree {
		e.str(s.Name)
		e.str(s.Class)
		e.varint(int64(s.Parent))
	}
	e.list(len(d.LocationGroups), d.LocationGroups == nil)
	for _, lg := range d.LocationGroups {
		e.str(lg.Name)
		e.str(lg.Type)
		e.varint(int64(lg.SystemNode))
	}
	e.list(len(d.Locations), d.Locations == nil)
	for _, l := range d.Locations {
		e.str(l.Name)
		e.str(l.Type)
		e.varint(int64(l.Group))
		e.uvarint(l.NumEvents)
	}
	e.list(len(d.Groups), d.Groups == nil)
	for _, gr := range d.Groups {
		e.str(gr.Name)
		e.str(gr.Type)
		e.str(gr.Paradigm)
		e.list(len(gr.Members), gr.Members == nil)
		for _, m := range gr.Members {
			e.uvarint(m)
			e.spill()
		}
	}
	e.list(len(d.Comms), d.Comms == nil)
	for _, c := range d.Comms {
		e.str(c.Name)
		e.varint(int64(c.Group))
		e.varint(int64(c.Parent))
	}
	e.list(len(d.MetricMembers), d.MetricMembers == nil)
	for _, m := range d.MetricMembers {
		e.str(m.Name)
		e.str(m.Description)
		e.str(m.Unit)
		e.str(m.ValueType)
		e.str(m.Mode)
	}
	e.list(len(d.MetricClasses), d.MetricClasses == nil)
	for _, c := range d.MetricClasses {
		e.list(len(c.Members), c.Members == nil)
		for _, m := range c.Members {
			e.varint(int64(m))
		}
		e.spill()
	}
	e.list(len(d.Attributes), d.Attributes == nil)
	for _, a := range d.Attributes {
		e.str(a.Name)
		e.str(a.Description)
		e.str(a.Type)
	}
	e.uvarint(d.Clock.Resolution)
	e.uvarint(d.Clock.Offset)
	e.uvarint(d.Clock.Length)
	e.list(len(d.Properties), d.Properties == nil)
	keys := make([]string, 0, len(d.Properties))
	for k := range d.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e.str(k)
		e.str(d.Properties[k])
	}
}

// Load restores a graph saved by Save. The whole file is read (it is
// compact) and its length and CRC-32C are checked before anything else;
// the contents are then checked as they are parsed (counts against the
// bytes left, child references, region ids, duration widths, event kinds,
// payload layouts, location roots, depth at most 2^20), so that a corrupt
// or truncated file is an error, never a panic. Errors are *Error naming
// "ccg.Load", the file and the byte offset of the fault.
func Load(path string) (*Graph, error) {
	const fn = "ccg.Load"
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Func: fn, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Func: fn, Msg: err.Error(), Err: err}
	}
	// The store holds about what the file does (nodes at 24 bytes
	// against at least 2 in the file: up to 12 times for a graph of tiny
	// nodes; about 3 times typically).
	if err := work.Reserve(fn, 4*fi.Size()); err != nil {
		return nil, &Error{Func: fn, Msg: path + ": " + err.Error(), Err: err}
	}
	buf := make([]byte, fi.Size())
	if _, err := io.ReadFull(bufio.NewReaderSize(f, 1<<20), buf); err != nil {
		return nil, &Error{Func: fn, Msg: fmt.Sprintf("%s: reading %d bytes: %v", path, fi.Size(), err), Err: err}
	}
	return decode(fn, path, buf, true)
}

// Read restores a graph from the bytes of a file written by WriteTo or
// Save, read from r to its end. Errors are *Error naming "ccg.Read" and
// the byte offset (see Load).
func Read(r io.Reader) (*Graph, error) {
	const fn = "ccg.Read"
	var buf []byte
	var err error
	if lr, ok := r.(interface{ Len() int }); ok { // bytes.Reader, bytes.Buffer: one allocation
		buf = make([]byte, lr.Len())
		_, err = io.ReadFull(r, buf)
	} else {
		buf, err = io.ReadAll(r)
	}
	if err != nil {
		return nil, &Error{Func: fn, Msg: err.Error(), Err: err}
	}
	return decode(fn, "", buf, true)
}

// loadError is a parse failure at a byte offset (the panic value inside
// decode).
type loadError struct {
	off int
	msg string
}

// decode restores a graph from buf. With check false it skips the length
// and CRC checks, so that fuzzing reaches the parser.
func decode(fn, name string, buf []byte, check bool) (g *Graph, err error) {
	where := ""
	if name != "" {
		where = name + ": "
	}
	defer func() {
		if r := recover(); r != nil {
			if le, ok := r.(loadError); ok {
				g, err = nil, &Error{Func: fn, Msg: fmt.Sprintf("%soffset %d: %s", where, le.off, le.msg)}
				return
			}
			if e := work.StopError(r); e != nil {
				g, err = nil, &Error{Func: fn, Msg: where + e.Error(), Err: e}
				return
			}
			panic(r)
		}
	}()
	d := &decoder{b: buf}
	n := len(buf)
	if n < len(fileMagic) || string(buf[:len(fileMagic)]) != fileMagic {
		d.fail(0, "not a CCG file (no magic %q; saved with ccg.Graph.Save?)", fileMagic)
	}
	if n < headBytes {
		d.fail(n, "file ends after %d bytes, inside the header", n)
	}
	d.version = binary.LittleEndian.Uint16(buf[len(fileMagic):])
	if d.version < 1 || d.version > formatVersion {
		d.fail(len(fileMagic), "format version %d; this build reads versions 1 to %d", d.version, formatVersion)
	}
	if n < headBytes+trailerBytes {
		d.fail(n, "file ends after %d bytes: truncated (no trailer)", n)
	}
	if check {
		if want := binary.LittleEndian.Uint64(buf[n-8:]); want != uint64(n) {
			d.fail(n-8, "file has %d bytes, its trailer says %d: truncated or extended", n, want)
		}
		if got, want := crc32.Checksum(buf[:n-trailerBytes], castagnoli), binary.LittleEndian.Uint32(buf[n-trailerBytes:]); got != want {
			d.fail(n-trailerBytes, "checksum mismatch (CRC-32C %08x, stored %08x): the file is corrupt", got, want)
		}
	}
	d.off, d.end = headBytes, n-trailerBytes
	g = d.graph()
	if d.off != d.end {
		d.fail(d.off, "%d unexpected bytes before the trailer", d.end-d.off)
	}
	return g, nil
}

// decoder reads b[off:end], failing with the offset of the item it reads.
type decoder struct {
	b        []byte
	off, end int
	version  uint16
}

func (d *decoder) fail(off int, format string, args ...any) {
	panic(loadError{off: off, msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) left() int { return d.end - d.off }

func (d *decoder) byte1(what string) byte {
	if d.off >= d.end {
		d.fail(d.off, "truncated: %s missing", what)
	}
	c := d.b[d.off]
	d.off++
	return c
}

func (d *decoder) uvarint(what string) uint64 {
	if d.off < d.end && d.b[d.off] < 0x80 {
		d.off++
		return uint64(d.b[d.off-1])
	}
	v, k := binary.Uvarint(d.b[d.off:d.end])
	if k <= 0 {
		if k == 0 {
			d.fail(d.off, "truncated: %s missing", what)
		}
		d.fail(d.off, "%s: varint overflows 64 bits", what)
	}
	d.off += k
	return v
}

func (d *decoder) varint(what string) int64 {
	u := d.uvarint(what)
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// i32 reads a varint that must fit an int32.
func (d *decoder) i32(what string) int32 {
	at := d.off
	v := d.varint(what)
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(at, "%s %d out of the int32 range", what, v)
	}
	return int32(v)
}

func (d *decoder) u32(what string) uint32 {
	at := d.off
	v := d.uvarint(what)
	if v > math.MaxUint32 {
		d.fail(at, "%s %d out of the uint32 range", what, v)
	}
	return uint32(v)
}

// nonneg reads a varint that must be >= 0.
func (d *decoder) nonneg(what string) int64 {
	at := d.off
	v := d.varint(what)
	if v < 0 {
		d.fail(at, "%s is negative (%d)", what, v)
	}
	return v
}

func (d *decoder) f64(what string) float64 {
	if d.left() < 8 {
		d.fail(d.off, "truncated: %s missing", what)
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return v
}

func (d *decoder) str(what string) string {
	at := d.off
	n := d.uvarint(what + " length")
	if n > uint64(d.left()) {
		d.fail(at, "%s of %d bytes, but only %d bytes are left", what, n, d.left())
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

// count reads a count of elements that take at least min bytes each.
func (d *decoder) count(what string, min int) int {
	at := d.off
	n := d.uvarint(what)
	if n > uint64(d.left()/min) {
		d.fail(at, "%d %s, but only %d bytes are left", n, what, d.left())
	}
	return int(n)
}

// list reads a list header (see the format): the count and whether the
// list is absent.
func (d *decoder) list(what string, min int) (n int, isNil bool) {
	at := d.off
	v := d.uvarint(what)
	if v == 0 {
		return 0, true
	}
	if v-1 > uint64(d.left()/min) {
		d.fail(at, "%d %s, but only %d bytes are left", v-1, what, d.left())
	}
	return int(v - 1), false
}

func makeList[T any](n int, isNil bool) []T {
	if isNil {
		return nil
	}
	return make([]T, n)
}

func (d *decoder) graph() *Graph {
	g := &Graph{sh: &shared{}}
	b := &g.bounds
	b.Abs = d.varint("bound Abs")
	at := d.off
	b.Rel = d.f64("bound Rel")
	if math.IsNaN(b.Rel) || math.IsInf(b.Rel, 0) {
		d.fail(at, "bound Rel is %v", b.Rel)
	}
	b.Bytes = d.varint("bound Bytes")
	b.CollBytes = d.varint("bound CollBytes")
	at = d.off
	b.Counter = d.f64("bound Counter")
	if math.IsNaN(b.Counter) || math.IsInf(b.Counter, 0) {
		d.fail(at, "bound Counter is %v", b.Counter)
	}
	b.Requests = d.varint("bound Requests")
	if d.version >= 2 {
		at = d.off
		b.MPIRel = d.f64("bound MPIRel")
		if math.IsNaN(b.MPIRel) || math.IsInf(b.MPIRel, 0) || b.MPIRel < 0 {
			d.fail(at, "bound MPIRel is %v", b.MPIRel)
		}
	}
	at = d.off
	if v := d.uvarint("branching factor"); v < 2 || v > 1<<16 {
		d.fail(at, "branching factor %d: need 2 <= b <= 65536", v)
	} else {
		g.branch = int(v)
	}
	at = d.off
	if v := d.uvarint("search length"); v < 1 || v > math.MaxInt32 {
		d.fail(at, "search length %d: need 1 <= L <= 2^31-1", v)
	} else {
		g.search = int(v)
	}
	g.defs = d.defs()
	nreg := len(g.defs.Regions)

	type rootAt struct {
		off int
		id  uint64
	}
	nl := d.count("locations", 26)
	g.locs = make([]Location, nl)
	roots := make([]rootAt, nl)
	for i := range g.locs {
		l := &g.locs[i]
		at := d.off
		if v := d.nonneg("location index"); v > math.MaxInt32 {
			d.fail(at, "location index %d out of range", v)
		} else {
			l.Index = int(v)
		}
		l.Name = d.str("location name")
		l.Rank = d.i32("rank")
		l.Thread = d.i32("thread")
		l.Events = d.nonneg("event count")
		l.End = d.varint("end time")
		roots[i] = rootAt{d.off, d.uvarint("root")}
		l.N = d.nonneg("node count N")
		l.M = d.nonneg("byte count M")
		l.Replaced = d.nonneg("replaced count")
		l.DevMin = d.varint("DevMin")
		l.DevMax = d.varint("DevMax")
		at = d.off
		switch d.byte1("DevExact") {
		case 0:
		case 1:
			l.DevExact = true
		default:
			d.fail(at, "DevExact is %d, not 0 or 1", d.b[at])
		}
		l.MaxRel = d.f64("MaxRel")
		r := &l.Repairs
		r.OuterLeaves = d.nonneg("repair count")
		r.ClosedInside = d.nonneg("repair count")
		r.UnmatchedLeaves = d.nonneg("repair count")
		r.LeavesWithoutCall = d.nonneg("repair count")
		r.OpenAtEnd = d.nonneg("repair count")
	}

	// Nodes: every node takes at least 2 bytes (tag, n).
	secAt := d.off
	nn := d.count("nodes", 2)
	at = d.off
	nk := d.uvarint("child reference count")
	if nk > uint64(d.left()) {
		d.fail(at, "%d child references, but only %d bytes are left", nk, d.left())
	}
	at = d.off
	ndata := d.uvarint("arena bytes")
	if ndata > uint64(d.left()) {
		d.fail(at, "%d arena bytes, but only %d bytes are left", ndata, d.left())
	}
	st := newStore(g.bounds, g.search)
	st.nodes = make([]node, nn)
	st.kids = make([]uint32, nk)
	st.data = make([]byte, ndata)
	// What the checks need of each node, packed for one cache miss per
	// child reference: bit 0 whether it is a root, bits 1-21 its height,
	// bits 22-63 the events it represents (saturated: evMax).
	info := make([]uint64, nn)
	var kpos, dpos uint64
	const evMax = 1<<42 - 1
	for id := range nn {
		if id&(1<<14-1) == 0 {
			work.Check()
		}
		nodeAt := d.off
		tag := d.byte1("node")
		kind, x := tag&3, tag>>2
		at := d.off
		cnt := d.uvarint("child or payload count")
		nd := &st.nodes[id]
		nd.kind = kind
		switch kind {
		case kCall, kSplit:
			if x > 3 {
				d.fail(nodeAt, "node %d: duration width code %d (need 0-3: 1, 2, 4 or 8 bytes)", id, x)
			}
			w := uint64(1) << x
			if kind == kCall {
				rat := d.off
				ref := d.i32("region id")
				if ref < -1 || ref >= int32(nreg) {
					d.fail(rat, "node %d: region id %d not in the %d regions (nor -1, a root)", id, ref, nreg)
				}
				nd.ref = ref
			}
			// Each child takes a byte and two durations.
			if cnt > uint64(d.left())/(1+2*w) {
				d.fail(at, "node %d: %d children, but only %d bytes are left", id, cnt, d.left())
			}
			if kpos+cnt > nk {
				d.fail(at, "node %d: more child references than the %d declared at offset %d", id, nk, secAt)
			}
			nd.n, nd.width, nd.kids = uint32(cnt), uint8(w), uint32(kpos)
			var h, ev uint64
			if kind == kCall && nd.ref >= 0 {
				ev = 2
			}
			for range cnt {
				cat := d.off
				delta := d.uvarint("child reference")
				if delta == 0 || delta > uint64(id) {
					d.fail(cat, "node %d: child reference %d (need 1 to %d: children precede their parents)", id, delta, id)
				}
				c := uint32(uint64(id) - delta)
				ci := info[c]
				if ci&1 != 0 {
					d.fail(cat, "node %d: child %d is a location's root (region -1)", id, c)
				}
				st.kids[kpos] = c
				kpos++
				h = max(h, ci>>1&(1<<21-1))
				ev = min(ev+ci>>22, evMax)
			}
			if h >= maxGraphDepth {
				d.fail(nodeAt, "node %d: graph deeper than %d levels", id, maxGraphDepth)
			}
			info[id] = ev<<22 | (h+1)<<1
			if kind == kCall && nd.ref < 0 {
				info[id] |= 1
			}
			k := (2*cnt + 1) * w
			if k > uint64(d.left()) {
				d.fail(d.off, "node %d: truncated: %d duration bytes, %d left", id, k, d.left())
			}
			if dpos+k > ndata {
				d.fail(d.off, "node %d: more arena bytes than the %d declared at offset %d", id, ndata, secAt)
			}
			nd.data = dpos
			copy(st.data[dpos:], d.b[d.off:d.off+int(k)])
			d.off += int(k)
			dpos += k
		case kAtomic:
			ek := trace.EventKind(x)
			if ek == trace.Enter || ek == trace.Leave || ek >= trace.NumEventKinds {
				d.fail(nodeAt, "node %d: event kind %d (%s) cannot be an atomic node", id, x, ek)
			}
			want, ok := payloadCount(ek, cnt)
			if !ok {
				d.fail(at, "node %d: %s with %d payload values, want %s", id, ek, cnt, want)
			}
			if cnt > uint64(d.left()) {
				d.fail(at, "node %d: %d payload values, but only %d bytes are left", id, cnt, d.left())
			}
			nd.ev, nd.n, nd.data = x, uint32(cnt), dpos
			for j := range cnt {
				vat := d.off
				v := d.varint("payload value")
				k := d.off - vat
				if k > 1 && d.b[d.off-1] == 0 { // a zero last group: not minimal
					d.fail(vat, "node %d: payload value %d not minimally encoded", id, j)
				}
				if j == 1 && ek == trace.Metric && uint64(v) != (cnt-2)/2 {
					d.fail(vat, "node %d: metric sample with %d values in %d payload values", id, v, cnt)
				}
				if dpos+uint64(k) > ndata {
					d.fail(vat, "node %d: more arena bytes than the %d declared at offset %d", id, ndata, secAt)
				}
				copy(st.data[dpos:], d.b[vat:d.off])
				dpos += uint64(k)
			}
			info[id] = 1<<22 | 1<<1
		default:
			d.fail(nodeAt, "node %d: kind %d (need 0 call, 1 artificial, 2 atomic)", id, kind)
		}
		st.m += st.nodeSize(nd)
	}
	if kpos != nk || dpos != ndata {
		d.fail(secAt, "the nodes hold %d child references and %d arena bytes, the section declares %d and %d", kpos, dpos, nk, ndata)
	}
	for i, r := range roots {
		if r.id >= uint64(nn) {
			d.fail(r.off, "location %d: root %d, but the file has %d nodes", i, r.id, nn)
		}
		if nd := &st.nodes[r.id]; nd.kind != kCall || nd.ref != -1 {
			d.fail(r.off, "location %d: root %d is not a root node (a call of region -1)", i, r.id)
		}
		l := &g.locs[i]
		l.Root = uint32(r.id)
		// Every event is represented but the Leaves the repairs dropped
		// (Process allocates for Events).
		ev := int64(info[r.id] >> 22)
		if ex, u := l.Events-ev, l.Repairs.UnmatchedLeaves; ev < evMax && ex > 0 && ex > u && ex-u > l.Repairs.LeavesWithoutCall {
			d.fail(r.off, "location %d: %d events, but its graph holds %d and %d Leaves were dropped", i, l.Events, ev, u+l.Repairs.LeavesWithoutCall)
		}
	}
	st.seal()
	g.st = st
	return g
}

// payloadCount checks the number of payload values of an atomic node of
// kind ek (layouts at field and appendPayload) and describes the expected
// number.
func payloadCount(ek trace.EventKind, n uint64) (string, bool) {
	switch ek {
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv, trace.MpiCollectiveEnd:
		return "5", n == 5
	case trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		return "1", n == 1
	case trace.Metric:
		return "2 + 2 per value", n >= 2 && n%2 == 0
	}
	return "0", n == 0
}

func (d *decoder) defs() *trace.Definitions {
	df := &trace.Definitions{}
	n, isNil := d.list("strings", 1)
	df.Strings = makeList[string](n, isNil)
	for i := range df.Strings {
		df.Strings[i] = d.str("string")
	}
	n, isNil = d.list("regions", 7)
	df.Regions = makeList[trace.Region](n, isNil)
	for i := range df.Regions {
		r := &df.Regions[i]
		r.Name = d.str("region name")
		r.Canonical = d.str("region canonical name")
		r.Role = d.str("region role")
		r.Paradigm = d.str("region paradigm")
		r.File = d.str("region file")
		r.BeginLine = d.u32("region begin line")
		r.EndLine = d.u32("region end line")
	}
	n, isNil = d.list("system tree nodes", 3)
	df.SystemTree = makeList[trace.SystemTreeNode](n, isNil)
	for i := range df.SystemTree {
		s := &df.SystemTree[i]
		s.Name = d.str("system tree node name")
		s.Class = d.str("system tree node class")
		s.Parent = d.i32("system tree node parent")
	}
	n, isNil = d.list("location groups", 3)
	df.LocationGroups = makeList[trace.LocationGroup](n, isNil)
	for i := range df.LocationGroups {
		lg := &df.LocationGroups[i]
		lg.Name = d.str("location group name")
		lg.Type = d.str("location group type")
		lg.SystemNode = d.i32("location group system node")
	}
	n, isNil = d.list("location definitions", 4)
	df.Locations = makeList[trace.Location](n, isNil)
	for i := range df.Locations {
		l := &df.Locations[i]
		l.Name = d.str("location definition name")
		l.Type = d.str("location definition type")
		l.Group = d.i32("location definition group")
		l.NumEvents = d.uvarint("location definition event count")
	}
	n, isNil = d.list("groups", 4)
	df.Groups = makeList[trace.Group](n, isNil)
	for i := range df.Groups {
		gr := &df.Groups[i]
		gr.Name = d.str("group name")
		gr.Type = d.str("group type")
		gr.Paradigm = d.str("group paradigm")
		n, isNil := d.list("group members", 1)
		gr.Members = makeList[uint64](n, isNil)
		for j := range gr.Members {
			gr.Members[j] = d.uvarint("group member")
		}
	}
	n, isNil = d.list("communicators", 3)
	df.Comms = makeList[trace.Comm](n, isNil)
	for i := range df.Comms {
		c := &df.Comms[i]
		c.Name = d.str("communicator name")
		c.Group = d.i32("communicator group")
		c.Parent = d.i32("communicator parent")
	}
	n, isNil = d.list("metric members", 4)
	df.MetricMembers = makeList[trace.MetricMember](n, isNil)
	for i := range df.MetricMembers {
		m := &df.MetricMembers[i]
		m.Name = d.str("metric member name")
		m.Description = d.str("metric member description")
		m.Unit = d.str("metric member unit")
		m.ValueType = d.str("metric member value type")
		if d.version >= 2 {
			m.Mode = d.str("metric member mode")
		}
	}
	n, isNil = d.list("metric classes", 1)
	df.MetricClasses = makeList[trace.MetricClass](n, isNil)
	for i := range df.MetricClasses {
		n, isNil := d.list("metric class members", 1)
		df.MetricClasses[i].Members = makeList[int32](n, isNil)
		for j := range df.MetricClasses[i].Members {
			df.MetricClasses[i].Members[j] = d.i32("metric class member")
		}
	}
	n, isNil = d.list("attributes", 3)
	df.Attributes = makeList[trace.Attribute](n, isNil)
	for i := range df.Attributes {
		a := &df.Attributes[i]
		a.Name = d.str("attribute name")
		a.Description = d.str("attribute description")
		a.Type = d.str("attribute type")
	}
	df.Clock.Resolution = d.uvarint("clock resolution")
	df.Clock.Offset = d.uvarint("clock offset")
	df.Clock.Length = d.uvarint("clock length")
	n, isNil = d.list("properties", 2)
	if !isNil {
		df.Properties = make(map[string]string, n)
		prev := ""
		for i := range n {
			at := d.off
			k := d.str("property key")
			if i > 0 && k <= prev {
				d.fail(at, "property %q out of order or repeated", k)
			}
			df.Properties[k] = d.str("property value")
			prev = k
		}
	}
	return df
}
