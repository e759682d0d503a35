package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// traceDigest hashes everything Generate writes: definitions and every
// column of every location.
func traceDigest(tr *trace.Trace) string {
	h := sha256.New()
	fmt.Fprintf(h, "%+v", *tr.Defs)
	var b [8]byte
	put := func(v int64) {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	for _, p := range tr.Processes() {
		fmt.Fprintf(h, "|%d %d %s %d|", p.Rank, p.Thread, p.Name, len(p.Kind))
		for i := range p.Kind {
			put(int64(p.Kind[i]))
			put(p.Time[i])
			put(int64(p.Ref[i]))
		}
		m := &p.Msgs
		for i := range m.Peer {
			put(int64(m.Peer[i]))
			put(int64(m.Comm[i]))
			put(int64(m.Tag[i]))
			put(m.Bytes[i])
			put(m.Request[i])
		}
		c := &p.Colls
		for i := range c.Op {
			put(int64(c.Op[i]))
			put(int64(c.Comm[i]))
			put(int64(c.Root[i]))
			put(c.Sent[i])
			put(c.Received[i])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// goldenConfigs are configurations without the shape knobs; their digests
// were recorded before the knobs existed, and again when the MPI regions got
// their roles (preRoleDigests has the older ones).
var goldenConfigs = []GenConfig{
	DefaultGenConfig(),
	{Seed: 2, Ranks: 1, Iterations: 3, Depth: 2, Fanout: 3, UnitNs: 100, SlowRank: -1, OutlierIter: -1},
	{Seed: 3, Ranks: 2, Threads: 2, Iterations: 5, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000, SlowRank: 1, SlowFactor: 2, OutlierIter: 2, OutlierFactor: 3, Noise: 0.5, Version: 1, Imbalance: 0.3},
	{Seed: 4, Ranks: 7, Threads: 1, Iterations: 4, MPI: true, UnitNs: 1, Noise: 1, SlowRank: -1, OutlierIter: -1},
	{Seed: 5, Ranks: 16, Threads: 3, Iterations: 3, Depth: 2, Fanout: 2, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: 3, SlowFactor: 1.8, OutlierRank: 2, OutlierIter: 1, OutlierFactor: 3},
	{Seed: 6, Ranks: 3, Threads: 4, Iterations: 2, UnitNs: 500, Noise: 0.3, SlowRank: -1, OutlierIter: -1},
}

var goldenDigests = []string{
	"df0ee7c42f03aa01315995e8",
	"fc888ed4de0c1c7b46bc6b88",
	"cbd1348cc17a00dfa7ca2d23",
	"c21cae96548db4068ad4aace",
	"61466417755655ea6f293ccb",
	"9bd879f3ea2e7d7e84dd7b2c",
}

// Configurations without the shape knobs produce byte for byte the traces
// they produced before the knobs were added (notebooks and tests rely on it).
func TestGenerateGoldenDigests(t *testing.T) {
	for i, cfg := range goldenConfigs {
		if got := traceDigest(Generate(cfg)); got != goldenDigests[i] {
			t.Errorf("config %d: digest %s, want %s", i, got, goldenDigests[i])
		}
	}
}
