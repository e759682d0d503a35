package otf2

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// printName turns "MpiIsendComplete" into otf2-print's "MPI_ISEND_COMPLETE".
func printName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

type printed struct {
	name  string
	time  uint64
	attrs string
}

// runPrint runs otf2-print and returns its events per location id.
func runPrint(t *testing.T, anchor string) map[uint64][]printed {
	t.Helper()
	bin := tooltest.RequireBinary(t, "otf2-print")
	out, err := exec.Command(bin, anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	m := map[uint64][]printed{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inEvents := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----") {
			inEvents = true
			continue
		}
		if !inEvents || strings.HasPrefix(line, " ") || line == "" {
			continue // continuation lines (ADDITIONAL ATTRIBUTES)
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("otf2-print line %q", line)
		}
		loc, err1 := strconv.ParseUint(f[1], 10, 64)
		tm, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("otf2-print line %q", line)
		}
		// attributes start after the timestamp column
		idx := strings.Index(line, f[2]) + len(f[2])
		m[loc] = append(m[loc], printed{name: f[0], time: tm, attrs: strings.TrimSpace(line[idx:])})
	}
	return m
}

// expectedFragments are substrings otf2-print must show for event e.
func expectedFragments(a *Archive, e *Event) []string {
	g := a.Defs
	switch e.Type {
	case EvEnter, EvLeave:
		name := ""
		for _, r := range g.Regions {
			if r.Self == e.Region {
				name = g.String(r.Name)
			}
		}
		return []string{fmt.Sprintf("Region: %q <%d>", name, e.Region)}
	case EvMpiSend, EvMpiIsend:
		return []string{fmt.Sprintf("Receiver: %d ", e.Peer), fmt.Sprintf("<%d>, Tag: %d, Length: %d", e.Comm, e.Tag, e.Bytes)}
	case EvMpiRecv, EvMpiIrecv:
		return []string{fmt.Sprintf("Sender: %d ", e.Peer), fmt.Sprintf("<%d>, Tag: %d, Length: %d", e.Comm, e.Tag, e.Bytes)}
	case EvMpiIsendComplete, EvMpiIrecvRequest:
		return []string{fmt.Sprintf("Request: %d", e.Request)}
	case EvMpiCollectiveEnd:
		return []string{fmt.Sprintf("Operation: %s,", collOps[e.CollOp]), fmt.Sprintf("<%d>,", e.Comm), fmt.Sprintf("Sent: %d, Received: %d", e.Sent, e.Received)}
	case EvMetric:
		out := []string{fmt.Sprintf("Metric: %d, %d Value", e.Metric, len(e.MetricValues))} // "Value: " for one
		for i, v := range e.MetricValues {
			if e.MetricTypes[i] == 10 { // DOUBLE, printed with C's %g
				out = append(out, fmt.Sprintf("; %.6g)", math.Float64frombits(v)))
				continue
			}
			out = append(out, fmt.Sprintf("; %d)", v))
		}
		return out
	case EvMeasurementOnOff:
		return []string{map[uint8]string{MeasurementOn: "Mode: ON", MeasurementOff: "Mode: OFF"}[e.MeasurementMode] + "\x00"}
	case EvProgramBegin:
		return []string{fmt.Sprintf("<%d>, %d Arguments", e.ProgramName, len(e.ProgramArgs))}
	case EvProgramEnd:
		if e.ExitStatus == math.MinInt64 { // OTF2_UNDEFINED_INT64
			return []string{"Exit status: UNDEFINED"}
		}
		return []string{fmt.Sprintf("Exit status: %d", e.ExitStatus)}
	}
	return nil
}

func TestAgreesWithOtf2Print(t *testing.T) {
	anchors := []string{
		filepath.Join(tooltest.Traces(), "ping-pong-otf2", "traces.otf2"),
		filepath.Join(tooltest.Traces(), "ping-pong-otf2-papi", "traces.otf2"),
		filepath.Join(tooltest.Traces(), "metric-streams", "traces.otf2"), // METRIC locations, MEASUREMENT_ON_OFF
	}
	g1, _ := tooltest.Generate(t, t.TempDir(), "random", "--procs", "2", "--threads", "1", "--events", "1500", "--seed", "21")
	g2, _ := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", "3", "--iters", "4", "--seed", "22", "--resolution", "1000")
	anchors = append(anchors, g1, g2)
	for _, anchor := range anchors {
		want := runPrint(t, anchor)
		a, err := Open(anchor)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, l := range a.Defs.Locations {
			w := want[l.Self]
			k := 0
			_, err := a.ReadLocation(l.Self, func(e *Event) error {
				if k >= len(w) {
					return fmt.Errorf("location %d: extra event %s", l.Self, EventName(e.Type))
				}
				p := w[k]
				k++
				if p.name != printName(EventName(e.Type)) || p.time != e.Time {
					return fmt.Errorf("location %d event %d: %s %d, otf2-print %s %d", l.Self, k-1, printName(EventName(e.Type)), e.Time, p.name, p.time)
				}
				for _, frag := range expectedFragments(a, e) {
					if whole, ok := strings.CutSuffix(frag, "\x00"); ok { // the whole attribute text
						if p.attrs != whole {
							return fmt.Errorf("location %d event %d %s: otf2-print shows %q, want %q", l.Self, k-1, p.name, p.attrs, whole)
						}
						continue
					}
					if !strings.Contains(p.attrs, frag) {
						return fmt.Errorf("location %d event %d %s: otf2-print shows %q, missing %q", l.Self, k-1, p.name, p.attrs, frag)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", anchor, err)
			}
			if k != len(w) {
				t.Fatalf("%s location %d: %d events, otf2-print %d", anchor, l.Self, k, len(w))
			}
			total += k
		}
		if total == 0 {
			t.Fatalf("%s: no events compared", anchor)
		}
	}
}
