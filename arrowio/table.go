package arrowio

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mem is the allocator for every array the package builds or reads.
var mem = memory.DefaultAllocator

// Column is a named column waiting to become part of a [Table]. Make one with [Int64],
// [Float64], [String], [Dict], ... or [FromArray]; the values are copied into Arrow memory by
// [NewTable], so the caller's slices may be reused afterwards.
type Column struct {
	name  string
	n     int
	err   error
	typ   arrow.DataType
	unit  string
	build func(memory.Allocator) arrow.Array
}

// UnitKey is the Arrow field metadata key under which a column's unit is kept (see
// [Column.WithUnit]). Parquet and Arrow IPC files keep it.
const UnitKey = "tracebook.unit"

// WithUnit returns c with its unit recorded in the field metadata under [UnitKey]. The data
// keep their type. The renderer shows the unit in the column header and shows "ns" columns as
// durations ("1.234 ms", "56.70 µs"); mark durations this way, not time points, which are
// shown exactly.
func (c Column) WithUnit(unit string) Column {
	c.unit = unit
	return c
}

// Name returns the column name.
func (c Column) Name() string { return c.name }

// Len returns the number of values in the column.
func (c Column) Len() int { return c.n }

// Type returns the Arrow type the column will have.
func (c Column) Type() arrow.DataType { return c.typ }

// validity checks the validity mask of a nullable column; valid == nil means all valid.
func validity(name string, n int, valid []bool) error {
	if valid != nil && len(valid) != n {
		return fmt.Errorf("arrowio: column %q: %d values but %d validity flags", name, n, len(valid))
	}
	return nil
}

type appender[T any] interface {
	array.Builder
	AppendValues([]T, []bool)
}

func column[T any, B appender[T]](name string, typ arrow.DataType, v []T, valid []bool, newB func(memory.Allocator) B) Column {
	return Column{name: name, n: len(v), typ: typ, err: validity(name, len(v), valid),
		build: func(m memory.Allocator) arrow.Array {
			b := newB(m)
			defer b.Release()
			b.Reserve(len(v))
			b.AppendValues(v, valid)
			return b.NewArray()
		}}
}

// Int64 is a non-null int64 column.
func Int64(name string, v []int64) Column { return NullableInt64(name, v, nil) }

// Int32 is a non-null int32 column.
func Int32(name string, v []int32) Column { return NullableInt32(name, v, nil) }

// Float64 is a non-null float64 column.
func Float64(name string, v []float64) Column { return NullableFloat64(name, v, nil) }

// String is a plain (not dictionary-encoded) utf8 string column.
func String(name string, v []string) Column { return NullableString(name, v, nil) }

// Bool is a non-null boolean column.
func Bool(name string, v []bool) Column { return NullableBool(name, v, nil) }

// NullableInt64 is an int64 column where valid[i] == false marks row i null; a nil valid means
// no nulls.
func NullableInt64(name string, v []int64, valid []bool) Column {
	return column(name, arrow.PrimitiveTypes.Int64, v, valid, array.NewInt64Builder)
}

// NullableInt32 is an int32 column with a validity mask (see [NullableInt64]).
func NullableInt32(name string, v []int32, valid []bool) Column {
	return column(name, arrow.PrimitiveTypes.Int32, v, valid, array.NewInt32Builder)
}

// NullableFloat64 is a float64 column with a validity mask (see [NullableInt64]).
func NullableFloat64(name string, v []float64, valid []bool) Column {
	return column(name, arrow.PrimitiveTypes.Float64, v, valid, array.NewFloat64Builder)
}

// NullableString is a utf8 string column with a validity mask (see [NullableInt64]).
func NullableString(name string, v []string, valid []bool) Column {
	return column(name, arrow.BinaryTypes.String, v, valid, array.NewStringBuilder)
}

// NullableBool is a boolean column with a validity mask (see [NullableInt64]).
func NullableBool(name string, v []bool, valid []bool) Column {
	return column(name, arrow.FixedWidthTypes.Boolean, v, valid, array.NewBooleanBuilder)
}

// dictType is the type of [Dict] columns: int32 indices into a utf8 dictionary.
var dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// Dict is a dictionary-encoded string column (int32 indices into the distinct values, in order
// of first appearance), the encoding of the events table's "Event Type" and "Name".
func Dict(name string, v []string) Column { return NullableDict(name, v, nil) }

// NullableDict is a dictionary-encoded string column with a validity mask (see [NullableInt64]).
func NullableDict(name string, v []string, valid []bool) Column {
	return Column{name: name, n: len(v), typ: dictType, err: validity(name, len(v), valid),
		build: func(m memory.Allocator) arrow.Array {
			idx := make([]int32, len(v))
			seen := make(map[string]int32)
			var dict []string
			for i, s := range v {
				if valid != nil && !valid[i] {
					continue
				}
				k, ok := seen[s]
				if !ok {
					k = int32(len(dict))
					seen[s] = k
					dict = append(dict, s)
				}
				idx[i] = k
			}
			return dictArray(m, idx, valid, dict)
		}}
}

// dictArray builds a [Dict] column's array from indices into dict (valid as in NullableInt64).
func dictArray(m memory.Allocator, idx []int32, valid []bool, dict []string) arrow.Array {
	ib := array.NewInt32Builder(m)
	defer ib.Release()
	ib.AppendValues(idx, valid)
	indices := ib.NewArray()
	defer indices.Release()
	sb := array.NewStringBuilder(m)
	defer sb.Release()
	sb.AppendValues(dict, nil)
	values := sb.NewArray()
	defer values.Release()
	return array.NewDictionaryArray(dictType, indices, values)
}

// DictCodes is a dictionary-encoded string column given as codes: row i holds values[codes[i]]
// (valid as in [NullableInt64]), for callers that already number their strings, such as the
// trace's region and event-type names. NewTable reports a code outside values.
func DictCodes(name string, codes []int32, valid []bool, values []string) Column {
	err := validity(name, len(codes), valid)
	for i, c := range codes {
		if err == nil && (valid == nil || valid[i]) && (c < 0 || int(c) >= len(values)) {
			err = fmt.Errorf("arrowio: column %q: row %d has code %d, but there are %d values", name, i, c, len(values))
		}
	}
	return Column{name: name, n: len(codes), typ: dictType, err: err,
		build: func(m memory.Allocator) arrow.Array { return dictArray(m, codes, valid, values) }}
}

// FromArray wraps an existing Arrow array as a column; the table retains it.
func FromArray(name string, a arrow.Array) Column {
	return Column{name: name, n: a.Len(), typ: a.DataType(),
		build: func(memory.Allocator) arrow.Array { a.Retain(); return a }}
}

// Table is an immutable Arrow table: one schema and one record batch holding all rows. The zero
// value is an empty table with no columns. Tables are safe for concurrent reads.
type Table struct {
	rec   arrow.RecordBatch
	shown int // display row limit (Show); 0: DefaultShownRows
}

// NewTable builds a table from columns of equal length. It reports the first column whose
// length differs from the first column's, or whose validity mask has the wrong length.
func NewTable(cols ...Column) (*Table, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		if c.err != nil {
			return nil, c.err
		}
		if c.build == nil {
			return nil, fmt.Errorf("arrowio: column %d: zero Column (use Int64, String, ...)", i)
		}
		if c.n != cols[0].n {
			return nil, fmt.Errorf("arrowio: column %q has %d rows, column %q has %d", c.name, c.n, cols[0].name, cols[0].n)
		}
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
		if c.unit != "" {
			fields[i].Metadata = arrow.NewMetadata([]string{UnitKey}, []string{c.unit})
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = c.build(mem)
		defer arrs[i].Release()
	}
	n := 0
	if len(cols) > 0 {
		n = cols[0].n
	}
	return &Table{rec: array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))}, nil
}

// MustTable is [NewTable] for notebooks and literals: it panics with NewTable's error.
func MustTable(cols ...Column) *Table {
	t, err := NewTable(cols...)
	if err != nil {
		panic(err)
	}
	return t
}

// FromRecord wraps a record batch; the table retains it, so the caller may release its own
// reference.
func FromRecord(r arrow.RecordBatch) *Table {
	r.Retain()
	return &Table{rec: r}
}

// record returns the table's record, materialising an empty one for the zero Table.
func (t *Table) record() arrow.RecordBatch {
	if t == nil || t.rec == nil {
		return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 0)
	}
	return t.rec
}

// Record returns the table's record batch. It stays owned by the table: call Retain to keep it
// beyond the table's lifetime.
func (t *Table) Record() arrow.RecordBatch { return t.record() }

// Schema returns the table's Arrow schema.
func (t *Table) Schema() *arrow.Schema { return t.record().Schema() }

// NumRows returns the number of rows.
func (t *Table) NumRows() int { return int(t.record().NumRows()) }

// NumCols returns the number of columns.
func (t *Table) NumCols() int { return int(t.record().NumCols()) }

// ColumnNames returns the column names in schema order.
func (t *Table) ColumnNames() []string {
	fs := t.Schema().Fields()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return names
}

// Release drops the table's reference to its record. It is optional (memory.DefaultAllocator
// memory is garbage collected) and the table must not be used afterwards.
func (t *Table) Release() {
	if t != nil && t.rec != nil {
		t.rec.Release()
		t.rec = nil
	}
}

// Slice returns rows [i, j) as a new table sharing this table's buffers. It panics if the range
// is invalid, like slicing a Go slice.
func (t *Table) Slice(i, j int) *Table {
	n := t.NumRows()
	if i < 0 || j < i || j > n {
		panic(fmt.Sprintf("arrowio: Table.Slice [%d:%d] out of range with %d rows", i, j, n))
	}
	return &Table{rec: t.record().NewSlice(int64(i), int64(j))}
}

// Head returns the first n rows (all rows if there are fewer; none if n <= 0). Its display
// shows all of them, up to [MaxShownRows] (see [Table.Show]).
func (t *Table) Head(n int) *Table {
	h := t.Slice(0, max(0, min(n, t.NumRows())))
	h.shown = min(max(n, DefaultShownRows), MaxShownRows)
	return h
}

// Tail returns the last n rows (all rows if there are fewer; none if n <= 0). Its display
// shows all of them, up to [MaxShownRows] (see [Table.Show]).
func (t *Table) Tail(n int) *Table {
	rows := t.NumRows()
	tl := t.Slice(rows-max(0, min(n, rows)), rows)
	tl.shown = min(max(n, DefaultShownRows), MaxShownRows)
	return tl
}

// Array returns the named column's Arrow array (owned by the table).
func (t *Table) Array(name string) (arrow.Array, error) {
	idx := t.Schema().FieldIndices(name)
	if len(idx) == 0 {
		return nil, fmt.Errorf("arrowio: no column %q (have %q)", name, t.ColumnNames())
	}
	return t.record().Column(idx[0]), nil
}

func typed[A arrow.Array](t *Table, name, want string) (A, error) {
	var zero A
	col, err := t.Array(name)
	if err != nil {
		return zero, err
	}
	a, ok := col.(A)
	if !ok {
		return zero, fmt.Errorf("arrowio: column %q is %s, not %s", name, col.DataType(), want)
	}
	return a, nil
}

// Int64s returns a copy of an int64 column; null rows are 0.
func (t *Table) Int64s(name string) ([]int64, error) {
	a, err := typed[*array.Int64](t, name, "int64")
	if err != nil {
		return nil, err
	}
	return copyValues(a, a.Int64Values()), nil
}

// Int32s returns a copy of an int32 column; null rows are 0.
func (t *Table) Int32s(name string) ([]int32, error) {
	a, err := typed[*array.Int32](t, name, "int32")
	if err != nil {
		return nil, err
	}
	return copyValues(a, a.Int32Values()), nil
}

// Float64s returns a copy of a float64 column; null rows are 0.
func (t *Table) Float64s(name string) ([]float64, error) {
	a, err := typed[*array.Float64](t, name, "float64")
	if err != nil {
		return nil, err
	}
	return copyValues(a, a.Float64Values()), nil
}

// Bools returns a copy of a boolean column; null rows are false.
func (t *Table) Bools(name string) ([]bool, error) {
	a, err := typed[*array.Boolean](t, name, "bool")
	if err != nil {
		return nil, err
	}
	out := make([]bool, a.Len())
	for i := range out {
		out[i] = a.IsValid(i) && a.Value(i)
	}
	return out, nil
}

// Strings returns a copy of a string column, plain (utf8, large_utf8) or dictionary-encoded;
// null rows are "".
func (t *Table) Strings(name string) ([]string, error) {
	col, err := t.Array(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, col.Len())
	switch a := col.(type) {
	case *array.String:
		for i := range out {
			if a.IsValid(i) {
				out[i] = a.Value(i)
			}
		}
	case *array.LargeString:
		for i := range out {
			if a.IsValid(i) {
				out[i] = a.Value(i)
			}
		}
	case *array.Dictionary:
		var value func(int) string
		switch d := a.Dictionary().(type) {
		case *array.String:
			value = d.Value
		case *array.LargeString:
			value = d.Value
		default:
			return nil, fmt.Errorf("arrowio: column %q is %s, not a string dictionary", name, col.DataType())
		}
		for i := range out {
			if a.IsValid(i) {
				out[i] = value(a.GetValueIndex(i))
			}
		}
	default:
		return nil, fmt.Errorf("arrowio: column %q is %s, not string", name, col.DataType())
	}
	return out, nil
}

// Valid returns the validity of a column: valid[i] is false where row i is null.
func (t *Table) Valid(name string) ([]bool, error) {
	col, err := t.Array(name)
	if err != nil {
		return nil, err
	}
	out := make([]bool, col.Len())
	for i := range out {
		out[i] = col.IsValid(i)
	}
	return out, nil
}

func copyValues[T any](a arrow.Array, v []T) []T {
	out := make([]T, len(v))
	copy(out, v)
	var zero T
	if a.NullN() > 0 {
		for i := range out {
			if a.IsNull(i) {
				out[i] = zero
			}
		}
	}
	return out
}

// WithMetadata returns a table with the same columns and kv added to its schema's key-value
// metadata. Parquet (in the stored Arrow schema) and Arrow IPC files keep it; CSV does not.
func (t *Table) WithMetadata(kv map[string]string) *Table {
	rec := t.record()
	old := rec.Schema().Metadata()
	keys, vals := append([]string(nil), old.Keys()...), append([]string(nil), old.Values()...)
	for k, v := range kv {
		if i := old.FindKey(k); i >= 0 {
			vals[i] = v
			continue
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	md := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema(rec.Schema().Fields(), &md)
	return &Table{rec: array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())}
}

// Metadata returns the value of key in the schema's key-value metadata.
func (t *Table) Metadata(key string) (string, bool) {
	md := t.record().Schema().Metadata()
	if i := md.FindKey(key); i >= 0 {
		return md.Values()[i], true
	}
	return "", false
}
