package ccg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// saved returns g as the bytes of a file.
func saved(t testing.TB, g *Graph) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := g.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
	}
	return buf.Bytes()
}

// restored reads a graph from data.
func restored(t testing.TB, data []byte) *Graph {
	t.Helper()
	h, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sameTable(t *testing.T, what string, a, b *arrowio.Table) {
	t.Helper()
	if !a.Schema().Equal(b.Schema()) || !array.RecordEqual(a.Record(), b.Record()) {
		t.Fatalf("%s: tables differ:\n%s\nvs\n%s", what, a, b)
	}
	am, _ := a.Metadata(trace.DefinitionsKey)
	bm, _ := b.Metadata(trace.DefinitionsKey)
	if am != bm {
		t.Fatalf("%s: definitions metadata differ:\n%s\nvs\n%s", what, am, bm)
	}
}

// sameGraph fails t unless h answers every query as g does: Stats, the
// locations, the definitions, each location's decompressed events, the
// summary over the whole run and random intervals, the per-location table,
// a timeline, At and Events. full says g holds no unreachable nodes (a
// built or merged graph, not a view), so node ids and m agree too.
func sameGraph(t *testing.T, what string, g, h *Graph, rng *rand.Rand, full bool) {
	t.Helper()
	if gs, hs := g.Stats(), h.Stats(); gs != hs {
		t.Fatalf("%s: stats %+v, want %+v", what, hs, gs)
	}
	if h.st.m+locationBytes(h.locs) != h.Stats().Bytes || full && h.st.m != g.st.m {
		t.Fatalf("%s: store m %d, want %d (stats bytes %d)", what, h.st.m, g.st.m, h.Stats().Bytes)
	}
	if g.bounds != h.bounds || g.branch != h.branch || g.search != h.search {
		t.Fatalf("%s: parameters %s b=%d L=%d, want %s b=%d L=%d", what, h.bounds, h.branch, h.search, g.bounds, g.branch, g.search)
	}
	gl, hl := g.Locations(), h.Locations()
	if !full {
		for i := range gl {
			gl[i].Root, hl[i].Root = 0, 0
		}
	}
	if !reflect.DeepEqual(gl, hl) {
		t.Fatalf("%s: locations\n%+v\nwant\n%+v", what, hl, gl)
	}
	if !reflect.DeepEqual(g.defs, h.defs) {
		t.Fatalf("%s: definitions\n%+v\nwant\n%+v", what, h.defs, g.defs)
	}
	for i := range g.locs {
		gp, hp := g.Process(i), h.Process(i)
		sameProcess(t, fmt.Sprintf("%s: location %d", what, i), gp, hp)
		if gp.Name != hp.Name || gp.Rank != hp.Rank || gp.Thread != hp.Thread || gp.Index != hp.Index {
			t.Fatalf("%s: location %d is %q (%d %d %d), want %q", what, i, hp.Name, hp.Index, hp.Rank, hp.Thread, gp.Name)
		}
	}
	end := g.End()
	ivs := [][2]int64{{0, end}, {-5, end + 5}}
	for range 6 {
		a := rng.Int64N(end + 1)
		ivs = append(ivs, [2]int64{a, a + 1 + rng.Int64N(end-a+1)})
	}
	for _, iv := range ivs {
		gs, hs := g.Summary(iv[0], iv[1]), h.Summary(iv[0], iv[1])
		if !reflect.DeepEqual(gs.Regions, hs.Regions) || gs.Messages != hs.Messages {
			t.Fatalf("%s: summary over %v:\n%+v %+v\nwant\n%+v %+v", what, iv, hs.Regions, hs.Messages, gs.Regions, gs.Messages)
		}
		sameTable(t, what+": summary table", gs.Table(), hs.Table())
	}
	sameTable(t, what+": table", g.Table(), h.Table())
	gt, ht := g.Timeline(17), h.Timeline(17)
	if !reflect.DeepEqual(gt.State, ht.State) || !reflect.DeepEqual(gt.Share, ht.Share) || !slices.Equal(gt.Names, ht.Names) {
		t.Fatalf("%s: timelines differ", what)
	}
	at := rng.Int64N(end + 1)
	sameTable(t, fmt.Sprintf("%s: At(%d)", what, at), g.At(at), h.At(at))
	sameTable(t, what+": events", g.Events(), h.Events())
}

// Knüpfer Figure 3.4's graph: saved twice byte-identically (and once more
// after a restore), restored equal.
func TestPersistSeedFigure34(t *testing.T) {
	b := figure34()
	g := Build(traceOf(4, b.p).Process(0), Lossless)
	dir := t.TempDir()
	p1, p2, p3 := filepath.Join(dir, "a.ccg"), filepath.Join(dir, "b.ccg"), filepath.Join(dir, "c.ccg")
	if err := g.save(p1); err != nil {
		t.Fatal(err)
	}
	if err := g.save(p2); err != nil {
		t.Fatal(err)
	}
	h, err := Load(p1)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.save(p3); err != nil {
		t.Fatal(err)
	}
	d1, _ := os.ReadFile(p1)
	d2, _ := os.ReadFile(p2)
	d3, _ := os.ReadFile(p3)
	if !bytes.Equal(d1, d2) || !bytes.Equal(d1, d3) {
		t.Fatalf("saved files differ: %d, %d and %d bytes", len(d1), len(d2), len(d3))
	}
	if s := h.Stats(); s.N != 17 || s.Nodes != 8 {
		t.Fatalf("restored N = %d, n = %d; want 17 and 8", s.N, s.Nodes)
	}
	sameProcess(t, "restored", b.p, h.Process(0))
	sameGraph(t, "figure 3.4", g, h, rand.New(rand.NewPCG(1, 1)), true)
	// Save replaced an existing file and left no temporary one.
	if err := g.save(p1); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Fatalf("directory holds %d entries after saving over a file, want 3", len(ents))
	}
}

// randBounds draws lossless or lossy bounds.
func randBounds(rng *rand.Rand) Bounds {
	if rng.IntN(3) == 0 {
		return Lossless
	}
	return Bounds{Abs: int64(rng.IntN(30)) - 1, Rel: []float64{0, 0.05, 0.3, 1, -1}[rng.IntN(5)],
		Bytes: int64(rng.IntN(3)) - 1, CollBytes: int64(rng.IntN(3)) - 1, Counter: []float64{0, 0.01, -1}[rng.IntN(3)], Requests: int64(rng.IntN(2)) - 1}
}

// restore(save(g)) answers every query as g on random lossless and lossy
// graphs of one and several locations (built per location, per trace,
// merged, re-compressed and viewed), saving it again gives the same bytes,
// and the restored graph re-compresses and merges exactly as g does.
func TestPersistRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for it := range 60 {
		nloc := 1 + rng.IntN(3)
		procs := make([]*trace.Process, nloc)
		for i := range procs {
			procs[i] = randProc(rng, 2+rng.IntN(5), 1+rng.IntN(30), int64(rng.IntN(3)))
		}
		tr := traceOf(8, procs...)
		b := randBounds(rng)
		opts := []Option{WithBranching(2 + rng.IntN(6)), WithSearch(1 + rng.IntN(8))}
		var g *Graph
		full := true
		what := ""
		switch it % 5 {
		case 0:
			g, what = Build(tr.Process(0), b, opts...), "Build"
		case 1:
			g, what = BuildTrace(tr, b, opts...), "BuildTrace"
		case 2:
			g, what = Merge(Build(tr.Process(0), b, opts...), BuildTrace(tr, Lossless, opts...)), "Merge"
		case 3:
			g, what = BuildTrace(tr, Lossless, opts...).Recompress(Bounds{Abs: 20, Rel: 0.5, Bytes: -1}), "Recompress"
		case 4:
			g, what, full = BuildTrace(tr, b, opts...).Loc(nloc-1), "Loc", false
		}
		what = fmt.Sprintf("case %d (%s, %s)", it, what, g.bounds)
		data := saved(t, g)
		h := restored(t, data)
		sameGraph(t, what, g, h, rng, full)
		if again := saved(t, h); !bytes.Equal(again, data) {
			t.Fatalf("%s: saving the restored graph gives %d bytes, not the %d saved", what, len(again), len(data))
		}
		wide := Bounds{Abs: -1, Rel: -1, Bytes: -1, CollBytes: -1, Counter: -1, Requests: -1}
		if a, c := saved(t, g.Recompress(wide)), saved(t, h.Recompress(wide)); !bytes.Equal(a, c) {
			t.Fatalf("%s: re-compressing the restored graph differs", what)
		}
		other := Build(tr.Process(0), Lossless)
		if a, c := saved(t, Merge(g, other)), saved(t, Merge(h, other)); !bytes.Equal(a, c) {
			t.Fatalf("%s: merging the restored graph differs", what)
		}
		sameGraph(t, what+" merged", Merge(g, other), Merge(h, other), rng, true)
	}
}

// fullDefs has every kind of definition, with absent and empty lists.
func fullDefs() *trace.Definitions {
	d := regionDefs(5)
	d.Regions[2].Canonical, d.Regions[2].File, d.Regions[2].BeginLine, d.Regions[2].EndLine = "_Z2r2v", "r.c", 10, 4000000000
	d.Strings = []string{}
	d.SystemTree = []trace.SystemTreeNode{{Name: "machine", Class: "machine", Parent: -1}, {Name: "node 0", Class: "node", Parent: 0}}
	d.LocationGroups = []trace.LocationGroup{{Name: "rank 0", Type: "process", SystemNode: 1}, {Name: "rank 1", Type: "process", SystemNode: 1}}
	d.Locations = []trace.Location{{Name: "master", Type: "cpu_thread", Group: 0, NumEvents: 1 << 40}, {Name: "master", Type: "cpu_thread", Group: 1}}
	d.Groups = []trace.Group{{Name: "world", Type: "comm_group", Paradigm: "mpi", Members: []uint64{0, 1, 1 << 63}}, {Name: "none", Members: []uint64{}}, {Name: "nil"}}
	d.Comms = []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 0, Parent: -1}}
	d.MetricMembers = []trace.MetricMember{{Name: "PAPI_TOT_CYC", Description: "cycles", Unit: "#", ValueType: "uint64"}}
	d.MetricClasses = []trace.MetricClass{{Members: []int32{0}}, {}}
	d.Clock = trace.Clock{Resolution: 1e9, Offset: 12345, Length: 1 << 50}
	d.Properties = map[string]string{"creator": "test", "b": "", "a": strings.Repeat("x", 40000)}
	return d
}

// Every definition survives, absent lists stay absent and empty ones
// empty (Events' metadata tells them apart), and so do all the atomic
// event kinds and call repairs.
func TestPersistDefinitionsAndKinds(t *testing.T) {
	g := Build(kindsTrace().Process(0), Lossless)
	if g.locs[0].Repairs.IsZero() {
		t.Fatal("test trace needs repairs")
	}
	h := restored(t, saved(t, g))
	sameGraph(t, "kinds", g, h, rand.New(rand.NewPCG(3, 3)), true)
	if h.defs.Attributes != nil || h.defs.Strings == nil || h.defs.Groups[1].Members == nil || h.defs.Groups[2].Members != nil {
		t.Fatal("absent and empty lists not kept apart")
	}
	// No properties at all: still nil.
	g.defs = regionDefs(5)
	if h := restored(t, saved(t, g)); h.defs.Properties != nil || !reflect.DeepEqual(h.defs, g.defs) {
		t.Fatalf("definitions %+v, want %+v", h.defs, g.defs)
	}
}

// kindsTrace is one location with every atomic event kind, a metric
// sample of two values and a repaired Leave, over fullDefs.
func kindsTrace() *trace.Trace {
	b := newPB().ev(trace.ProgramBegin, 0, -1).enter(1, 0).enter(2, 1)
	b.msg(trace.MpiSend, 3, 1, 5, 1000, 0).msg(trace.MpiRecv, 4, 1, 5, 1<<40, 0)
	b.msg(trace.MpiIsend, 5, 1, 6, 8, 77).msg(trace.MpiIsendComplete, 6, -1, -1, 0, 77)
	b.msg(trace.MpiIrecvRequest, 7, -1, -1, 0, 78).msg(trace.MpiIrecv, 8, 1, 6, 8, 78)
	b.ev(trace.MpiCollectiveBegin, 9, -1).coll(10, 11, 8, 16)
	b.metric(11, 1<<63, 3)
	b.leave(12, 1).leave(13, 3) // a Leave matching no open call
	b.enter(14, 2).leave(15, 2).leave(16, 0).ev(trace.ProgramEnd, 17, -1)
	tr := traceOf(5, b.p)
	tr.Defs = fullDefs()
	return tr
}

// Bad magic, another version, a bad checksum and a truncated file are
// errors naming the function, the file and the offset.
func TestLoadErrors(t *testing.T) {
	g := Build(kindsTrace().Process(0), Lossless)
	data := saved(t, g)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	n := len(data)
	bad := slices.Clone(data)
	bad[0] = 'X'
	ver := slices.Clone(data)
	binary.LittleEndian.PutUint16(ver[6:], 3)
	flip := slices.Clone(data)
	flip[n/2] ^= 0x10
	crc := binary.LittleEndian.Uint32(data[n-12:])
	cases := []struct {
		name string
		data []byte
		msg  string
	}{
		{"magic", bad, `offset 0: not a CCG file (no magic "TBCCG\x00"; saved with ccg.Graph.Save?)`},
		{"version", ver, "offset 6: format version 3; this build reads versions 1 to 2"},
		{"checksum", flip, fmt.Sprintf("offset %d: checksum mismatch (CRC-32C %08x, stored %08x): the file is corrupt", n-12, crcOf(flip[:n-12]), crc)},
		{"truncated", data[:n-1], fmt.Sprintf("offset %d: file has %d bytes, its trailer says %d: truncated or extended", n-9, n-1, binary.LittleEndian.Uint64(data[n-9:]))},
		{"short", data[:10], "offset 10: file ends after 10 bytes: truncated (no trailer)"},
		{"empty", nil, `offset 0: not a CCG file (no magic "TBCCG\x00"; saved with ccg.Graph.Save?)`},
	}
	for _, c := range cases {
		p := write(c.name, c.data)
		_, err := Load(p)
		var e *Error
		if !errors.As(err, &e) || e.Func != "ccg.Load" || e.Msg != p+": "+c.msg {
			t.Fatalf("%s: error %v, want ccg.Load: %s: %s", c.name, err, p, c.msg)
		}
		_, err = Read(bytes.NewReader(c.data))
		if !errors.As(err, &e) || e.Func != "ccg.Read" || e.Msg != c.msg {
			t.Fatalf("%s: Read error %v, want ccg.Read: %s", c.name, err, c.msg)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	err := g.save(filepath.Join(dir, "no", "such", "dir"))
	var e *Error
	if !errors.As(err, &e) || e.Func != "ccg.Graph.Save" || !strings.Contains(e.Msg, filepath.Join(dir, "no", "such", "dir")) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("save into a missing directory: %v", err)
	}
	// A graph whose calls name regions the definitions lack cannot be
	// saved loadably: Save says so instead of writing the file.
	p := newPB().enter(0, 0).enter(1, 7).leave(2, 7).leave(3, 0).p
	err = Build(p, Lossless).save(filepath.Join(dir, "regions"))
	if !errors.As(err, &e) || e.Func != "ccg.Graph.Save" || !strings.HasSuffix(e.Msg, "calls region 7, which is not in the definitions' 0 regions: the file could not be loaded") {
		t.Fatalf("unknown regions: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "regions")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed save left a file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(cases) {
		t.Fatalf("%d entries in the directory, want %d (temporary files left?)", len(ents), len(cases))
	}
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// useGraph runs the queries on a graph restored from a corrupt file: they
// must not panic either.
func useGraph(h *Graph) {
	_ = h.Stats()
	_ = h.String()
	end := h.End()
	for i := range h.NumLocations() {
		if h.locs[i].Events < 1<<16 {
			_ = h.Process(i)
		}
		it := h.Iter(i)
		it.SeekTime(end / 2)
		it.Prev()
	}
	if end > 0 {
		_ = h.Summary(0, end)
		_ = h.Summary(end/3, end/2+1)
		_ = h.TimelineRange(0, end, 7)
		_ = h.At(end / 2)
	}
	_ = h.Table()
	_ = h.Recompress(Unlimited)
	_ = Merge(h, h)
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A file truncated at any offset, or with bytes changed, is an error
// naming the offset (with the checksum: always; without it the parser
// alone sees the damage and must still never panic, and a graph it
// accepts must answer queries without panicking); no parse allocates more
// than a small multiple of the file.
func TestLoadCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := Merge(Build(kindsTrace().Process(0), Lossless), Build(traceOf(8, randProc(rng, 5, 12, 2)).Process(0), Bounds{Abs: 10, Rel: 0.2}))
	g.defs = fullDefs()
	g.defs.Properties = nil // small file: every truncation below
	data := saved(t, g)
	n := len(data)
	limit := uint64(64*n + 64<<10)
	check := func(what string, b []byte, crc bool) *Graph {
		t.Helper()
		var h *Graph
		var err error
		if a := allocated(func() { h, err = decode("ccg.Read", "", b, crc) }); a > limit {
			t.Fatalf("%s: parsing %d bytes allocated %d", what, len(b), a)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Func != "ccg.Read" || !strings.HasPrefix(e.Msg, "offset ") {
				t.Fatalf("%s: error %v", what, err)
			}
		}
		return h
	}
	for k := range n {
		for _, crc := range []bool{true, false} {
			if h := check(fmt.Sprintf("truncated at %d (checksum %v)", k, crc), data[:k], crc); h != nil {
				t.Fatalf("file truncated at %d of %d bytes restored (checksum %v)", k, n, crc)
			}
		}
	}
	for i := range n {
		b := slices.Clone(data)
		b[i] ^= byte(1 + rng.IntN(255))
		if h := check(fmt.Sprintf("byte %d changed", i), b, true); h != nil {
			t.Fatalf("byte %d changed: restored", i)
		}
	}
	// Any node but a root as a location's root: refused.
	one := Build(kindsTrace().Process(0), Lossless)
	root := one.locs[0].Root
	for id := range uint32(len(one.st.nodes)) {
		one.locs[0].Root = id
		var buf bytes.Buffer
		if _, err := one.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		h, err := decode("ccg.Read", "", buf.Bytes(), true)
		if (err == nil) != (id == root) || err != nil && !strings.Contains(err.Error(), "location 0: root ") {
			t.Fatalf("node %d (root %d) as the root: %v", id, root, err)
		}
		if h != nil {
			useGraph(h)
		}
	}
	accepted := 0
	for trial := range 4000 {
		b := slices.Clone(data)
		for range 1 + rng.IntN(3) {
			b[rng.IntN(n)] ^= byte(1 + rng.IntN(255))
		}
		if h := check(fmt.Sprintf("trial %d", trial), b, false); h != nil {
			accepted++
			useGraph(h)
		}
	}
	t.Logf("%d of 4000 files with changed bytes parse without the checksum", accepted)
}

// FuzzLoad feeds the parser (without the checksum) saved graphs and their
// mutations: an error or a graph whose queries work, never a panic.
func FuzzLoad(f *testing.F) {
	rng := rand.New(rand.NewPCG(13, 14))
	f.Add(saved(f, Build(kindsTrace().Process(0), Lossless)))
	f.Add(saved(f, Build(traceOf(8, randProc(rng, 4, 6, 1)).Process(0), Bounds{Abs: 5, Rel: 0.1})))
	f.Add(saved(f, BuildTrace(traceOf(8, randProc(rng, 4, 3, 0), randProc(rng, 3, 4, 0)), Lossless, WithBranching(3))))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, crc := range []bool{false, true} {
			h, err := decode("ccg.Read", "", b, crc)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "offset ") {
					t.Fatalf("error %v", err)
				}
				continue
			}
			useGraph(h)
		}
	})
}

// BenchmarkSaveLoad saves and restores the graph of a generated run of
// about 3.3M events on 8 locations (the seed's restore measurement, 5.5.4
// and Figure 5.31: 8-9.5 MB/s; the target is 0.5 s for 36M
// events), lossless and with small-scale bounds. MB/s are of the file.
func BenchmarkSaveLoad(b *testing.B) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 8, 6000, 2
	tr := synth.Generate(cfg)
	for _, c := range []struct {
		name string
		b    Bounds
	}{{"lossless", Lossless}, {"abs=1us,rel=1%", Bounds{Abs: 1000, Rel: 0.01}}} {
		g := BuildTrace(tr, c.b)
		data := saved(b, g)
		events := float64(g.Stats().Events)
		b.Run(c.name+"/save", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := g.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/events, "file-bytes/event")
		})
		b.Run(c.name+"/restore", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(events*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}

// A child that is a location's root and a graph deeper than the limit are
// refused, naming the node.
func TestLoadStructureChecks(t *testing.T) {
	g := Build(kindsTrace().Process(0), Lossless)
	st := g.st
	root := g.locs[0].Root
	// The root becomes a child of a second location's root above it.
	st.nodes = append(st.nodes, st.nodes[root])
	st.kids = append(st.kids, st.children(&st.nodes[root])...)
	top := &st.nodes[len(st.nodes)-1]
	top.kids = uint32(len(st.kids) - int(top.n))
	st.kids[top.kids] = root
	l := g.locs[0]
	l.Root = uint32(len(st.nodes) - 1)
	g.locs = append(g.locs, l)
	_, err := Read(bytes.NewReader(saved(t, g)))
	if err == nil || !strings.HasSuffix(err.Error(), fmt.Sprintf("node %d: child %d is a location's root (region -1)", len(st.nodes)-1, root)) {
		t.Fatalf("a root as a child: %v", err)
	}
	// kindsTrace's graph has 4 levels: root, call 0, call 1, atomic.
	g = Build(kindsTrace().Process(0), Lossless)
	data := saved(t, g)
	defer func(d uint64) { maxGraphDepth = d }(maxGraphDepth)
	maxGraphDepth = 4
	if _, err := Read(bytes.NewReader(data)); err != nil {
		t.Fatalf("depth 4 refused: %v", err)
	}
	maxGraphDepth = 3
	_, err = Read(bytes.NewReader(data))
	if err == nil || !strings.HasSuffix(err.Error(), fmt.Sprintf("node %d: graph deeper than 3 levels", g.locs[0].Root)) {
		t.Fatalf("depth 4 with a limit of 3: %v", err)
	}
}

// A save that fails fails the cell (issue 32): Save panics with an *Error naming the file and
// the cause.
func TestSaveFailurePanics(t *testing.T) {
	g := Build(traceOf(4, figure34().p).Process(0), Lossless)
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "g.ccg")
	var p any
	func() {
		defer func() { p = recover() }()
		g.Save(missing)
	}()
	e, ok := p.(*Error)
	if !ok || e.Func != "ccg.Graph.Save" || !strings.Contains(e.Msg, missing) || !errors.Is(e, os.ErrNotExist) {
		t.Errorf("Save into a missing directory panicked with %#v", p)
	}
}
