package trace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/profile"
	_ "github.com/tracebook/tracebook/builtins/profile" // sets trace.ChromeMessages (the p2p matcher)
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
	"github.com/tracebook/tracebook/builtins/work"
)

// chromeTraces are the traces the export is checked on, with pipit's
// to_chrome output for each (testdata/chrome/README.md says how it was made).
var chromeTraces = []struct{ name, otf2, pipit string }{
	{"ping-pong", "../../test/data/traces/ping-pong-otf2/traces.otf2", "testdata/chrome/pipit-ping-pong-otf2.json"},
	{"ping-pong-papi", "../../test/data/traces/ping-pong-otf2-papi/traces.otf2", "testdata/chrome/pipit-ping-pong-otf2-papi.json"},
	{"spmd-small", "testdata/chrome/spmd-small/traces.otf2", "testdata/chrome/pipit-spmd-small.json"},
}

// metricStreamsTrace has METRIC locations (pipit has no output for it).
const metricStreamsTrace = "../../test/data/traces/metric-streams/traces.otf2"

// chromeEvent is one event of a Trace Event Format file, numbers kept as
// written.
type chromeEvent struct {
	Ph   string                     `json:"ph"`
	Name string                     `json:"name"`
	Cat  string                     `json:"cat"`
	Pid  *int                       `json:"pid"`
	Tid  *int                       `json:"tid"`
	Ts   json.Number                `json:"ts"`
	Dur  json.Number                `json:"dur"`
	S    string                     `json:"s"`
	Bp   string                     `json:"bp"`
	ID   *json.Number               `json:"id"`
	Args map[string]json.RawMessage `json:"args"`
}

// readChromeFile reads a file WriteChrome wrote (gunzipped when .gz).
func readChromeFile(t *testing.T, path string) (events []chromeEvent, doc map[string]json.RawMessage) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	}
	if !json.Valid(raw) {
		t.Fatalf("%s: not valid JSON", path)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(doc["traceEvents"]))
	d.UseNumber()
	if err := d.Decode(&events); err != nil {
		t.Fatal(err)
	}
	return events, doc
}

var micros3 = regexp.MustCompile(`^-?[0-9]+\.[0-9]{3}$`)

// nsOf parses a "µs with three decimals" number exactly.
func nsOf(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	if !micros3.MatchString(s) {
		t.Fatalf("time %q is not µs with three decimals", s)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	v, err := strconv.ParseInt(strings.Replace(s, ".", "", 1), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if neg {
		v = -v
	}
	return v
}

func argInt(t *testing.T, e chromeEvent, key string) int64 {
	t.Helper()
	raw, ok := e.Args[key]
	if !ok {
		t.Fatalf("%s %q: no arg %q", e.Ph, e.Name, key)
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		t.Fatalf("%s %q: arg %q=%s: %v", e.Ph, e.Name, key, raw, err)
	}
	return v
}

// checkChromeEvents checks the fields every phase requires, that flow
// ids pair once each (an "s" before its "f" in time), and that the
// primary events of each thread have non-decreasing ts.
func checkChromeEvents(t *testing.T, events []chromeEvent) {
	t.Helper()
	type key struct{ pid, tid int }
	last := map[key]int64{}
	starts := map[string]int64{}
	ends := map[string]bool{}
	for i, e := range events {
		if e.Pid == nil || e.Ph == "" {
			t.Fatalf("event %d: no ph or pid: %+v", i, e)
		}
		if e.Ph == "M" {
			if e.Name == "tracebook_definitions" {
				if i != 0 {
					t.Fatalf("event %d: the definitions are not the first event", i)
				}
				continue
			}
			if e.Name != "process_name" && e.Name != "process_sort_index" && e.Name != "thread_name" && e.Name != "thread_sort_index" {
				t.Fatalf("event %d: metadata %q", i, e.Name)
			}
			if strings.HasPrefix(e.Name, "thread") && e.Tid == nil {
				t.Fatalf("event %d: %s without tid", i, e.Name)
			}
			continue
		}
		if e.Tid == nil || e.Name == "" || e.Ts == "" {
			t.Fatalf("event %d: no tid, name or ts: %+v", i, e)
		}
		ts := nsOf(t, e.Ts)
		switch e.Ph {
		case "X":
			if d := nsOf(t, e.Dur); d < 0 {
				t.Fatalf("event %d: negative dur", i)
			}
		case "i":
			if e.S != "t" {
				t.Fatalf("event %d: instant scope %q", i, e.S)
			}
		case "C":
			for k, v := range e.Args {
				if _, err := strconv.ParseFloat(string(v), 64); err != nil {
					t.Fatalf("event %d: counter %s=%s is not a number", i, k, v)
				}
			}
		case "s", "f":
			if e.ID == nil {
				t.Fatalf("event %d: flow without id", i)
			}
			id := string(*e.ID)
			if e.Ph == "s" {
				if _, dup := starts[id]; dup {
					t.Fatalf("event %d: flow id %s starts twice", i, id)
				}
				starts[id] = ts
			} else {
				if e.Bp != "e" {
					t.Fatalf("event %d: flow end without bp e", i)
				}
				if ends[id] {
					t.Fatalf("event %d: flow id %s ends twice", i, id)
				}
				ends[id] = true
			}
		default:
			t.Fatalf("event %d: phase %q", i, e.Ph)
		}
		if e.Cat == "metric stream" || e.Ph == "s" || e.Ph == "f" || e.Ph == "C" {
			continue
		}
		k := key{*e.Pid, *e.Tid}
		if l, ok := last[k]; ok && ts < l {
			t.Fatalf("event %d: ts %d before %d on pid %d tid %d", i, ts, l, k.pid, k.tid)
		}
		last[k] = ts
	}
	if len(starts) != len(ends) {
		t.Fatalf("%d flow starts, %d flow ends", len(starts), len(ends))
	}
	for id := range starts {
		if !ends[id] {
			t.Fatalf("flow %s has no end", id)
		}
	}
}

// chromeModelEvent is one event as the model holds it, with its payload as text.
type chromeModelEvent struct {
	Kind trace.EventKind
	Time int64
	What string
}

// invertChrome rebuilds each thread's events from the primary events by
// the conventions of WriteChrome's doc: X events are an Enter and, unless
// unclosed, a Leave written when an event of a lower level comes (or the
// thread ends); the rest one event each.
func invertChrome(t *testing.T, tr *trace.Trace, events []chromeEvent) map[[2]int][]chromeModelEvent {
	type open struct {
		end    int64
		region string
		closed bool
	}
	out := map[[2]int][]chromeModelEvent{}
	stacks := map[[2]int][]open{}
	closeTo := func(k [2]int, level int) {
		s := stacks[k]
		for len(s) > level {
			o := s[len(s)-1]
			s = s[:len(s)-1]
			if o.closed {
				out[k] = append(out[k], chromeModelEvent{trace.Leave, o.end, o.region})
			}
		}
		stacks[k] = s
	}
	for _, e := range events {
		if e.Ph == "M" || e.Ph == "s" || e.Ph == "f" || e.Ph == "C" {
			continue
		}
		k := [2]int{*e.Pid, *e.Tid}
		ts := nsOf(t, e.Ts)
		lvl := int(argInt(t, e, "level"))
		closeTo(k, lvl)
		switch {
		case e.Ph == "X":
			out[k] = append(out[k], chromeModelEvent{trace.Enter, ts, e.Name})
			_, unclosed := e.Args["unclosed"]
			leaves := e.Name
			if _, ok := e.Args["leave_region"]; ok {
				leaves = tr.RegionName(int32(argInt(t, e, "leave_region")))
			}
			stacks[k] = append(stacks[k], open{ts + nsOf(t, e.Dur), leaves, !unclosed})
		case e.Cat == "leave":
			out[k] = append(out[k], chromeModelEvent{trace.Leave, ts, e.Name})
		default:
			kind, ok := trace.ParseEventKind(e.Name)
			if !ok {
				t.Fatalf("instant %q is no event kind", e.Name)
			}
			delete(e.Args, "level")
			keys := make([]string, 0, len(e.Args))
			for a := range e.Args {
				keys = append(keys, a)
			}
			slices.Sort(keys)
			var b strings.Builder
			for _, a := range keys {
				fmt.Fprintf(&b, "%s=%s ", a, e.Args[a])
			}
			out[k] = append(out[k], chromeModelEvent{kind, ts, strings.TrimSpace(b.String())})
		}
	}
	for k := range stacks {
		closeTo(k, 0)
	}
	return out
}

// chromeModelEvents lists p's events with their payload as invertChrome spells it.
func chromeModelEvents(tr *trace.Trace, p *trace.Process) []chromeModelEvent {
	var out []chromeModelEvent
	for i, k := range p.Kind {
		e := chromeModelEvent{Kind: k, Time: p.Time[i]}
		r := int(p.Ref[i])
		var args []string
		switch k {
		case trace.Enter, trace.Leave:
			e.What = string([]rune(tr.RegionName(p.Ref[i]))) // invalid UTF-8: U+FFFD per byte, as written
		case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
			m := &p.Msgs
			args = []string{fmt.Sprintf("bytes=%d", m.Bytes[r]), fmt.Sprintf("comm=%d", m.Comm[r]), fmt.Sprintf("peer=%d", m.Peer[r]),
				fmt.Sprintf("request=%d", m.Request[r]), fmt.Sprintf("tag=%d", m.Tag[r])}
		case trace.MpiCollectiveEnd:
			c := &p.Colls
			args = []string{fmt.Sprintf("comm=%d", c.Comm[r]), fmt.Sprintf("op=%q", trace.CollectiveOpName(c.Op[r])),
				fmt.Sprintf("received=%d", c.Received[r]), fmt.Sprintf("sent=%d", c.Sent[r])}
			if c.Root[r] != trace.RootNone {
				args = append(args, fmt.Sprintf("root=%d", c.Root[r]))
			}
		case trace.Metric:
			args = metricArgStrings(tr, &p.Metrics, r)
		}
		slices.Sort(args)
		if args != nil {
			e.What = strings.Join(args, " ")
		}
		out = append(out, e)
	}
	return out
}

// metricArgStrings spells metric row r's class and members as
// invertChrome does.
func metricArgStrings(tr *trace.Trace, m *trace.Metrics, r int) []string {
	cls := m.Metric[r]
	args := []string{fmt.Sprintf("class=%d", cls)}
	for j := m.Start[r]; j < m.Start[r+1]; j++ {
		name := tr.Defs.MetricMembers[tr.Defs.MetricClasses[cls].Members[j-m.Start[r]]].Name
		var v string
		switch m.Types[j] {
		case trace.MetricInt64:
			v = strconv.FormatInt(int64(m.Values[j]), 10)
		case trace.MetricUint64:
			v = strconv.FormatUint(m.Values[j], 10)
		default:
			f := math.Float64frombits(m.Values[j])
			switch {
			case math.IsNaN(f):
				v = `"NaN"`
			case math.IsInf(f, 0):
				v = strconv.Quote(fmt.Sprintf("%+v", f))
			default:
				v = strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		args = append(args, name+"="+v)
	}
	return args
}

// TestWriteChromeInverts checks the JSON of every real trace and that the
// events, rebuilt from the file by the documented conventions alone, are
// the model's events exactly (kind, ns, region or payload, in order).
func TestWriteChromeInverts(t *testing.T) {
	traces := append(chromeTraces[:len(chromeTraces):len(chromeTraces)], struct{ name, otf2, pipit string }{"metric-streams", metricStreamsTrace, ""})
	for _, c := range traces {
		t.Run(c.name, func(t *testing.T) {
			tr := trace.Open(c.otf2)
			path := filepath.Join(t.TempDir(), "out.json.gz")
			trace.WriteChrome(tr, path)
			events, doc := readChromeFile(t, path)
			for _, f := range []string{"traceEvents", "displayTimeUnit", "otherData"} {
				if _, ok := doc[f]; !ok {
					t.Fatalf("no %s", f)
				}
			}
			checkChromeEvents(t, events)
			var defs struct {
				Name        string
				Definitions trace.Definitions
			}
			if err := json.Unmarshal(events[0].Args["definitions"], &defs); err != nil || events[0].Name != "tracebook_definitions" {
				t.Fatalf("first event %q: definitions: %v", events[0].Name, err)
			}
			if defs.Name != tr.Name() || !reflect.DeepEqual(defs.Definitions.Regions, tr.Defs.Regions) ||
				!reflect.DeepEqual(defs.Definitions.Clock, tr.Defs.Clock) || len(defs.Definitions.MetricMembers) != len(tr.Defs.MetricMembers) {
				t.Fatalf("definitions of %q differ from the trace's", defs.Name)
			}
			got := invertChrome(t, tr, events)
			for _, p := range tr.Processes() {
				want := chromeModelEvents(tr, p)
				g := got[[2]int{int(p.Rank), int(p.Thread)}]
				if len(g) != len(want) {
					t.Fatalf("%s: %d events back, want %d", p.Name, len(g), len(want))
				}
				for i := range want {
					if g[i] != want[i] {
						t.Fatalf("%s: event %d: got %+v, want %+v", p.Name, i, g[i], want[i])
					}
				}
			}
			for _, st := range tr.MetricStreams() {
				var want []chromeModelEvent
				for i := range st.Len() {
					args := append(metricArgStrings(tr, &st.Metrics, i), fmt.Sprintf("location=%d", st.Location))
					slices.Sort(args)
					want = append(want, chromeModelEvent{trace.Metric, st.Time[i], strings.Join(args, " ")})
				}
				g := got[[2]int{int(st.Rank), trace.ChromeStreamTid + st.Location}]
				if !slices.Equal(g, want) {
					t.Fatalf("stream %s: got %v, want %v", st.Name, g, want)
				}
			}
			if len(tr.MetricStreams()) == 0 && c.name == "metric-streams" {
				t.Fatal("no metric streams")
			}
			// flows: as many as profile.Messages matches, each from a send
			// record to the receive record of the same message
			mm := profile.Messages(tr)
			var flows int
			for _, e := range events {
				if e.Ph == "s" {
					flows++
				}
			}
			if flows != len(mm.Send) {
				t.Fatalf("%d flows, profile.Messages matched %d", flows, len(mm.Send))
			}
		})
	}
}

// pipitKey is an event as pipit's to_chrome writes it: (process, thread,
// phase, name, µs).
type pipitKey struct {
	pid, tid int
	ph, name string
	ts       int64
}

// TestWriteChromeMatchesPipit compares the export with pipit's to_chrome
// on the same OTF2 traces: the same events per rank and thread, as
// multisets of (pid, tid, phase, name, µs) in pipit's terms.
//
// pipit writes each Enter and Leave as "B"/"E" at int(ns/1e3) (µs
// truncated, from float ns) and every other record as an "i" instant
// named by its kind (ProgramBegin, ProgramEnd, MpiSend, MpiIrecvRequest,
// MpiCollectiveBegin...), pid its Process (location group), tid its
// Thread: the same numbering as ours. Ours map to that: an X event to a B
// at floor(ts) and, unless unclosed, an E at floor(ts+dur) (ns exact, µs
// truncated as pipit truncates; all times here are positive). The
// differences, taken out here:
//   - pipit drops Metric records (its OTF2 reader folds them away): our
//     "Metric" instants and counter events have no counterpart;
//   - our flow events ("s"/"f") are extra: pipit writes no message lines;
//   - pipit sorts all events by time with an unstable sort, so Leaves and
//     Enters of equal time may swap: its B/E cannot be paired reliably
//     (two MPI_Irecv calls back to back pair wrongly), hence multisets
//     of events rather than of calls.
func TestWriteChromeMatchesPipit(t *testing.T) {
	for _, c := range chromeTraces {
		t.Run(c.name, func(t *testing.T) {
			tr := trace.Open(c.otf2)
			path := filepath.Join(t.TempDir(), "out.json")
			trace.WriteChrome(tr, path)
			ours, _ := readChromeFile(t, path)
			var want []pipitKey
			for _, e := range ours {
				switch {
				case e.Ph == "X":
					b := nsOf(t, e.Ts)
					want = append(want, pipitKey{*e.Pid, *e.Tid, "B", e.Name, b / 1000})
					if _, unclosed := e.Args["unclosed"]; !unclosed {
						want = append(want, pipitKey{*e.Pid, *e.Tid, "E", e.Name, (b + nsOf(t, e.Dur)) / 1000})
					}
				case e.Ph == "i" && e.Cat != "metric":
					want = append(want, pipitKey{*e.Pid, *e.Tid, "i", e.Name, nsOf(t, e.Ts) / 1000})
				}
			}
			raw, err := os.ReadFile(c.pipit)
			if err != nil {
				t.Fatal(err)
			}
			var pe []struct {
				Name     string
				Ph       string
				Ts       int64
				Pid, Tid int
			}
			if err := json.Unmarshal(raw, &pe); err != nil {
				t.Fatal(err)
			}
			var got []pipitKey
			for _, e := range pe {
				got = append(got, pipitKey{e.Pid, e.Tid, e.Ph, e.Name, e.Ts})
			}
			cmp := func(a, b pipitKey) int {
				return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
			}
			slices.SortFunc(got, cmp)
			slices.SortFunc(want, cmp)
			if len(got) != len(want) {
				t.Fatalf("pipit has %d events, we %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("event %d: pipit %+v, ours %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestWriteChromeOdd covers what real traces lack: calls never left,
// Leaves with no call open, metric doubles that are not finite, names that
// need escaping, negative times; and an interrupted or failing write.
func TestWriteChromeOdd(t *testing.T) {
	for _, distinct := range []bool{true, false} {
		tr := tracetest.RandomTrace(rand.New(rand.NewPCG(5, 7)), 3, 400, distinct)
		for i, p := range tr.Processes() {
			p.Rank = int32(i) // RandomTrace leaves every process rank 0
		}
		// a process with metrics (a NaN, an infinity, a large uint64),
		// a region name to escape and a negative time
		tr.Defs.Regions = append(tr.Defs.Regions, trace.Region{Name: "q\"x\"\n\x01é\xff", Paradigm: "user"})
		q := tr.Processes()[2]
		q.Kind = append([]trace.EventKind{trace.Enter, trace.Metric, trace.Metric, trace.Leave}, q.Kind...)
		q.Time = append([]int64{-1500, -1500, -7, -7}, q.Time...)
		reg := int32(len(tr.Defs.Regions) - 1)
		tr.Defs.MetricMembers = []trace.MetricMember{{Name: "cyc"}, {Name: "temp"}}
		tr.Defs.MetricClasses = []trace.MetricClass{{Members: []int32{0, 1}}}
		r0 := q.Metrics.Add(0, []uint8{trace.MetricUint64, trace.MetricDouble}, []uint64{1<<64 - 1, math.Float64bits(math.NaN())})
		r1 := q.Metrics.Add(0, []uint8{trace.MetricUint64, trace.MetricDouble}, []uint64{3, math.Float64bits(math.Inf(-1))})
		q.Ref = append([]int32{reg, r0, r1, reg}, q.Ref...)
		path := filepath.Join(t.TempDir(), "r.json")
		trace.WriteChrome(tr, path)
		events, _ := readChromeFile(t, path)
		checkChromeEvents(t, events)
		got := invertChrome(t, tr, events)
		for _, p := range tr.Processes() {
			want := chromeModelEvents(tr, p)
			g := got[[2]int{int(p.Rank), int(p.Thread)}]
			if !slices.Equal(g, want) {
				t.Fatalf("%s: events differ:\n got %v\nwant %v", p.Name, g, want)
			}
		}
	}
	// a window: calls clipped at both ends are synthetic Enters and Leaves
	whole := trace.Open(chromeTraces[2].otf2)
	w := whole.Window(time.Duration(whole.Duration()/3), time.Duration(2*whole.Duration()/3))
	path := filepath.Join(t.TempDir(), "w.json")
	trace.WriteChrome(w, path)
	events, _ := readChromeFile(t, path)
	checkChromeEvents(t, events)
	got := invertChrome(t, w, events)
	for _, p := range w.Processes() {
		if g, want := got[[2]int{int(p.Rank), int(p.Thread)}], chromeModelEvents(w, p); !slices.Equal(g, want) {
			t.Fatalf("window %s: events differ:\n got %v\nwant %v", p.Name, g, want)
		}
	}

	// GPU streams: threads of a process named "GPU n"
	g := synth.Generate(synth.HybridGPUConfig(2, 2, 2))
	path = filepath.Join(t.TempDir(), "g.json")
	trace.WriteChrome(g, path)
	events, _ = readChromeFile(t, path)
	checkChromeEvents(t, events)
	got = invertChrome(t, g, events)
	names := map[int]string{}
	for _, e := range events {
		if e.Ph == "M" && e.Name == "process_name" {
			var n string
			_ = json.Unmarshal(e.Args["name"], &n)
			names[*e.Pid] = n
		}
	}
	gpus := 0
	for _, p := range g.Processes() {
		if gw, want := got[[2]int{int(p.Rank), int(p.Thread)}], chromeModelEvents(g, p); !slices.Equal(gw, want) {
			t.Fatalf("%s: events differ", p.Name)
		}
		if gpu, n, _ := p.Place(); gpu {
			gpus++
			if names[int(p.Rank)] != fmt.Sprintf("GPU %d", n) {
				t.Fatalf("%s: process named %q", p.Name, names[int(p.Rank)])
			}
		}
	}
	if gpus == 0 {
		t.Fatal("no GPU streams in the hybrid trace")
	}

	tr := trace.Open(chromeTraces[0].otf2)
	// a write that fails names the file and leaves nothing
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "x.json")
	err := work.Try(func() { trace.WriteChrome(tr, bad) })
	var we *work.Error
	if !errors.As(err, &we) || we.Func != "trace.WriteChrome" || !strings.Contains(we.Msg, bad) {
		t.Fatalf("error %v, want a trace.WriteChrome error naming %s", err, bad)
	}
}

// TestAlignWriteChrome checks the comparison export: three tracks, the
// states tiling the aligned axis in runs with their pair counts summing to
// the alignment's length, the calls of each side one per element.
func TestAlignWriteChrome(t *testing.T) {
	tr := trace.Open(chromeTraces[2].otf2)
	ps := tr.Processes()
	r := align.Pair(ps[0], ps[1])
	path := filepath.Join(t.TempDir(), "a.json")
	r.WriteChrome(path)
	events, _ := readChromeFile(t, path)
	checkChromeEvents(t, events)
	threads := map[int]string{}
	var pairs int64
	var lastEnd int64 = -1
	perTid := map[int]int{}
	for _, e := range events {
		if e.Ph == "M" && e.Name == "thread_name" {
			var s struct{ Name string }
			_ = json.Unmarshal(e.Args["name"], &s.Name)
			threads[*e.Tid] = s.Name
		}
		if e.Ph != "X" {
			continue
		}
		perTid[*e.Tid]++
		if threads[*e.Tid] == "alignment states" {
			var n string
			_ = json.Unmarshal(e.Args["pairs"], &n)
			v, _ := strconv.ParseInt(n, 10, 64)
			pairs += v
			if b := nsOf(t, e.Ts); lastEnd >= 0 && b != lastEnd {
				t.Fatalf("state runs do not tile: %d after %d", b, lastEnd)
			}
			lastEnd = nsOf(t, e.Ts) + nsOf(t, e.Dur)
		}
	}
	if len(threads) != 3 || threads[1] != "alignment states" {
		t.Fatalf("tracks %v", threads)
	}
	eq, diff, gapA, gapB := r.Counts()
	if pairs != int64(r.Len()) || perTid[0] != eq+diff+gapB || perTid[2] != eq+diff+gapA {
		t.Fatalf("pairs %d (want %d), A calls %d (want %d), B calls %d (want %d)", pairs, r.Len(), perTid[0], eq+diff+gapB, perTid[2], eq+diff+gapA)
	}
}

// BenchmarkWriteChrome writes a generated trace (16 ranks, 400 iterations); b.SetBytes
// is the file's size, so the MB/s column is the export throughput.
func BenchmarkWriteChrome(b *testing.B) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 16, 400
	tr := synth.Generate(cfg)
	path := filepath.Join(b.TempDir(), "b.json")
	trace.WriteChrome(tr, path)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for range b.N {
		trace.WriteChrome(tr, path)
	}
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// An interrupted cell stops the export: the panic unwraps to
// work.ErrInterrupted and the file keeps its old content.
func TestWriteChromeStopsAtInterrupt(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 4, 200
	tr := synth.Generate(cfg)
	path := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(path, []byte("old"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]trace.ChromeOption{nil, {trace.WithoutFlows()}} {
		var p any
		interrupted(func() {
			defer func() { p = recover() }()
			trace.WriteChrome(tr, path, opts...)
		})
		err, _ := p.(error)
		var we *work.Error
		if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &we) || we.Func != "trace.WriteChrome" {
			t.Fatalf("interrupted WriteChrome panicked with %v", p)
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Fatalf("interrupted write changed the file: %.40q", b)
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) != 0 {
			t.Fatalf("interrupted write left %v", left)
		}
	}
}
