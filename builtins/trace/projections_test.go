package trace_test

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/projections"
	"github.com/tracebook/tracebook/builtins/work"
)

const projPingPong = "../../test/data/traces/ping-pong-projections"

// projEvent is an event as pipit's events DataFrame shows it.
type projEvent struct {
	time int64
	kind string // Enter, Leave, Instant
	name string
}

func (e projEvent) String() string { return fmt.Sprintf("%d %s %q", e.time, e.kind, e.name) }

// readPipitCSV reads pipit's events per process.
func readPipitCSV(t *testing.T, path string) map[int][]projEvent {
	t.Helper()
	header, rows := readCSVFile(t, path)
	if len(rows) < 1 || strings.Join(header, ",") != "Timestamp (ns),Event Type,Name,Process" {
		t.Fatalf("unexpected header %v", header)
	}
	out := map[int][]projEvent{}
	for _, r := range rows {
		ts, err1 := strconv.ParseInt(r[0], 10, 64)
		pe, err2 := strconv.Atoi(r[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad row %v", r)
		}
		out[pe] = append(out[pe], projEvent{ts, r[1], r[2]})
	}
	return out
}

// groupByTime groups events of one process by timestamp, each group sorted:
// pipit sorts its events by time with an unstable sort, so the order of
// events of one timestamp is not the logs'.
func groupByTime(evs []projEvent) map[int64][]string {
	g := map[int64][]string{}
	for _, e := range evs {
		g[e.time] = append(g[e.time], e.kind+" "+e.name)
	}
	for _, v := range g {
		sort.Strings(v)
	}
	return g
}

// The ping-pong log set reads into the events pipit's from_projections
// makes of it, event for event: each Enter/Leave of an entry method, Idle,
// Pack and Unpack, each CREATION (pipit's Instant named by the entry; an
// MpiSend in "Charm++ messages" here) at the same ns on the same PE, and
// BEGIN/END_COMPUTATION (pipit's "Computation") as ProgramBegin/End.
// The model has more than pipit: the receives, the sends of
// CREATION_BCAST (pipit does not read it), and the Leave at END_COMPUTATION
// of the entry method still open there (pipit leaves it open); those are
// checked against the logs themselves.
func TestProjectionsMatchesPipit(t *testing.T) {
	want := readPipitCSV(t, "projections/testdata/pipit-ping-pong-events.csv")
	tr, err := trace.Load(projPingPong)
	if err != nil {
		t.Fatal(err)
	}
	sts, err := projections.ReadStsFile(filepath.Join(projPingPong, "pingpong.prj.sts"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumProcesses() != 2 || len(want) != 2 {
		t.Fatalf("%d processes, pipit %d", tr.NumProcesses(), len(want))
	}
	closedAtEnd := 0
	for pe, p := range tr.Processes() {
		if p.Name != fmt.Sprintf("PE %d", pe) {
			t.Errorf("process %d is %q", pe, p.Name)
		}
		var got []projEvent
		var end int64 = -1
		for i, k := range p.Kind {
			e := projEvent{time: p.Time[i]}
			switch k {
			case trace.ProgramBegin:
				e.kind, e.name = "Enter", "Computation"
			case trace.ProgramEnd:
				e.kind, e.name = "Leave", "Computation"
				end = p.Time[i]
			case trace.Enter, trace.Leave:
				e.kind, e.name = k.String(), tr.Defs.Regions[p.Ref[i]].Canonical
			case trace.MpiSend:
				r := p.Ref[i]
				if p.Msgs.Comm[r] != 0 {
					continue // a broadcast: pipit does not read CREATION_BCAST
				}
				e.kind, e.name = "Instant", sts.Entries[int(p.Msgs.Tag[r])].Name
			case trace.MpiRecv:
				continue
			default:
				t.Fatalf("PE %d: unexpected %v", pe, k)
			}
			got = append(got, e)
		}
		g, w := groupByTime(got), groupByTime(want[pe])
		if len(got) < len(want[pe]) {
			t.Errorf("PE %d: %d events, pipit %d", pe, len(got), len(want[pe]))
		}
		var times []int64
		for ts := range g {
			times = append(times, ts)
		}
		for ts := range w {
			if _, ok := g[ts]; !ok {
				times = append(times, ts)
			}
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		for _, ts := range times {
			a, b := g[ts], w[ts]
			if strings.Join(a, "|") == strings.Join(b, "|") {
				continue
			}
			// the only difference allowed: Leaves of calls pipit leaves
			// open, at END_COMPUTATION
			extra := minus(a, b)
			if len(minus(b, a)) == 0 && ts == end {
				ok := true
				for _, x := range extra {
					ok = ok && strings.HasPrefix(x, "Leave ")
				}
				if ok {
					closedAtEnd += len(extra)
					continue
				}
			}
			t.Errorf("PE %d at %d ns:\n got %q\nwant %q", pe, ts, a, b)
		}
	}
	if closedAtEnd != 2 || !strings.Contains(tr.Defs.Properties["projections:approximated"], "calls still open at the end of a log (ended there) ×2") {
		t.Errorf("%d calls ended at END_COMPUTATION; repaired: %q", closedAtEnd, tr.Defs.Properties["projections:approximated"])
	}
	checkProjMessages(t, tr, sts)
}

// minus returns the elements of sorted a not in sorted b (as multisets).
func minus(a, b []string) []string {
	var out []string
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			j++
			continue
		}
		out = append(out, x)
	}
	return out
}

// checkProjMessages checks the sends and receives against the logs read
// with a parser of the test's own. A message is (creating PE, event id,
// entry method); CREATION (type 1) and CREATION_BCAST (type 20) create it
// on the PE whose log holds the record, fields 3-6 its entry, time, event
// id and PE; BEGIN_PROCESSING (type 2) on PE q processes it, with the same
// fields. Its receive is the earliest processing not before the creation
// not yet taken (one per PE for a broadcast).
func checkProjMessages(t *testing.T, tr *trace.Trace, sts *projections.Sts) {
	t.Helper()
	type msg struct{ pe, ev, entry int64 }
	type rec struct {
		typ         string
		pe          int
		time, bytes int64
		key         msg
		taken       bool
	}
	var creations []*rec
	procs := map[msg][]*rec{}
	for pe := 0; pe < 2; pe++ {
		f, err := os.Open(filepath.Join(projPingPong, fmt.Sprintf("pingpong.prj.%d.log.gz", pe)))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			x := strings.Fields(sc.Text())
			num := func(i int) int64 { v, _ := strconv.ParseInt(x[i], 10, 64); return v }
			if x[0] != "1" && x[0] != "20" && x[0] != "2" {
				continue
			}
			r := &rec{typ: x[0], pe: pe, time: num(3) * 1000, bytes: num(6), key: msg{num(5), num(4), num(2)}}
			if x[0] == "2" {
				procs[r.key] = append(procs[r.key], r)
			} else {
				creations = append(creations, r)
			}
		}
		f.Close()
	}
	want := map[int][]string{}
	wantRecv := map[int][]string{}
	for _, c := range creations {
		ps := procs[c.key]
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].time < ps[j].time })
		comm := 0
		if c.typ == "20" {
			comm = 1
		}
		var peers []int
		done := map[int]bool{}
		for _, p := range ps {
			if p.taken || p.time < c.time || done[p.pe] {
				continue
			}
			p.taken = true
			peers = append(peers, p.pe)
			wantRecv[p.pe] = append(wantRecv[p.pe], fmt.Sprintf("%d peer %d comm %d tag %d bytes %d", p.time, c.pe, comm, c.key.entry, c.bytes))
			if comm == 0 {
				break
			}
			done[p.pe] = true
		}
		if len(peers) == 0 && comm == 0 {
			peers = []int{-1}
		}
		for _, q := range peers {
			want[c.pe] = append(want[c.pe], fmt.Sprintf("%d peer %d comm %d tag %d bytes %d", c.time, q, comm, c.key.entry, c.bytes))
		}
	}
	nsend, nrecv := 0, 0
	for pe, p := range tr.Processes() {
		var got, gotRecv []string
		for i, k := range p.Kind {
			if k != trace.MpiSend && k != trace.MpiRecv {
				continue
			}
			r := p.Ref[i]
			s := fmt.Sprintf("%d peer %d comm %d tag %d bytes %d", p.Time[i], p.Msgs.Peer[r], p.Msgs.Comm[r], p.Msgs.Tag[r], p.Msgs.Bytes[r])
			switch k {
			case trace.MpiSend:
				got = append(got, s)
			case trace.MpiRecv:
				gotRecv = append(gotRecv, s)
				// a receive follows the Enter of the entry method processing it
				if i == 0 || p.Kind[i-1] != trace.Enter || p.Time[i-1] != p.Time[i] ||
					tr.Defs.Regions[p.Ref[i-1]].Canonical != sts.Entries[int(p.Msgs.Tag[r])].Name {
					t.Errorf("PE %d: receive %d does not follow an Enter at its time", pe, i)
				}
			}
		}
		sort.Strings(got)
		sort.Strings(want[pe])
		sort.Strings(gotRecv)
		sort.Strings(wantRecv[pe])
		if strings.Join(got, "\n") != strings.Join(want[pe], "\n") {
			t.Errorf("PE %d sends:\n got %d %q\nwant %d %q", pe, len(got), got, len(want[pe]), want[pe])
		}
		if strings.Join(gotRecv, "\n") != strings.Join(wantRecv[pe], "\n") {
			t.Errorf("PE %d receives:\n got %d %q\nwant %d %q", pe, len(gotRecv), gotRecv, len(wantRecv[pe]), wantRecv[pe])
		}
		nsend += len(got)
		nrecv += len(gotRecv)
	}
	if nsend == 0 || nrecv == 0 {
		t.Errorf("%d sends, %d receives", nsend, nrecv)
	}
}

// projSts is a small .sts of 2 PEs for the error cases.
const projSts = `PROJECTIONS_ID
VERSION 11.0
PROCESSORS 2
TOTAL_CHARES 2
TOTAL_EPS 2
CHARE 0 "main" -1
CHARE 1 "Ping" 1
ENTRY CHARE 0 "main(CkArgMsg* m)" 0 0
ENTRY CHARE 1 "recv(int n)" 1 0
TOTAL_MSGS 1
MESSAGE 0 8
END
`

// projLog0 and projLog1: PE 0 runs main, sends a message processed on
// PE 1 (event 7 created on PE 0).
const projLog0 = `PROJECTIONS-RECORD 5
6 100
2 1 0 110 1 0 64 0 0 0 0 0 110
1 1 1 120 7 0 64 0
3 1 0 130 1 0 64 130
7 200
`

const projLog1 = `PROJECTIONS-RECORD 6
6 100
14 105 1
15 140 1
2 1 1 140 7 0 64 0 3 140
3 1 1 150 7 0 64 150
7 200
`

// writeProjSet writes a log set into a new directory: sts and the logs
// (plain text; a log nil is left out).
func writeProjSet(t *testing.T, sts string, logs ...[]byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.sts"), []byte(sts), 0o644); err != nil {
		t.Fatal(err)
	}
	for pe, l := range logs {
		if l == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p.%d.log", pe)), l, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b strings.Builder
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return []byte(b.String())
}

// lineOffset is the byte offset of line n (1-based) of s.
func lineOffset(s string, n int) int64 {
	off := 0
	for i := 1; i < n; i++ {
		off += strings.IndexByte(s[off:], '\n') + 1
	}
	return int64(off)
}

// The small log set reads: a message from PE 0 to PE 1 matched by event id
// and creating PE, Idle as a region, times µs × 1000.
func TestProjectionsSmallSet(t *testing.T) {
	dir := writeProjSet(t, projSts, []byte(projLog0), gz(t, projLog1))
	// a gzipped log is found as p.1.log.gz
	if err := os.Rename(filepath.Join(dir, "p.1.log"), filepath.Join(dir, "p.1.log.gz")); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Load(filepath.Join(dir, "p.sts"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range tr.Processes() {
		for i, k := range p.Kind {
			s := fmt.Sprintf("%s %d %s", p.Name, p.Time[i], k)
			switch k {
			case trace.Enter, trace.Leave:
				s += " " + tr.Defs.Regions[p.Ref[i]].Name
			case trace.MpiSend, trace.MpiRecv:
				s += fmt.Sprintf(" peer %d tag %d bytes %d", p.Msgs.Peer[p.Ref[i]], p.Msgs.Tag[p.Ref[i]], p.Msgs.Bytes[p.Ref[i]])
			}
			got = append(got, s)
		}
	}
	want := []string{
		"PE 0 100000 ProgramBegin",
		"PE 0 110000 Enter main::main(CkArgMsg* m)",
		"PE 0 120000 MpiSend peer 1 tag 1 bytes 64",
		"PE 0 130000 Leave main::main(CkArgMsg* m)",
		"PE 0 200000 ProgramEnd",
		"PE 1 100000 ProgramBegin",
		"PE 1 105000 Enter Idle",
		"PE 1 140000 Leave Idle",
		"PE 1 140000 Enter Ping::recv(int n)",
		"PE 1 140000 MpiRecv peer 0 tag 1 bytes 64",
		"PE 1 150000 Leave Ping::recv(int n)",
		"PE 1 200000 ProgramEnd",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// PE 0's BEGIN_PROCESSING of main names no message created in the logs
	if r := tr.Defs.Properties["projections:approximated"]; !strings.Contains(r, "no MpiRecv) ×1") {
		t.Errorf("repaired: %q", r)
	}
}

// Unknown record types are skipped and counted by number, and records the
// model does not hold by name.
func TestProjectionsSkipsUnknownRecords(t *testing.T) {
	log1 := strings.Replace(projLog1, "7 200\n", "77 1 2 3\n77 4\n13 0 145 9 1\n7 200\n", 1)
	dir := writeProjSet(t, projSts+"EVENT 0 phase\n", []byte(projLog0), []byte(log1))
	tr, err := trace.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := tr.Defs.Properties["projections:skipped"]; s != "USER_EVENT ×1, type 77 ×2" {
		t.Errorf("skipped: %q", s)
	}
	if tr.Process(1).Skipped != 3 {
		t.Errorf("PE 1 skipped %d", tr.Process(1).Skipped)
	}
}

// Malformed, truncated or missing files give a *trace.Error naming the file
// and the line's byte offset.
func TestProjectionsErrors(t *testing.T) {
	replaceLine := func(s string, n int, with string) string {
		l := strings.Split(s, "\n")
		l[n-1] = with
		return strings.Join(l, "\n")
	}
	full := gz(t, projLog1)
	cases := []struct {
		name     string
		sts      string
		log0     []byte
		log1     []byte
		file     string // the file the error names
		line     int    // the line it names, 0 for none
		lineText string // the text the line offset is taken from
		msg      string
	}{
		{"truncated line", projSts, []byte(replaceLine(projLog0, 3, "2 1 0 110")), []byte(projLog1), "p.0.log", 3, projLog0, "truncated record"},
		{"not a number", projSts, []byte(projLog0), []byte(replaceLine(projLog1, 4, "15 1x0 1")), "p.1.log", 4, projLog1, "not an integer"},
		{"bad record type", projSts, []byte(replaceLine(projLog0, 2, "BEGIN 100")), []byte(projLog1), "p.0.log", 2, projLog0, "record type"},
		{"entry not in sts", projSts, []byte(projLog0), []byte(replaceLine(projLog1, 5, "2 1 9 140 7 0 64 0 3 140")), "p.1.log", 5, projLog1, "entry method 9 is not in the .sts"},
		{"negative time", projSts, []byte(replaceLine(projLog0, 6, "7 -5")), []byte(projLog1), "p.0.log", 6, projLog0, "negative time"},
		{"bad gzip", projSts, []byte(projLog0), append([]byte{0x1f, 0x8b}, []byte("not gzip at all")...), "p.1.log", 0, "", "gzip"},
		{"truncated gzip", projSts, []byte(projLog0), full[:len(full)/2], "p.1.log", 0, "", "unexpected EOF"},
		{"missing log", projSts, []byte(projLog0), nil, "p.1.log", 0, "", "no such file"},
		{"sts bad count", strings.Replace(projSts, "PROCESSORS 2", "PROCESSORS two", 1), nil, nil, "p.sts", 3, projSts, "not an integer"},
		{"sts unquoted chare", strings.Replace(projSts, `"Ping"`, "Ping", 1), nil, nil, "p.sts", 7, projSts, "not quoted"},
		{"sts no version", strings.Replace(projSts, "VERSION 11.0\n", "", 1), nil, nil, "p.sts", 0, "", "VERSION"},
		{"sts empty", "", nil, nil, "p.sts", 0, "", "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeProjSet(t, c.sts, c.log0, c.log1)
			_, err := trace.Load(filepath.Join(dir, "p.sts"))
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %v (%T), want a *trace.Error", err, err)
			}
			if filepath.Base(te.Path) != c.file && filepath.Base(te.Path) != c.file+".gz" {
				t.Errorf("error names %s, want %s: %v", te.Path, c.file, err)
			}
			if c.line > 0 {
				if want := lineOffset(c.lineText, c.line); te.Offset != want {
					t.Errorf("offset %d, want %d (line %d): %v", te.Offset, want, c.line, err)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("line %d:", c.line)) {
					t.Errorf("error does not name line %d: %v", c.line, err)
				}
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

// A damaged log is left out WithSkipDamaged; the others read.
func TestProjectionsSkipDamaged(t *testing.T) {
	dir := writeProjSet(t, projSts, []byte(projLog0), []byte("PROJECTIONS-RECORD 1\n2 1\n"))
	tr, err := trace.Load(dir, trace.WithSkipDamaged())
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumProcesses() != 1 || len(tr.Damaged()) != 1 || tr.Damaged()[0].Name != "PE 1" {
		t.Fatalf("%d processes, damaged %v", tr.NumProcesses(), tr.Damaged())
	}
	// the send to PE 1 is unmatched: its peer is -1
	p := tr.Process(0)
	for i, k := range p.Kind {
		if k == trace.MpiSend && p.Msgs.Peer[p.Ref[i]] != -1 {
			t.Errorf("send to %d with PE 1 unread", p.Msgs.Peer[p.Ref[i]])
		}
	}
}

// A Projections load stops at an interrupt.
func TestProjectionsLoadStopsAtInterrupt(t *testing.T) {
	var err error
	interrupted(func() { _, err = trace.Load(projPingPong) })
	if !errors.Is(err, work.ErrInterrupted) {
		t.Fatalf("Load in an interrupted cell: %v", err)
	}
	if _, err := trace.Load(projPingPong); err != nil {
		t.Fatalf("Load after the interrupt: %v", err)
	}
}

// WithoutEvents reads the definitions only; WithShare reads the PEs named.
func TestProjectionsOptions(t *testing.T) {
	tr, err := trace.Load(projPingPong, trace.WithoutEvents())
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumProcesses() != 2 || tr.NumEvents() != 0 || len(tr.Defs.Regions) != 4+228 {
		t.Errorf("%d processes, %d events, %d regions", tr.NumProcesses(), tr.NumEvents(), len(tr.Defs.Regions))
	}
	all, err := trace.Load(projPingPong)
	if err != nil {
		t.Fatal(err)
	}
	one, err := trace.Load(projPingPong, trace.WithShare(1))
	if err != nil {
		t.Fatal(err)
	}
	if one.NumProcesses() != 1 || one.Processes()[0].Name != "PE 1" {
		t.Fatalf("WithShare(1): %d processes", one.NumProcesses())
	}
	// Each PE of a share is the PE of the whole read: every event, and
	// every message with its partner (the receives of a PE's sends are in
	// the other logs, which a share must read too).
	for pe := range 2 {
		one, err := trace.Load(projPingPong, trace.WithShare(pe))
		if err != nil {
			t.Fatal(err)
		}
		p, q := one.Processes()[0], all.Process(pe)
		events := func(p *trace.Process) (out []string, sends int) {
			for i, k := range p.Kind {
				row := fmt.Sprint(k, p.Time[i], p.Ref[i])
				if k == trace.MpiSend || k == trace.MpiRecv {
					m := &p.Msgs
					j := p.Ref[i]
					row = fmt.Sprint(k, p.Time[i], m.Peer[j], m.Comm[j], m.Tag[j], m.Bytes[j])
					sends++
				}
				out = append(out, row)
			}
			return out, sends
		}
		a, na := events(p)
		b, nb := events(q)
		if strings.Join(a, ",") != strings.Join(b, ",") || na == 0 {
			t.Errorf("PE %d alone: %d events (%d messages), in the whole trace %d (%d)", pe, len(a), na, len(b), nb)
		}
	}
}

// TestProjectionsHugePECount: a .sts declaring far more PEs than the
// directory has files is refused at once, before anything per PE is made.
func TestProjectionsHugePECount(t *testing.T) {
	dir := t.TempDir()
	sts := filepath.Join(dir, "x.sts")
	if err := os.WriteFile(sts, []byte("VERSION 11.0\nPROCESSORS 2000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := trace.Load(sts, trace.WithoutEvents())
	var te *trace.Error
	if !errors.As(err, &te) || te.Path != sts || !strings.Contains(err.Error(), "PROCESSORS 2000000") {
		t.Fatalf("got %v, want an *Error naming %s and the PE count", err, sts)
	}
}
