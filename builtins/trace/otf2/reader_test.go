package otf2

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

var collOps = []string{"BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER",
	"ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE", "REDUCE_SCATTER", "SCAN"}

// genCases are otf2gen.py configurations: random and spmd modes, threads,
// coarse and fine clocks, big timestamps (random mode steps by 2^33),
// long and non-ASCII names (random mode), code versions and imbalance.
var genCases = [][]string{
	{"random", "--procs", "3", "--events", "3000", "--seed", "1"},
	{"random", "--procs", "2", "--threads", "2", "--events", "2000", "--seed", "2"},
	{"random", "--procs", "4", "--events", "1500", "--seed", "3", "--resolution", "1000"},
	{"random", "--procs", "2", "--events", "1500", "--seed", "4", "--resolution", "1"},
	{"random", "--procs", "2", "--threads", "1", "--events", "1500", "--seed", "5", "--resolution", "2500000000", "--regions", "500"},
	{"random", "--procs", "1", "--events", "120000", "--seed", "6"}, // two 1 MiB chunks
	{"spmd", "--procs", "4", "--iters", "10", "--seed", "1"},
	{"spmd", "--procs", "8", "--threads", "2", "--iters", "6", "--seed", "2", "--variant", "B"},
	{"spmd", "--procs", "3", "--iters", "8", "--seed", "3", "--slow", "1:2.5", "--outlier", "2:4:5", "--resolution", "1000000"},
	{"spmd", "--procs", "1", "--iters", "4", "--seed", "4", "--unit", "7", "--noise", "3"},
	{"spmd", "--procs", "2", "--threads", "3", "--iters", "5", "--seed", "5", "--resolution", "1000"},
}

func TestReaderMatchesReferenceWriter(t *testing.T) {
	for _, args := range genCases {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			t.Parallel()
			anchor, expect := tooltest.Generate(t, t.TempDir(), args...)
			compareExpected(t, anchor, expect)
		})
	}
}

func compareExpected(t *testing.T, anchor string, expect []tooltest.Expected) {
	t.Helper()
	a, err := Open(anchor)
	if err != nil {
		t.Fatal(err)
	}
	g := a.Defs
	regionName := map[uint32]string{}
	for _, r := range g.Regions {
		regionName[r.Self] = g.String(r.Name)
	}
	commName := map[uint32]string{}
	for _, c := range g.Comms {
		commName[c.Self] = g.String(c.Name)
	}
	byLoc := tooltest.ByLoc(expect)
	total := 0
	for i, l := range g.Locations {
		want := byLoc[i]
		k := 0
		n, err := a.ReadLocation(l.Self, func(e *Event) error {
			if k >= len(want) {
				return fmt.Errorf("location %d: extra event %s at %d", i, EventName(e.Type), e.Time)
			}
			w := want[k]
			k++
			got := tooltest.Expected{Loc: i, T: e.Time, Kind: EventName(e.Type)}
			switch e.Type {
			case EvEnter, EvLeave:
				got.Region = regionName[e.Region]
			case EvMpiSend, EvMpiRecv, EvMpiIsend, EvMpiIrecv:
				got.Peer, got.Comm, got.Tag, got.Bytes, got.Req = e.Peer, commName[e.Comm], e.Tag, e.Bytes, e.Request
			case EvMpiIsendComplete, EvMpiIrecvRequest:
				got.Req = e.Request
			case EvMpiCollectiveEnd:
				if int(e.CollOp) < len(collOps) {
					got.Op = collOps[e.CollOp]
				}
				got.Comm, got.Root, got.Sent, got.Received = commName[e.Comm], e.Root, e.Sent, e.Received
			}
			if got != w {
				return fmt.Errorf("location %d event %d:\n got  %+v\n want %+v", i, k-1, got, w)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if int(n) != len(want) || k != len(want) {
			t.Fatalf("location %d: read %d events, want %d", i, n, len(want))
		}
		if l.NumEvents != uint64(n) {
			t.Errorf("location %d: definitions declare %d events, read %d", i, l.NumEvents, n)
		}
		total += int(n)
	}
	if total != len(expect) {
		t.Fatalf("read %d events, want %d", total, len(expect))
	}
}

// TestReaderManySeeds draws otf2gen configurations from a seeded generator:
// both modes, 1-4 processes, 1-3 threads, clock resolutions from 1 Hz to
// 2.5 GHz, and compares every event with the reference writer's ground truth.
func TestReaderManySeeds(t *testing.T) {
	resolutions := []string{"1", "1000", "1000000", "1000000000", "2500000000"}
	for seed := 100; seed < 124; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		args := []string{"random", "--events", strconv.Itoa(200 + r.Intn(3000))}
		if seed%2 == 1 {
			args = []string{"spmd", "--iters", strconv.Itoa(1 + r.Intn(8))}
			if r.Intn(2) == 0 {
				args = append(args, "--variant", "B")
			}
		}
		args = append(args, "--seed", strconv.Itoa(seed), "--procs", strconv.Itoa(1+r.Intn(4)),
			"--threads", strconv.Itoa(1+r.Intn(3)), "--resolution", resolutions[r.Intn(len(resolutions))])
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			t.Parallel()
			anchor, expect := tooltest.Generate(t, t.TempDir(), args...)
			compareExpected(t, anchor, expect)
		})
	}
}
