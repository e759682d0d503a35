package launch

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestMpirunArgs(t *testing.T) {
	args := MpirunArgs(4)
	if i := slices.Index(args, "-np"); i < 0 || i+1 >= len(args) || args[i+1] != "4" {
		t.Errorf("MpirunArgs(4) = %q: no -np 4", args)
	}
	if !slices.Contains(args, "--oversubscribe") {
		t.Errorf("MpirunArgs(4) = %q: no --oversubscribe", args)
	}
	if root := slices.Contains(args, "--allow-run-as-root"); root != (os.Geteuid() == 0) {
		t.Errorf("MpirunArgs(4) = %q: --allow-run-as-root %v with euid %d", args, root, os.Geteuid())
	}
	for i, a := range args {
		if a == "--mca" && i+2 >= len(args) {
			t.Errorf("MpirunArgs(4) = %q: --mca without a name and a value", args)
		}
	}
	for _, kv := range MpirunEnv() {
		if k, _, ok := strings.Cut(kv, "="); !ok || !strings.HasPrefix(k, "OMPI_MCA_") {
			t.Errorf("MpirunEnv: %q is not OMPI_MCA_NAME=value", kv)
		}
	}
}
