package dist

import (
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/dist/internal/link"
	"github.com/tracebook/tracebook/builtins/dist/worker"
	"github.com/tracebook/tracebook/builtins/work"
)

// startLocal starts a job of n ranks in this process (goroutines joined by
// worker.LocalComms instead of MPI): the protocol, the tree and the results
// without mpirun.
func startLocal(t *testing.T, n int) *Job {
	t.Helper()
	j := newJob("test", n, "local", configOf(nil))
	key, err := link.ReadKeyFile(j.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, c := range worker.LocalComms(n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := worker.Run(c, worker.Options{Connect: j.addr, Key: key, Timeout: 10 * time.Second}); err != nil {
				t.Errorf("rank %d: %v", c.Rank(), err)
			}
		}()
	}
	if err := j.waitConnected(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		j.Stop()
		wg.Wait()
		work.Observe(nil)
	})
	return j
}
