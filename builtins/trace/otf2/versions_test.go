package otf2

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// printKind is otf2-print's name of record kind name ("MpiSend" ->
// "MPI_SEND"); otf2-print abbreviates one event name and shows records
// of unknown type as UNKNOWN.
func printKind(name string) string {
	if name == "IoChangeStatusFlags" {
		return "IO_CHANGE_FLAGS"
	}
	if strings.HasPrefix(name, "unknown definition ") {
		return "UNKNOWN"
	}
	if n, ok := strings.CutPrefix(name, "Unknown"); ok {
		if _, err := strconv.Atoi(n); err == nil {
			return "UNKNOWN"
		}
	}
	return printName(name)
}

// printedArchive is what `otf2-print -A` shows of an archive: the global
// definitions counted by kind, and the events per location (kind, time).
type printedArchive struct {
	version  string
	defs     map[string]int64
	defLines []string
	events   map[uint64][]printed
}

func runPrintAll(t *testing.T, anchor string) printedArchive {
	t.Helper()
	bin := tooltest.RequireBinary(t, "otf2-print")
	out, err := exec.Command(bin, "-A", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print -A %s: %v", anchor, err)
	}
	p := printedArchive{defs: map[string]int64{}, events: map[uint64][]printed{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	section, body := "", false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			section, body = strings.Fields(line)[1], false
			continue
		case strings.HasPrefix(line, "-----"):
			body = true
			continue
		case strings.HasPrefix(line, "Version ") && section == "OTF2-PRINT":
			p.version = strings.TrimSpace(strings.TrimPrefix(line, "Version"))
			continue
		case !body || line == "" || strings.HasPrefix(line, " "):
			continue
		}
		f := strings.Fields(line)
		switch section {
		case "Global":
			p.defs[f[0]]++
			p.defLines = append(p.defLines, line)
		case "Events":
			loc, err1 := strconv.ParseUint(f[1], 10, 64)
			tm, err2 := strconv.ParseUint(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("otf2-print line %q", line)
			}
			p.events[loc] = append(p.events[loc], printed{name: f[0], time: tm})
		}
	}
	return p
}

// TestArchivesAgreeWithOtf2Print reads the archives written by other OTF2
// versions (testdata/otf2-archives, see its README), the Score-P 2.3
// archives and two archives of the 3.x library (otf2gen.py), and compares
// the anchor version, every definition count by kind, and every event's
// kind and time with what otf2-print (the reference library) prints.
func TestArchivesAgreeWithOtf2Print(t *testing.T) {
	anchors, _ := filepath.Glob(filepath.Join("testdata", "otf2-archives", "*", "*.otf2"))
	if len(anchors) == 0 {
		t.Fatal("no archives under testdata/otf2-archives")
	}
	anchors = append(anchors,
		filepath.Join(tooltest.Traces(), "ping-pong-otf2", "traces.otf2"),
		filepath.Join(tooltest.Traces(), "ping-pong-otf2-papi", "traces.otf2"),
		filepath.Join(tooltest.Traces(), "metric-streams", "traces.otf2"))
	g1, _ := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", "2", "--threads", "1", "--iters", "3", "--seed", "31")
	g2, _ := tooltest.Generate(t, t.TempDir(), "random", "--procs", "2", "--events", "800", "--seed", "32")
	anchors = append(anchors, g1, g2)
	for _, anchor := range anchors {
		t.Run(filepath.Base(filepath.Dir(anchor)), func(t *testing.T) {
			want := runPrintAll(t, anchor)
			a, err := Open(anchor)
			if err != nil {
				t.Fatal(err)
			}
			if v := a.Anchor.Version; fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) != want.version {
				t.Errorf("version %v, otf2-print %s", v, want.version)
			}
			got := map[string]int64{}
			for name, n := range a.Defs.Counts {
				got[printKind(name)] += n
			}
			if !reflect.DeepEqual(got, want.defs) {
				t.Errorf("definitions by kind:\n got  %v\n otf2-print %v", got, want.defs)
			}
			total := 0
			for _, l := range a.Defs.Locations {
				w := want.events[l.Self]
				k := 0
				_, err := a.ReadLocation(l.Self, func(e *Event) error {
					if k >= len(w) {
						return fmt.Errorf("location %d: extra event %s", l.Self, EventName(e.Type))
					}
					if p := w[k]; p.name != printKind(EventName(e.Type)) || p.time != e.Time {
						return fmt.Errorf("location %d event %d: %s %d, otf2-print %s %d", l.Self, k, EventName(e.Type), e.Time, p.name, p.time)
					}
					k++
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if k != len(w) {
					t.Fatalf("location %d: %d events, otf2-print %d", l.Self, k, len(w))
				}
				total += k
			}
			if total == 0 {
				t.Fatal("no events compared")
			}
		})
	}
}

// TestIntegrityArchive checks the definitions of the OTF2 1.1.0 integrity
// test archive against what its writer (test/OTF2_Integrity_test of the
// OTF2 source) wrote: two regions whose canonical name is their name, of
// the 1.0 region type FUNCTION, and four locations of 120000 events.
// otf2-print shows role, paradigm and flags read past the record's end
// (BARRIER, QTTHREAD, {DYNAMIC} for MPI_Send); this reader converts the
// region type instead, as the library does for records without the 1.1
// fields.
func TestIntegrityArchive(t *testing.T) {
	a, err := Open(filepath.Join("testdata", "otf2-archives", "integrity-1.1.0", "TestTrace.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	g := a.Defs
	want := []Region{
		{Self: 0, Name: 1, CanonicalName: 1, Description: 2, Role: roleFunction},
		{Self: 1, Name: 3, CanonicalName: 3, Description: 4, Role: roleFunction},
	}
	if !reflect.DeepEqual(g.Regions, want) {
		t.Fatalf("regions %+v, want %+v", g.Regions, want)
	}
	if g.String(1) != "MPI_Send" || g.String(4) != "Receive an MPI message" {
		t.Fatalf("strings %v", g.Strings)
	}
	var ids []uint64
	for _, l := range g.Locations {
		ids = append(ids, l.Self)
		if l.NumEvents != 120000 {
			t.Fatalf("location %d: %d events declared", l.Self, l.NumEvents)
		}
	}
	if !reflect.DeepEqual(ids, []uint64{0, 1, 4, 9}) {
		t.Fatalf("locations %v", ids)
	}
	if len(g.Skipped) != 0 {
		t.Fatalf("skipped %v", g.Skipped)
	}
}
