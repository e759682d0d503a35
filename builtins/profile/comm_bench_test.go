package profile

import (
	"math"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// haloTrace is a run of ranks ranks (a cube, or a ring when ranks is not
// a cube) exchanging msgs messages in iterations: each rank sends one
// message to each of its 6 halo neighbours and one to a random rank, then
// receives them, with one message record per event as a reader makes them.
func haloTrace(ranks, msgs int, seed uint64) *trace.Trace {
	rng := rand.New(rand.NewPCG(seed, 7))
	side := 1
	for (side+1)*(side+1)*(side+1) <= ranks {
		side++
	}
	cube := side*side*side == ranks
	neighbours := func(r int) [6]int {
		if !cube {
			return [6]int{(r + 1) % ranks, (r + ranks - 1) % ranks, (r + 2) % ranks, (r + ranks - 2) % ranks, (r + 3) % ranks, (r + ranks - 3) % ranks}
		}
		x, y, z := r%side, r/side%side, r/(side*side)
		at := func(x, y, z int) int { return (x+side)%side + (y+side)%side*side + (z+side)%side*side*side }
		return [6]int{at(x+1, y, z), at(x-1, y, z), at(x, y+1, z), at(x, y-1, z), at(x, y, z+1), at(x, y, z-1)}
	}
	iters := max(1, msgs/(7*ranks))
	world := make([]uint64, ranks)
	for i := range world {
		world[i] = uint64(i)
	}
	defs := &trace.Definitions{
		Groups: []trace.Group{{Type: "comm_locations", Members: world}},
		Comms:  []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 0, Parent: -1}},
	}
	procs := make([]*trace.Process, ranks)
	for r := range procs {
		n := 14 * iters
		p := &trace.Process{Rank: int32(r), Kind: make([]trace.EventKind, 0, n), Time: make([]int64, 0, n), Ref: make([]int32, 0, n)}
		p.Msgs = trace.Messages{Peer: make([]int32, 0, n), Comm: make([]int32, 0, n), Tag: make([]int32, 0, n), Bytes: make([]int64, 0, n), Request: make([]int64, 0, n)}
		procs[r] = p
	}
	// the random partners of each iteration, and who receives from whom
	from := make([][]int32, ranks)
	for it := range iters {
		for r := range from {
			from[r] = from[r][:0]
		}
		t0 := int64(it) * 10_000
		for r, p := range procs {
			nb := neighbours(r)
			for j, q := range nb {
				size := int64(8 << (j % 3) * 1024)
				p.Kind, p.Time = append(p.Kind, trace.MpiSend), append(p.Time, t0+int64(j))
				p.Ref = append(p.Ref, p.Msgs.Add(int32(q), 0, int32(j), size, 0))
				from[q] = append(from[q], int32(r))
			}
			q := rng.IntN(ranks)
			p.Kind, p.Time = append(p.Kind, trace.MpiIsend), append(p.Time, t0+6)
			p.Ref = append(p.Ref, p.Msgs.Add(int32(q), 0, 99, 1+rng.Int64N(1<<16), 0))
			from[q] = append(from[q], int32(r))
		}
		for r, p := range procs {
			for j, s := range from[r] {
				p.Kind, p.Time = append(p.Kind, trace.MpiRecv), append(p.Time, t0+100+int64(j))
				p.Ref = append(p.Ref, p.Msgs.Add(s, 0, -1, 0, 0)) // tag filled below
			}
		}
	}
	// tags and sizes of the receives: those of the matching send (halo:
	// tag by direction; random: 99), found by replaying the sends per pair
	type key struct{ from, to int32 }
	type env struct {
		tag   int32
		bytes int64
	}
	envs := map[key][]env{}
	for r, p := range procs {
		for i, k := range p.Kind {
			if k == trace.MpiSend || k == trace.MpiIsend {
				row := p.Ref[i]
				kk := key{int32(r), p.Msgs.Peer[row]}
				envs[kk] = append(envs[kk], env{p.Msgs.Tag[row], p.Msgs.Bytes[row]})
			}
		}
	}
	for r, p := range procs {
		for i, k := range p.Kind {
			if k == trace.MpiRecv {
				row := p.Ref[i]
				kk := key{p.Msgs.Peer[row], int32(r)}
				e := envs[kk][0]
				p.Msgs.Tag[row], p.Msgs.Bytes[row], envs[kk] = e.tag, e.bytes, envs[kk][1:]
			}
		}
	}
	return trace.NewTrace(defs, procs)
}

var benchTrace = sync.OnceValue(func() *trace.Trace { return haloTrace(4096, 10_000_000, 1) })

func benchSetup(b *testing.B) *trace.Trace {
	if testing.Short() {
		b.Skip("builds a 20M-event trace")
	}
	tr := benchTrace()
	b.ReportAllocs()
	b.ResetTimer()
	return tr
}

func report(b *testing.B, tr *trace.Trace) {
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCommMatrix: 4,096 ranks, 10M messages (halo + random pairs),
// 20M send and receive events (issue 15: <= 0.5 s on 2 cores).
func BenchmarkCommMatrix(b *testing.B) {
	tr := benchSetup(b)
	var c *Comm
	for b.Loop() {
		c = CommMatrix(tr)
	}
	report(b, tr)
	b.ReportMetric(float64(c.Sends), "messages")
	b.ReportMetric(float64(c.Pairs()), "pairs")
}

func BenchmarkMessageHistogram(b *testing.B) {
	tr := benchSetup(b)
	for b.Loop() {
		MessageHistogram(tr, 20)
	}
	report(b, tr)
}

// BenchmarkMessages: the same 10M messages matched (issue 31: <= 2 s).
// cpu-s/op is the processor time of all threads (rusage): on a machine
// shared with other work, wall time (ns/op) grows with the load, processor
// time much less.
func BenchmarkMessages(b *testing.B) {
	tr := benchSetup(b)
	var m *MessageMatch
	cpu0 := cpuSeconds()
	for b.Loop() {
		m = Messages(tr)
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	report(b, tr)
	b.ReportMetric(float64(m.Len()), "matched")
}

// cpuSeconds is the processor time (user and system) of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// nonBlocking rewrites every run of MpiRecv events of tr as MPI_Irecv
// posted in that order (MpiIrecvRequest) and completed in the reverse
// order (MpiIrecv, as MPI_Waitany may complete them): the posting stage
// of the matcher has every receive to put back in order.
func nonBlocking(tr *trace.Trace) *trace.Trace {
	procs := make([]*trace.Process, tr.NumProcesses())
	for pi, p := range tr.Processes() {
		n := len(p.Kind) + p.Msgs.Len()
		q := &trace.Process{Rank: p.Rank, Thread: p.Thread, Kind: make([]trace.EventKind, 0, n), Time: make([]int64, 0, n), Ref: make([]int32, 0, n)}
		q.Msgs = trace.Messages{Peer: make([]int32, 0, n), Comm: make([]int32, 0, n), Tag: make([]int32, 0, n), Bytes: make([]int64, 0, n), Request: make([]int64, 0, n)}
		var req int64
		for i := 0; i < len(p.Kind); {
			if p.Kind[i] != trace.MpiRecv {
				r := p.Ref[i]
				q.Kind, q.Time = append(q.Kind, p.Kind[i]), append(q.Time, p.Time[i])
				q.Ref = append(q.Ref, q.Msgs.Add(p.Msgs.Peer[r], p.Msgs.Comm[r], p.Msgs.Tag[r], p.Msgs.Bytes[r], p.Msgs.Request[r]))
				i++
				continue
			}
			j := i
			for j < len(p.Kind) && p.Kind[j] == trace.MpiRecv {
				j++
			}
			for k := i; k < j; k++ {
				q.Kind, q.Time = append(q.Kind, trace.MpiIrecvRequest), append(q.Time, p.Time[k])
				q.Ref = append(q.Ref, q.Msgs.Add(-1, -1, -1, 0, req+int64(k-i)+1))
			}
			for k := j - 1; k >= i; k-- {
				r := p.Ref[k]
				q.Kind, q.Time = append(q.Kind, trace.MpiIrecv), append(q.Time, p.Time[j-1]+int64(j-k))
				q.Ref = append(q.Ref, q.Msgs.Add(p.Msgs.Peer[r], p.Msgs.Comm[r], p.Msgs.Tag[r], p.Msgs.Bytes[r], req+int64(k-i)+1))
			}
			req += int64(j - i)
			i = j
		}
		procs[pi] = q
	}
	return trace.NewTrace(tr.Defs, procs)
}

var benchTraceNB = sync.OnceValue(func() *trace.Trace { return nonBlocking(benchTrace()) })

// BenchmarkMessagesNonBlocking: the same 10M messages, every receive an
// MPI_Irecv completed out of posting order (30M events).
func BenchmarkMessagesNonBlocking(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 30M-event trace")
	}
	tr := benchTraceNB()
	b.ReportAllocs()
	b.ResetTimer()
	var m *MessageMatch
	cpu0 := cpuSeconds()
	for b.Loop() {
		m = Messages(tr)
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	report(b, tr)
	b.ReportMetric(float64(m.Len()), "matched")
	if m.UnmatchedSends+m.UnmatchedRecvs+m.SizeMismatches+m.Unposted != 0 {
		b.Fatalf("%s", m)
	}
}
