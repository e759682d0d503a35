package profile

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
	"github.com/tracebook/tracebook/internal/memlimit"
)

const pingPong = "../../test/data/traces/ping-pong-otf2/traces.otf2"

var pingPongs = []string{pingPong, "../../test/data/traces/ping-pong-otf2-papi/traces.otf2"}

// pair is a (sender, receiver) cell of a brute-force matrix.
type pair struct{ from, to int32 }

type tally struct{ msgs, bytes int64 }

// otf2Sends reads the sends of an OTF2 archive as otf2-print (the
// reference C library) shows them: per (sender, receiver) location group,
// the messages and bytes, and the list of sizes.
func otf2Sends(t *testing.T, anchor string) (map[pair]tally, []int64) {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print is not installed")
	}
	out, err := exec.Command("otf2-print", "-A", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	locRe := regexp.MustCompile(`^LOCATION\s+(\d+)\s+Name: .*, Group: ".*" <(\d+)>$`)
	sendRe := regexp.MustCompile(`^MPI_I?SEND\s+(\d+)\s+\d+\s+Receiver: \d+ \(".*" <(\d+)>\), Communicator: .*, Tag: \d+, Length: (\d+)`)
	group := map[int64]int32{}
	type send struct {
		from, to int64
		bytes    int64
	}
	var sends []send
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := locRe.FindStringSubmatch(line); m != nil {
			l, _ := strconv.ParseInt(m[1], 10, 64)
			g, _ := strconv.ParseInt(m[2], 10, 32)
			group[l] = int32(g)
		}
		if m := sendRe.FindStringSubmatch(line); m != nil {
			var s send
			s.from, _ = strconv.ParseInt(m[1], 10, 64)
			s.to, _ = strconv.ParseInt(m[2], 10, 64)
			s.bytes, _ = strconv.ParseInt(m[3], 10, 64)
			sends = append(sends, s)
		}
	}
	if len(sends) == 0 || len(group) == 0 {
		t.Fatalf("otf2-print %s: no sends or no locations parsed", anchor)
	}
	cells := map[pair]tally{}
	var sizes []int64
	for _, s := range sends {
		k := pair{group[s.from], group[s.to]}
		c := cells[k]
		c.msgs++
		c.bytes += s.bytes
		cells[k] = c
		sizes = append(sizes, s.bytes)
	}
	return cells, sizes
}

// cellsOf reads a Comm back through its table.
func cellsOf(t *testing.T, c *Comm) map[pair]tally {
	t.Helper()
	tb := c.Table()
	from, err1 := tb.Int32s("Sender")
	to, err2 := tb.Int32s("Receiver")
	msgs, err3 := tb.Int64s("Messages")
	b, err4 := tb.Int64s("Bytes (B)")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	out := map[pair]tally{}
	for i := range from {
		k := pair{from[i], to[i]}
		if _, dup := out[k]; dup {
			t.Fatalf("pair %v twice in the table", k)
		}
		if msgs[i] == 0 {
			t.Fatalf("pair %v with no message in the table", k)
		}
		out[k] = tally{msgs[i], b[i]}
	}
	return out
}

func equalCells(a, b map[pair]tally) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The matrix of the real ping-pong traces is the one otf2-print shows.
func TestCommMatrixAgainstOTF2Print(t *testing.T) {
	for _, path := range pingPongs {
		want, _ := otf2Sends(t, path)
		tr, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		c := CommMatrix(tr)
		if got := cellsOf(t, c); !equalCells(got, want) {
			t.Fatalf("%s: matrix %v, otf2-print %v", path, got, want)
		}
		if !slices.Equal(c.Ranks, []int32{0, 1}) || c.Sends != 16 || c.Outside != 0 || c.Unresolved != 0 {
			t.Fatalf("%s: ranks %v, sends %d, outside %d, unresolved %d", path, c.Ranks, c.Sends, c.Outside, c.Unresolved)
		}
		m := c.Matrix("count")
		if m[0][0] != 0 || m[0][1] != float64(want[pair{0, 1}].msgs) || m[1][0] != float64(want[pair{1, 0}].msgs) || m[1][1] != 0 {
			t.Fatalf("%s: count matrix %v", path, m)
		}
		s := c.Matrix("size")
		if s[0][1] != float64(want[pair{0, 1}].bytes) || s[1][0] != float64(want[pair{1, 0}].bytes) {
			t.Fatalf("%s: size matrix %v", path, s)
		}
	}
}

// The histogram of the real ping-pong traces is numpy.histogram of the
// sizes otf2-print shows.
func TestMessageHistogramAgainstOTF2PrintAndNumpy(t *testing.T) {
	for _, path := range pingPongs {
		_, sizes := otf2Sends(t, path)
		tr, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		bins := []int{1, 3, 20}
		counts, edges := numpyHistograms(t, sizes, bins...)
		for i, b := range bins {
			h := MessageHistogram(tr, b)
			if !slices.Equal(h.Counts, counts[i]) || !slices.Equal(h.Edges, edges[i]) {
				t.Fatalf("%s bins %d: %v %v, numpy %v %v", path, b, h.Counts, h.Edges, counts[i], edges[i])
			}
		}
	}
}

// numpyHistograms runs numpy.histogram(sizes, bins) for each of bins
// (skips without numpy): counts and edges per bins.
func numpyHistograms(t *testing.T, sizes []int64, bins ...int) ([][]int64, [][]float64) {
	t.Helper()
	prog := `import sys, numpy as np
sizes = np.array([int(x) for x in sys.stdin.read().split()], dtype=np.int64)
for b in sys.argv[1:]:
    c, e = np.histogram(sizes, bins=int(b))
    print(" ".join(str(int(x)) for x in c))
    print(" ".join(repr(float(x)) for x in e))`
	py := "/usr/bin/python3" // the system Python, where Debian's python3-numpy lives
	if _, err := exec.LookPath(py); err != nil {
		py = "python3"
	}
	args := []string{"-c", prog}
	for _, b := range bins {
		args = append(args, strconv.Itoa(b))
	}
	cmd := exec.Command(py, args...)
	var in strings.Builder
	for _, s := range sizes {
		fmt.Fprintln(&in, s)
	}
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.Is(err, exec.ErrNotFound) || errors.As(err, &ee) && bytes.Contains(ee.Stderr, []byte("No module named 'numpy'")) {
			t.Skip("python3 with numpy is not installed")
		}
		t.Fatalf("numpy: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2*len(bins) {
		t.Fatalf("numpy printed %d lines for %d histograms", len(lines), len(bins))
	}
	counts, edges := make([][]int64, len(bins)), make([][]float64, len(bins))
	for i := range bins {
		for _, f := range strings.Fields(lines[2*i]) {
			v, _ := strconv.ParseInt(f, 10, 64)
			counts[i] = append(counts[i], v)
		}
		for _, f := range strings.Fields(lines[2*i+1]) {
			v, _ := strconv.ParseFloat(f, 64)
			edges[i] = append(edges[i], v)
		}
	}
	return counts, edges
}

// numpy's corner cases: one size, equal sizes, awkward ranges where the
// bin arithmetic is off by an ulp, sizes on the edges, no sizes.
func TestMessageHistogramNumpyCorners(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	cases := [][]int64{
		nil,
		{5},
		{7, 7, 7},
		{0, 1},
		{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
		{1, 1 << 40, 3, 999999999999},
	}
	for range 6 {
		n := 1 + rng.IntN(300)
		lo := rng.Int64N(1 << 30)
		span := 1 + rng.Int64N(1<<uint(rng.IntN(40)))
		s := make([]int64, n)
		for i := range s {
			s[i] = lo + rng.Int64N(span)
		}
		cases = append(cases, s)
	}
	// sizes on an interior edge where numpy's first bin guess is one too
	// low (508..8186 in 22 bins: 5743) or one too high (630..162077 in 39
	// bins: 124820), found by a search with numpy
	for _, c := range []struct {
		lo, hi, x int64
		bins      int
	}{{508, 8186, 5743, 22}, {452, 27480, 14898, 58}, {150, 160563, 43899, 55},
		{630, 162077, 124820, 39}, {513, 6586717, 1647064, 44}, {521, 4909, 3812, 60}} {
		sizes := []int64{c.lo, c.x, c.hi}
		counts, edges := numpyHistograms(t, sizes, c.bins)
		h := MessageHistogram(sendsTrace(sizes), c.bins)
		if !slices.Equal(h.Counts, counts[0]) || !slices.Equal(h.Edges, edges[0]) {
			t.Fatalf("%v in %d bins: %v, numpy %v", sizes, c.bins, h.Counts, counts[0])
		}
	}
	for ci, sizes := range cases {
		tr := sendsTrace(sizes)
		bins := []int{1, 2, 3, 7, 10, 20, 49}
		counts, edges := numpyHistograms(t, sizes, bins...)
		for i, b := range bins {
			h := MessageHistogram(tr, b)
			if !slices.Equal(h.Counts, counts[i]) || !slices.Equal(h.Edges, edges[i]) {
				t.Fatalf("case %d (%d sizes) bins %d: %v %v, numpy %v %v", ci, len(sizes), b, h.Counts, h.Edges, counts[i], edges[i])
			}
		}
	}
}

// sendsTrace is one rank sending the given sizes to itself over a
// communicator without a group.
func sendsTrace(sizes []int64) *trace.Trace {
	p := &trace.Process{}
	for i, s := range sizes {
		p.Kind = append(p.Kind, trace.MpiSend)
		p.Time = append(p.Time, int64(i))
		p.Ref = append(p.Ref, p.Msgs.Add(0, -1, 0, s, 0))
	}
	return trace.NewTrace(&trace.Definitions{}, []*trace.Process{p})
}

// A table in pipit's schema written from the OTF2 trace and read back
// (CSV, Parquet) gives the same matrix: the partner is the global rank on
// MPI_COMM_WORLD.
func TestCommMatrixPipitTables(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	want := cellsOf(t, CommMatrix(tr))
	for _, ext := range []string{".csv", ".parquet"} {
		path := filepath.Join(t.TempDir(), "events"+ext)
		arrowio.Write(path, tr.Events())
		back, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := cellsOf(t, CommMatrix(back)); !equalCells(got, want) {
			t.Fatalf("%s: matrix %v, from OTF2 %v", ext, got, want)
		}
		if h, g := MessageHistogram(back, 20), MessageHistogram(tr, 20); !slices.Equal(h.Counts, g.Counts) || !slices.Equal(h.Edges, g.Edges) {
			t.Fatalf("%s: histogram %v, from OTF2 %v", ext, h, g)
		}
	}
}

// pipit's own CSV export of the same program: the matrix equals the one
// from the OTF2 trace once trace.Load reads the partner and size from
// pipit's Attributes column.
func TestCommMatrixPipitCSV(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := trace.Load("../../test/data/traces/csv/ping-pong-csv.csv")
	if err != nil {
		t.Fatal(err)
	}
	c := CommMatrix(csv) // the partners and sizes come from pipit's Attributes dicts
	if c.Sends != 16 || c.Outside != 0 {
		t.Fatalf("pipit CSV: %d sends counted, %d outside; want all 16 sends", c.Sends, c.Outside)
	}
	if got, want := cellsOf(t, c), cellsOf(t, CommMatrix(tr)); !equalCells(got, want) {
		t.Fatalf("pipit CSV matrix %v, from OTF2 %v", got, want)
	}
}

// ---- random traces with a known answer ----

// sent is what the generator knows of one send: the true global ranks
// (or the raw peer when it made the send unresolvable), bytes and the
// place of the send and of its receive.
type sent struct {
	from, to       int32
	comm, tag      int32
	bytes          int64
	sloc, rloc     int // process indices; rloc -1: no receive
	stime, rtime   int64
	rpost          int64 // when the receive was posted
	unresolvedPeer bool
}

// randomComm is a random trace: ranks with one or two threads, sends and
// receives on MPI_COMM_WORLD (comm_locations), on a communicator whose
// comm_group permutes a subset of the ranks, and on MPI_COMM_SELF;
// Isend/Irecv and request-only records, collectives, enter/leave noise;
// unmatched sends and receives and sends to peers outside a group.
type randomComm struct {
	tr        *trace.Trace
	sends     []sent
	colls     map[int32][3]int64 // per rank: ops, sent, received
	extra     int                // receives without send
	cancelled [2]int64           // sends and receives cancelled
}

func genComm(rng *rand.Rand, ranks, msgs int) *randomComm {
	members := rng.Perm(ranks)[:1+rng.IntN(ranks)]
	inGroup := map[int32]int32{}
	for i, r := range members {
		inGroup[int32(r)] = int32(i)
	}
	um := make([]uint64, len(members))
	for i, r := range members {
		um[i] = uint64(r)
	}
	world := make([]uint64, ranks)
	for i := range world {
		world[i] = uint64(i)
	}
	defs := &trace.Definitions{
		Regions: []trace.Region{{Name: "main"}},
		Groups:  []trace.Group{{Type: "comm_locations", Members: world}, {Type: "comm_group", Members: um}, {Type: "comm_self"}},
		Comms:   []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 0, Parent: -1}, {Name: "sub", Group: 1, Parent: 0}, {Name: "MPI_COMM_SELF", Group: 2, Parent: 0}},
	}
	// locations: rank r has 1 or 2 threads; locations of a rank are not
	// adjacent in the process order.
	type loc struct{ rank, thread int32 }
	var locs []loc
	threads := make([]int32, ranks)
	for r := range ranks {
		threads[r] = 1 + int32(rng.IntN(2))
		for th := range threads[r] {
			locs = append(locs, loc{int32(r), th})
		}
	}
	rng.Shuffle(len(locs), func(i, j int) { locs[i], locs[j] = locs[j], locs[i] })
	where := map[loc]int{}
	procs := make([]*trace.Process, len(locs))
	for i, l := range locs {
		where[l] = i
		procs[i] = &trace.Process{Rank: l.rank, Thread: l.thread}
	}
	clock := make([]int64, len(procs))
	emit := func(pi int, k trace.EventKind, ref int32) int64 {
		p := procs[pi]
		clock[pi] += 1 + rng.Int64N(5)
		p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, clock[pi]), append(p.Ref, ref)
		return clock[pi]
	}
	g := &randomComm{colls: map[int32][3]int64{}}
	sizes := []int64{0, 8, 64, 1024, 4096, 1 << 20}
	// non-blocking receives complete later, in any order (MPI_Waitany)
	type open struct {
		req       int64
		send      int // index into g.sends, -1: to be cancelled
		peer, tag int32
		comm      int32
	}
	opens := make([][]open, len(procs))
	reqs := make([]int64, len(procs))
	newReq := func(pi int) int64 { reqs[pi]++; return reqs[pi] }
	complete := func(pi int) {
		j := rng.IntN(len(opens[pi]))
		o := opens[pi][j]
		opens[pi] = slices.Delete(opens[pi], j, j+1)
		q := procs[pi]
		if o.send < 0 {
			emit(pi, trace.MpiRequestCancelled, q.Msgs.Add(-1, -1, -1, 0, o.req))
			g.cancelled[1]++
			return
		}
		s := &g.sends[o.send]
		s.rtime = emit(pi, trace.MpiIrecv, q.Msgs.Add(o.peer, o.comm, o.tag, s.bytes, o.req))
	}
	for range msgs {
		from := int32(rng.IntN(ranks))
		to := int32(rng.IntN(ranks))
		comm := int32(0)
		speer, rpeer := to, from
		unres := false
		switch x := rng.IntN(10); {
		case x < 3:
			fi, ok1 := inGroup[from]
			ti, ok2 := inGroup[to]
			if ok1 && ok2 {
				comm, speer, rpeer = 1, ti, fi
			}
		case x == 3:
			comm, to, speer, rpeer = 2, from, 0, 0
		case x == 4 && len(members) < ranks:
			// a peer beyond the group: not resolvable, taken as global
			comm, speer, unres = 1, int32(len(members))+int32(rng.IntN(3)), true
		}
		sth, rth := int32(rng.IntN(int(threads[from]))), int32(0)
		if !unres {
			rth = int32(rng.IntN(int(threads[to])))
		}
		tag := int32(rng.IntN(3))*16 + sth*4 + rth // one sending and one receiving location per key
		received := !unres && rng.IntN(12) != 0    // some sends stay unmatched
		if !received {
			tag = 1000 + int32(len(g.sends)) // alone on its key: no later send on it is taken by a receive meant for it
		}
		bytes := sizes[rng.IntN(len(sizes))] + rng.Int64N(3)
		s := sent{from: from, to: to, comm: comm, tag: tag, bytes: bytes, sloc: where[loc{from, sth}], rloc: -1, unresolvedPeer: unres}
		if unres {
			s.to = speer
		}
		p := procs[s.sloc]
		sk := trace.MpiSend
		if rng.IntN(2) == 0 {
			sk = trace.MpiIsend
		}
		if sk == trace.MpiIsend {
			req := newReq(s.sloc)
			s.stime = emit(s.sloc, sk, p.Msgs.Add(speer, comm, tag, bytes, req))
			emit(s.sloc, trace.MpiIsendComplete, p.Msgs.Add(-1, -1, -1, 0, req))
		} else {
			s.stime = emit(s.sloc, sk, p.Msgs.Add(speer, comm, tag, bytes, 0))
		}
		if rng.IntN(15) == 0 { // an Isend cancelled: never sent
			req := newReq(s.sloc)
			emit(s.sloc, trace.MpiIsend, p.Msgs.Add(speer, comm, tag, bytes+1, req))
			emit(s.sloc, trace.MpiRequestCancelled, p.Msgs.Add(-1, -1, -1, 0, req))
			g.cancelled[0]++
			// CommMatrix and MessageHistogram count it (pipit counts every
			// send record); no receive takes it
			c := s
			c.bytes++
			g.sends = append(g.sends, c)
		}
		g.sends = append(g.sends, s)
		if received {
			s := &g.sends[len(g.sends)-1]
			s.rloc = where[loc{to, rth}]
			q := procs[s.rloc]
			if rng.IntN(2) == 0 {
				req := newReq(s.rloc)
				s.rpost = emit(s.rloc, trace.MpiIrecvRequest, q.Msgs.Add(-1, -1, -1, 0, req))
				opens[s.rloc] = append(opens[s.rloc], open{req: req, send: len(g.sends) - 1, peer: rpeer, comm: comm, tag: tag})
			} else {
				s.rtime = emit(s.rloc, trace.MpiRecv, q.Msgs.Add(rpeer, comm, tag, bytes, 0))
				s.rpost = s.rtime
			}
		}
		if rng.IntN(15) == 0 { // a receive posted and cancelled
			pi := rng.IntN(len(procs))
			req := newReq(pi)
			emit(pi, trace.MpiIrecvRequest, procs[pi].Msgs.Add(-1, -1, -1, 0, req))
			opens[pi] = append(opens[pi], open{req: req, send: -1})
		}
		if pi := rng.IntN(len(procs)); len(opens[pi]) > 0 && rng.IntN(2) == 0 {
			complete(pi)
		}
		if rng.IntN(10) == 0 { // a receive that no send matches
			pi := rng.IntN(len(procs))
			q := procs[pi]
			emit(pi, trace.MpiRecv, q.Msgs.Add(int32(rng.IntN(ranks)), 0, 99, 5, 0))
			g.extra++
		}
		if rng.IntN(8) == 0 { // noise and collectives
			pi := rng.IntN(len(procs))
			q := procs[pi]
			emit(pi, trace.Enter, 0)
			emit(pi, trace.MpiCollectiveBegin, -1)
			sb, rb := rng.Int64N(100), rng.Int64N(100)
			emit(pi, trace.MpiCollectiveEnd, q.Colls.Add(uint8(rng.IntN(5)), 0, trace.RootNone, sb, rb))
			emit(pi, trace.Leave, 0)
			c := g.colls[q.Rank]
			g.colls[q.Rank] = [3]int64{c[0] + 1, c[1] + sb, c[2] + rb}
		}
	}
	for pi := range opens {
		for len(opens[pi]) > 0 {
			complete(pi)
		}
	}
	g.tr = trace.NewTrace(defs, procs)
	return g
}

// bruteCells is the matrix counted directly from what the generator sent.
func (g *randomComm) bruteCells(keep func(r int32) bool) (cells map[pair]tally, outside, unresolved int64) {
	cells = map[pair]tally{}
	for _, s := range g.sends {
		if !keep(s.from) {
			continue
		}
		if s.unresolvedPeer {
			unresolved++
		}
		if !keep(s.to) || s.to >= int32(g.ranks()) {
			outside++
			continue
		}
		k := pair{s.from, s.to}
		c := cells[k]
		c.msgs++
		c.bytes += s.bytes
		cells[k] = c
	}
	return cells, outside, unresolved
}

func (g *randomComm) ranks() int {
	n := 0
	for _, p := range g.tr.Processes() {
		n = max(n, int(p.Rank)+1)
	}
	return n
}

func TestCommMatrixRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 60 {
		ranks := 1 + rng.IntN(9)
		g := genComm(rng, ranks, rng.IntN(400))
		all := func(int32) bool { return true }
		want, outside, unres := g.bruteCells(all)
		c := CommMatrix(g.tr)
		if got := cellsOf(t, c); !equalCells(got, want) || c.Outside != outside || c.Unresolved != unres {
			t.Fatalf("trace %d: matrix %v outside %d unresolved %d\nbrute force %v outside %d unresolved %d",
				it, got, c.Outside, c.Unresolved, want, outside, unres)
		}
		var sends, bytes int64
		for _, v := range want {
			sends += v.msgs
			bytes += v.bytes
		}
		if c.Sends != sends || c.Bytes != bytes {
			t.Fatalf("trace %d: totals %d %d, brute force %d %d", it, c.Sends, c.Bytes, sends, bytes)
		}
		for _, out := range []string{"size", "count"} {
			m := c.Matrix(out)
			for i, a := range c.Ranks {
				for j, b := range c.Ranks {
					w := want[pair{a, b}]
					v := float64(w.bytes)
					if out == "count" {
						v = float64(w.msgs)
					}
					if m[i][j] != v {
						t.Fatalf("trace %d: Matrix(%q)[%d][%d] = %v, brute force %v", it, out, i, j, m[i][j], v)
					}
				}
			}
		}
		// collectives per rank
		tb := c.Collectives()
		rk, _ := tb.Int32s("Rank")
		ops, _ := tb.Int64s("Operations")
		sb, _ := tb.Int64s("Bytes Sent (B)")
		rb, _ := tb.Int64s("Bytes Received (B)")
		for i, r := range rk {
			if w := g.colls[r]; ops[i] != w[0] || sb[i] != w[1] || rb[i] != w[2] {
				t.Fatalf("trace %d: collectives of rank %d: %d %d %d, brute force %v", it, r, ops[i], sb[i], rb[i], w)
			}
		}
		if len(rk) != ranks {
			t.Fatalf("trace %d: %d collective rows for %d ranks", it, len(rk), ranks)
		}
		// a restriction to some ranks
		sub := rng.Perm(ranks)[:1+rng.IntN(ranks)]
		keep := func(r int32) bool { return slices.Contains(sub, int(r)) }
		want, outside, unres = g.bruteCells(keep)
		c = CommMatrix(g.tr, WithRanks(sub...))
		if got := cellsOf(t, c); !equalCells(got, want) || c.Outside != outside || c.Unresolved != unres || len(c.Ranks) != len(sub) {
			t.Fatalf("trace %d ranks %v: matrix %v outside %d unresolved %d\nbrute force %v outside %d unresolved %d",
				it, sub, got, c.Outside, c.Unresolved, want, outside, unres)
		}
	}
}

// The contract suite over random communication traces: random splits of
// the processes merged in random orders, through their encodings, give the
// whole, for the matrix (also restricted to some ranks) and the histogram;
// the surface functions give the whole too.
func TestCommParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 12 {
		g := genComm(rng, 1+rng.IntN(8), rng.IntN(300))
		bins := 1 + rng.IntN(25)
		ranks := ranksOf(g.tr)
		for _, m := range []part.Method{CommMethod(), CommMethod(WithRanks(ranks[:1+rng.IntN(len(ranks))]...)), SizesMethod(bins)} {
			parttest.Check(t, g.tr, m, parttest.Config{Seed: uint64(it + 1)})
		}
		whole, err := part.Run(g.tr, g.tr.Processes(), CommMethod())
		if err != nil {
			t.Fatal(err)
		}
		if c := CommMatrix(g.tr); !equalCells(cellsOf(t, c), cellsOf(t, whole.(*Comm))) || !tableEqual(c.Collectives(), whole.(*Comm).Collectives()) {
			t.Fatalf("trace %d: CommMatrix differs from the method's whole partial", it)
		}
		h, err := part.Run(g.tr, g.tr.Processes(), SizesMethod(bins))
		if err != nil {
			t.Fatal(err)
		}
		w := MessageHistogram(g.tr, bins)
		if !slices.Equal(h.(*Histogram).Counts, w.Counts) || !slices.Equal(h.(*Histogram).Edges, w.Edges) {
			t.Fatalf("trace %d: the method's histogram %v, MessageHistogram %v", it, h, w)
		}
		if w.Messages() != int64(len(g.sends)) {
			t.Fatalf("trace %d: histogram holds %d sends, generated %d", it, w.Messages(), len(g.sends))
		}
	}
}

// Merging partials of other ranks or bins is an error, not a panic.
func TestCommMergeMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	g := genComm(rng, 4, 50)
	a, b := CommMatrix(g.tr), CommMatrix(g.tr, WithRanks(0, 1))
	if err := a.Merge(b); err == nil || !strings.Contains(err.Error(), "different ranks") {
		t.Errorf("merging matrices of other ranks: %v", err)
	}
	if err := a.Merge(MessageHistogram(g.tr, 3)); err == nil {
		t.Errorf("merging a histogram into a matrix: no error")
	}
	h := MessageHistogram(g.tr, 3)
	if err := h.Merge(MessageHistogram(g.tr, 4)); err == nil || !strings.Contains(err.Error(), "different bins") {
		t.Errorf("merging histograms of other bins: %v", err)
	}
	r := MessageSizeRange(g.tr.Processes()[:1])
	if err := r.Merge(&SizeRange{Sends: 1, Min: -5, Max: -5}); err != nil || r.Min != -5 {
		t.Errorf("merging size ranges: %v, %+v", err, r)
	}
}

func tableEqual(a, b *arrowio.Table) bool {
	return fmt.Sprint(a.MIMEBundle()["text/plain"]) == fmt.Sprint(b.MIMEBundle()["text/plain"])
}

// The histogram against a direct per-send binning: bin i holds the sizes
// in [edge i, edge i+1), the last bin also its right edge.
func TestMessageHistogramRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := range 60 {
		g := genComm(rng, 1+rng.IntN(6), rng.IntN(300))
		bins := 1 + rng.IntN(30)
		h := MessageHistogram(g.tr, bins)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, s := range g.sends {
			lo, hi = min(lo, s.bytes), max(hi, s.bytes)
		}
		first, last := float64(lo), float64(hi)
		switch {
		case len(g.sends) == 0:
			first, last = 0, 1
		case lo == hi:
			first, last = first-0.5, last+0.5
		}
		if h.Edges[0] != first || h.Edges[bins] != last || len(h.Edges) != bins+1 {
			t.Fatalf("trace %d: edges %v, want %v .. %v", it, h.Edges, first, last)
		}
		for i := 1; i < bins; i++ {
			if w := first + float64(i)*((last-first)/float64(bins)); math.Abs(h.Edges[i]-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Fatalf("trace %d: edge %d = %v, want about %v", it, i, h.Edges[i], w)
			}
		}
		want := make([]int64, bins)
		for _, s := range g.sends {
			x := float64(s.bytes)
			for i := range bins {
				if x >= h.Edges[i] && (x < h.Edges[i+1] || i == bins-1 && x == h.Edges[bins]) {
					want[i]++
					break
				}
			}
		}
		if !slices.Equal(h.Counts, want) {
			t.Fatalf("trace %d bins %d: %v, brute force %v", it, bins, h.Counts, want)
		}
	}
}

// ---- matching ----

// naiveMatch is the O(n^2) matcher of MPI's rule: every receive,
// location by location in posting order, takes the first unmatched send
// (in its location's posting order) of the same sender, receiver,
// communicator and tag. A location's operations in posting order: a send
// at its record unless its request is cancelled next; a receive at its
// MpiIrecvRequest when the next record of that request is its MpiIrecv,
// at its own record otherwise.
func naiveMatch(tr *trace.Trace) (msgs []Message, unmatchedSends, unmatchedRecvs int64) {
	type ev struct {
		loc        int
		from, to   int32
		comm, tag  int32
		bytes      int64
		post, time int64
		used       bool
	}
	global := func(d *trace.Definitions, comm, peer, own int32) int32 {
		if comm < 0 || int(comm) >= len(d.Comms) || peer < 0 {
			return peer
		}
		grp := d.Groups[d.Comms[comm].Group]
		switch grp.Type {
		case "comm_self":
			if peer == 0 {
				return own
			}
		case "comm_locations":
		default:
			if int(peer) < len(grp.Members) {
				return int32(grp.Members[peer])
			}
		}
		return peer
	}
	var sends, recvs []*ev
	for li, p := range tr.Processes() {
		m := &p.Msgs
		isReq := func(i int) bool {
			switch p.Kind[i] {
			case trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
				return m.Request[p.Ref[i]] != 0
			}
			return false
		}
		sameReq := func(i, dir int) int { // the nearest record of i's request before or after i
			for j := i + dir; j >= 0 && j < len(p.Kind); j += dir {
				if isReq(j) && m.Request[p.Ref[j]] == m.Request[p.Ref[i]] {
					return j
				}
			}
			return -1
		}
		kindAt := func(j int) trace.EventKind {
			if j < 0 {
				return 255
			}
			return p.Kind[j]
		}
		for i, k := range p.Kind {
			r := p.Ref[i]
			switch k {
			case trace.MpiSend, trace.MpiIsend:
				if k == trace.MpiIsend && isReq(i) && kindAt(sameReq(i, 1)) == trace.MpiRequestCancelled {
					continue
				}
				sends = append(sends, &ev{loc: li, from: p.Rank, to: global(tr.Defs, m.Comm[r], m.Peer[r], p.Rank), comm: m.Comm[r], tag: m.Tag[r],
					bytes: m.Bytes[r], post: p.Time[i], time: p.Time[i]})
			case trace.MpiRecv, trace.MpiIrecv, trace.MpiIrecvRequest:
				c := i
				switch {
				case k == trace.MpiIrecvRequest:
					if !isReq(i) || kindAt(sameReq(i, 1)) != trace.MpiIrecv {
						continue
					}
					c = sameReq(i, 1)
				case k == trace.MpiIrecv && isReq(i) && kindAt(sameReq(i, -1)) == trace.MpiIrecvRequest:
					continue // posted at its request
				}
				rc := p.Ref[c]
				recvs = append(recvs, &ev{loc: li, from: global(tr.Defs, m.Comm[rc], m.Peer[rc], p.Rank), to: p.Rank, comm: m.Comm[rc], tag: m.Tag[rc],
					bytes: m.Bytes[rc], post: p.Time[i], time: p.Time[c]})
			}
		}
	}
	for _, r := range recvs {
		found := false
		for _, s := range sends {
			if !s.used && s.from == r.from && s.to == r.to && s.comm == r.comm && s.tag == r.tag {
				s.used, found = true, true
				msgs = append(msgs, Message{Sender: s.from, Receiver: r.to, SendProcess: int32(s.loc), RecvProcess: int32(r.loc),
					Comm: s.comm, Tag: s.tag, Bytes: s.bytes, Send: s.time, RecvPosted: r.post, Recv: r.time})
				break
			}
		}
		if !found {
			unmatchedRecvs++
		}
	}
	for _, s := range sends {
		if !s.used {
			unmatchedSends++
		}
	}
	slices.SortFunc(msgs, func(a, b Message) int {
		return cmp.Or(cmp.Compare(a.Send, b.Send), cmp.Compare(a.SendProcess, b.SendProcess))
	})
	return msgs, unmatchedSends, unmatchedRecvs
}

// rows returns the matched messages as values.
func rows(m *MessageMatch) []Message {
	out := make([]Message, m.Len())
	for i := range out {
		out[i] = m.Message(i)
	}
	return out
}

// Random traces with receives completing out of posting order and
// cancelled requests: the matches are the naive matcher's and the
// generator's own.
func TestMessagesAgainstNaiveMatcher(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := range 80 {
		g := genComm(rng, 1+rng.IntN(8), rng.IntN(400))
		m := Messages(g.tr)
		want, us, ur := naiveMatch(g.tr)
		if got := rows(m); !slices.Equal(got, want) || m.UnmatchedSends != us || m.UnmatchedRecvs != ur {
			t.Fatalf("trace %d: %d messages, unmatched %d %d\nnaive %d messages, unmatched %d %d\n%v\n%v",
				it, len(got), m.UnmatchedSends, m.UnmatchedRecvs, len(want), us, ur, got, want)
		}
		// the generator's own account: every received send is matched
		// with its receive
		var truth []Message
		for _, s := range g.sends {
			if s.rloc >= 0 {
				p, q := g.tr.Process(s.sloc), g.tr.Process(s.rloc)
				truth = append(truth, Message{Sender: p.Rank, Receiver: q.Rank, SendProcess: int32(s.sloc), RecvProcess: int32(s.rloc),
					Comm: s.comm, Tag: s.tag, Bytes: s.bytes, Send: s.stime, RecvPosted: s.rpost, Recv: s.rtime})
			}
		}
		slices.SortFunc(truth, func(a, b Message) int {
			return cmp.Or(cmp.Compare(a.Send, b.Send), cmp.Compare(a.SendProcess, b.SendProcess))
		})
		if got := rows(m); !slices.Equal(got, truth) {
			for i := range got {
				if i >= len(truth) || got[i] != truth[i] {
					t.Fatalf("trace %d: message %d is %+v, the generator's %+v", it, i, got[i], truth[min(i, len(truth)-1)])
				}
			}
		}
		if got := rows(m); !slices.Equal(got, truth) || m.UnmatchedRecvs != int64(g.extra) || m.SizeMismatches != 0 ||
			m.CancelledSends != g.cancelled[0] || m.CancelledRecvs != g.cancelled[1] || m.Incomplete != 0 || m.Strays != 0 {
			t.Fatalf("trace %d: %d matched, %d receives unmatched, cancelled %d %d, %d incomplete, %d strays; generated %d received sends, %d stray receives, cancelled %v",
				it, m.Len(), m.UnmatchedRecvs, m.CancelledSends, m.CancelledRecvs, m.Incomplete, m.Strays, len(truth), g.extra, g.cancelled)
		}
	}
}

// The real ping-pong: 16 messages, each receive after its send.
func TestMessagesPingPong(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	m := Messages(tr)
	if m.Len() != 16 || m.UnmatchedSends != 0 || m.UnmatchedRecvs != 0 || m.Unresolved != 0 {
		t.Fatalf("ping-pong: %v", m)
	}
	want, _, _ := naiveMatch(tr)
	if !slices.Equal(rows(m), want) {
		t.Fatalf("ping-pong: %v\nnaive %v", rows(m), want)
	}
	tb := m.Table()
	if got := strings.Join(tb.ColumnNames(), "|"); got != "Sender|Receiver|Send Process|Recv Process|Comm|Tag|Bytes (B)|Send (ns)|Recv Posted (ns)|Recv (ns)|Latency (ns)" {
		t.Fatalf("columns %s", got)
	}
	lat, _ := tb.Int64s("Latency (ns)")
	for i, x := range rows(m) {
		if lat[i] != x.Recv-x.Send || lat[i] <= 0 {
			t.Fatalf("message %d: latency %d (send %d, receive %d)", i, lat[i], x.Send, x.Recv)
		}
	}
	comm, _ := tb.Strings("Comm")
	if comm[0] != "MPI_COMM_WORLD" {
		t.Fatalf("comm %q", comm[0])
	}
}

// ---- surface ----

func TestCommSurface(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	c := CommMatrix(tr)
	if got := strings.Join(c.Table().ColumnNames(), "|"); got != "Sender|Receiver|Messages|Bytes (B)" {
		t.Fatalf("columns %s", got)
	}
	want := "2 ranks: 16 point-to-point messages, 8.0 MiB, between 2 pairs; heaviest 0 -> 1: 8 messages, 4.0 MiB"
	if s := c.String(); s != want {
		t.Fatalf("headline %q\nwant %q", s, want)
	}
	b := c.MIMEBundle()
	if h := b["text/html"].(string); !strings.Contains(h, "<img") || !strings.Contains(h, "heaviest 0 -&gt; 1") {
		t.Fatalf("html without the figure or headline: %.300s", h)
	}
	if c.Plot().Title() != "Bytes sent: 8.0 MiB in 16 messages; heaviest 0 -> 1 (4.0 MiB)" {
		t.Fatalf("plot title %q", c.Plot().Title())
	}
	h := MessageHistogram(tr, 4)
	if got := strings.Join(h.Table().ColumnNames(), "|"); got != "Bin Start (B)|Bin End (B)|Messages" {
		t.Fatalf("histogram columns %s", got)
	}
	if !strings.Contains(h.MIMEBundle()["text/html"].(string), "<img") {
		t.Fatal("histogram html without the figure")
	}
	if s := Messages(tr).String(); !strings.HasPrefix(s, "16 messages matched, 8.0 MiB; latency min ") || !strings.HasSuffix(s, "; unmatched: 0 sends, 0 receives") {
		t.Fatalf("messages headline %q", s)
	}
}

func wantError(t *testing.T, fn, msg string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		e, ok := r.(*Error)
		if !ok || e.Func != fn || !strings.Contains(e.Msg, msg) {
			t.Fatalf("panic %#v, want *Error from %s containing %q", r, fn, msg)
		}
	}()
	f()
}

func TestCommBadArguments(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	c := CommMatrix(tr)
	wantError(t, "profile.Comm.Matrix", `output "bytes": want "size" or "count"`, func() { c.Matrix("bytes") })
	wantError(t, "profile.MessageHistogram", "bins 0: need bins >= 1", func() { MessageHistogram(tr, 0) })
	wantError(t, "profile.MessageHistogramOf", "bins -1", func() { MessageHistogramOf(tr.Processes(), -1, SizeRange{}) })
	wantError(t, "profile.CommMatrix", "rank 5 is not a rank of the trace", func() { CommMatrix(tr, WithRanks(0, 5)) })
	wantError(t, "profile.CommMatrix", "trace is nil", func() { CommMatrix(nil) })
	wantError(t, "profile.Messages", "trace is nil", func() { Messages(nil) })
	other := sendsTrace([]int64{1})
	wantError(t, "profile.CommMatrixOf", "process 0 is not a process of the trace", func() { CommMatrixOf(tr, other.Processes()) })
	// mismatched merges return an *Error (they panicked before the per-process contract)
	for _, c := range []struct {
		fn, msg string
		err     error
	}{
		{"profile.Comm.Merge", "in both partials", c.Merge(CommMatrix(other))},
		{"profile.Comm.Merge", "different ranks", c.Merge(CommMatrix(other, WithRanks(0)))},
		{"profile.Histogram.Merge", "different bins", MessageHistogram(tr, 3).Merge(MessageHistogram(tr, 4))},
	} {
		var e *Error
		if !errors.As(c.err, &e) || e.Func != c.fn || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: error %v, want an *Error from it containing %q", c.fn, c.err, c.msg)
		}
	}
}

// ---- interrupt ----

// In a cell interrupted before they start, every long function stops at
// its first progress report with an *Error naming it that wraps
// work.ErrInterrupted (no timing involved).
func TestCommInterruptedCell(t *testing.T) {
	tr := haloTrace(64, 100_000, 2) // 200,000 events in 64 processes of 3,136
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	for _, c := range []struct {
		fn  string
		run func()
	}{
		{"profile.CommMatrix", func() { CommMatrix(tr) }},
		{"profile.CommMatrixOf", func() { CommMatrixOf(tr, tr.Processes()) }},
		{"profile.MessageHistogram", func() { MessageHistogram(tr, 20) }},
		{"profile.MessageSizeRange", func() { MessageSizeRange(tr.Processes()) }},
		{"profile.MessageHistogramOf", func() { MessageHistogramOf(tr.Processes(), 20, SizeRange{Sends: 1, Min: 0, Max: 10}) }},
		{"profile.Messages", func() { Messages(tr) }},
	} {
		func() {
			defer func() {
				r := recover()
				err, _ := r.(error)
				var e *Error
				if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != c.fn {
					t.Errorf("%s in an interrupted cell: panic %#v", c.fn, r)
				}
			}()
			c.run()
		}()
	}
}

// CommMatrix and Messages stop at an interrupt with an *Error naming them
// that wraps work.ErrInterrupted, and run normally afterwards.
func TestCommStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an 8M-event trace")
	}
	tr := haloTrace(512, 4_000_000, 1)
	for _, c := range []struct {
		fn  string
		run func()
	}{
		{"profile.CommMatrix", func() { CommMatrix(tr) }},
		{"profile.MessageHistogram", func() { MessageHistogram(tr, 20) }},
		{"profile.Messages", func() { Messages(tr) }},
	} {
		out := worktest.Interrupt(t, 5*time.Millisecond, 10*time.Second, c.run)
		if out.Finished {
			t.Logf("%s finished before the interrupt (machine too fast for this input)", c.fn)
			continue
		}
		err, _ := out.Panic.(error)
		var e *Error
		if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != c.fn {
			t.Fatalf("interrupted %s panicked with %#v", c.fn, out.Panic)
		}
		t.Logf("%s stopped %v after the interrupt", c.fn, out.Latency)
	}
	small, _ := trace.Load(pingPong)
	if c := CommMatrix(small); c.Sends != 16 {
		t.Fatalf("after the interrupt: %v", c)
	}
}

// A four-line pipit CSV naming rank 2000000000 once asked CommMatrix for a
// table indexed by rank (8 GB, a fatal out-of-memory error under a memory
// limit). The rank index is sparse now, and the matrix has the two ranks.
func TestCommMatrixSparseRanksUnderMemoryLimit(t *testing.T) {
	memlimit.Run(t, 1<<30, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sparse.csv")
		csv := "Timestamp (ns),Event Type,Name,Thread,Process,Attributes\n" +
			"0,Enter,MPI_Send,0,0,\n" +
			"5,Instant,MpiSend,0,0,\"{'receiver': 2000000000, 'communicator': 0, 'msg_tag': 0, 'msg_length': 8}\"\n" +
			"10,Leave,MPI_Send,0,0,\n" +
			"20,Enter,MPI_Recv,0,2000000000,\n"
		if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		c := CommMatrix(tr)
		if !slices.Equal(c.Ranks, []int32{0, 2000000000}) {
			t.Fatalf("ranks %v, want [0 2000000000]", c.Ranks)
		}
		if c.row(2000000000) != 1 || c.row(1) != -1 || c.row(-5) != -1 {
			t.Fatalf("rows: %d %d %d", c.row(2000000000), c.row(1), c.row(-5))
		}
		t.Logf("sends %d, outside %d, unresolved %d, cells %v", c.Sends, c.Outside, c.Unresolved, c.cells)
	})
}

// The rank index, dense or searched, agrees with a linear search.
func TestRankIndexMatchesLinearSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		spread := []int32{4, 100, 1 << 30}[r.IntN(3)]
		var ranks []int32
		for range r.IntN(40) {
			ranks = append(ranks, r.Int32N(spread))
		}
		slices.Sort(ranks)
		ranks = slices.Compact(ranks)
		x := newRankIndex(ranks)
		probe := append(slices.Clone(ranks), -1, spread, spread+1, 0, 1, 2, 3)
		for _, q := range probe {
			want := int32(slices.Index(ranks, q))
			if got := x.row(ranks, q); got != want {
				t.Fatalf("ranks %v (dense %v): row(%d) = %d, want %d", ranks, x.dense != nil, q, got, want)
			}
		}
	}
}

// ---- issue 31, finding 4 ----

// The reproducer written by the reference OTF2 library (testdata/waitany.py):
// rank 1 posts four MPI_Irecv and MPI_Waitany completes them out of order;
// rank 0 cancels an MPI_Isend and rank 1 a receive. Each send is received
// by the receive posted for it, and the cancelled ones take no part.
func TestMessagesWaitanyOTF2(t *testing.T) {
	tr, err := trace.Load("testdata/waitany/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	var cancels int
	for _, p := range tr.Processes() {
		if p.Skipped != 0 {
			t.Fatalf("%s: %d records not modelled", p.Label(), p.Skipped)
		}
		for _, k := range p.Kind {
			if k == trace.MpiRequestCancelled {
				cancels++
			}
		}
	}
	if cancels != 2 {
		t.Fatalf("%d MpiRequestCancelled records loaded, want 2", cancels)
	}
	m := Messages(tr)
	want := []Message{
		{Sender: 0, Receiver: 1, SendProcess: 0, RecvProcess: 1, Comm: 0, Tag: 5, Bytes: 100, Send: 12, RecvPosted: 2, Recv: 36},
		{Sender: 0, Receiver: 1, SendProcess: 0, RecvProcess: 1, Comm: 0, Tag: 5, Bytes: 200, Send: 21, RecvPosted: 6, Recv: 30},
		{Sender: 0, Receiver: 1, SendProcess: 0, RecvProcess: 1, Comm: 0, Tag: 6, Bytes: 300, Send: 26, RecvPosted: 8, Recv: 33},
	}
	if got := rows(m); !slices.Equal(got, want) {
		t.Fatalf("messages\n%+v\nwant\n%+v", got, want)
	}
	if m.CancelledSends != 1 || m.CancelledRecvs != 1 || m.SizeMismatches != 0 || m.UnmatchedSends != 0 || m.UnmatchedRecvs != 0 ||
		m.Incomplete != 0 || m.Strays != 0 || m.Unposted != 0 || m.Unresolved != 0 || m.Problems().NumRows() != 0 {
		t.Fatalf("%s", m)
	}
	if s := m.String(); !strings.HasSuffix(s, "; unmatched: 0 sends, 0 receives; 2 requests cancelled") {
		t.Fatalf("headline %q", s)
	}
	if want, _, _ := naiveMatch(tr); !slices.Equal(rows(m), want) {
		t.Fatalf("naive matcher: %+v", want)
	}
}

// What does not fit is reported, not absorbed: a receive of other bytes
// than its send, a send and a receive without partner, a receive posted
// and never completed (an event table as pipit's users write it).
func TestMessagesProblems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "problems.csv")
	csv := "Timestamp (ns),Event Type,Name,Process,Thread,Partner,Tag,Bytes,Communicator,Request\n" +
		"10,Instant,MpiSend,0,0,1,1,100,,\n" +
		"20,Instant,MpiSend,0,0,1,2,64,,\n" +
		"12,Instant,MpiIrecvRequest,1,0,,,,,5\n" +
		"15,Instant,MpiIrecvRequest,1,0,,,,,6\n" +
		"30,Instant,MpiIrecv,1,0,0,1,120,,5\n" +
		"40,Instant,MpiRecv,1,0,0,3,8,,\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m := Messages(tr)
	if got := rows(m); len(got) != 1 || got[0].Bytes != 100 || got[0].RecvPosted != 12 || got[0].Recv != 30 {
		t.Fatalf("messages %+v", got)
	}
	if m.SizeMismatches != 1 || m.UnmatchedSends != 1 || m.UnmatchedRecvs != 1 || m.Incomplete != 1 {
		t.Fatalf("%s", m)
	}
	tb := m.Problems()
	what, _ := tb.Strings("Problem")
	at, _ := tb.Int64s("Time (ns)")
	bytes, _ := tb.Int64s("Bytes (B)")
	recv, _ := tb.Int64s("Bytes Received (B)")
	recvOK, _ := tb.Valid("Bytes Received (B)")
	var got []string
	for i := range what {
		r := "-"
		if recvOK[i] {
			r = strconv.FormatInt(recv[i], 10)
		}
		got = append(got, fmt.Sprintf("%s@%d:%d/%s", what[i], at[i], bytes[i], r))
	}
	want := []string{"size mismatch@10:100/120", "unmatched send@20:64/-", "receive never completed@15:0/-", "unmatched receive@40:8/8"}
	if !slices.Equal(got, want) {
		t.Fatalf("problems %q\nwant %q", got, want)
	}
	s := m.String()
	for _, part := range []string{"unmatched: 1 sends, 1 receives", "1 with other bytes received than sent", "1 receives posted never completed"} {
		if !strings.Contains(s, part) {
			t.Fatalf("headline %q lacks %q", s, part)
		}
	}
	if h := m.MIMEBundle()["text/html"].(string); !strings.Contains(h, "size mismatch") {
		t.Fatalf("html without the problems: %.500s", h)
	}
}
