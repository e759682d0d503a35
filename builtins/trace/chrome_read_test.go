package trace_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// chromeFile writes text to a file named name in a temporary directory.
func chromeFile(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// chromeEvents renders p's events as "Kind name @ns" lines, messages with
// their peer, tag and bytes, for comparing two traces.
func chromeEvents(tr *trace.Trace, p *trace.Process, shift int64, truncUs bool) []string {
	out := make([]string, p.Len())
	for i := range out {
		ts := p.Time[i] - shift
		if truncUs {
			ts = ts / 1000 * 1000
		}
		s := fmt.Sprintf("%s %s @%d", p.Kind[i], p.EventName(i), ts)
		r := p.Ref[i]
		switch p.Kind[i] {
		case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
			s += fmt.Sprintf(" peer %d tag %d bytes %d", p.Msgs.Peer[r], p.Msgs.Tag[r], p.Msgs.Bytes[r])
			if q := p.Msgs.Request[r]; q != 0 {
				s += fmt.Sprintf(" request %d", q)
			}
		case trace.MpiIsendComplete, trace.MpiIrecvRequest:
			s += fmt.Sprintf(" request %d", p.Msgs.Request[r])
		case trace.MpiCollectiveEnd:
			s += fmt.Sprintf(" op %s root %d sent %d received %d", trace.CollectiveOpName(p.Colls.Op[r]), p.Colls.Root[r], p.Colls.Sent[r], p.Colls.Received[r])
		}
		out[i] = s
	}
	return out
}

// TestReadChromePipit reads pipit's to_chrome exports of the OTF2 sample
// traces (testdata/chrome-in/README.md) and compares them with the OTF2
// traces read by the OTF2 reader: every event of every rank, its kind,
// name, time truncated to the microsecond as pipit writes it (pipit's times
// start at the first event), message peer, tag and size.
func TestReadChromePipit(t *testing.T) {
	for _, name := range []string{"ping-pong-otf2", "ping-pong-otf2-papi", "spmd-otf2"} {
		t.Run(name, func(t *testing.T) {
			otf2 := filepath.Join(tooltest.Traces(), name, "traces.otf2")
			if name == "spmd-otf2" {
				otf2 = filepath.Join("testdata", "chrome-in", name, "traces.otf2")
			}
			ref := trace.Open(otf2)
			got, err := trace.Load(filepath.Join("testdata", "chrome-in", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if got.NumProcesses() != ref.NumProcesses() {
				t.Fatalf("%d processes, want %d", got.NumProcesses(), ref.NumProcesses())
			}
			first := ref.Processes()[0].Time[0]
			for _, p := range ref.Processes() {
				first = min(first, p.Time[0])
			}
			type place struct{ rank, thread int32 }
			byPlace := map[place]*trace.Process{}
			for _, p := range got.Processes() {
				byPlace[place{p.Rank, p.Thread}] = p
			}
			for i, rp := range ref.Processes() {
				gp := byPlace[place{rp.Rank, rp.Thread}]
				if gp == nil {
					t.Errorf("process %d: no rank %d thread %d", i, rp.Rank, rp.Thread)
					continue
				}
				// pipit keeps PAPI counters as columns of the Enter/Leave rows,
				// which to_chrome does not write: the Metric events are not in
				// the export
				var want []string
				for _, e := range chromeEvents(ref, rp, first, true) {
					if !strings.HasPrefix(e, "Metric ") {
						want = append(want, e)
					}
				}
				have := chromeEvents(got, gp, -int64(got.Defs.Clock.Offset), false)
				if len(have) != len(want) {
					t.Errorf("process %d: %d events, want %d", i, len(have), len(want))
				}
				if name == "spmd-otf2" {
					// pipit sorts its events by time unstably: events of one
					// timestamp come in any order, so they are compared as sets
					have, want = sortedPerTime(have), sortedPerTime(want)
				}
				bad := 0
				for j := range min(len(have), len(want)) {
					if have[j] != want[j] {
						if bad++; bad <= 5 {
							t.Errorf("process %d event %d: %s, want %s", i, j, have[j], want[j])
						}
					}
				}
			}
			if r := got.Processes()[0].CallRepairs(); !r.IsZero() {
				t.Errorf("call repairs %v", r)
			}
		})
	}
}

// sortedPerTime sorts each run of events of one time ("... @123 ...").
func sortedPerTime(ev []string) []string {
	at := func(e string) string {
		rest := e[strings.Index(e, " @")+2:]
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			rest = rest[:i]
		}
		return rest
	}
	out := slices.Clone(ev)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && at(out[j]) == at(out[i]) {
			j++
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

// TestReadChromeKineto reads a hand-written file in the shape of a
// PyTorch/Kineto profile: a CPU thread with nested ops and CUDA launches,
// kernels and a memcpy on two streams of "GPU 0", "ac2g" flows from each
// launch to its kernel. The expected events are derived by hand from the
// file (times in ns from its first event, ts 1000.000 µs).
func TestReadChromeKineto(t *testing.T) {
	tr, err := trace.Load(filepath.Join("testdata", "chrome-in", "kineto.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"rank 0": {
			"Enter ProfilerStep#1 @0",
			"Enter aten::mm @10500",
			"Enter cudaLaunchKernel @20250",
			"MpiSend MpiSend @20250 peer 1 tag -1 bytes 0",
			"Leave cudaLaunchKernel @25750",
			"Leave aten::mm @50625",
			"Enter aten::add @60000",
			"Enter cudaLaunchKernel @65000",
			"MpiSend MpiSend @65000 peer 1 tag -1 bytes 0",
			"Leave cudaLaunchKernel @69999",
			"Leave aten::add @80001",
			"Enter aten::copy_ @100000",
			"Enter cudaMemcpyAsync @110000",
			"MpiSend MpiSend @110000 peer 1 tag -1 bytes 0",
			"Leave cudaMemcpyAsync @390500",
			"Leave aten::copy_ @400000",
			"Leave ProfilerStep#1 @500250",
		},
		"GPU 0 stream 0": {
			"Enter ProfilerStep#1 @29999",
			"Enter ampere_sgemm_64x32_nn @30000",
			"MpiRecv MpiRecv @30000 peer 0 tag -1 bytes 0",
			"Leave ampere_sgemm_64x32_nn @42345",
			"Enter void at::native::vectorized_elementwise_kernel<4>() @75500",
			"MpiRecv MpiRecv @75500 peer 0 tag -1 bytes 0",
			"Leave void at::native::vectorized_elementwise_kernel<4>() @90000",
			"Leave ProfilerStep#1 @90001",
		},
		"GPU 0 stream 1": {
			"Enter Memcpy DtoH (Device -> Pageable) @120000",
			"MpiRecv MpiRecv @120000 peer 0 tag -1 bytes 0",
			"Leave Memcpy DtoH (Device -> Pageable) @385125",
		},
	}
	names := []string{"python3 / thread 4250 (python3)", "GPU 0 / stream 7", "GPU 0 / stream 13"}
	labels := []string{"rank 0", "GPU 0 stream 0", "GPU 0 stream 1"}
	if tr.NumProcesses() != len(labels) {
		t.Fatalf("%d processes, want %d: %v", tr.NumProcesses(), len(labels), tr.Processes())
	}
	for i, p := range tr.Processes() {
		if p.Label() != labels[i] || p.Name != names[i] {
			t.Errorf("process %d: %q (%q), want %q (%q)", i, p.Label(), p.Name, labels[i], names[i])
		}
		checkReadEvents(t, p.Label(), chromeEvents(tr, p, 0, false), want[labels[i]])
	}
	if got := tr.Defs.Clock.Offset; got != 1000000 {
		t.Errorf("clock offset %d ns, want 1000000 (ts 1000.000 µs)", got)
	}
	if g := tr.Defs.LocationGroups; len(g) != 2 || g[0].Type != "process" || g[1].Type != "accelerator" || g[1].Name != "GPU 0" {
		t.Errorf("location groups %+v", g)
	}
	if l := tr.Defs.Locations; len(l) != 3 || l[0].Type != "cpu_thread" || l[1].Type != "accelerator_stream" || l[2].Type != "accelerator_stream" {
		t.Errorf("locations %+v", l)
	}
	if s := tr.Defs.Properties["chrome:skipped"]; s != "instant i ×3, metadata M ×2" {
		t.Errorf("skipped %q, want the three instants and the two process_labels (not modelled)", s)
	}
	if u := tr.Defs.Properties["displayTimeUnit"]; u != "ms" {
		t.Errorf("displayTimeUnit %q", u)
	}
	if tr.Process(0).Skipped != 1 {
		t.Errorf("CPU thread skipped %d, want 1 (its [memory] instant)", tr.Process(0).Skipped)
	}
	if r := tr.RegionID("ampere_sgemm_64x32_nn"); r < 0 || tr.Defs.Regions[r].Paradigm != "cuda" {
		t.Errorf("kernel region %d paradigm not cuda", r)
	}
}

func checkReadEvents(t *testing.T, what string, have, want []string) {
	t.Helper()
	if strings.Join(have, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("%s: events\n%s\nwant\n%s", what, strings.Join(have, "\n"), strings.Join(want, "\n"))
}

// TestReadChromePhases reads a hand-written file with an event of every
// phase (testdata/chrome-in/phases.json, an unterminated JSON array ending
// with a comma, as Chrome allows): what each becomes is derived by hand.
func TestReadChromePhases(t *testing.T) {
	tr, err := trace.Load(filepath.Join("testdata", "chrome-in", "phases.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"MpiRecv MpiRecv @4000 peer 1 tag 5 bytes 64"},
		{
			"Enter a @0",
			"Enter b @1000",
			"MpiSend MpiSend @1000 peer 2 tag -1 bytes 0",
			"Enter inner @2000",
			"Leave inner @4000", // clipped to the end of b
			"Leave b @4000",
			"Leave a @5000",
			"MpiSend MpiSend @6000 peer 0 tag 5 bytes 64",
			"Enter open @7001", // 8.0005 µs: 8000.5 ns rounds to 8001
		},
		{
			"Enter w @3000",
			"MpiRecv MpiRecv @3000 peer 1 tag -1 bytes 0",
			"Leave w @4000",
		},
	}
	names := []string{"Process 2 / Thread 0", "server / main", "Process two / Thread w"}
	skipped := []int64{0, 18, 1}
	if tr.NumProcesses() != len(want) {
		t.Fatalf("%d processes, want %d: %v", tr.NumProcesses(), len(want), tr.Processes())
	}
	for i, p := range tr.Processes() {
		if p.Name != names[i] || p.Rank != int32(i) || p.Thread != 0 {
			t.Errorf("process %d: %q rank %d thread %d, want %q rank %d thread 0", i, p.Name, p.Rank, p.Thread, names[i], i)
		}
		checkReadEvents(t, p.Name, chromeEvents(tr, p, 0, false), want[i])
		if p.Skipped != skipped[i] {
			t.Errorf("%s: skipped %d, want %d", p.Name, p.Skipped, skipped[i])
		}
	}
	if r := tr.Process(1).CallRepairs(); r != (trace.CallRepairs{OpenAtEnd: 1}) {
		t.Errorf("repairs %+v, want the one B never ended", r)
	}
	// the flow's message has no communicator, the instant's its own
	p := tr.Process(1)
	if c := p.Msgs.Comm; c[p.Ref[2]] != -1 || c[p.Ref[7]] < 0 || tr.Defs.Comms[c[p.Ref[7]]].Name != "Comm 1" {
		t.Errorf("comms %v %+v", c, tr.Defs.Comms)
	}
	// counters: one metric stream per series, in order of appearance
	streams := tr.MetricStreams()
	wantStreams := []string{"server / ctr cats: 0=3 4000=5", "server / ctr dogs: 0=4 4000=1.5", "server / ctr id: 9 value: 2000=2"}
	var have []string
	for _, s := range streams {
		line := s.Name + ":"
		for i := range s.Len() {
			line += fmt.Sprintf(" %d=%g", s.Time[i], s.Metrics.Float(i, 0))
		}
		if s.Rank != 1 {
			line += fmt.Sprintf(" (rank %d)", s.Rank)
		}
		have = append(have, line)
	}
	checkReadEvents(t, "metric streams", have, wantStreams)
	wantSkipped := []string{"async begin S ×1", "async begin b ×1", "async end F ×1", "async end e ×1",
		"async instant n ×1", "async step T ×1", "async step p ×1", "clock sync c ×1", "context ( ×1",
		"context ) ×1", "flow end f without start ×1", "flow step t ×1", "instant I ×1", "instant i ×1",
		"mark R ×1", "memory dump V ×1", "memory dump v ×1", "metadata M ×1", "object created N ×1",
		"object destroyed D ×1", "object snapshot O ×1", "sample P ×1"}
	got := strings.Split(tr.Defs.Properties["chrome:skipped"], ", ")
	checkReadEvents(t, "skipped", got, wantSkipped)
	if c := tr.Defs.Properties["chrome:clipped"]; !strings.HasPrefix(c, "1 X event") {
		t.Errorf("clipped %q, want 1", c)
	}
	if !strings.Contains(tr.Summary(), "(not modelled)") {
		t.Errorf("summary does not count the skipped events:\n%s", tr.Summary())
	}
}

// TestReadChromeGzip reads pipit's export gzip-compressed, named .json.gz
// and (the magic bytes decide) .json: the same events as the plain file.
func TestReadChromeGzip(t *testing.T) {
	plain := filepath.Join("testdata", "chrome-in", "ping-pong-otf2.json")
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	ref := trace.Open(plain)
	for _, name := range []string{"run.json.gz", "run.json"} {
		tr := trace.Open(chromeFile(t, name, z.String()))
		for i, p := range ref.Processes() {
			checkReadEvents(t, name, chromeEvents(tr, tr.Process(i), 0, false), chromeEvents(ref, p, 0, false))
		}
	}
	// a truncated gzip stream fails with an *Error
	_, err = trace.Load(chromeFile(t, "cut.json.gz", z.String()[:z.Len()/2]))
	var te *trace.Error
	if !errors.As(err, &te) {
		t.Errorf("truncated gzip: %v, want an *Error", err)
	}
}

// TestReadChromeErrors checks the byte offset and event index that errors
// name on malformed files. The offsets are found in the text by the test
// (where the offending event starts), not copied from the reader's output.
func TestReadChromeErrors(t *testing.T) {
	const ok0 = `{"name":"a","ph":"B","ts":1,"pid":1,"tid":1}`
	cases := []struct {
		name, text string
		at         string // the offending event's text: the error's offset is where it starts
		index      int64  // its index; -1 for errors outside an event
		msg        string // in the error
	}{
		{"truncated mid-event", `[` + ok0 + `,{"name":"a","ph":"E","ts":2,"pi`, `{"name":"a","ph":"E"`, 1, "unexpected end of input"},
		{"unbalanced E", `[` + ok0 + `, {"ph":"E","ts":2,"pid":1,"tid":1}, {"ph":"E","ts":3,"pid":1,"tid":1}]`, `{"ph":"E","ts":3`, 2, "without a B event open"},
		{"E before its B", `[{"ph":"E","ts":1,"pid":1,"tid":1}, ` + ok0 + `]`, `{"ph":"E"`, 0, "unbalanced"},
		{"ts a string", `[` + ok0 + `,` + "\n" + `{"ph":"B","name":"a","ts":"abc","pid":1,"tid":1}]`, `{"ph":"B","name":"a","ts":"abc"`, 1, `"ts" is a string ("abc")`},
		{"missing ph", `[` + ok0 + `, {"name":"a","ts":1,"pid":1,"tid":1}]`, `{"name":"a","ts":1,"pid`, 1, `without "ph"`},
		{"missing tid", `{"traceEvents": [` + ok0 + `, {"ph":"X","name":"a","ts":1,"dur":2,"pid":1}]}`, `{"ph":"X"`, 1, `without "tid"`},
		{"missing dur", `[{"ph":"X","name":"a","ts":1,"pid":1,"tid":1}]`, `{"ph":"X"`, 0, `without "dur"`},
		{"pid an object", `[{"ph":"X","name":"a","ts":1,"dur":1,"pid":{},"tid":1}]`, `{"ph":"X"`, 0, `"pid" is an object`},
		{"no colon", `[` + ok0 + `,{"ph" "B"}]`, `{"ph" "B"}`, 1, "want ':'"},
		{"bad number", `[{"ph":"B","name":"a","ts":1.e5,"pid":1,"tid":1}]`, `{"ph"`, 0, "malformed number"},
		{"X around an unended B", `[{"ph":"X","name":"x","ts":1,"dur":5,"pid":1,"tid":1},{"ph":"B","name":"b","ts":2,"pid":1,"tid":1}]`, `{"ph":"B"`, 1, "never ended inside the X event 0"},
		{"E after its X", `[{"ph":"X","name":"x","ts":1,"dur":5,"pid":1,"tid":1},{"ph":"B","name":"b","ts":2,"pid":1,"tid":1},{"ph":"E","ts":7,"pid":1,"tid":1}]`, `{"ph":"E"`, 2, "after the end of the X event 0"},
		{"not JSON", `hello`, `hello`, -1, "not a Trace Event Format file"},
		{"empty", ``, ``, -1, "empty file"},
		{"object without events", `{"displayTimeUnit":"ns"}`, `{`, -1, "without \"traceEvents\""},
		{"object truncated", `{"traceEvents":[` + ok0, ``, -1, "ends without ']' after 1 events"},
		{"data after", `[` + ok0 + `] x`, `x`, -1, "data after the end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := trace.Load(chromeFile(t, "bad.json", c.text))
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %v (%T), want an *Error", err, err)
			}
			want := int64(strings.Index(c.text, c.at))
			if c.at == "" {
				want = int64(len(c.text))
				if c.name == "empty" {
					want = 0
				}
			}
			t.Log(err)
			if te.Offset != want {
				t.Errorf("offset %d, want %d: %v", te.Offset, want, err)
			}
			var ce *trace.ChromeEventError
			if !errors.As(err, &ce) || ce.Index != c.index {
				t.Errorf("event index %v, want %d: %v", ce, c.index, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

// TestReadChromeUnterminated reads the JSON Array Format without its "]",
// with and without a trailing comma: the same trace as the full array.
func TestReadChromeUnterminated(t *testing.T) {
	full := `[{"ph":"X","name":"a","ts":1.5,"dur":2.25,"pid":1,"tid":1},{"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":1}]`
	ref := trace.Open(chromeFile(t, "full.json", full))
	want := []string{"Enter a @0", "Enter b @500", "Leave b @1500", "Leave a @2250"}
	checkReadEvents(t, "full", chromeEvents(ref, ref.Process(0), 0, false), want)
	for _, text := range []string{full[:len(full)-1], full[:len(full)-1] + ",\n"} {
		tr := trace.Open(chromeFile(t, "open.json", text))
		checkReadEvents(t, text, chromeEvents(tr, tr.Process(0), 0, false), want)
	}
}

// FuzzReadChrome feeds arbitrary bytes to ReadChrome: a trace or an *Error,
// never a panic; a trace's locations have non-decreasing times and calls
// that nest (at most calls left open at the end).
func FuzzReadChrome(f *testing.F) {
	for _, n := range []string{"kineto.json", "phases.json", "ping-pong-otf2.json", "tracebook-export.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "chrome-in", n)); err == nil {
			f.Add(b[:min(len(b), 4096)])
		}
	}
	f.Add([]byte(`[{"ph":"X","name":"a","ts":1.5,"dur":2.25,"pid":1,"tid":1},{"ph":"B","name":"b","ts":2,"pid":1,"tid":1},{"ph":"E","ts":3,"pid":1,"tid":1}`))
	f.Add([]byte(`{"traceEvents":[{"ph":"C","name":"c","ts":1,"pid":1,"args":{"v":1e3}},{"ph":"s","id":1,"ts":1,"pid":1,"tid":1},{"ph":"f","id":1,"ts":1,"pid":2,"tid":"\u00e9"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.ReadChrome(bytes.NewReader(data))
		if err != nil {
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T %v, want an *Error", err, err)
			}
			return
		}
		for _, p := range tr.Processes() {
			for i := 1; i < p.Len(); i++ {
				if p.Time[i] < p.Time[i-1] {
					t.Fatalf("%s: time %d before %d at event %d", p.Name, p.Time[i], p.Time[i-1], i)
				}
			}
			if r := p.CallRepairs(); r.OuterLeaves+r.UnmatchedLeaves+r.LeavesWithoutCall != 0 {
				t.Fatalf("%s: calls do not nest: %v", p.Name, r)
			}
		}
		_ = tr.Summary()
	})
}

// chromeSynthetic returns a Trace Event Format file (JSON Object Format)
// of threads × calls complete events in the shape of a Kineto CPU thread:
// each call an X with one nested X and a launch flow to a GPU stream.
func chromeSynthetic(threads, calls int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"displayTimeUnit":"ns","traceEvents":[` + "\n")
	b.WriteString(`{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"GPU 0"}}`)
	for th := range threads {
		for i := range calls {
			ts := float64(i)*10.5 + float64(th)*0.001
			fmt.Fprintf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":100,\"tid\":%d,\"ts\":%.3f,\"dur\":8.250,\"args\":{\"External id\":%d}}", i%50, th, ts, i)
			fmt.Fprintf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":%d,\"ts\":%.3f,\"dur\":2.125,\"args\":{\"correlation\":%d}}", th, ts+1, i)
			fmt.Fprintf(&b, ",\n{\"ph\":\"s\",\"id\":%d,\"pid\":100,\"tid\":%d,\"ts\":%.3f,\"cat\":\"ac2g\",\"name\":\"ac2g\"}", th*calls+i, th, ts+1)
			fmt.Fprintf(&b, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel%d\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,\"dur\":5.000}", i%20, 7+th, ts+4)
			fmt.Fprintf(&b, ",\n{\"ph\":\"f\",\"id\":%d,\"pid\":0,\"tid\":%d,\"ts\":%.3f,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}", th*calls+i, 7+th, ts+4)
		}
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// TestReadChromeSynthetic checks the synthetic file of the benchmark: every
// call, launch and kernel is there, with a message per flow.
func TestReadChromeSynthetic(t *testing.T) {
	const threads, calls = 2, 300
	tr, err := trace.ReadChrome(bytes.NewReader(chromeSynthetic(threads, calls)))
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumProcesses() != 2*threads {
		t.Fatalf("%d processes, want %d", tr.NumProcesses(), 2*threads)
	}
	k := tr.KindCounts()
	if k[trace.Enter] != 3*threads*calls || k[trace.Leave] != 3*threads*calls || k[trace.MpiSend] != threads*calls || k[trace.MpiRecv] != threads*calls {
		t.Errorf("kinds %v", k)
	}
}

// BenchmarkReadChrome reads a synthetic Kineto-shaped file of 100,000
// complete events and 40,000 flow events; MB/s is the import throughput.
func BenchmarkReadChrome(b *testing.B) {
	data := chromeSynthetic(4, 10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var events int64
	for b.Loop() {
		tr, err := trace.ReadChrome(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		events = tr.NumEvents()
	}
	b.ReportMetric(float64(events), "events")
}

// TestReadChromeIDs checks the identity and order of pids and tids: a
// number and its string are two processes, 1 and 1.0 one; numbers come
// first, in numeric order, then strings in order of appearance; events out
// of order in the file are sorted.
func TestReadChromeIDs(t *testing.T) {
	text := `[{"ph":"X","name":"a","ts":5,"dur":1,"pid":"1","tid":1},
{"ph":"X","name":"b","ts":3,"dur":1,"pid":10,"tid":2},
{"ph":"X","name":"c","ts":1,"dur":1,"pid":1.0,"tid":"t"},
{"ph":"X","name":"d","ts":2,"dur":1,"pid":1,"tid":"t"},
{"ph":"X","name":"e","ts":0,"dur":1,"pid":10,"tid":-3},
{"ph":"X","name":"f","ts":4,"dur":1,"pid":"0","tid":1}]`
	tr := trace.Open(chromeFile(t, "ids.json", text))
	var have []string
	for _, p := range tr.Processes() {
		have = append(have, fmt.Sprintf("%s rank %d thread %d: %s", p.Name, p.Rank, p.Thread, strings.Join(chromeEvents(tr, p, 0, false), ", ")))
	}
	want := []string{
		"Process 1 / Thread t rank 0 thread 0: Enter c @1000, Leave c @2000, Enter d @2000, Leave d @3000",
		"Process 10 / Thread -3 rank 1 thread 0: Enter e @0, Leave e @1000",
		"Process 10 / Thread 2 rank 1 thread 1: Enter b @3000, Leave b @4000",
		"Process 1 / Thread 1 rank 2 thread 0: Enter a @5000, Leave a @6000",
		"Process 0 / Thread 1 rank 3 thread 0: Enter f @4000, Leave f @5000",
	}
	checkReadEvents(t, "processes", have, want)
}

// TestReadChromeSameTimeOrder reads B and E events of one timestamp written
// out of order (as pipit's to_chrome does): a named E ends its own call
// before calls begun at its ts, and before the calls inside it whose E
// events follow at its ts. Expected events derived by hand.
func TestReadChromeSameTimeOrder(t *testing.T) {
	ev := func(ph, name string, ts int) string {
		if name == "" {
			return fmt.Sprintf(`{"ph":%q,"ts":%d,"pid":1,"tid":1}`, ph, ts)
		}
		return fmt.Sprintf(`{"ph":%q,"name":%q,"ts":%d,"pid":1,"tid":1}`, ph, name, ts)
	}
	cases := []struct {
		events []string
		want   []string
	}{
		{[]string{ev("B", "a", 1), ev("B", "b", 2), ev("E", "a", 5), ev("B", "c", 5), ev("E", "b", 5), ev("E", "c", 6)},
			[]string{"Enter a @0", "Enter b @1000", "Leave b @4000", "Leave a @4000", "Enter c @4000", "Leave c @5000"}},
		{[]string{ev("B", "a", 1), ev("B", "c", 5), ev("E", "a", 5), ev("E", "c", 6)},
			[]string{"Enter a @0", "Leave a @4000", "Enter c @4000", "Leave c @5000"}},
		{[]string{ev("B", "init", 1), ev("B", "setup", 2), ev("B", "bar", 5), ev("E", "init", 5), ev("E", "setup", 5), ev("E", "bar", 6)},
			[]string{"Enter init @0", "Enter setup @1000", "Leave setup @4000", "Leave init @4000", "Enter bar @4000", "Leave bar @5000"}},
		// an E without a name, or naming no open call, ends the innermost call
		{[]string{ev("B", "a", 1), ev("B", "c", 5), ev("E", "", 5), ev("E", "x", 6)},
			[]string{"Enter a @0", "Enter c @4000", "Leave c @4000", "Leave a @5000"}},
	}
	for i, c := range cases {
		tr := trace.Open(chromeFile(t, "order.json", "["+strings.Join(c.events, ",")+"]"))
		checkReadEvents(t, fmt.Sprint("case ", i), chromeEvents(tr, tr.Process(0), 0, false), c.want)
	}
}

// BenchmarkReadChromeFile reads the file named by TRACEBOOK_CHROME_FILE
// (skipped when unset): the import throughput of a large export, such as
// pipit's to_chrome of a generated OTF2 trace; it reports the model's
// bytes per event.
func BenchmarkReadChromeFile(b *testing.B) {
	path := os.Getenv("TRACEBOOK_CHROME_FILE")
	if path == "" {
		b.Skip("TRACEBOOK_CHROME_FILE not set")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var tr *trace.Trace
	for b.Loop() {
		if tr, err = trace.Load(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tr.NumEvents()), "events")
	b.ReportMetric(float64(tr.MemoryBytes())/float64(tr.NumEvents()), "model-B/event")
}

// TestReadChromeMemory reads a gzip stream whose size is unknown before it
// is read under a memory limit: the reader stops with a memory error as its
// events grow past it, while a small file reads.
func TestReadChromeMemory(t *testing.T) {
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "8M")
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(chromeSynthetic(4, 10000))
	w.Close()
	_, err := trace.Load(chromeFile(t, "big.json.gz", z.String()))
	var me *work.MemoryError
	var te *trace.Error
	if !errors.As(err, &me) || !errors.As(err, &te) || te.Offset <= 0 {
		t.Fatalf("error %v, want an *Error with an offset wrapping a *work.MemoryError", err)
	}
	if _, err := trace.Load(filepath.Join("testdata", "chrome-in", "kineto.json")); err != nil {
		t.Fatal(err)
	}
}

// TestReadChromeInterrupt loads a file in an interrupted cell: the load
// stops with work.ErrInterrupted, and succeeds once the cell is not
// interrupted.
func TestReadChromeInterrupt(t *testing.T) {
	path := chromeFile(t, "big.json", string(chromeSynthetic(2, 5000)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	work.SetContext(ctx)
	_, err := trace.Load(path)
	work.SetContext(context.Background())
	if !errors.Is(err, work.ErrInterrupted) {
		t.Errorf("Load in an interrupted cell: %v", err)
	}
	if _, err := trace.Load(path); err != nil {
		t.Fatal(err)
	}
}

// TestReadChromeTracebookExport reads a hand-written file in the shape of
// WriteChrome's output (its conventions, ChromeFormat 1): levels order the
// events of one ts as written (without them the zero-length MPI_Send would
// nest in work), an unclosed call stays open, Metric instants become
// Metric events and a metric stream, derived flows and counters are
// skipped. Expected events derived by hand.
func TestReadChromeTracebookExport(t *testing.T) {
	tr := trace.Open(filepath.Join("testdata", "chrome-in", "tracebook-export.json"))
	want := [][]string{
		{"Enter main @0", "Metric Metric @0", "Enter MPI_Send @2000", "MpiSend MpiSend @2000 peer 1 tag 7 bytes 64",
			"Leave MPI_Send @2000", "Enter work @2000", "Leave work @5000", "Leave main @10000"},
		{"Enter MPI_Recv @1000", "MpiRecv MpiRecv @3000 peer 0 tag 7 bytes 64"},
	}
	if tr.NumProcesses() != 2 {
		t.Fatalf("%d processes, want 2: %v", tr.NumProcesses(), tr.Processes())
	}
	for i, p := range tr.Processes() {
		checkReadEvents(t, p.Name, chromeEvents(tr, p, 0, false), want[i])
	}
	p := tr.Process(0)
	if m := &p.Metrics; m.Len() != 1 || m.Float(0, 0) != 100 || tr.Defs.MetricMembers[tr.Defs.MetricClasses[m.Metric[0]].Members[0]].Name != "PAPI_TOT_CYC" {
		t.Errorf("metric row %+v", p.Metrics)
	}
	if c := p.Msgs.Comm[0]; c < 0 || tr.Defs.Comms[c].Name != "Comm 0" {
		t.Errorf("comm %d %+v", c, tr.Defs.Comms)
	}
	if r := tr.Process(1).CallRepairs(); r != (trace.CallRepairs{OpenAtEnd: 1}) {
		t.Errorf("repairs %+v, want the unclosed MPI_Recv", r)
	}
	s := tr.MetricStreams()
	if len(s) != 1 || s[0].Len() != 1 || s[0].Time[0] != 1500 || !math.IsNaN(s[0].Metrics.Float(0, 0)) || s[0].Rank != 1 {
		t.Errorf("metric streams %v", s)
	}
	wantSkipped := "derived counter of a tracebook export (its values are Metric instants) ×2, derived flow of a tracebook export (its messages are instants) ×1"
	if got := tr.Defs.Properties["chrome:skipped"]; got != wantSkipped {
		t.Errorf("skipped %q, want %q", got, wantSkipped)
	}
}
