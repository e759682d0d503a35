// Package work is the one mechanism by which tracebook's long builtins are
// interrupted, show progress and check memory before allocating big.
//
// The kernel runs one cell at a time and hands the cell's cancellation to
// this package (SetContext) before the cell starts; builtins never take a
// context argument on the notebook surface. A builtin that can run for more
// than about 100 ms does three things:
//
//	j := work.Start("aligning", total)  // progress bar, shown only after ~1 s
//	defer j.Done()
//	for ... {
//		if err := j.Add(n); err != nil { // interrupted: stop and free
//			return err
//		}
//	}
//
// Deep, allocation-free loops that cannot return an error poll Check (an
// atomic load) and let it panic with ErrInterrupted; the kernel reports
// such a cell as interrupted. Reserve compares a memory estimate with the
// memory this machine (and its cgroup) can still give, so an impossible
// request is an error, not a killed kernel.
//
// Outside the kernel the context is context.Background: nothing is ever
// interrupted and no progress is shown, so library and test callers pay only
// an atomic load per check.
package work
