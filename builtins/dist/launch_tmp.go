package dist

import (
	"os"
	"strconv"
)

// mpirunArgs are the arguments after mpirun for a job of n ranks on this
// machine.
func mpirunArgs(n int) []string {
	a := []string{"--oversubscribe", "-np", strconv.Itoa(n)}
	if os.Geteuid() == 0 {
		a = append([]string{"--allow-run-as-root"}, a...)
	}
	return a
}

func mpirunEnv() []string { return nil }
