package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/internal/mpi/launch"
)

// workerEnv names the tracebook-mpi binary the tests run (make test-go
// sets it to build/tracebook-mpi); without it the test builds one.
const workerEnv = "TRACEBOOK_MPI_WORKER"

// workerBinary returns the tracebook-mpi to run under mpirun.
func workerBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(workerEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", workerEnv, p, err)
		}
		return p
	}
	bin := filepath.Join(t.TempDir(), "tracebook-mpi")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mpirun runs `mpirun -np np bin args...` on loopback and returns its
// outputs and error.
func mpirun(t *testing.T, np int, bin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	path, lookErr := exec.LookPath("mpirun")
	if lookErr != nil {
		t.Skip("mpirun is not on PATH (Debian: apt-get install openmpi-bin libopenmpi-dev)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(append(launch.MpirunArgs(np), bin), args...)...)
	cmd.Env = append(os.Environ(), launch.MpirunEnv()...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// generate writes an OTF2 trace with otf2gen.py (python3-otf2) and returns
// its anchor; it skips when the generator cannot run.
func generate(t *testing.T, args ...string) string {
	t.Helper()
	const python = "/usr/bin/python3"
	gen := "../../test/tools/otf2gen.py"
	if err := exec.Command(python, "-I", "-c", "import otf2").Run(); err != nil {
		if os.Getenv("TRACEBOOK_REQUIRE_TOOLS") == "1" {
			t.Fatal("python3-otf2 is missing (apt-get install python3-otf2)")
		}
		t.Skip("python3-otf2 is missing (apt-get install python3-otf2)")
	}
	out := filepath.Join(t.TempDir(), "trace")
	if b, err := exec.Command(python, append([]string{gen}, append(args, "--out", out)...)...).CombinedOutput(); err != nil {
		t.Fatalf("otf2gen %v: %v\n%s", args, err, b)
	}
	return filepath.Join(out, "traces.otf2")
}

// cells renders every cell of t as text (null as "<null>"), row by row.
func cells(t *testing.T, tab *arrowio.Table) [][]string {
	t.Helper()
	rows := make([][]string, tab.NumRows())
	for _, name := range tab.ColumnNames() {
		a, err := tab.Array(name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			v := "<null>"
			if a.IsValid(i) {
				v = a.ValueStr(i)
			}
			rows[i] = append(rows[i], v)
		}
	}
	return rows
}

func defsJSON(t *testing.T, tr *trace.Trace) string {
	t.Helper()
	b, err := json.Marshal(tr.Defs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConvert runs `mpirun -np 3 tracebook-mpi convert` on real traces (one
// with PAPI counters, one with metric streams) and on generated ones (with thread locations that have no messages, and the
// random mix of record kinds), and checks the parts against what `tracebook
// convert` writes of the whole trace (Trace.Events written as Parquet): the
// same columns in every part, the parts' rows in rank order the whole
// table's, cell by cell, and every part loading as the trace of its share
// with the whole trace's definitions.
func TestConvert(t *testing.T) {
	bin := workerBinary(t)
	traces := map[string]func() string{
		"ping-pong": func() string { return pingPong },
		"papi":      func() string { return "../../test/data/traces/ping-pong-otf2-papi/traces.otf2" },
		"streams":   func() string { return "../../test/data/traces/metric-streams/traces.otf2" },
		"spmd": func() string {
			return generate(t, "spmd", "--procs", "6", "--threads", "1", "--iters", "150", "--seed", "3")
		},
		"random": func() string {
			return generate(t, "random", "--procs", "4", "--threads", "1", "--events", "2000", "--seed", "5")
		},
	}
	for _, name := range []string{"ping-pong", "papi", "streams", "spmd", "random"} {
		t.Run(name, func(t *testing.T) {
			path := traces[name]()
			const np = 3
			out := filepath.Join(t.TempDir(), "out")
			stdout, stderr, err := mpirun(t, np, bin, "convert", path, out)
			if err != nil {
				t.Fatalf("mpirun convert: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			whole, err := trace.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			ref := filepath.Join(t.TempDir(), "whole.parquet")
			ev := whole.Events()
			if err := writeTable(ref, ev); err != nil {
				t.Fatal(err)
			}
			want, err := arrowio.ReadParquet(ref)
			if err != nil {
				t.Fatal(err)
			}
			checkParts(t, out, np, whole, want)
			if !strings.Contains(stderr, fmt.Sprintf("%d events of %d locations on %d ranks", whole.NumEvents(), whole.NumProcesses(), np)) {
				t.Errorf("rank 0's summary is missing or wrong:\n%s", stderr)
			}
			checkDuckDB(t, out, want)
		})
	}
}

// checkParts compares the parts in out with the whole trace's table.
func checkParts(t *testing.T, out string, np int, whole *trace.Trace, want *arrowio.Table) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != np {
		t.Fatalf("%d files in %s, want %d: %v", len(files), out, np, files)
	}
	var rows [][]string
	procs := 0 // processes of the parts so far
	for r := 0; r < np; r++ {
		f := filepath.Join(out, partName(r, np, ".parquet"))
		part, err := arrowio.ReadParquet(f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(part.ColumnNames(), want.ColumnNames()) {
			t.Fatalf("%s has columns %q, the whole trace's table %q", f, part.ColumnNames(), want.ColumnNames())
		}
		for i, fld := range part.Schema().Fields() {
			if wf := want.Schema().Field(i); !arrow.TypeEqual(fld.Type, wf.Type) {
				t.Errorf("%s: column %q is %v, the whole table's %v", f, fld.Name, fld.Type, wf.Type)
			}
		}
		rows = append(rows, cells(t, part)...)
		tr, err := trace.Load(f)
		if err != nil {
			t.Fatalf("trace.Load(%s): %v", f, err)
		}
		if got, w := defsJSON(t, tr), defsJSON(t, whole); got != w {
			t.Errorf("%s: definitions differ from the whole trace's", f)
		}
		// a part is a trace of its own (its processes numbered from 0): the
		// parts in rank order hold the whole trace's processes in order
		for _, p := range tr.Processes() {
			if procs >= whole.NumProcesses() {
				t.Fatalf("the parts hold more processes than the trace's %d", whole.NumProcesses())
			}
			wp := whole.Processes()[procs]
			procs++
			if p.Name != wp.Name || p.Rank != wp.Rank || p.Thread != wp.Thread || p.Len() != wp.Len() {
				t.Errorf("%s: process %d is %q rank %d thread %d with %d events, in the whole trace %q %d %d %d",
					f, p.Index, p.Name, p.Rank, p.Thread, p.Len(), wp.Name, wp.Rank, wp.Thread, wp.Len())
			}
		}
	}
	wantRows := cells(t, want)
	if len(rows) != len(wantRows) {
		t.Fatalf("the parts have %d rows, the whole trace's table %d", len(rows), len(wantRows))
	}
	for i := range rows {
		if !reflect.DeepEqual(rows[i], wantRows[i]) {
			t.Fatalf("row %d of the parts\n%q\nthe whole table's\n%q\n(columns %q)", i, rows[i], wantRows[i], want.ColumnNames())
		}
	}
	if procs != whole.NumProcesses() {
		t.Errorf("the parts hold %d processes, the trace %d", procs, whole.NumProcesses())
	}
}

// duckScript reads the glob argv[1] as one dataset and prints the column
// names and types, the row count and the rows per Process.
const duckScript = `
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const src = 'read_parquet(' + q(process.argv[1]) + ')';
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
const cols = (await rows('DESCRIBE SELECT * FROM ' + src)).map((d) => d.column_name);
const n = Number((await rows('SELECT count(*) AS n FROM ' + src))[0].n);
const per = {};
for (const r of await rows('SELECT "Process" AS p, count(*) AS n FROM ' + src + ' GROUP BY 1')) per[String(r.p)] = Number(r.n);
console.log(JSON.stringify({ columns: cols, rows: n, per_process: per }));
`

// checkDuckDB reads out/*.parquet with DuckDB (test/interop's node_modules,
// from npm) as one dataset: the whole table's columns, rows, and rows per
// process.
func checkDuckDB(t *testing.T, out string, want *arrowio.Table) {
	t.Helper()
	interop, _ := filepath.Abs("../../test/interop")
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@duckdb", "node-api")); err != nil {
		if os.Getenv("TRACEBOOK_REQUIRE_INTEROP") == "1" {
			t.Fatalf("DuckDB is missing: npm ci --prefix test/interop")
		}
		t.Log("DuckDB check skipped: npm ci --prefix test/interop")
		return
	}
	cmd := exec.Command("node", "--input-type=module", "-e", duckScript, filepath.Join(out, "*.parquet"))
	cmd.Dir = interop // packages resolve from node_modules there
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, e.String())
	}
	var got struct {
		Columns    []string       `json:"columns"`
		Rows       int            `json:"rows"`
		PerProcess map[string]int `json:"per_process"`
	}
	if err := json.Unmarshal(o.Bytes(), &got); err != nil {
		t.Fatalf("DuckDB output %q: %v", o.String(), err)
	}
	wantPer := map[string]int{}
	procs, err := want.Int32s(trace.ColProcess)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		wantPer[strconv.Itoa(int(p))]++
	}
	if !reflect.DeepEqual(got.Columns, want.ColumnNames()) || got.Rows != want.NumRows() || !reflect.DeepEqual(got.PerProcess, wantPer) {
		t.Errorf("DuckDB reads %s/*.parquet as columns %q, %d rows, per process %v;\nwant %q, %d rows, %v",
			out, got.Columns, got.Rows, got.PerProcess, want.ColumnNames(), want.NumRows(), wantPer)
	}
	t.Logf("DuckDB reads %s/*.parquet as one dataset of %d rows", out, got.Rows)
}

// TestConvertFails checks that a failure on the ranks makes mpirun's status
// non-zero and that rank 0 reports every rank's error by rank.
func TestConvertFails(t *testing.T) {
	bin := workerBinary(t)
	const np = 3
	missing := filepath.Join(t.TempDir(), "no-such.otf2")
	_, stderr, err := mpirun(t, np, bin, "convert", missing, filepath.Join(t.TempDir(), "out"))
	if err == nil {
		t.Fatalf("convert of a missing trace succeeded:\n%s", stderr)
	}
	for r := 0; r < np; r++ {
		if want := fmt.Sprintf("rank %d: ", r); !strings.Contains(stderr, want) || !strings.Contains(stderr, "no-such.otf2") {
			t.Errorf("stderr names no error of rank %d (%q):\n%s", r, want, stderr)
		}
	}
	// OUTDIR is a file: rank 0 cannot make it, and every rank stops.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = mpirun(t, np, bin, "convert", pingPong, file)
	if err == nil || !strings.Contains(stderr, "rank 0: ") {
		t.Fatalf("convert into a file: err %v, stderr:\n%s", err, stderr)
	}
}

func TestParseConvert(t *testing.T) {
	for _, c := range []struct {
		args []string
		want convertJob
		err  string
	}{
		{[]string{"t.otf2", "out"}, convertJob{"t.otf2", "out", ".parquet"}, ""},
		{[]string{"t.otf2", "out", "--format", "parquet"}, convertJob{"t.otf2", "out", ".parquet"}, ""},
		{[]string{"--format=arrow", "t.otf2", "out"}, convertJob{"t.otf2", "out", ".arrow"}, ""},
		{[]string{"t.otf2", "out", "--format", "csv"}, convertJob{}, `unknown format "csv"`},
		{[]string{"t.otf2", "out", "--format"}, convertJob{}, "--format needs a value"},
		{[]string{"t.otf2"}, convertJob{}, "need TRACE and OUTDIR"},
		{[]string{"t.otf2", "out", "-x"}, convertJob{}, "unknown flag -x"},
	} {
		got, err := parseConvert(c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseConvert(%q): err %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseConvert(%q) = %+v, %v, want %+v", c.args, got, err, c.want)
		}
	}
	for _, c := range []struct {
		rank, n int
		want    string
	}{{0, 1, "part-0.parquet"}, {3, 9, "part-3.parquet"}, {3, 10, "part-03.parquet"}, {99, 100, "part-099.parquet"}} {
		if got := partName(c.rank, c.n, ".parquet"); got != c.want {
			t.Errorf("partName(%d, %d) = %q, want %q", c.rank, c.n, got, c.want)
		}
	}
}

// TestUnionSchemas checks the order of the union of the ranks' columns when
// no rank has them all: Trace.Events' order, metrics in the order they
// first occur over the ranks.
func TestUnionSchemas(t *testing.T) {
	schema := func(names ...string) []byte {
		fs := []arrow.Field{{Name: trace.ColTimestamp, Type: arrow.PrimitiveTypes.Int64}, {Name: trace.ColProcess, Type: arrow.PrimitiveTypes.Int32}}
		for _, n := range names {
			fs = append(fs, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64, Nullable: true})
		}
		b, err := encodeSchema(arrow.NewSchema(fs, nil))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b, err := unionSchemas([][]byte{
		schema("Metric: A", trace.ColRegion),
		schema(trace.ColPartner, trace.ColTag, "Metric: B", trace.ColRegion),
		schema(trace.ColSent, "Metric: A", "Metric: C", trace.ColRegion),
		schema(trace.ColComm, trace.ColRequest, trace.ColRegion),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := decodeSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Fields() {
		got = append(got, f.Name)
	}
	want := []string{trace.ColTimestamp, trace.ColProcess, trace.ColPartner, trace.ColTag, trace.ColComm, trace.ColRequest,
		trace.ColSent, "Metric: A", "Metric: B", "Metric: C", trace.ColRegion}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("union %q, want %q", got, want)
	}
	bad := []arrow.Field{{Name: trace.ColTimestamp, Type: arrow.BinaryTypes.String}}
	badSchema, _ := encodeSchema(arrow.NewSchema(bad, nil))
	if _, err := unionSchemas([][]byte{schema(), badSchema}); err == nil || !strings.Contains(err.Error(), trace.ColTimestamp) {
		t.Errorf("a column of two types: err %v", err)
	}
}

// pingPong is a real Score-P trace of the repository.
const pingPong = "../../test/data/traces/ping-pong-otf2/traces.otf2"
