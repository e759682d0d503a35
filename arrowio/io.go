package arrowio

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/tracebook/tracebook/internal/atomicfile"
	"github.com/tracebook/tracebook/internal/regular"
)

// rowGroupRows is the Parquet row-group length: large enough for good compression and few
// dictionary pages, small enough that readers can work on row groups in parallel.
const rowGroupRows = 1 << 20

// fileErr wraps err with the package prefix and the file name, the form of every I/O error.
func fileErr(path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("arrowio: %s: %w", path, err)
}

// guard converts a panic inside an Arrow or Parquet reader (seen on corrupt input) into an
// error, so a bad file never crashes the notebook kernel.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("corrupt or unsupported file (reader panicked: %v)", r)
	}
}

// writeAtomic is atomicfile.Write with the package's error form.
func writeAtomic(path string, write func(w io.Writer) error) error {
	return fileErr(path, pathless(atomicfile.Write(path, write)))
}

// WriteParquet writes t to path as Parquet (Snappy compression, row groups of 1M rows, Arrow
// schema stored in the metadata so that dictionary columns read back as dictionaries). Any
// Parquet reader (DuckDB, pyarrow, pandas, R arrow) can read the file. A write that fails
// panics (see [Write]).
func WriteParquet(path string, t *Table) { failWrite(writeParquet(path, t)) }

// failWrite panics with err, if any: the writes fail the cell that asked for them.
func failWrite(err error) {
	if err != nil {
		panic(err)
	}
}

func writeParquet(path string, t *Table) error {
	return writeAtomic(path, func(w io.Writer) error {
		props := parquet.NewWriterProperties(
			parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithMaxRowGroupLength(rowGroupRows),
			parquet.WithDictionaryDefault(true),
		)
		fw, err := pqarrow.NewFileWriter(t.Schema(), w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		// Buffered writes fill row groups of rowGroupRows.
		return writeBatches(path, t, fw.WriteBuffered, fw.Close)
	})
}

// writeBatches writes t to a file writer in slices of batchRows rows as
// one job of long work, so that an interrupt stops the write between two
// slices, and then closes the writer.
func writeBatches(path string, t *Table, write func(arrow.RecordBatch) error, close func() error) error {
	job := startJob("writing "+filepath.Base(path), int64(t.NumRows()), "rows")
	defer job.Done()
	err := eachBatch(t.record(), job, write)
	if cerr := close(); err == nil {
		err = cerr
	}
	return err
}

// eachBatch calls write with slices of batchRows rows of rec, counting
// them in job; it stops with the job's error (an interrupt).
func eachBatch(rec arrow.RecordBatch, job Job, write func(arrow.RecordBatch) error) error {
	n := rec.NumRows()
	if n == 0 {
		return write(rec)
	}
	for i := int64(0); i < n; i += batchRows {
		j := min(n, i+batchRows)
		s := rec.NewSlice(i, j)
		err := write(s)
		s.Release()
		if err != nil {
			return err
		}
		if err := job.Add(j - i); err != nil {
			return err
		}
	}
	return nil
}

// ReadParquet reads a Parquet file into one table (row groups concatenated).
func ReadParquet(path string) (t *Table, err error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	defer f.Close()
	t, err = readParquet(f, filepath.Base(path))
	return t, fileErr(path, err)
}

// concatTables joins tables of one schema as the chunks of one table.
func concatTables(sc *arrow.Schema, parts []arrow.Table) arrow.Table {
	cols := make([]arrow.Column, sc.NumFields())
	for i := range cols {
		var chunks []arrow.Array
		for _, p := range parts {
			chunks = append(chunks, p.Column(i).Data().Chunks()...)
		}
		ch := arrow.NewChunked(sc.Field(i).Type, chunks)
		cols[i] = *arrow.NewColumn(sc.Field(i), ch)
		ch.Release()
	}
	var rows int64
	for _, p := range parts {
		rows += p.NumRows()
	}
	t := array.NewTable(sc, cols, rows)
	for i := range cols {
		cols[i].Release()
	}
	return t
}

func readParquet(r parquet.ReaderAtSeeker, name string) (t *Table, err error) {
	defer guard(&err)
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	if v := pf.MetaData().KeyValueMetadata().FindValue("ARROW:schema"); v != nil {
		if err := checkParquetArrowSchema(*v); err != nil {
			return nil, err
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, mem)
	if err != nil {
		return nil, err
	}
	// Row group by row group, so that an interrupt stops the read and the
	// progress bar moves.
	job := startJob("reading "+name, pf.NumRows(), "rows")
	defer job.Done()
	var parts []arrow.Table
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	leaves := make([]int, pf.MetaData().Schema.NumColumns())
	for i := range leaves {
		leaves[i] = i
	}
	for g := 0; g < pf.NumRowGroups(); g++ {
		part, err := fr.ReadRowGroups(job.Context(), leaves, []int{g})
		if err != nil {
			if jerr := job.Add(0); jerr != nil {
				return nil, jerr
			}
			return nil, fmt.Errorf("row group %d: %w", g, err)
		}
		parts = append(parts, part)
		if err := job.Add(part.NumRows()); err != nil {
			return nil, err
		}
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	tbl := concatTables(sc, parts)
	defer tbl.Release()
	t, err = fromArrowTable(tbl)
	if err != nil {
		return nil, err
	}
	// the schema's own key-value metadata is kept as the file's
	kv := map[string]string{}
	if md := pf.MetaData().KeyValueMetadata(); md != nil {
		for i, k := range md.Keys() {
			if k != "ARROW:schema" {
				kv[k] = md.Values()[i]
			}
		}
	}
	if len(kv) > 0 {
		withMD := t.WithMetadata(kv)
		t.Release()
		t = withMD
	}
	return t, nil
}

// fromArrowTable concatenates the chunks of each column into one array and validates the
// result (see validate): every file reader ends here.
func fromArrowTable(tbl arrow.Table) (*Table, error) {
	n := int(tbl.NumCols())
	arrs := make([]arrow.Array, 0, n)
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	for i := 0; i < n; i++ {
		a, err := concat(tbl.Column(i).Data().Chunks(), tbl.Column(i).DataType())
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", tbl.Column(i).Name(), err)
		}
		arrs = append(arrs, a)
	}
	t := &Table{rec: array.NewRecordBatch(tbl.Schema(), arrs, tbl.NumRows())}
	if err := validate(t); err != nil {
		t.Release()
		return nil, err
	}
	return t, nil
}

func concat(chunks []arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	switch len(chunks) {
	case 0:
		return array.MakeArrayOfNull(mem, dt, 0), nil
	case 1:
		chunks[0].Retain()
		return chunks[0], nil
	}
	return array.Concatenate(chunks, mem)
}

// WriteIPC writes t to path in the Arrow IPC file format (Feather v2), uncompressed so that
// every Arrow implementation, including apache-arrow for JavaScript, can read it. A write that
// fails panics (see [Write]).
func WriteIPC(path string, t *Table) { failWrite(writeIPC(path, t)) }

func writeIPC(path string, t *Table) error {
	return writeAtomic(path, func(w io.Writer) error {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(t.Schema()), ipc.WithAllocator(mem))
		if err != nil {
			return err
		}
		return writeBatches(path, t, fw.Write, fw.Close)
	})
}

// ReadIPC reads an Arrow IPC file (Feather v2) into one table (record batches concatenated).
func ReadIPC(path string) (*Table, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fileErr(path, err)
	}
	if err := checkIPCFooter(f, st.Size()); err != nil {
		return nil, fileErr(path, err)
	}
	t, err := readIPC(f, filepath.Base(path))
	return t, fileErr(path, err)
}

func readIPC(r ipc.ReadAtSeeker, name string) (t *Table, err error) {
	defer guard(&err)
	fr, err := ipc.NewFileReader(r, ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	job := startJob("reading "+name, int64(fr.NumRecords()), "batches")
	defer job.Done()
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatchAt(i)
		if err != nil {
			return nil, fmt.Errorf("record batch %d: %w", i, err)
		}
		recs = append(recs, rec)
		if err := job.Add(1); err != nil {
			return nil, err
		}
	}
	tbl := array.NewTableFromRecords(fr.Schema(), recs)
	defer tbl.Release()
	return fromArrowTable(tbl)
}

// Write writes t in the format named by path's extension: .parquet/.pq, .arrow/.feather/.ipc
// or .csv.
//
// The writes are the end of a notebook's work (an export for pandas or DuckDB), so a write
// that fails panics, like [Table.Filter] and trace.Open, with an error naming the file and the
// cause ("arrowio: /out/x.parquet: open: permission denied"): the cell fails, and a notebook
// run headless stops there instead of finishing without its export. The file is then left as
// it was (writes are atomic). A Go program recovers the error, an error value, if it wants to.
func Write(path string, t *Table) { failWrite(write(path, t)) }

func write(path string, t *Table) error {
	switch format(path) {
	case "parquet":
		return writeParquet(path, t)
	case "ipc":
		return writeIPC(path, t)
	case "csv":
		return writeCSV(path, t)
	}
	return fileErr(path, errUnknownExt)
}

// Read reads a table in the format named by path's extension (see [Write]).
func Read(path string) (*Table, error) {
	switch format(path) {
	case "parquet":
		return ReadParquet(path)
	case "ipc":
		return ReadIPC(path)
	case "csv":
		return ReadCSV(path)
	}
	return nil, fileErr(path, errUnknownExt)
}

var errUnknownExt = errors.New("unknown table format: want extension .parquet, .pq, .arrow, .feather, .ipc or .csv")

func format(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return "parquet"
	case ".arrow", ".feather", ".ipc":
		return "ipc"
	case ".csv":
		return "csv"
	}
	return ""
}
