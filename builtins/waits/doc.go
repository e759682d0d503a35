// Package waits says why time is lost, not only where: the wait states of
// MPI operations with the location that caused each one, the delays behind
// them, and the critical path of the run.
package waits
