package trace

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// copyDir copies the archive directory src (anchor, definitions, location
// files) into a new temporary directory, writable, and returns its path.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// sameEvents reports whether p and q hold the same events and payloads.
func sameEvents(p, q *Process) bool {
	return slices.Equal(p.Kind, q.Kind) && slices.Equal(p.Time, q.Time) && slices.Equal(p.Ref, q.Ref) &&
		slices.Equal(p.Msgs.Peer, q.Msgs.Peer) && slices.Equal(p.Msgs.Bytes, q.Msgs.Bytes) &&
		slices.Equal(p.Colls.Op, q.Colls.Op) && slices.Equal(p.Metrics.Values, q.Metrics.Values)
}

// checkPartial loads dir whole (which must fail) and with WithSkipDamaged, and
// checks the result against full, the undamaged trace: the locations in
// damaged are listed by Damaged and absent; every other one is loaded with
// exactly its events, its label unchanged.
func checkPartial(t *testing.T, dir string, full *Trace, damaged []int) {
	t.Helper()
	if _, err := Load(dir); err == nil {
		t.Fatalf("the damaged trace loads without WithSkipDamaged")
	}
	tr, err := Load(dir, WithSkipDamaged())
	if err != nil {
		t.Fatalf("WithSkipDamaged: %v", err)
	}
	var got []int
	for _, d := range tr.Damaged() {
		got = append(got, d.Location)
		if d.Err == nil || !strings.Contains(d.Err.Error(), fmt.Sprintf("%d.", d.Location)) {
			t.Errorf("damaged location %d: error %v does not name its file", d.Location, d.Err)
		}
		if want := full.Defs.Locations[d.Location]; d.Name == "" || want.Name == "" {
			t.Errorf("damaged location %d has no name", d.Location)
		}
	}
	if !slices.Equal(got, damaged) {
		t.Fatalf("Damaged() = %v, want %v", got, damaged)
	}
	if tr.NumProcesses() != full.NumProcesses()-len(damaged) {
		t.Fatalf("%d processes, want %d", tr.NumProcesses(), full.NumProcesses()-len(damaged))
	}
	for i, p := range tr.Processes() {
		q := full.Processes()[p.Location] // the generated traces have no metric streams
		if slices.Contains(damaged, p.Location) {
			t.Errorf("process %d is damaged location %d", i, p.Location)
		}
		if p.Index != i || p.Label() != q.Label() || p.Name != q.Name || !sameEvents(p, q) {
			t.Errorf("process %d (location %d, %s): differs from %s of the whole trace", i, p.Location, p.Label(), q.Label())
		}
	}
	sum := tr.Summary()
	want := fmt.Sprintf("damaged    %d of %d locations not loaded (WithSkipDamaged)", len(damaged), len(full.Defs.Locations))
	if !strings.Contains(sum, want) {
		t.Errorf("Summary lacks %q:\n%s", want, sum)
	}
	for _, d := range tr.Damaged() {
		if !strings.Contains(sum, d.String()) {
			t.Errorf("Summary lacks %q", d.String())
		}
	}
	if !strings.Contains(tr.String(), fmt.Sprintf("%d damaged locations left out", len(damaged))) {
		t.Errorf("String() = %s", tr)
	}
}

// One truncated rank file of a real Score-P trace: WithSkipDamaged loads the
// other rank and says which is missing and why (issue 32, point 7).
func TestSkipDamagedRealTrace(t *testing.T) {
	src := filepath.Join(tooltest.Traces(), "ping-pong-otf2")
	full, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Damaged()) != 0 || strings.Contains(full.Summary(), "damaged") {
		t.Fatalf("a whole trace reports damage")
	}
	for _, c := range []struct {
		name   string
		damage func(dir string) error
		loc    int
	}{
		{"truncated", func(dir string) error { return os.Truncate(filepath.Join(dir, "traces", "1.evt"), 500) }, 1},
		{"corrupt", func(dir string) error {
			f := filepath.Join(dir, "traces", "0.evt")
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			for i := 100; i < 400; i++ {
				b[i] = 0xff
			}
			return os.WriteFile(f, b, 0o644)
		}, 0},
		{"missing", func(dir string) error { return os.Remove(filepath.Join(dir, "traces", "1.evt")) }, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, src)
			if err := c.damage(dir); err != nil {
				t.Fatal(err)
			}
			checkPartial(t, dir, full, []int{c.loc})
			tr := Open(dir, WithSkipDamaged())
			if p := tr.Process(0); p.Label() != fmt.Sprintf("rank %d", 1-c.loc) {
				t.Errorf("the loaded process is %s, want rank %d", p.Label(), 1-c.loc)
			}
		})
	}
	// every location damaged: nothing to load, an error
	dir := copyDir(t, src)
	for _, f := range []string{"0.evt", "1.evt"} {
		os.Truncate(filepath.Join(dir, "traces", f), 10)
	}
	if _, err := Load(dir, WithSkipDamaged()); err == nil || !strings.Contains(err.Error(), "no location") {
		t.Errorf("all locations damaged: err %v", err)
	}
}

// Randomized: generated traces with random locations truncated at random
// offsets; the others load exactly (oracle: the whole trace's processes).
func TestSkipDamagedRandomTruncation(t *testing.T) {
	tooltest.RequireGen(t)
	anchor, _ := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", "6", "--iters", "20", "--threads", "1", "--seed", "3")
	src := filepath.Dir(anchor)
	full, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	n := full.NumProcesses()
	rng := rand.New(rand.NewPCG(32, 7))
	for round := range 8 {
		dir := copyDir(t, src)
		var damaged []int
		for loc := range n {
			if rng.IntN(3) != 0 && len(damaged) < n-1 {
				continue
			}
			if len(damaged) == n-1 {
				break
			}
			f := filepath.Join(dir, "traces", fmt.Sprintf("%d.evt", loc))
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(f, rng.Int64N(st.Size())); err != nil {
				t.Fatal(err)
			}
			damaged = append(damaged, loc)
		}
		if len(damaged) == 0 {
			continue
		}
		t.Run(fmt.Sprint(round), func(t *testing.T) { checkPartial(t, dir, full, damaged) })
	}
}
