package arrowio

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// allTypes has one column of every constructor, with nulls where the type allows them.
func allTypes() *Table {
	return MustTable(
		Int64("i64", []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}),
		Int32("i32", []int32{math.MinInt32, -1, 0, 1, math.MaxInt32}),
		Float64("f64", []float64{-1.5, 0, 1e-300, 3.25, 1e300}),
		String("s", []string{"a", "ü <b>", "", "x,y", "line\nbreak \"q\""}),
		Dict("d", []string{"Enter", "Leave", "Enter", "Instant", "Leave"}),
		Bool("b", []bool{true, false, true, true, false}),
		NullableInt64("ni64", []int64{1, 0, 3, 0, 5}, []bool{true, false, true, false, true}),
		NullableInt32("ni32", []int32{0, 2, 0, 4, 0}, []bool{false, true, false, true, false}),
		NullableFloat64("nf64", []float64{0.5, 0, 2.5, 0, 4.5}, []bool{true, false, true, false, true}),
		NullableString("ns", []string{"", "b", "", "d", "e"}, []bool{false, true, false, true, true}),
		NullableDict("nd", []string{"MPI_Send", "", "MPI_Recv", "MPI_Send", ""}, []bool{true, false, true, true, false}),
		NullableBool("nb", []bool{true, false, false, true, false}, []bool{true, true, false, true, false}),
	)
}

// colValues returns a column as []any with nil for null, widening to the CSV types when csv is
// set (int32 -> int64, dictionary -> string).
func colValues(t *testing.T, tb *Table, name string) []any {
	t.Helper()
	valid, err := tb.Valid(name)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tb.Array(name)
	out := make([]any, len(valid))
	var vals any
	switch a.DataType().ID() {
	case arrow.INT64:
		vals, err = tb.Int64s(name)
	case arrow.INT32:
		v, e := tb.Int32s(name)
		w := make([]int64, len(v))
		for i := range v {
			w[i] = int64(v[i])
		}
		vals, err = w, e
	case arrow.FLOAT64:
		vals, err = tb.Float64s(name)
	case arrow.BOOL:
		vals, err = tb.Bools(name)
	default:
		vals, err = tb.Strings(name)
	}
	if err != nil {
		t.Fatal(err)
	}
	rv := reflect.ValueOf(vals)
	for i := range out {
		if valid[i] {
			out[i] = rv.Index(i).Interface()
		}
	}
	return out
}

func sameTable(t *testing.T, got, want *Table, csv bool) {
	t.Helper()
	if !reflect.DeepEqual(got.ColumnNames(), want.ColumnNames()) {
		t.Fatalf("columns %q, want %q", got.ColumnNames(), want.ColumnNames())
	}
	if got.NumRows() != want.NumRows() {
		t.Fatalf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for i, f := range want.Schema().Fields() {
		gt := got.Schema().Field(i).Type
		if !csv && !arrow.TypeEqual(gt, f.Type) {
			t.Errorf("column %q: type %s, want %s", f.Name, gt, f.Type)
		}
		g, w := colValues(t, got, f.Name), colValues(t, want, f.Name)
		if csv { // an empty string is written as an empty cell, which reads back as null
			for j := range w {
				if w[j] == "" {
					w[j] = nil
				}
			}
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("column %q:\n got %#v\nwant %#v", f.Name, g, w)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := allTypes()
	for _, ext := range []string{".parquet", ".pq", ".arrow", ".feather", ".ipc", ".csv"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(dir, "t"+ext)
			if err := write(path, want); err != nil {
				t.Fatal(err)
			}
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			sameTable(t, got, want, ext == ".csv")
			if ext == ".csv" {
				wantTypes := []string{"int64", "int64", "float64", "utf8", "utf8", "bool", "int64", "int64", "float64", "utf8", "utf8", "bool"}
				for i, f := range got.Schema().Fields() {
					if f.Type.String() != wantTypes[i] {
						t.Errorf("CSV column %q inferred as %s, want %s", f.Name, f.Type, wantTypes[i])
					}
				}
			}
		})
	}
}

func TestRoundTripEmptyAndSliced(t *testing.T) {
	dir := t.TempDir()
	empty := MustTable(Int64("a", nil), Dict("b", nil), String("c", nil))
	sliced := allTypes().Slice(1, 4) // non-zero offset into the buffers
	for _, ext := range []string{".parquet", ".arrow"} {
		for name, tb := range map[string]*Table{"empty": empty, "sliced": sliced} {
			path := filepath.Join(dir, name+ext)
			if err := write(path, tb); err != nil {
				t.Fatalf("%s%s: %v", name, ext, err)
			}
			got, err := Read(path)
			if err != nil {
				t.Fatalf("%s%s: %v", name, ext, err)
			}
			sameTable(t, got, tb, false)
		}
	}
}

// TestParquetManyRowGroups crosses the row-group boundary, where dictionaries of different row
// groups must be unified on read.
func TestParquetManyRowGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("2M rows")
	}
	tb := eventsTable(rowGroupRows*2 + 17)
	path := filepath.Join(t.TempDir(), "big.parquet")
	if err := writeParquet(path, tb); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, got, tb, false)
}

func TestCSVInference(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.csv")
	os.WriteFile(path, []byte("i,f,b,s,empty,mixed\n1,1.5,true,x,,1\n,2,false,,,a\n-3,,,\"q,\"\"\",,2.5\n"), 0o644)
	tb, err := ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, f := range tb.Schema().Fields() {
		types = append(types, f.Type.String())
	}
	if want := []string{"int64", "float64", "bool", "utf8", "utf8", "utf8"}; !reflect.DeepEqual(types, want) {
		t.Errorf("types %q, want %q", types, want)
	}
	if got := colValues(t, tb, "i"); !reflect.DeepEqual(got, []any{int64(1), nil, int64(-3)}) {
		t.Errorf("i = %#v", got)
	}
	if got := colValues(t, tb, "f"); !reflect.DeepEqual(got, []any{1.5, 2.0, nil}) {
		t.Errorf("f = %#v", got)
	}
	if got := colValues(t, tb, "s"); !reflect.DeepEqual(got, []any{"x", nil, "q,\""}) {
		t.Errorf("s = %#v", got)
	}
	if got := colValues(t, tb, "empty"); !reflect.DeepEqual(got, []any{nil, nil, nil}) {
		t.Errorf("empty = %#v", got)
	}
}

func TestCSVFloatStaysFloat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.csv")
	want := MustTable(Float64("f", []float64{1, 2, -0, 1e21, math.Inf(1)}))
	if err := writeCSV(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, got, want, false)
}

func TestNewTableErrors(t *testing.T) {
	_, err := NewTable(Int64("a", []int64{1, 2}), String("b", []string{"x"}))
	if err == nil || !strings.Contains(err.Error(), `column "b" has 1 rows`) {
		t.Errorf("length mismatch: error %v", err)
	}
	_, err = NewTable(NullableInt64("a", []int64{1, 2}, []bool{true}))
	if err == nil || !strings.Contains(err.Error(), `column "a": 2 values but 1 validity flags`) {
		t.Errorf("validity mismatch: error %v", err)
	}
	_, err = NewTable(Column{})
	if err == nil {
		t.Error("zero Column: no error")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), `column "b"`) {
			t.Errorf("MustTable panic %v", r)
		}
	}()
	MustTable(Int64("a", []int64{1}), Int64("b", nil))
}

func TestAccessorErrors(t *testing.T) {
	tb := allTypes()
	if _, err := tb.Int64s("nope"); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("missing column: %v", err)
	}
	if _, err := tb.Int64s("s"); err == nil || !strings.Contains(err.Error(), `column "s" is utf8, not int64`) {
		t.Errorf("wrong type: %v", err)
	}
	if _, err := tb.Strings("i64"); err == nil {
		t.Error("Strings on int64: no error")
	}
	got, err := tb.Strings("d")
	if err != nil || !reflect.DeepEqual(got, []string{"Enter", "Leave", "Enter", "Instant", "Leave"}) {
		t.Errorf("Strings(dict) = %q, %v", got, err)
	}
}

func TestHeadTailSlice(t *testing.T) {
	tb := eventsTable(100)
	cases := []struct {
		got        *Table
		first, len int
	}{
		{tb.Head(10), 0, 10}, {tb.Tail(5), 95, 5}, {tb.Head(1000), 0, 100}, {tb.Tail(0), 100, 0},
		{tb.Head(-1), 0, 0}, {tb.Slice(40, 42), 40, 2},
	}
	want, _ := tb.Int64s("Timestamp (ns)")
	for i, c := range cases {
		got, _ := c.got.Int64s("Timestamp (ns)")
		if !reflect.DeepEqual(got, want[c.first:c.first+c.len]) {
			t.Errorf("case %d: %v", i, got)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Slice [5:200] out of range with 100 rows") {
			t.Errorf("Slice out of range: panic %v", r)
		}
	}()
	tb.Slice(5, 200)
}

func TestZeroTable(t *testing.T) {
	var tb Table
	if tb.NumRows() != 0 || tb.NumCols() != 0 || len(tb.ColumnNames()) != 0 {
		t.Error("zero table not empty")
	}
	if !strings.Contains(tb.String(), "0 rows x 0 columns") || !strings.Contains(tb.HTML(), "0 rows x 0 columns") {
		t.Errorf("zero table renders as %q", tb.String())
	}
}

func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	good := allTypes()
	for _, ext := range []string{".parquet", ".arrow", ".csv"} {
		path := filepath.Join(dir, "good"+ext)
		if err := write(path, good); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		bad := map[string][]byte{
			"empty":     nil,
			"truncated": b[:len(b)/2],
			"tail cut":  b[:len(b)-3],
			"garbage":   []byte("this is not a table file at all, just text\n\x00\x01"),
		}
		if ext != ".csv" { // flip bytes in the middle
			c := append([]byte(nil), b...)
			for i := len(c) / 3; i < len(c)/3+40 && i < len(c); i++ {
				c[i] ^= 0xff
			}
			bad["corrupt"] = c
		} else {
			bad["ragged"] = []byte("a,b\n1,2\n3\n")
			bad["bad quote"] = []byte("a,b\n\"1,2\n")
		}
		for name, data := range bad {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+ext)
			os.WriteFile(p, data, 0o644)
			tb, err := Read(p)
			if ext == ".csv" && name == "tail cut" {
				continue // a CSV cut at a row boundary is still a valid CSV
			}
			if err == nil {
				t.Errorf("%s%s: no error (table with %d rows)", name, ext, tb.NumRows())
				continue
			}
			if !strings.Contains(err.Error(), p) || !strings.HasPrefix(err.Error(), "arrowio: ") {
				t.Errorf("%s%s: error %q does not name the file", name, ext, err)
			}
		}
	}
	_, err := Read(filepath.Join(dir, "missing.parquet"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.parquet") {
		t.Errorf("missing file: %v", err)
	}
	for _, f := range []func(string) error{
		func(p string) error { _, err := Read(p); return err },
		func(p string) error { return write(p, good) },
	} {
		if err := f(filepath.Join(dir, "t.xlsx")); err == nil || !strings.Contains(err.Error(), "t.xlsx: unknown table format") {
			t.Errorf("unknown extension: %v", err)
		}
	}
	if err := write(filepath.Join(dir, "no", "such", "dir.parquet"), good); err == nil {
		t.Error("write into missing directory: no error")
	}
}

func TestFailedWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	// A dictionary with int32 values is legal Arrow but cannot be written as Parquet ... use
	// instead a directory in the way of the rename.
	os.Mkdir(path, 0o755)
	os.WriteFile(filepath.Join(path, "keep"), nil, 0o644)
	if err := writeParquet(path, allTypes()); err == nil {
		t.Fatal("writing over a non-empty directory: no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestDictCodes(t *testing.T) {
	vals := []string{"Enter", "Leave", "Instant"}
	codes := []int32{0, 1, 1, 2, 0, 7}
	valid := []bool{true, true, false, true, true, false}
	tb, err := NewTable(DictCodes("Event Type", codes, valid, vals))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tb.Strings("Event Type")
	gotValid, _ := tb.Valid("Event Type")
	want := []string{"Enter", "Leave", "", "Instant", "Enter", ""}
	if !slices.Equal(got, want) || !slices.Equal(gotValid, valid) {
		t.Fatalf("DictCodes: %q %v, want %q %v", got, gotValid, want, valid)
	}
	if !arrow.TypeEqual(tb.Schema().Field(0).Type, MustTable(Dict("x", []string{"a"})).Schema().Field(0).Type) {
		t.Fatalf("DictCodes type %s differs from Dict's", tb.Schema().Field(0).Type)
	}
	for _, bad := range [][]int32{{0, 3}, {-1, 0}} {
		if _, err := NewTable(DictCodes("Name", bad, nil, vals[:3])); err == nil || !strings.Contains(err.Error(), `"Name"`) {
			t.Errorf("codes %v: error %v, want one naming the column", bad, err)
		}
	}
}

// A failed write fails the cell (issue 32: it returned an error the kernel only printed, so a
// headless report finished without its export): every Write* panics with an error naming the
// file and the cause, and writes nothing; a successful one does not panic.
func TestFailedWritePanics(t *testing.T) {
	dir := t.TempDir()
	good := MustTable(Int64("a", []int64{1, 2}))
	panicOf := func(f func()) (p any) {
		defer func() { p = recover() }()
		f()
		return nil
	}
	writers := map[string]func(string, *Table){"Write": Write, "WriteParquet": WriteParquet, "WriteIPC": WriteIPC, "WriteCSV": WriteCSV}
	for name, w := range writers {
		missing := filepath.Join(dir, "no-such-dir", name+".parquet")
		p := panicOf(func() { w(missing, good) })
		err, ok := p.(error)
		if !ok || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
			t.Errorf("%s into a missing directory panicked with %v, want an error naming %s and the cause", name, p, missing)
		}
		ok2 := filepath.Join(dir, name+".csv")
		if name == "WriteParquet" || name == "WriteIPC" {
			ok2 = filepath.Join(dir, name+"."+map[string]string{"WriteParquet": "parquet", "WriteIPC": "arrow"}[name])
		}
		if p := panicOf(func() { w(ok2, good) }); p != nil {
			t.Errorf("%s(%s) panicked: %v", name, ok2, p)
		}
	}
	if p := panicOf(func() { Write(filepath.Join(dir, "t.xlsx"), good) }); p == nil || !strings.Contains(fmt.Sprint(p), "t.xlsx: unknown table format") {
		t.Errorf("Write of an unknown extension panicked with %v", p)
	}
	if _, err := os.Stat(filepath.Join(dir, "no-such-dir")); err == nil {
		t.Error("a failed write created its directory")
	}
}
