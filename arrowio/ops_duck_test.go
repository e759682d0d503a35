package arrowio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// The table operations next to DuckDB: TRACEBOOK_DUCKBENCH=1 go test -run OpsVsDuckDB -v
// ./arrowio/ writes a 10M-row events table (TRACEBOOK_DUCKBENCH_ROWS to change) to Parquet,
// then runs the same filter, sort, group-by and pipeline on it in a fresh Go process and in
// DuckDB (test/interop/duckbench.mjs), each reading the file first, and prints times and peak
// memory side by side. The results of both must agree (row counts, sort order checksums,
// group-by sums), so the run is also a cross-check at scale.

// benchEvents is an events table in the trace schema's types: rows grouped by process, in time
// order within each, nested Enter/Leave calls of 40 functions (12 of them MPI), byte counts on
// the MPI calls.
func benchEvents(n, procs int, seed uint64) *Table {
	r := rand.New(rand.NewPCG(seed, 7))
	var names []string
	for i := range 28 {
		names = append(names, fmt.Sprintf("solver_%02d", i))
	}
	mpi := []string{"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall",
		"MPI_Allreduce", "MPI_Bcast", "MPI_Barrier", "MPI_Reduce", "MPI_Alltoall", "MPI_Gather"}
	names = append(names, mpi...)
	ts := make([]int64, 0, n)
	typ := make([]string, 0, n)
	name := make([]string, 0, n)
	proc := make([]int32, 0, n)
	bytes := make([]int64, 0, n)
	hasBytes := make([]bool, 0, n)
	per := n / procs
	for p := range procs {
		m := per
		if p == procs-1 {
			m = n - len(ts)
		}
		t := int64(r.IntN(1000))
		var stack []string
		for k := 0; k < m; k++ {
			t += int64(1 + r.IntN(5000))
			left := m - k
			if len(stack) > 0 && (len(stack) >= left || len(stack) >= 4 || r.IntN(2) == 0) {
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				ts, typ, name, proc = append(ts, t), append(typ, "Leave"), append(name, f), append(proc, int32(p))
				bytes, hasBytes = append(bytes, 0), append(hasBytes, false)
				continue
			}
			f := names[r.IntN(len(names))]
			stack = append(stack, f)
			b, has := int64(0), false
			if strings.HasPrefix(f, "MPI_") && f != "MPI_Barrier" && f != "MPI_Wait" && f != "MPI_Waitall" {
				b, has = int64(8<<r.IntN(18)), true
			}
			ts, typ, name, proc = append(ts, t), append(typ, "Enter"), append(name, f), append(proc, int32(p))
			bytes, hasBytes = append(bytes, b), append(hasBytes, has)
		}
	}
	return MustTable(Int64("Timestamp (ns)", ts), Dict("Event Type", typ), Dict("Name", name),
		Int32("Process", proc), NullableInt64("Bytes", bytes, hasBytes))
}

// duckResult is what each side reports: seconds per step, peak RSS, and result checksums.
type duckResult struct {
	Seconds map[string]float64 `json:"seconds"`
	PeakRSS int64              `json:"peak_rss"`
	Checks  map[string]string  `json:"checks"`
}

// The steps, in order. The Go child runs them through the table operations, duckbench.mjs as
// SQL; both materialise each result.
var duckSteps = []string{"load", "filter", "sort", "groupby", "pipeline"}

func goSteps(path string) duckResult {
	res := duckResult{Seconds: map[string]float64{}, Checks: map[string]string{}}
	timed := func(step string, f func()) {
		runtime.GC()
		t0 := time.Now()
		f()
		res.Seconds[step] = time.Since(t0).Seconds()
	}
	var ev, filtered, sorted, grouped, piped *Table
	timed("load", func() {
		var err error
		if ev, err = ReadParquet(path); err != nil {
			panic(err)
		}
	})
	pred := Col("Name").StartsWith("MPI_").And(Col("Event Type").Eq("Enter")).And(Col("Bytes").Ge(4096))
	timed("filter", func() { filtered = ev.Filter(pred) })
	timed("sort", func() { sorted = ev.Sort("Name", "Timestamp (ns) desc") })
	timed("groupby", func() {
		grouped = ev.GroupBy("Name", "Process").Agg(Count(), Sum("Bytes"), Mean("Bytes"),
			Max("Timestamp (ns)"), Median("Bytes"))
	})
	timed("pipeline", func() {
		piped = ev.Filter(pred).Sort("Bytes desc", "Timestamp (ns)").GroupBy("Name").
			Agg(Count(), Sum("Bytes"), Quantile("Bytes", 0.9).As("p90"))
	})
	res.PeakRSS = peakRSS()
	res.Checks = duckChecks(filtered, sorted, grouped, piped)
	return res
}

// duckChecks summarises the results the same way duckbench.mjs does.
func duckChecks(filtered, sorted, grouped, piped *Table) map[string]string {
	sum := func(t *Table, col string) string {
		switch t.field(col).Type.ID() {
		case arrow.INT64:
			v, _ := t.Int64s(col)
			var s int64
			for _, x := range v {
				s += x
			}
			return strconv.FormatInt(s, 10)
		}
		v, _ := t.Float64s(col)
		var s float64
		for _, x := range v {
			s += x
		}
		return strconv.FormatFloat(s, 'e', 9, 64)
	}
	first := func(t *Table, col string, i int) string {
		v, _ := t.Int64s(col)
		return strconv.FormatInt(v[i], 10)
	}
	names, _ := sorted.Strings("Name")
	return map[string]string{
		"filter rows":           strconv.Itoa(filtered.NumRows()),
		"filter sum(Bytes)":     sum(filtered, "Bytes"),
		"sort first":            names[0] + " " + first(sorted, "Timestamp (ns)", 0),
		"sort last":             names[len(names)-1] + " " + first(sorted, "Timestamp (ns)", sorted.NumRows()-1),
		"sort row 1000000":      names[min(1000000, len(names)-1)] + " " + first(sorted, "Timestamp (ns)", min(1000000, len(names)-1)),
		"groupby groups":        strconv.Itoa(grouped.NumRows()),
		"groupby sum(count)":    sum(grouped, "count"),
		"groupby sum(sum)":      sum(grouped, "sum(Bytes)"),
		"groupby sum(max)":      sum(grouped, "max(Timestamp (ns))"),
		"groupby sum(median)":   sum(grouped, "median(Bytes)"),
		"groupby sum(mean)":     sum(grouped, "mean(Bytes)"),
		"pipeline groups":       strconv.Itoa(piped.NumRows()),
		"pipeline sum(p90)":     sum(piped, "p90"),
		"pipeline sum(sum)":     sum(piped, "sum(Bytes)"),
		"pipeline sum(count)":   sum(piped, "count"),
		"pipeline first":        fmt.Sprint(must(piped.Strings("Name"))[0]),
		"groupby first process": fmt.Sprint(must(grouped.Int32s("Process"))[0]),
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// peakRSS is the process's peak resident set (VmHWM) in bytes.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// TestOpsVsDuckDBChild is the Go side, run in a fresh process by TestOpsVsDuckDB.
func TestOpsVsDuckDBChild(t *testing.T) {
	path := os.Getenv("TRACEBOOK_DUCKBENCH_CHILD")
	if path == "" {
		t.Skip("run by TestOpsVsDuckDB")
	}
	b, _ := json.Marshal(goSteps(path))
	fmt.Printf("RESULT %s\n", b)
}

func TestOpsVsDuckDB(t *testing.T) {
	if os.Getenv("TRACEBOOK_DUCKBENCH") == "" {
		t.Skip("set TRACEBOOK_DUCKBENCH=1 to compare with DuckDB")
	}
	dir := interopDir(t)
	n := 10_000_000
	if s := os.Getenv("TRACEBOOK_DUCKBENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	path := filepath.Join(t.TempDir(), "events.parquet")
	if err := writeParquet(path, benchEvents(n, 64, 1)); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	t.Logf("%d rows, Parquet %s", n, FormatBytes(st.Size()))
	parse := func(out []byte, err error, who string) duckResult {
		if err != nil {
			t.Fatalf("%s: %v\n%s", who, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if js, ok := strings.CutPrefix(line, "RESULT "); ok {
				var r duckResult
				if err := json.Unmarshal([]byte(js), &r); err != nil {
					t.Fatalf("%s: %v", who, err)
				}
				return r
			}
		}
		t.Fatalf("%s printed no result:\n%s", who, out)
		return duckResult{}
	}
	goCmd := exec.Command(os.Args[0], "-test.run=^TestOpsVsDuckDBChild$", "-test.v")
	goCmd.Env = append(os.Environ(), "TRACEBOOK_DUCKBENCH_CHILD="+path)
	out, err := goCmd.CombinedOutput()
	g := parse(out, err, "go")
	out, err = exec.Command("node", filepath.Join(dir, "duckbench.mjs"), path).CombinedOutput()
	d := parse(out, err, "duckdb")
	t.Logf("%-9s %12s %12s %8s", "step", "tracebook", "DuckDB", "ratio")
	for _, s := range duckSteps {
		t.Logf("%-9s %10.3f s %10.3f s %7.2fx", s, g.Seconds[s], d.Seconds[s], g.Seconds[s]/d.Seconds[s])
	}
	t.Logf("%-9s %12s %12s", "peak RSS", FormatBytes(g.PeakRSS), FormatBytes(d.PeakRSS))
	for k, want := range d.Checks {
		got := g.Checks[k]
		if got == want {
			continue
		}
		// Float sums: both sides sum in their own order.
		gf, e1 := strconv.ParseFloat(got, 64)
		df, e2 := strconv.ParseFloat(want, 64)
		if e1 == nil && e2 == nil && math.Abs(gf-df) <= 1e-9*math.Abs(df) {
			continue
		}
		t.Errorf("%s: tracebook %s, DuckDB %s", k, got, want)
	}
	if len(d.Checks) != len(g.Checks) {
		t.Errorf("checks: tracebook %d, DuckDB %d", len(g.Checks), len(d.Checks))
	}
}

// BenchmarkTableOps runs each operation on a 1M-row events table (make bench); the 10M-row
// comparison with DuckDB is TestOpsVsDuckDB.
func BenchmarkTableOps(b *testing.B) {
	ev := benchEvents(1<<20, 64, 1)
	pred := Col("Name").StartsWith("MPI_").And(Col("Event Type").Eq("Enter")).And(Col("Bytes").Ge(4096))
	perProc := ev.GroupBy("Process", "Name").Agg(Count(), Sum("Bytes"))
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Filter", func() { ev.Filter(pred) }},
		{"Sort", func() { ev.Sort("Name", "Timestamp (ns) desc") }},
		{"GroupBy", func() { ev.GroupBy("Name", "Process").Agg(Count(), Sum("Bytes"), Mean("Bytes"), Max("Timestamp (ns)")) }},
		{"GroupByMedian", func() { ev.GroupBy("Name").Agg(Median("Bytes")) }},
		{"Join", func() { ev.Join(perProc, "Process", "Name") }},
		{"WithColumn", func() { ev.WithColumn("t", Col("Timestamp (ns)").Sub(1000).Div(1e3)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
			b.ReportMetric(float64(ev.NumRows())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
