package trace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

const nsightData = "nsight/testdata"

// nsightLines renders p's events as "Kind name @ns" lines.
func nsightLines(p *trace.Process) []string {
	out := make([]string, p.Len())
	for i := range out {
		out[i] = fmt.Sprintf("%s %s @%d", p.Kind[i], p.EventName(i), p.Time[i])
	}
	return out
}

// nsightNested checks that p's events are in time order and well nested.
func nsightNested(t *testing.T, p *trace.Process) {
	t.Helper()
	var stack []int32
	for i := range p.Kind {
		if i > 0 && p.Time[i] < p.Time[i-1] {
			t.Fatalf("%s: event %d goes back in time", p.Name, i)
		}
		switch p.Kind[i] {
		case trace.Enter:
			stack = append(stack, p.Ref[i])
		case trace.Leave:
			if len(stack) == 0 || stack[len(stack)-1] != p.Ref[i] {
				t.Fatalf("%s: event %d leaves a region not open", p.Name, i)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%s: %d regions never left", p.Name, len(stack))
	}
}

// TestNsightCSVMatchesPipit compares the NVTX push/pop report with the
// events pipit reads from it (testdata/README.md says how they were made):
// per PID and TID, the same Enter and Leave events at the same times (pipit
// times are the file's; ours start at the earliest one).
func TestNsightCSVMatchesPipit(t *testing.T) {
	path := filepath.Join(nsightData, "nvtx_pushpop_trace.csv")
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rows := readCSVFile(t, filepath.Join(nsightData, "nvtx_pushpop_trace.pipit-events.csv"))
	want := map[string][]string{}
	minT := int64(-1)
	for _, r := range rows {
		ts, _ := strconv.ParseInt(r[0], 10, 64)
		if minT < 0 || ts < minT {
			minT = ts
		}
	}
	for _, r := range rows {
		ts, _ := strconv.ParseInt(r[0], 10, 64)
		loc := "PID " + r[5] + " / TID " + r[6]
		want[loc] = append(want[loc], fmt.Sprintf("%s %s @%d", r[1], r[2], ts-minT))
	}
	if len(tr.Processes()) != len(want) {
		t.Fatalf("%d processes, pipit has %d threads", len(tr.Processes()), len(want))
	}
	for _, p := range tr.Processes() {
		nsightNested(t, p)
		got := nsightLines(p)
		w := want[p.Name]
		// pipit sorts all events by time only: compare as sets per thread
		slices.Sort(got)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s:\n got %q\nwant %q", p.Name, got, w)
		}
	}
	// locations and groups: one per thread, grouped by PID
	names := []string{}
	for _, p := range tr.Processes() {
		names = append(names, fmt.Sprintf("%s [%s, group %s]", p.Name, tr.Defs.Locations[p.Location].Type, tr.Defs.LocationGroups[p.Rank].Name))
	}
	wantNames := []string{"PID 4100 / TID 4100 [cpu_thread, group PID 4100]", "PID 4100 / TID 4107 [cpu_thread, group PID 4100]", "PID 5200 / TID 5200 [cpu_thread, group PID 5200]"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("locations %q, want %q", names, wantNames)
	}
}

// TestNsightCUDACSV reads the CUDA API and GPU trace reports: the expected
// events are derived by hand from the rows of the files (times minus the
// earliest start: 500000 ns and 700000 ns).
func TestNsightCUDACSV(t *testing.T) {
	api, err := trace.Load(filepath.Join(nsightData, "cuda_api_trace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"PID 4100 / TID 4100": {
			"Enter cudaMalloc @0", "Leave cudaMalloc @200000",
			"Enter cudaMemcpy @300000", "Leave cudaMemcpy @350000",
			"Enter cudaLaunchKernel @400000", "Leave cudaLaunchKernel @410000",
			"Enter cudaGetLastError @412000", "Leave cudaGetLastError @414000",
			"Enter cudaDeviceSynchronize @450000", "Leave cudaDeviceSynchronize @550000"},
		"PID 4100 / TID 4107": {
			"Enter cudaStreamCreate @100000", "Leave cudaStreamCreate @130000",
			"Enter cudaEventRecord @130000", "Leave cudaEventRecord @150000"},
	}
	// cudaStreamCreate ends at 630000 and cudaEventRecord begins at 620000:
	// they overlap, so the second is left out
	want["PID 4100 / TID 4107"] = want["PID 4100 / TID 4107"][:2]
	nsightCheck(t, api, want, []string{"PID 4100 / TID 4100", "PID 4100 / TID 4107"})
	if s := api.Defs.Properties["nsight:skipped"]; s != "rows: overlapping another interval of their location without being inside it ×1" {
		t.Errorf("nsight:skipped = %q", s)
	}
	for _, r := range api.Defs.Regions {
		if r.Paradigm != "cuda" || r.Role != "function" {
			t.Errorf("region %+v: want paradigm cuda, role function", r)
		}
	}

	gpu, err := trace.Load(filepath.Join(nsightData, "cuda_gpu_trace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	saxpy := "void saxpy<float, 2>(int, float, const float *, float *)"
	want = map[string][]string{
		"GPU 0 / stream 7": {
			"Enter [CUDA memcpy HtoD] @110000", "Leave [CUDA memcpy HtoD] @130000",
			"Enter " + saxpy + " @212000", "Leave " + saxpy + " @272000",
			"Enter [CUDA memset] @280000", "Leave [CUDA memset] @285000",
			"Enter [CUDA memcpy DtoH] @290000", "Leave [CUDA memcpy DtoH] @310000"},
		"GPU 0 / stream 13": {
			"Enter reduce @230000", "Leave reduce @240000",
			"Enter reduce @245000", "Leave reduce @255000"},
		"GPU 1 / stream 21": {"Enter init @0", "Leave init @40000"},
	}
	nsightCheck(t, gpu, want, []string{"GPU 0 / stream 7", "GPU 0 / stream 13", "GPU 1 / stream 21"})
	for _, p := range gpu.Processes() {
		if l := gpu.Defs.Locations[p.Location]; l.Type != "accelerator_stream" || gpu.Defs.LocationGroups[l.Group].Type != "accelerator" {
			t.Errorf("%s: location %+v, group %+v", p.Name, l, gpu.Defs.LocationGroups[l.Group])
		}
	}
	if p := gpu.Processes()[2]; p.Skipped != 1 {
		t.Errorf("%s: Skipped = %d, want 1 (the overlapping kernel)", p.Name, p.Skipped)
	}
	for _, r := range gpu.Defs.Regions {
		role := "function"
		if strings.HasPrefix(r.Name, "[CUDA mem") {
			role = "data_transfer"
		}
		if r.Paradigm != "cuda" || r.Role != role {
			t.Errorf("region %+v: want paradigm cuda, role %s", r, role)
		}
	}
}

func nsightCheck(t *testing.T, tr *trace.Trace, want map[string][]string, order []string) {
	t.Helper()
	var names []string
	for _, p := range tr.Processes() {
		names = append(names, p.Name)
		nsightNested(t, p)
		if got := nsightLines(p); !slices.Equal(got, want[p.Name]) {
			t.Errorf("%s:\n got %q\nwant %q", p.Name, got, want[p.Name])
		}
	}
	if !slices.Equal(names, order) {
		t.Errorf("processes %q, want %q", names, order)
	}
}

// TestNsightCSVDetection: a report is told from an event table by its
// first line; an event table still loads as one.
func TestNsightCSVDetection(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "events.csv")
	text := "Timestamp (ns),Event Type,Name,Process\n0,Enter,main,0\n10,Leave,main,0\n"
	if err := os.WriteFile(table, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Load(table)
	if err != nil {
		t.Fatal(err)
	}
	if f := tr.Defs.Properties["format"]; strings.Contains(f, "Nsight") {
		t.Errorf("event table read as %q", f)
	}
	bad := filepath.Join(dir, "bad.csv")
	text = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid\n1,2,cudaFree,0,1,10,11\nx,2,cudaFree,0,1,10,11\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = trace.Load(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.csv") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error %v: want the file and line 3", err)
	}
	// a report captured from nsys's standard output, with the lines it
	// prints before the header, is still a report
	captured := filepath.Join(dir, "captured.csv")
	text = "Generating SQLite file run.sqlite from run.nsys-rep\nProcessing [run.sqlite] with [cuda_api_trace.py]... \n\n" +
		"Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid\n1,2,cudaFree,0,1,10,11\n5,3,cudaMalloc,0,2,10,11\n"
	if err := os.WriteFile(captured, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err = trace.Load(captured)
	if err != nil {
		t.Fatalf("captured report: %v", err)
	}
	if tr.NumEvents() != 4 || tr.RegionName(tr.Process(0).Ref[0]) != "cudaFree" {
		t.Errorf("captured report: %d events, first %q; want 4, cudaFree", tr.NumEvents(), tr.RegionName(tr.Process(0).Ref[0]))
	}
}

// BenchmarkNsightLoad loads the Nsight Systems report named by
// $NSIGHT_BENCH (a CSV report or an SQLite export); skipped without it.
func BenchmarkNsightLoad(b *testing.B) {
	path := os.Getenv("NSIGHT_BENCH")
	if path == "" {
		b.Skip("set NSIGHT_BENCH to a report")
	}
	for b.Loop() {
		tr, err := trace.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, p := range tr.Processes() {
			n += p.Len()
		}
		b.ReportMetric(float64(n), "events")
	}
}

// TestNsightStopsAtInterrupt: reading a report of more than 64K rows stops
// with work.ErrInterrupted in an interrupted cell, and loads otherwise.
func TestNsightStopsAtInterrupt(t *testing.T) {
	var b strings.Builder
	b.WriteString("Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid\n")
	for i := range 70000 {
		fmt.Fprintf(&b, "%d,5,cudaFree,0,%d,10,11\n", i*10, i)
	}
	path := filepath.Join(t.TempDir(), "api.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	interrupted(func() { _, err = trace.Load(path) })
	if !errors.Is(err, work.ErrInterrupted) {
		t.Errorf("Load in an interrupted cell: %v", err)
	}
	tr, err := trace.Load(path)
	if err != nil || tr.Processes()[0].Len() != 140000 {
		t.Errorf("Load: %v", err)
	}
}

// FuzzLoadNsightCSV loads fuzzed CSV reports into the model: an *Error or
// a trace whose processes are in time order and well nested.
func FuzzLoadNsightCSV(f *testing.F) {
	for _, name := range []string{"nvtx_pushpop_trace.csv", "cuda_api_trace.csv", "cuda_gpu_trace.csv"} {
		b, err := os.ReadFile(filepath.Join(nsightData, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "Start") {
			return
		}
		tr, err := trace.Load(path)
		if err != nil {
			var e *trace.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not a *trace.Error", err, err)
			}
			return
		}
		for _, p := range tr.Processes() {
			nsightNested(t, p)
			for _, ts := range p.Time {
				if ts < 0 {
					t.Fatalf("%s: negative time %d", p.Name, ts)
				}
			}
		}
	})
}
