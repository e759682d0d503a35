package worker

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tracebook/tracebook/builtins/dist/internal/link"
)

// Main is `tracebook-mpi worker`: it parses args (--connect HOST:PORT, the
// kernel's address; --key-file PATH, the job's key; --timeout) and runs
// the rank's loop over comm, writing errors to stderr. It returns the exit
// status.
func Main(comm Comm, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	connect := fs.String("connect", "", "the kernel's address, HOST:PORT (dist.Start and dist.Listen give it)")
	keyFile := fs.String("key-file", "", "the file holding the job's key (readable by its owner only)")
	timeout := fs.Duration("timeout", 60*time.Second, "how long rank 0 tries to connect")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opt := Options{Connect: *connect, Timeout: *timeout, Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
	if comm.Rank() == 0 {
		if *connect == "" || *keyFile == "" {
			fmt.Fprintln(stderr, "tracebook-mpi worker: --connect and --key-file are required (the notebook's dist.Start or dist.Listen gives them)")
			quit(comm)
			return 2
		}
		key, err := link.ReadKeyFile(*keyFile)
		if err != nil {
			fmt.Fprintf(stderr, "tracebook-mpi worker: rank 0: %v\n", err)
			quit(comm)
			return 1
		}
		opt.Key = key
	}
	if err := Run(comm, opt); err != nil {
		fmt.Fprintf(stderr, "tracebook-mpi worker: rank %d: %v\n", comm.Rank(), err)
		return 1
	}
	return 0
}

func quit(comm Comm) {
	for r := 1; r < comm.Size(); r++ {
		_ = comm.Send(r, tagQuit, nil)
	}
}
