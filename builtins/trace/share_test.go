package trace_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// A share read WithShare holds exactly the events of its processes, under
// their indices in the whole trace; WithoutEvents holds every process and
// no event.
func TestLoadShareAndSkeleton(t *testing.T) {
	for _, path := range []string{"../../test/data/split-comm/traces.otf2", "../../test/data/traces/metric-streams/traces.otf2", "../../test/data/traces/csv/ping-pong-csv.csv"} {
		whole, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		n := whole.NumProcesses()
		share := []int{n - 1}
		if n > 2 {
			share = []int{0, n - 2}
		}
		part, err := trace.Load(path, trace.WithShare(share...))
		if err != nil {
			t.Fatal(err)
		}
		if part.NumProcesses() != len(share) {
			t.Fatalf("%s: share %v has %d processes", path, share, part.NumProcesses())
		}
		for _, i := range share {
			a, b := whole.Process(i), part.Process(i)
			if b.Index != i || a.Name != b.Name || a.Rank != b.Rank || a.Thread != b.Thread || a.Location != b.Location ||
				!slices.Equal(a.Kind, b.Kind) || !slices.Equal(a.Time, b.Time) || !slices.Equal(a.Ref, b.Ref) ||
				!slices.Equal(a.Msgs.Peer, b.Msgs.Peer) || !slices.Equal(a.Metrics.Values, b.Metrics.Values) {
				t.Errorf("%s: process %d of the share differs from the whole trace's", path, i)
			}
		}
		if _, err := trace.Load(path, trace.WithShare(n)); err == nil {
			t.Errorf("%s: WithShare(%d) of %d processes loaded", path, n, n)
		}
		sk, err := trace.Load(path, trace.WithoutEvents())
		if err != nil {
			t.Fatal(err)
		}
		if sk.NumProcesses() != n || sk.NumEvents() != 0 || !sk.IsSkeleton() {
			t.Errorf("%s: WithoutEvents: %d processes, %d events", path, sk.NumProcesses(), sk.NumEvents())
		}
		for i, p := range sk.Processes() {
			if q := whole.Processes()[i]; !p.Remote() || p.Index != q.Index || p.Name != q.Name || p.Location != q.Location {
				t.Errorf("%s: skeleton process %d is not the whole trace's", path, i)
			}
		}
		// a skeleton's process takes the events of the same process only
		p := sk.Process(0)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: SetEvents of another process did not panic", path)
				}
			}()
			p.SetEvents(whole.Process(n - 1))
		}()
		p.SetEvents(whole.Process(0))
		if p.Remote() || len(p.Kind) != len(whole.Process(0).Kind) {
			t.Errorf("%s: SetEvents did not give the events", path)
		}
	}
}

// A share opens only its locations' files: the archive without location
// 1's event file loads WithShare(0), not whole.
func TestShareReadsOnlyItsFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../test/data/traces/ping-pong-otf2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "traces", "1.evt")); err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(dir, "traces.otf2")
	if _, err := trace.Load(anchor); err == nil {
		t.Fatal("the archive without 1.evt loads whole")
	}
	tr, err := trace.Load(anchor, trace.WithShare(0))
	if err != nil {
		t.Fatalf("WithShare(0) without location 1's file: %v", err)
	}
	if tr.NumProcesses() != 1 || tr.NumEvents() == 0 {
		t.Errorf("share: %d processes, %d events", tr.NumProcesses(), tr.NumEvents())
	}
}

// A skeleton shows what it is, without reading events it does not hold.
func TestSkeletonDisplay(t *testing.T) {
	sk, err := trace.Load("../../test/data/split-comm/traces.otf2", trace.WithoutEvents())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{sk.String(), sk.Summary(), sk.MIMEBundle()["text/html"].(string)} {
		if !strings.Contains(s, "MPI job") {
			t.Errorf("the skeleton's view does not say where its events are: %s", s)
		}
	}
}

// What reads events refuses a skeleton, every time (not once and then an
// empty result).
func TestSkeletonRefusesEventReaders(t *testing.T) {
	sk, err := trace.Load("../../test/data/split-comm/traces.otf2", trace.WithoutEvents())
	if err != nil {
		t.Fatal(err)
	}
	refuses := func(what string, f func()) {
		t.Helper()
		for range 2 {
			func() {
				defer func() {
					e, _ := recover().(error)
					var te *trace.Error
					if !errors.As(e, &te) || !strings.Contains(e.Error(), "MPI job") {
						t.Errorf("%s on a skeleton: %v, want a *trace.Error saying where the events are", what, e)
					}
				}()
				f()
			}()
		}
	}
	p := sk.Process(1)
	refuses("Pairs", func() { p.Pairs() })
	refuses("RegionStats", func() { p.RegionStats() })
	refuses("CallTree", func() { p.CallTree() })
	refuses("Events", func() { sk.Events() })
	refuses("Window", func() { sk.Window(0, 1000) })
	if sk.Duration() <= 0 {
		t.Errorf("a skeleton's Duration is %d, want the clock's length", sk.Duration())
	}
}
