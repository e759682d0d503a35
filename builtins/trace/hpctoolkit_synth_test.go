package trace_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/hpctoolkit"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// writeTraceDB writes a trace.db of the given lines (trace line i traces
// profile profiles[i]) as FORMATS.md lays it out: the 0x20-byte file
// header, the Context Trace Headers section at 0x20, the trace headers at
// 0x40, the samples, the footer.
func writeTraceDB(t testing.TB, path string, minT, maxT uint64, profiles []uint32, lines [][]hpctoolkit.Sample) {
	t.Helper()
	n := len(lines)
	b := make([]byte, 0x40+24*n)
	copy(b, "HPCTOOLKITtrce")
	b[14], b[15] = 4, 0
	binary.LittleEndian.PutUint64(b[0x10:], uint64(0x20+24*n)) // the section holds the trace headers
	binary.LittleEndian.PutUint64(b[0x18:], 0x20)
	binary.LittleEndian.PutUint64(b[0x20:], 0x40)
	binary.LittleEndian.PutUint32(b[0x28:], uint32(n))
	b[0x2c] = 24
	binary.LittleEndian.PutUint64(b[0x30:], minT)
	binary.LittleEndian.PutUint64(b[0x38:], maxT)
	off := uint64(len(b))
	for i, l := range lines {
		h := 0x40 + 24*i
		binary.LittleEndian.PutUint32(b[h:], profiles[i])
		binary.LittleEndian.PutUint64(b[h+8:], off)
		off += uint64(len(l)) * 12
		binary.LittleEndian.PutUint64(b[h+16:], off)
	}
	for _, l := range lines {
		for _, s := range l {
			b = binary.LittleEndian.AppendUint64(b, s.Time)
			b = binary.LittleEndian.AppendUint32(b, s.Ctx)
		}
	}
	b = append(b, "trace.db"...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// oracleEvent is an event as the brute-force oracle derives it.
type oracleEvent struct {
	enter bool
	ctx   int32 // index into meta.Contexts of the frame
	time  int64
}

// oracleLine derives the events of a trace line from the whole call path
// of every sample (the frames from the root: entry points, functions,
// loops), comparing each path with the previous one by common prefix.
func oracleLine(meta *hpctoolkit.Meta, minT, maxT uint64, samples []hpctoolkit.Sample) []oracleEvent {
	pathOf := func(id uint32) []int32 {
		if id == 0 {
			return nil
		}
		var rev []int32
		for c := meta.Context(id); c >= 0; c = meta.Contexts[c].Parent {
			x := meta.Contexts[c]
			if x.EntryPoint || x.Lexical == hpctoolkit.LexFunction || x.Lexical == hpctoolkit.LexLoop {
				rev = append(rev, c)
			}
		}
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		return rev
	}
	var out []oracleEvent
	var prev []int32
	change := func(next []int32, ts int64) {
		k := 0
		for k < len(prev) && k < len(next) && prev[k] == next[k] {
			k++
		}
		for i := len(prev) - 1; i >= k; i-- {
			out = append(out, oracleEvent{false, prev[i], ts})
		}
		for _, c := range next[k:] {
			out = append(out, oracleEvent{true, c, ts})
		}
		prev = next
	}
	last := int64(0)
	for _, s := range samples {
		last = int64(s.Time - minT)
		change(pathOf(s.Ctx), last)
	}
	change(nil, max(last, int64(maxT-minT)))
	return out
}

// A synthetic trace.db of random samples over the ping-pong context tree
// reads as the oracle derives from whole call paths, on every line.
func TestHPCToolkitRandomSamplesMatchOracle(t *testing.T) {
	meta, err := hpctoolkit.ReadMeta(filepath.Join(hpcPingPong, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const minT = 1_000_000_000
	var lines [][]hpctoolkit.Sample
	ts := uint64(minT)
	for l := 0; l < 2; l++ {
		var ss []hpctoolkit.Sample
		ts = minT + uint64(rng.IntN(100))
		for i := 0; i < 5000; i++ {
			ctx := uint32(0)
			if rng.IntN(10) > 0 {
				ctx = meta.Contexts[rng.IntN(len(meta.Contexts))].ID
			}
			if i > 0 && rng.IntN(5) == 0 {
				ctx = ss[i-1].Ctx // repeated context: no event
			}
			ss = append(ss, hpctoolkit.Sample{Time: ts, Ctx: ctx})
			ts += uint64(rng.IntN(3)) // equal times too
		}
		lines = append(lines, ss)
	}
	maxT := ts + 10
	dir := copyHPC(t, "", nil)
	// profiles 2 and 1 are ranks 0 and 1 (see TestHPCToolkitMatchesPipit)
	writeTraceDB(t, filepath.Join(dir, "trace.db"), minT, maxT, []uint32{1, 2}, lines)
	tr, err := trace.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for l, rank := range []int{1, 0} {
		p := tr.Processes()[rank]
		if p.Name != fmt.Sprintf("MPI Rank %d", rank) {
			t.Fatalf("process %d is %s", rank, p.Name)
		}
		want := oracleLine(meta, minT, maxT, lines[l])
		if len(want) != len(p.Kind) {
			t.Errorf("%s: %d events, oracle %d", p.Name, len(p.Kind), len(want))
		}
		for i := 0; i < min(len(want), len(p.Kind)); i++ {
			w := want[i]
			c := meta.Contexts[w.ctx]
			r := tr.Defs.Regions[p.Ref[i]]
			name := c.Name
			switch {
			case c.EntryPoint:
			case c.Lexical == hpctoolkit.LexLoop:
				name = fmt.Sprintf("loop at %s:%d", filepath.Base(meta.Files[c.File].Path), c.Line)
			case c.Function >= 0:
				name = meta.Functions[c.Function].Name
			}
			if (p.Kind[i] == trace.Enter) != w.enter || p.Time[i] != w.time || r.Name != name {
				t.Fatalf("%s event %d: %v %s @%d; oracle: enter=%v %s @%d", p.Name, i, p.Kind[i], r.Name, p.Time[i], w.enter, name, w.time)
			}
		}
	}
}

// bigHPC writes a database of the ping-pong's meta.db and profile.db with
// a trace.db of n samples per rank, changing context every 1000 samples.
func bigHPC(t testing.TB, n int) string {
	meta, err := hpctoolkit.ReadMeta(filepath.Join(hpcPingPong, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := copyHPC(t, "", nil)
	lines := make([][]hpctoolkit.Sample, 2)
	for l := range lines {
		ss := make([]hpctoolkit.Sample, n)
		for i := range ss {
			ss[i] = hpctoolkit.Sample{Time: uint64(1000 + i), Ctx: meta.Contexts[(i/1000)%len(meta.Contexts)].ID}
		}
		lines[l] = ss
	}
	writeTraceDB(t, filepath.Join(dir, "trace.db"), 1000, uint64(1000+n), []uint32{1, 2}, lines)
	return dir
}

// A load stops at an interrupt: at once in an interrupted cell, and mid-way
// through a large trace.db.
func TestHPCToolkitLoadStopsAtInterrupt(t *testing.T) {
	dir := bigHPC(t, 2_000_000)
	var err error
	interrupted(func() { _, err = trace.Load(dir) })
	if !errors.Is(err, work.ErrInterrupted) {
		t.Fatalf("HPCToolkit load in an interrupted cell: %v", err)
	}
	var te *trace.Error
	if !errors.As(err, &te) || te.Path == "" {
		t.Fatalf("error does not name the file: %v", err)
	}
	out := worktest.Interrupt(t, 5*time.Millisecond, 10*time.Second, func() { trace.Open(dir) })
	if !out.Finished {
		if e, ok := out.Panic.(*trace.Error); !ok || !errors.Is(e, work.ErrInterrupted) {
			t.Fatalf("interrupted Open panicked with %#v", out.Panic)
		}
		t.Logf("HPCToolkit load stopped %v after the interrupt", out.Latency)
	}
	tr, err := trace.Load(dir)
	if err != nil || tr.NumEvents() == 0 {
		t.Fatalf("load after the interrupt: %v", err)
	}
}

// BenchmarkHPCToolkitLoad loads the ping-pong database and a synthetic one
// of 2×200k samples (its meta.db and profile.db, a context change every
// 1000 samples).
func BenchmarkHPCToolkitLoad(b *testing.B) {
	for _, c := range []struct {
		name string
		dir  string
	}{{"ping-pong", hpcPingPong}, {"synthetic-400k", bigHPC(b, 200_000)}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := trace.Load(c.dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Samples of a context the tree does not define are skipped and counted;
// a sample earlier than the one before it is kept at that one's time and
// counted; the last path is left at maxTimestamp.
func TestHPCToolkitSkippedAndClamped(t *testing.T) {
	meta, err := hpctoolkit.ReadMeta(filepath.Join(hpcPingPong, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	main := meta.Contexts[1] // "main", called from the entry point
	if main.Parent != 0 || meta.Functions[main.Function].Name != "main" {
		t.Fatalf("context 1 is %+v", main)
	}
	dir := copyHPC(t, "", nil)
	line := []hpctoolkit.Sample{{Time: 100, Ctx: main.ID}, {Time: 110, Ctx: 999_999}, {Time: 115, Ctx: 0}, {Time: 112, Ctx: main.ID}}
	writeTraceDB(t, filepath.Join(dir, "trace.db"), 100, 200, []uint32{2}, [][]hpctoolkit.Sample{line})
	tr, err := trace.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := tr.Processes()[0]
	var got []string
	for i := range p.Kind {
		got = append(got, fmt.Sprintf("%v %s %d", p.Kind[i], tr.Defs.Regions[p.Ref[i]].Name, p.Time[i]))
	}
	// the undefined context at 110 is skipped whole; 112 comes after 115
	want := []string{"Enter main thread 0", "Enter main 0", "Leave main 15", "Leave main thread 15",
		"Enter main thread 15", "Enter main 15", "Leave main 100", "Leave main thread 100"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events\n%v\nwant\n%v", got, want)
	}
	if p.Skipped != 1 || tr.Defs.Properties["hpctoolkit:skipped"] == "" || tr.Defs.Properties["hpctoolkit:approximated"] == "" {
		t.Errorf("skipped %d, properties %v", p.Skipped, tr.Defs.Properties)
	}
}
