package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// bench10M is the configuration of the measurement: two runs of 10M events (256
// ranks, 1,220 iterations: 39,055 events a rank, 9,998,080 in all), the run with rank 3's
// kernels 1.1 times slower.
func bench10M(seed int64, slow bool) synth.GenConfig {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Seed = 256, 1220, seed
	if slow {
		cfg.SlowRank, cfg.SlowFactor = 3, 1.1
	}
	return cfg
}

// BenchmarkCheck10M runs the check in process on two 10M-event runs written as events tables
// (.arrow and .parquet), and on OTF2 when the directory holds base-otf2 and run-otf2 (the
// same shape, written by the OTF2 library; a minute each):
//
//	test/tools/otf2gen.py spmd --procs 256 --iters 1220 --seed 1 --out /tmp/chk10m/base-otf2
//	test/tools/otf2gen.py spmd --procs 256 --iters 1220 --seed 2 --slow 3:1.1 --out /tmp/chk10m/run-otf2
//
// With TRACEBOOK_CHECK_BENCH_DIR set, the tables are written there (and kept) for measuring
// the binary by hand:
//
//	TRACEBOOK_CHECK_BENCH_DIR=/tmp/chk10m go test -run '^$' -bench Check10M ./cmd/tracebook/
//	/usr/bin/time -v tracebook check --baseline /tmp/chk10m/base.arrow --run /tmp/chk10m/run.arrow
//	/usr/bin/time -v tracebook check --baseline /tmp/chk10m/base-otf2/traces.otf2 --run /tmp/chk10m/run-otf2/traces.otf2
func BenchmarkCheck10M(b *testing.B) {
	dir := os.Getenv("TRACEBOOK_CHECK_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	paths := map[string][2]string{}
	for _, ext := range []string{"arrow", "parquet"} {
		base, run := filepath.Join(dir, "base."+ext), filepath.Join(dir, "run."+ext)
		if _, err := os.Stat(run); err != nil {
			for _, f := range []struct {
				p    string
				slow bool
				seed int64
			}{{base, false, 1}, {run, true, 2}} {
				tr := synth.Generate(bench10M(f.seed, f.slow))
				ev := tr.Events()
				if err := write(f.p, ev); err != nil {
					b.Fatal(err)
				}
				ev.Release()
			}
		}
		paths[ext] = [2]string{base, run}
	}
	exts := []string{"arrow", "parquet"}
	base, run := filepath.Join(dir, "base-otf2", "traces.otf2"), filepath.Join(dir, "run-otf2", "traces.otf2")
	if _, err := os.Stat(run); err == nil {
		paths["otf2"] = [2]string{base, run}
		exts = append([]string{"otf2"}, exts...)
	}
	for _, ext := range exts {
		b.Run(ext, func(b *testing.B) {
			for b.Loop() {
				if code := check([]string{"--baseline", paths[ext][0], "--run", paths[ext][1]}, io.Discard, io.Discard); code != 1 {
					b.Fatalf("exit %d, want 1", code)
				}
			}
		})
	}
}
