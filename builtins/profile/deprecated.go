package profile

import "github.com/tracebook/tracebook/builtins/trace"

// The option names before the notebook vocabulary (docs/surface.md) named
// every option WithX; kept for one release.

// Deprecated: use WithExclusive.
func Exclusive() Option { return WithExclusive() }

// Deprecated: use WithInclusive.
func Inclusive() Option { return WithInclusive() }

// Deprecated: use WithPerProcess.
func PerProcess() Option { return WithPerProcess() }

// Deprecated: use WithGroups.
func Groups(gs ...[]*trace.Process) Option { return WithGroups(gs...) }

// Deprecated: use WithNamedGroups.
func NamedGroups(names []string, gs ...[]*trace.Process) Option { return WithNamedGroups(names, gs...) }

// Deprecated: use WithProcesses.
func Processes(ps ...*trace.Process) Option { return WithProcesses(ps...) }

// Deprecated: use WithTop.
func Top(n int) Option { return WithTop(n) }

// Deprecated: use WithSortBy.
func SortBy(measure string) Option { return WithSortBy(measure) }

// Deprecated: use WithFunctions.
func Functions(names ...string) Option { return WithFunctions(names...) }

// Deprecated: use WithCaller.
func Caller(names ...string) Option { return WithCaller(names...) }

// Deprecated: use WithClosure.
func Closure() Option { return WithClosure() }

// Deprecated: use WithRanks.
func CommRanks(ranks ...int) CommOption { return WithRanks(ranks...) }
