package arrowio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/internal/memlimit"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// ipcBytes writes t as an Arrow IPC file with the given writer options (compression) and
// returns its bytes.
func ipcBytes(t *testing.T, tb *Table, opts ...ipc.Option) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, append([]ipc.Option{ipc.WithSchema(tb.Schema()), ipc.WithAllocator(mem)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(tb.record()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ipcLayout finds the parts of an IPC file that the tests damage.
type ipcLayout struct {
	data       []byte
	footerAt   int        // file offset of the footer flatbuffer
	footer     fbuf       // the footer
	dicts      []ipcBlock // and its blocks
	recs       []ipcBlock
	dictBlocks int // footer position of the first dictionary block
	recBlocks  int // footer position of the first record batch block
}

func layoutOf(t *testing.T, data []byte) *ipcLayout {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-10:]))
	l := &ipcLayout{data: data, footerAt: len(data) - 10 - n}
	l.footer = fbuf(data[l.footerAt : l.footerAt+n])
	root := l.footer.u32(0)
	l.dicts, l.recs = l.footer.blocks(root, 2), l.footer.blocks(root, 3)
	l.dictBlocks, _ = l.footer.vector(root, 2, 24)
	l.recBlocks, _ = l.footer.vector(root, 3, 24)
	return l
}

// batch returns the metadata flatbuffer of the message of blk (the file offset of its
// first byte), its RecordBatch table and the file offset of its body.
func (l *ipcLayout) batch(t *testing.T, blk ipcBlock, dict bool) (meta fbuf, metaAt, rb int, bodyAt int64) {
	t.Helper()
	metaAt = int(blk.offset) + 8 // continuation marker and length
	meta = fbuf(l.data[metaAt : blk.offset+blk.meta])
	rb = meta.table(meta.u32(0), 2)
	if dict {
		rb = meta.table(rb, 1)
	}
	return meta, metaAt, rb, blk.offset + blk.meta
}

func putI64(b []byte, p int, v int64) { binary.LittleEndian.PutUint64(b[p:], uint64(v)) }

// Every size an IPC file declares is checked against the bytes present before arrow-go
// allocates it; a damaged size is an error that names the file, the message and what was
// wrong. Each case damages one size of a valid file. They run in a child under a 1 GiB memory
// limit, as arrow-go would allocate most of these sizes (a fatal error) if they were not checked.
func TestIPCDeclaredSizesChecked(t *testing.T) {
	memlimit.Run(t, 1<<30, testIPCDeclaredSizesChecked)
}

func testIPCDeclaredSizesChecked(t *testing.T) {
	dictTable := MustTable(Dict("name", []string{"MPI_Send", "MPI_Recv", "MPI_Send", "compute"}), Int64("n", []int64{1, 2, 3, 4}))
	cases := []struct {
		name   string
		lz4    bool
		damage func(t *testing.T, l *ipcLayout)
		want   string
	}{
		{"dictionary buffer uncompressed length", true, func(t *testing.T, l *ipcLayout) {
			meta, _, rb, body := l.batch(t, l.dicts[0], true)
			s, n := meta.vector(rb, 2, 16)
			for k := range n {
				if off, ln := meta.i64(s+16*k), meta.i64(s+16*k+8); ln >= 8 {
					putI64(l.data, int(body+off), 500<<30) // the fuzz-found 500 GB
					return
				}
			}
			t.Fatal("no compressed buffer")
		}, "dictionary batch 0 (block at byte 224): compressed buffer 1 declares 536870912000 bytes"},
		{"record batch buffer uncompressed length", true, func(t *testing.T, l *ipcLayout) {
			meta, _, rb, body := l.batch(t, l.recs[0], false)
			s, n := meta.vector(rb, 2, 16)
			off := meta.i64(s + 16*(n-1))
			putI64(l.data, int(body+off), 1<<40)
		}, "declares 1099511627776 bytes from"},
		{"block body length", false, func(t *testing.T, l *ipcLayout) {
			putI64(l.data, l.footerAt+l.recBlocks+16, 500<<30)
		}, "record batch 0 (block at byte"},
		{"block metadata length", false, func(t *testing.T, l *ipcLayout) {
			binary.LittleEndian.PutUint32(l.data[l.footerAt+l.dictBlocks+8:], 1<<31-8)
		}, "metadata length 2147483640 does not fit"},
		{"block offset", false, func(t *testing.T, l *ipcLayout) {
			putI64(l.data, l.footerAt+l.recBlocks, 1<<50)
		}, "offset 1125899906842624 outside"},
		{"buffer outside the body", false, func(t *testing.T, l *ipcLayout) {
			meta, metaAt, rb, _ := l.batch(t, l.recs[0], false)
			s, n := meta.vector(rb, 2, 16)
			putI64(l.data, metaAt+s+16*(n-1)+8, 1<<45)
		}, "is not inside the body"},
		{"node length", false, func(t *testing.T, l *ipcLayout) {
			meta, metaAt, rb, _ := l.batch(t, l.recs[0], false)
			s, _ := meta.vector(rb, 1, 16)
			putI64(l.data, metaAt+s+16*1, 1<<40) // column n
		}, "1099511627776 values do not fit"},
		{"batch length", false, func(t *testing.T, l *ipcLayout) {
			meta, metaAt, rb, _ := l.batch(t, l.recs[0], false)
			p := meta.field(rb, 0)
			putI64(l.data, metaAt+p, 1<<40)
		}, "length 1099511627776 is held by no buffer"},
		{"null count", false, func(t *testing.T, l *ipcLayout) {
			meta, metaAt, rb, _ := l.batch(t, l.recs[0], false)
			s, _ := meta.vector(rb, 1, 16)
			putI64(l.data, metaAt+s+8, 99)
		}, "length 4 with null count 99"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []ipc.Option
			if c.lz4 {
				opts = append(opts, ipc.WithLZ4())
			}
			data := ipcBytes(t, dictTable, opts...)
			path := filepath.Join(t.TempDir(), "damaged.arrow")
			os.WriteFile(path, data, 0o644)
			if _, err := ReadIPC(path); err != nil { // the valid file reads
				t.Fatalf("valid file: %v", err)
			}
			c.damage(t, layoutOf(t, data))
			os.WriteFile(path, data, 0o644)
			_, err := ReadIPC(path)
			if err == nil || !errors.Is(err, errCorruptIPC) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a corrupt-file error naming %s and saying %q", err, path, c.want)
			}
			t.Log(err)
		})
	}
}

// Compressed files of every codec and the dictionary and nested types read back whole: the
// checks reject nothing arrow-go writes.
func TestIPCChecksAcceptValidFiles(t *testing.T) {
	for name, opts := range map[string][]ipc.Option{"plain": nil, "lz4": {ipc.WithLZ4()}, "zstd": {ipc.WithZstd()}} {
		for _, tb := range []*Table{allTypes(), allTypes().Slice(0, 0), MustTable(Dict("d", []string{"a", "b", "a"}))} {
			data := ipcBytes(t, tb, opts...)
			path := filepath.Join(t.TempDir(), "valid.arrow")
			os.WriteFile(path, data, 0o644)
			got, err := ReadIPC(path)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got.NumRows() != tb.NumRows() || got.String() != tb.String() {
				t.Fatalf("%s: read back\n%s\nwant\n%s", name, got, tb)
			}
		}
	}
}

// hugeDictionaryIPC returns an LZ4-compressed IPC file with a dictionary
// batch, and the same file with the dictionary's compressed buffers
// declaring 500 GB.
func hugeDictionaryIPC(t *testing.T) (valid, bomb []byte) {
	tb := MustTable(Dict("name", []string{"MPI_Send", "MPI_Recv", "MPI_Send", "compute"}))
	valid = ipcBytes(t, tb, ipc.WithLZ4())
	bomb = bytes.Clone(valid)
	l := layoutOf(t, bomb)
	meta, _, rb, body := l.batch(t, l.dicts[0], true)
	s, n := meta.vector(rb, 2, 16)
	for k := range n {
		if off, ln := meta.i64(s+16*k), meta.i64(s+16*k+8); ln >= 8 {
			putI64(bomb, int(body+off), 500<<30)
		}
	}
	return valid, bomb
}

// A 3 KB file whose dictionary batch declared a 500 GB buffer killed the kernel (arrow-go
// allocated it: a fatal out-of-memory error). Read in a child under a 1 GiB limit, it is an
// error naming the file and the buffer.
func TestIPCHugeDictionaryBufferUnderMemoryLimit(t *testing.T) {
	memlimit.Run(t, 1<<30, func(t *testing.T) {
		_, data := hugeDictionaryIPC(t)
		path := filepath.Join(t.TempDir(), "dict500g.arrow")
		os.WriteFile(path, data, 0o644)
		_, err := ReadIPC(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "dictionary batch 0") ||
			!strings.Contains(err.Error(), "declares 536870912000 bytes") {
			t.Fatalf("got %v, want an error naming %s, the dictionary batch and its 500 GB buffer", err, path)
		}
		t.Logf("%d bytes: %v", len(data), err)
	})
}

// The node and buffer walk follows arrow-go's for every type it writes, nested and
// dictionary-encoded ones included, compressed or not: arrow-go's own files pass the checks.
func TestIPCChecksWalkEveryType(t *testing.T) {
	dictStr := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	types := []struct {
		dt   arrow.DataType
		json string
	}{
		{arrow.Null, `[null, null, null]`},
		{arrow.FixedWidthTypes.Boolean, `[true, null, false]`},
		{arrow.PrimitiveTypes.Int8, `[1, null, 3]`},
		{arrow.PrimitiveTypes.Uint64, `[1, 2, 3]`},
		{arrow.FixedWidthTypes.Float16, `[1, null, 3]`},
		{arrow.PrimitiveTypes.Float64, `[1.5, null, 3]`},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, `["1.25", null, "3.00"]`},
		{&arrow.Decimal256Type{Precision: 40, Scale: 2}, `["1.25", null, "3.00"]`},
		{arrow.FixedWidthTypes.Date32, `[1, null, 3]`},
		{arrow.FixedWidthTypes.Date64, `[86400000, null, 0]`},
		{arrow.FixedWidthTypes.Time32s, `[1, null, 3]`},
		{arrow.FixedWidthTypes.Time64ns, `[1, null, 3]`},
		{arrow.FixedWidthTypes.Timestamp_us, `[1, null, 3]`},
		{arrow.FixedWidthTypes.Duration_ms, `[1, null, 3]`},
		{arrow.FixedWidthTypes.MonthInterval, `[{"months": 1}, null, {"months": 3}]`},
		{arrow.FixedWidthTypes.DayTimeInterval, `[{"days": 1, "milliseconds": 2}, null, {"days": 3, "milliseconds": 4}]`},
		{arrow.FixedWidthTypes.MonthDayNanoInterval, `[{"months": 1, "days": 1, "nanoseconds": 2}, null, {"months": 0, "days": 3, "nanoseconds": 4}]`},
		{arrow.BinaryTypes.String, `["a", null, "ccc"]`},
		{arrow.BinaryTypes.LargeString, `["a", null, "ccc"]`},
		{arrow.BinaryTypes.Binary, `["YQ==", null, "Y2Nj"]`},
		{arrow.BinaryTypes.StringView, `["a", null, "a string longer than twelve bytes"]`},
		{&arrow.FixedSizeBinaryType{ByteWidth: 3}, `["YWFh", null, "Y2Nj"]`},
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, 2], null, []]`},
		{arrow.LargeListOf(arrow.BinaryTypes.String), `[["a"], null, ["b", null]]`},
		{arrow.ListViewOf(arrow.PrimitiveTypes.Int32), `[[1, 2], null, []]`},
		{arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64), `[[1, 2], null, [3, null]]`},
		{arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), `[{"a": 1, "b": "x"}, null, {"a": null, "b": "z"}]`},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), `[[{"key": "a", "value": 1}], null, []]`},
		{arrow.SparseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, []arrow.UnionTypeCode{0, 1}), `[[0, 1], [1, "x"], [0, null]]`},
		{arrow.DenseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, []arrow.UnionTypeCode{0, 1}), `[[0, 1], [1, "x"], [0, null]]`},
		{arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String), `["a", "a", "b"]`},
		{dictStr, `["a", null, "a"]`},
		{arrow.ListOf(dictStr), `[["a", "b"], null, ["a"]]`},
	}
	for _, codec := range []struct {
		name string
		opts []ipc.Option
	}{{"plain", nil}, {"lz4", []ipc.Option{ipc.WithLZ4()}}, {"zstd", []ipc.Option{ipc.WithZstd()}}} {
		for _, tc := range types {
			arr, _, err := array.FromJSON(mem, tc.dt, strings.NewReader(tc.json))
			if err != nil {
				t.Fatalf("%s: %v", tc.dt, err)
			}
			sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: tc.dt, Nullable: true}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
			n, _, _ := array.FromJSON(mem, arrow.PrimitiveTypes.Int64, strings.NewReader(`[1, 2, 3]`))
			rec := array.NewRecordBatch(sc, []arrow.Array{arr, n}, 3)
			var buf bytes.Buffer
			w, err := ipc.NewFileWriter(&buf, append([]ipc.Option{ipc.WithSchema(sc), ipc.WithAllocator(mem)}, codec.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := w.Write(rec); err != nil {
					t.Fatalf("%s %s: %v", codec.name, tc.dt, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			if err := checkIPCFooter(bytes.NewReader(data), int64(len(data))); err != nil {
				t.Errorf("%s %s: %v", codec.name, tc.dt, err)
			}
			arr.Release()
			n.Release()
			rec.Release()
		}
	}
}
