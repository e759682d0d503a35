package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestKernelIsPureGo checks that the kernel (cmd/tracebook) and package
// launch, which the kernel imports to start mpirun, link no cgo code of
// ours, and so never libmpi: only the worker does.
func TestKernelIsPureGo(t *testing.T) {
	for _, pkg := range []string{
		"github.com/tracebook/tracebook/cmd/tracebook",
		"github.com/tracebook/tracebook/internal/mpi/launch",
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("go list: line %q", line)
			}
			n++
			if f[1] == "false" && f[2] != "0" {
				t.Errorf("%s depends on %s, which has cgo files", pkg, f[0])
			}
			if f[0] == "github.com/tracebook/tracebook/internal/mpi" {
				t.Errorf("%s depends on internal/mpi (libmpi)", pkg)
			}
		}
		if n < 2 {
			t.Errorf("go list -deps %s lists %d packages", pkg, n)
		}
	}
	// and that the check sees cgo: the worker has it
	out, err := exec.Command("go", "list", "-f", "{{len .CgoFiles}}", "github.com/tracebook/tracebook/internal/mpi").Output()
	if err != nil || strings.TrimSpace(string(out)) == "0" {
		t.Errorf("go list internal/mpi: %q %v: no cgo files seen", out, err)
	}
}
