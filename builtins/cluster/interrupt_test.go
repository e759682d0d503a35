package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// The long steps (lattice construction, the matrices, the baselines) stop
// at an interrupt with work.ErrInterrupted, and the next call runs normally.
func TestLongStepsStopAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 4,096-process lattice")
	}
	tr := synth.Generate(synth.ParaDiSConfig(4096))
	c := Structural(tr)
	steps := map[string]func(){
		"Subsumption": func() { c.sub = nil; c.Subsumption() },
		"KMedoids":    func() { KMedoids(c, 150, 200) },
	}
	for name, fn := range steps {
		t.Run(name, func(t *testing.T) {
			out := worktest.Interrupt(t, 100*time.Millisecond, 10*time.Second, fn)
			if out.Finished {
				t.Skip("finished before the interrupt (machine too fast for this input)")
			}
			err, _ := out.Panic.(error)
			if !errors.Is(err, work.ErrInterrupted) {
				t.Fatalf("interrupted %s panicked with %#v", name, out.Panic)
			}
			t.Logf("stopped %v after the interrupt", out.Latency)
		})
	}
	if c2 := Structural(tr); c2.NumGroups() != c.NumGroups() {
		t.Errorf("after the interrupts: %d groups, want %d", c2.NumGroups(), c.NumGroups())
	}
}

// The baselines refuse a distance matrix that does not fit, with the
// memory it needs (Weber Table 5.5).
func TestBaselinesRefuseBigMatrix(t *testing.T) {
	tr := synth.Generate(synth.FD4Config(4096))
	c := Structural(tr)
	c.Matrix()
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "1M")
	defer func() {
		var e *Error
		var me *work.MemoryError
		err, _ := recover().(error)
		if !errors.As(err, &e) || e.Func != "cluster.DBSCAN" || !errors.As(err, &me) || me.Need != DistancesBytes(4096) {
			t.Fatalf("DBSCAN of 4,096 processes under 1 MB: %v", err)
		}
	}()
	DBSCAN(c, 0.3, 2)
}

// The baselines cluster on 1 - pairsim of the processes themselves.
func TestBaselineDistancesArePairsim(t *testing.T) {
	tr := smallHybrid()
	c := Structural(tr)
	d := c.distances("test", -1)
	for i, p := range c.procs {
		for j, q := range c.procs {
			if want := 1 - Jaccard(StructureOf(p).Pairs, StructureOf(q).Pairs); d.At(i, j) != float64(float32(want)) {
				t.Fatalf("d(%s, %s) = %v, want %v", p.Label(), q.Label(), d.At(i, j), want)
			}
		}
	}
	km := KMedoids(c, 2, 3)
	if km.Clusters != 2 || len(km.Cluster(0))+len(km.Cluster(1)) != len(c.procs) {
		t.Errorf("K-Medoids: %v", km)
	}
	db := DBSCAN(c, 0.3, 2)
	// ranks (pairsim 0.87 between rank 0 and the others) and threads.
	if db.Clusters != 2 || len(db.Cluster(-1)) != 0 {
		t.Errorf("DBSCAN: %v", db)
	}
}
