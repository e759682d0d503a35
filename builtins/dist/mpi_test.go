package dist

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/trace/synth"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// mpiWorker returns the worker binary the real-MPI tests run, skipping the
// test when there is none and MPI is not required ($TRACEBOOK_REQUIRE_MPI,
// which `make test` sets, makes a missing worker or mpirun a failure).
func mpiWorker(t *testing.T) string {
	t.Helper()
	_, errRun := exec.LookPath("mpirun")
	w, errW := FindWorker()
	if errRun == nil && errW == nil {
		return w
	}
	if os.Getenv("TRACEBOOK_REQUIRE_MPI") != "" {
		t.Fatalf("MPI is required: mpirun: %v; worker: %v", errRun, errW)
	}
	t.Skipf("no MPI here (mpirun: %v; worker: %v); make test runs this", errRun, errW)
	return ""
}

// startMPI starts a real job of n ranks with mpirun on loopback.
func startMPI(t *testing.T, n int) *Job {
	t.Helper()
	w := mpiWorker(t)
	var j *Job
	if err := work.Try(func() { j = Start(n, WithWorker(w)) }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop)
	return j
}

func TestMPIJobRegisteredMethods(t *testing.T) {
	j := startMPI(t, 4)
	if j.Ranks() != 4 {
		t.Fatalf("Ranks() = %d, want 4", j.Ranks())
	}
	for _, path := range []string{pingPong, "../../test/data/traces/ping-pong-otf2-papi/traces.otf2", "../../test/data/split-comm/traces.otf2"} {
		local, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sk := j.Open(path)
		compareRegistered(t, path, local, sk)
	}
}

// A rank killed in the middle of the job fails the next request with an
// error naming the rank; a new job works.
func TestMPIRankKilled(t *testing.T) {
	j := startMPI(t, 3)
	sk := j.Open(pingPong)
	var pids []int
	for _, r := range j.opened[0].reports {
		if r.Rank == 2 {
			pids = append(pids, r.PID)
		}
	}
	if len(pids) != 1 {
		t.Fatalf("no report of rank 2: %+v", j.opened[0].reports)
	}
	p, _ := os.FindProcess(pids[0])
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if _, err = part.Run(sk, sk.Processes(), part.EventsMethod([]int{0})); err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err == nil {
		t.Fatal("requests still succeed after rank 2 was killed")
	}
	t.Logf("error after the kill: %v", err)
	var de *Error
	if !errors.As(err, &de) || j.Err() == nil {
		t.Fatalf("error %v (%T), job error %v", err, err, j.Err())
	}
	if !containsAll(err.Error(), "rank 2", "signal 9") {
		t.Errorf("the error does not name rank 2 and its signal: %v", err)
	}
	j2 := startMPI(t, 2)
	sk2 := j2.Open(pingPong)
	if _, err := part.Run(sk2, sk2.Processes(), part.EventsMethod([]int{1})); err != nil {
		t.Fatalf("a new job after the failure: %v", err)
	}
}

// bigTrace writes a generated trace of about n events to an Arrow file.
func bigTrace(t *testing.T, ranks, iterations int) string {
	t.Helper()
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = ranks, iterations
	tr := synth.Generate(cfg)
	path := filepath.Join(t.TempDir(), "big.arrow")
	arrowio.WriteIPC(path, tr.Events())
	t.Logf("%s: %d processes, %d events", path, tr.NumProcesses(), tr.NumEvents())
	return path
}

// An interrupt during a distributed method stops every rank: the cell gets
// ErrInterrupted at once, and the job answers the next request.
func TestMPIInterrupt(t *testing.T) {
	j := startMPI(t, 4)
	sk := j.Open(bigTrace(t, 16, 6000))
	ctx, cancel := context.WithCancel(context.Background())
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := part.Run(sk, sk.Processes(), ccg.BuildMethod(ccg.Bounds{Abs: 1000, Rel: 0.05}))
		done <- err
	}()
	// interrupt once the ranks have reported progress: they are working
	for deadline := time.Now().Add(30 * time.Second); j.progressFrames.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted request did not return in 10 s")
	}
	back := time.Since(cancelled)
	if !errors.Is(err, work.ErrInterrupted) {
		t.Fatalf("after %v: err = %v, want the interruption (the method ran too fast to interrupt? enlarge the trace)", time.Since(start), err)
	}
	work.SetContext(context.Background())
	// the next request waits for every rank to have stopped the interrupted one
	next := time.Now()
	if _, err := part.Run(sk, sk.Processes(), part.EventsMethod([]int{0})); err != nil {
		t.Fatalf("the job after an interrupt: %v", err)
	}
	nextTook := time.Since(next)
	if j.progressFrames.Load() == 0 {
		t.Error("no progress came from the ranks while they worked")
	}
	var stop *Record
	for deadline := time.Now().Add(5 * time.Second); stop == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, r := range j.Records() {
			if strings.HasSuffix(r.Request, "(interrupted)") {
				stop = &r
			}
		}
	}
	if stop == nil {
		t.Fatal("the ranks' answer to the interrupted request was not recorded")
	}
	if stop.StopSeconds <= 0 {
		t.Errorf("no rank reported how long it took to stop: %+v", *stop)
	}
	t.Logf("interrupt: the cell returned %v after it; the slowest rank stopped %.1f ms after the interrupt reached it; the next request took %v", back, stop.StopSeconds*1e3, nextTook)
}

// A job whose workers never connect fails Start with what mpirun said; a
// missing worker names what to install.
func TestMPIStartFailures(t *testing.T) {
	mpiWorker(t)
	t.Setenv("TRACEBOOK_MPI_WORKER", "/nonexistent/tracebook-mpi")
	if _, err := FindWorker(); err == nil || !strings.Contains(err.Error(), "TRACEBOOK_MPI_WORKER") {
		t.Errorf("FindWorker with a missing worker: %v", err)
	}
	err := work.Try(func() { Start(2, WithWorker("/bin/false"), WithTimeout(20*time.Second)) })
	if err == nil || !strings.Contains(err.Error(), "ended before its rank 0 connected") {
		t.Errorf("Start with workers that exit: %v", err)
	}
	t.Logf("Start with workers that exit: %v", err)
	if Current() != nil {
		t.Error("a failed Start left a current job")
	}
}
