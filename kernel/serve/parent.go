package serve

import (
	"os"
	"strconv"
	"time"
)

// A kernel whose client died must not run on, holding memory and a CPU (issue 32). Like
// ipykernel's ParentPollerUnix, the kernel watches the process that started it: Jupyter's
// kernel manager passes its pid in JPY_PARENT_PID, and when the kernel's parent process is
// still that one, the kernel exits as soon as its parent changes (the manager died and the
// kernel was reparented, to init or to a subreaper). Without JPY_PARENT_PID, or when it names
// another process (the kernel was started through a wrapper), the kernel exits when it is
// reparented to init (pid 1). A kernel started by init itself is not watched.

// parentPollInterval is how often the kernel looks at its parent (ipykernel: 1 s).
const parentPollInterval = time.Second

// parentWatch decides, from the parent pid seen at start and JPY_PARENT_PID, which parent pid
// changes mean the parent is gone: gone(ppid) reports it. watch is false when nothing can be
// watched (started by init).
func parentWatch(startPPID int, jpyParentPID string) (gone func(ppid int) bool, watch bool) {
	if startPPID <= 1 {
		return nil, false
	}
	if p, err := strconv.Atoi(jpyParentPID); err == nil && p == startPPID {
		return func(ppid int) bool { return ppid != p }, true
	}
	return func(ppid int) bool { return ppid == 1 }, true
}

// watchParent polls getppid every interval until the parent is gone (see parentWatch), then
// calls exit once. It returns at once when there is nothing to watch; stop ends it.
func watchParent(getppid func() int, jpyParentPID string, interval time.Duration, stop <-chan struct{}, exit func(ppid int)) {
	gone, ok := parentWatch(getppid(), jpyParentPID)
	if !ok {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if p := getppid(); gone(p) {
				exit(p)
				return
			}
		}
	}
}

// exitWhenOrphaned starts the parent watch of a served kernel: when the parent is gone the
// kernel logs it and exits with status 1, as ipykernel does (a running cell cannot hold it).
func exitWhenOrphaned(logf func(string, ...any), stop <-chan struct{}) {
	go watchParent(os.Getppid, os.Getenv("JPY_PARENT_PID"), parentPollInterval, stop, func(ppid int) {
		logf("tracebook: the process that started the kernel is gone (parent is now pid %d); exiting", ppid)
		os.Exit(1)
	})
}
