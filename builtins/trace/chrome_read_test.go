package trace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
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
	for _, name := range []string{"ping-pong-otf2", "ping-pong-otf2-papi"} {
		t.Run(name, func(t *testing.T) {
			ref := trace.Open(filepath.Join(tooltest.Traces(), name, "traces.otf2"))
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
			for i, rp := range ref.Processes() {
				gp := got.Process(i)
				if gp.Rank != rp.Rank || gp.Thread != rp.Thread {
					t.Errorf("process %d: rank %d thread %d, want %d %d", i, gp.Rank, gp.Thread, rp.Rank, rp.Thread)
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
