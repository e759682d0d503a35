package arrowio

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// The interop test has files written by arrowio read by independent implementations — DuckDB
// for Parquet, the apache-arrow JavaScript package for Arrow IPC — and a Parquet file written by
// DuckDB read by arrowio. It needs `npm ci --prefix test/interop`; without node_modules it is
// skipped, unless TRACEBOOK_REQUIRE_INTEROP=1 makes it fail.

type interopColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type interopRow struct {
	Index  int                `json:"index"`
	Values map[string]*string `json:"values"`
}

type interopFile struct {
	Path    string            `json:"path"`
	Format  string            `json:"format"`
	Rows    int               `json:"rows"`
	Columns []interopColumn   `json:"columns"`
	Sums    map[string]string `json:"sums"`
	Nulls   map[string]int    `json:"nulls"`
	RowsAt  []interopRow      `json:"rows_at"`
}

func interopDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "test", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	_, errMods := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	_, errArrow := os.Stat(filepath.Join(dir, "node_modules", "apache-arrow"))
	_, errNode := exec.LookPath("node")
	if errMods != nil || errArrow != nil || errNode != nil {
		msg := "interop readers not installed: run `npm ci --prefix test/interop` (needs node; where the npm " +
			"registry lacks DuckDB's binaries for other platforms, npm ci rejects the lock file: use `npm install --prefix test/interop`)"
		if os.Getenv("TRACEBOOK_REQUIRE_INTEROP") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// interopTable is an events table (DESIGN §3) with nulls in an int64, a float64, a dictionary
// and a string column.
func interopTable(n int) *Table {
	ev := eventsTable(n)
	metric := make([]float64, n)
	hasMetric := make([]bool, n)
	comm := make([]string, n)
	hasComm := make([]bool, n)
	note := make([]string, n)
	hasNote := make([]bool, n)
	flag := make([]bool, n)
	for i := range n {
		metric[i], hasMetric[i] = float64(i)*0.25, i%3 != 0
		comm[i], hasComm[i] = []string{"MPI_COMM_WORLD", "row <0>", "col \"1\""}[i%3], i%4 != 0
		note[i], hasNote[i] = "ü-"+strconv.Itoa(i), i%5 != 0
		flag[i] = i%2 == 0
	}
	cols := []Column{}
	for _, name := range ev.ColumnNames() {
		a, _ := ev.Array(name)
		cols = append(cols, FromArray(name, a))
	}
	cols = append(cols,
		NullableFloat64("Metric", metric, hasMetric),
		NullableDict("Communicator", comm, hasComm),
		NullableString("Note", note, hasNote),
		Bool("Flag", flag),
	)
	return MustTable(cols...)
}

var duckTypes = map[arrow.Type]string{arrow.INT64: "BIGINT", arrow.INT32: "INTEGER", arrow.FLOAT64: "DOUBLE",
	arrow.STRING: "VARCHAR", arrow.DICTIONARY: "VARCHAR", arrow.BOOL: "BOOLEAN"}
var jsTypes = map[arrow.Type]string{arrow.INT64: "Int64", arrow.INT32: "Int32", arrow.FLOAT64: "Float64",
	arrow.STRING: "Utf8", arrow.DICTIONARY: "Dictionary<Int32, Utf8>", arrow.BOOL: "Bool"}

// expect describes tb as the manifest entry for one file.
func expect(t *testing.T, tb *Table, path, format string, types map[arrow.Type]string) interopFile {
	f := interopFile{Path: path, Format: format, Rows: tb.NumRows(), Sums: map[string]string{}, Nulls: map[string]int{}}
	for _, fd := range tb.Schema().Fields() {
		f.Columns = append(f.Columns, interopColumn{Name: fd.Name, Type: types[fd.Type.ID()]})
		a, _ := tb.Array(fd.Name)
		f.Nulls[fd.Name] = a.NullN()
		vals := colValues(t, tb, fd.Name)
		switch fd.Type.ID() {
		case arrow.INT64, arrow.INT32:
			var s int64
			for _, v := range vals {
				if v != nil {
					s += v.(int64)
				}
			}
			f.Sums[fd.Name] = strconv.FormatInt(s, 10)
		case arrow.FLOAT64:
			var s float64
			for _, v := range vals {
				if v != nil {
					s += v.(float64)
				}
			}
			f.Sums[fd.Name] = strconv.FormatFloat(s, 'g', -1, 64)
		}
	}
	for _, i := range []int{0, 1, 3, 49, tb.NumRows() - 1} {
		r := interopRow{Index: i, Values: map[string]*string{}}
		for _, fd := range tb.Schema().Fields() {
			v := colValues(t, tb, fd.Name)[i]
			if v == nil {
				r.Values[fd.Name] = nil
				continue
			}
			var s string
			switch v := v.(type) {
			case float64:
				s = strconv.FormatFloat(v, 'g', -1, 64)
			case int64:
				s = strconv.FormatInt(v, 10)
			case bool:
				s = strconv.FormatBool(v)
			case string:
				s = v
			}
			r.Values[fd.Name] = &s
		}
		f.RowsAt = append(f.RowsAt, r)
	}
	return f
}

func TestInterop(t *testing.T) {
	dir := interopDir(t)
	tmp := t.TempDir()
	tb := interopTable(5000)
	pq := filepath.Join(tmp, "events.parquet")
	ipcPath := filepath.Join(tmp, "events.arrow")
	if err := writeParquet(pq, tb); err != nil {
		t.Fatal(err)
	}
	if err := writeIPC(ipcPath, tb); err != nil {
		t.Fatal(err)
	}
	fromDuck := filepath.Join(tmp, "from_duckdb.parquet")
	manifest := map[string]any{
		"files": []interopFile{
			expect(t, tb, pq, "parquet", duckTypes),
			expect(t, tb, ipcPath, "arrow", jsTypes),
		},
		"duckdb_write": fromDuck,
	}
	mpath := filepath.Join(tmp, "manifest.json")
	b, _ := json.MarshalIndent(manifest, "", " ")
	os.WriteFile(mpath, b, 0o644)

	cmd := exec.Command("node", filepath.Join(dir, "check.mjs"), mpath)
	cmd.Dir = dir
	out, err := cmd.Output()
	var res struct {
		Errors   []string          `json:"errors"`
		Observed []json.RawMessage `json:"observed"`
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("check.mjs: %v / %v\nstdout: %s\nstderr: %s", err, jerr, out, stderr)
	}
	for _, e := range res.Errors {
		t.Error(e)
	}
	if err != nil && len(res.Errors) == 0 {
		t.Errorf("check.mjs failed without reporting errors: %v", err)
	}
	if len(res.Observed) != 2 {
		t.Errorf("check.mjs observed %d files, want 2", len(res.Observed))
	}

	// The other direction: a Parquet file written by DuckDB, read by arrowio.
	got, err := ReadParquet(fromDuck)
	if err != nil {
		t.Fatal(err)
	}
	if got.NumRows() != 1000 {
		t.Fatalf("DuckDB file: %d rows, want 1000", got.NumRows())
	}
	wantTypes := map[string]arrow.Type{"Timestamp (ns)": arrow.INT64, "Process": arrow.INT32, "Event Type": arrow.STRING,
		"Metric": arrow.FLOAT64, "Name": arrow.STRING, "Flag": arrow.BOOL}
	for _, fd := range got.Schema().Fields() {
		if fd.Type.ID() != wantTypes[fd.Name] {
			t.Errorf("DuckDB file: column %q is %s", fd.Name, fd.Type)
		}
	}
	if len(got.ColumnNames()) != len(wantTypes) {
		t.Errorf("DuckDB file: columns %q", got.ColumnNames())
	}
	must := func(err error) {
		if err != nil {
			t.Fatalf("DuckDB file: %v", err)
		}
	}
	ts, err := got.Int64s("Timestamp (ns)")
	must(err)
	proc, err := got.Int32s("Process")
	must(err)
	ty, err := got.Strings("Event Type")
	must(err)
	metric, err := got.Float64s("Metric")
	must(err)
	mValid, err := got.Valid("Metric")
	must(err)
	name, err := got.Strings("Name")
	must(err)
	nValid, err := got.Valid("Name")
	must(err)
	flag, err := got.Bools("Flag")
	must(err)
	for i := range 1000 {
		wantName := "f" + strconv.Itoa(i%5)
		if ts[i] != int64(i) || proc[i] != int32(i%16) || ty[i] != []string{"Enter", "Leave"}[i%2] ||
			mValid[i] != (i%3 != 0) || (mValid[i] && metric[i] != float64(i)*0.5) ||
			nValid[i] != (i%7 != 0) || (nValid[i] && name[i] != wantName) || flag[i] != (i%4 == 0) {
			t.Fatalf("DuckDB file row %d: %d %d %q %v/%g %v/%q %v", i, ts[i], proc[i], ty[i], mValid[i], metric[i], nValid[i], name[i], flag[i])
		}
	}
}
