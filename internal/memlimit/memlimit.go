// Package memlimit runs a test's body in a child process under a memory
// limit, for the tests that show a bad input no longer ends the process: a
// fatal out-of-memory error cannot be recovered in-process, so the crash
// must happen, if it happens, in a child whose exit fails the test.
package memlimit

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// childEnv names the test a child process runs under the limit.
const childEnv = "TRACEBOOK_MEMLIMIT_CHILD"

// Run runs body in a child process (this test binary again, only this test)
// whose address space may grow by at most limit bytes (RLIMIT_AS); the test
// fails unless the child's body passes.
func Run(t *testing.T, limit uint64, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		vm := vmSize(t)
		lim := syscall.Rlimit{Cur: vm + limit, Max: vm + limit}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatalf("setrlimit: %v", err)
		}
		body(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		if len(out) > 4000 {
			out = append(out[:2000:2000], append([]byte("\n...\n"), out[len(out)-2000:]...)...)
		}
		t.Fatalf("under a %d MiB memory limit the child failed (%v):\n%s", limit>>20, err, out)
	}
}

// vmSize returns the current size of this process's address space.
func vmSize(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmSize:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	t.Skip("no VmSize in /proc/self/status")
	return 0
}
