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

// shapeGoldenConfigs are shapeConfigs and the remaining presets (an
// ImbalanceBenchConfig cut down to 16 ranks and 6 iterations); their
// digests were recorded when Generate was cut into a plan and per-knob
// writers, from the generator before the cut.
func shapeGoldenConfigs() []GenConfig {
	bench := ImbalanceBenchConfig()
	bench.Ranks, bench.Iterations, bench.GrowthCenter = 16, 6, 5
	return append(shapeConfigs(), COSMOSPECSConfig(9, 5), HybridGPUConfig(3, 2, 4), PEPCConfig(6), bench)
}

var shapeGoldenDigests = []string{
	"22290c968b553ece72fde415",
	"29067a487d258d07d00a67e5",
	"a13393f0c3158266ae4b5a30",
	"a67e0fcbd6677299b6476225",
	"8a3ae27612edb4fa1f189718",
	"88acc7845832b0cc02ff0f3a",
	"0c690b42a813fcfa2d826bbe",
	"a6f90326fb527f4addd32bc5",
	"1270fb6490d15305c71358cf",
	"fe895b1f61e7aca00c2c8719",
	"460963d945e859fd9ded03ee",
	"bb5c0f3c8e0d62dbc1cb972c",
	"d8ceff32f49dc75aaf20437b",
	"737d3368356c5705b750e691",
	"50fea70deb40f1c7b71710a3",
	"3f0157cda407fce765be835d",
	"a580109f1e6cf8f69e8a418b",
	"fa72323f52a905319b09b7f7",
	"75b3e6a80dd3ccd91a717bd8",
	"cf5dd920376eb553f9f417fa",
	"e0fa10b635ac59fc87f2a7a9",
	"f91565e15e5ac79b59f6e168",
	"0194d22a8cd03554127db63d",
}

// The shape knobs and presets produce byte for byte the traces they
// produced before Generate was cut into per-knob writers.
func TestShapeGoldenDigests(t *testing.T) {
	cfgs := shapeGoldenConfigs()
	if len(cfgs) != len(shapeGoldenDigests) {
		t.Fatalf("%d configs, %d digests", len(cfgs), len(shapeGoldenDigests))
	}
	for i, cfg := range cfgs {
		if got := traceDigest(Generate(cfg)); got != shapeGoldenDigests[i] {
			t.Errorf("config %d: digest %s, want %s", i, got, shapeGoldenDigests[i])
		}
	}
}
