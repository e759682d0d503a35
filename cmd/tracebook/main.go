// Command tracebook is the tracebook Jupyter kernel and its tools:
//
//	tracebook kernel -f CONNECTION_FILE   run the kernel (what Jupyter starts)
//	tracebook install [--user | --prefix DIR | --sys-prefix]
//	tracebook run FILE.go [ARGS...]       a Go script with the builtins, without Jupyter
//	tracebook run -e CODE                 Go code given on the command line
//	tracebook run NOTEBOOK.ipynb          a notebook executed headless (--out FILE)
//	tracebook repl                        an interactive terminal session
//	tracebook check --baseline A --run B  fail (exit 1) when B is slower than A
//	tracebook convert IN OUT              trace -> Parquet / Arrow IPC / CSV events table
//	tracebook info TRACE                  summary of a trace
//	tracebook version
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/kernelspec"
	"github.com/tracebook/tracebook/kernel/serve"
	"github.com/tracebook/tracebook/kernel/session"
	"github.com/tracebook/tracebook/kernel/wire"
)

// extraCommands are subcommands provided by other files of this package.
var extraCommands = map[string]func(args []string) error{
	"convert": runConvert,
	"info":    runInfo,
	"run":     runRun,
}

const usageText = `usage:
  tracebook kernel -f CONNECTION_FILE   run the Jupyter kernel
  tracebook install [--user | --prefix DIR | --sys-prefix]
                                        register the kernelspec "tracebook"
  tracebook run FILE.go [ARGS...]       run a Go script with the builtins, without Jupyter
  tracebook run -e CODE [ARGS...]       run Go code given on the command line
  tracebook run NOTEBOOK.ipynb [--out EXECUTED.ipynb]
                                        execute a notebook's cells headless
  tracebook repl [--figures P]          an interactive terminal session with the builtins
  tracebook check --baseline BASE --run NEW [--max-slowdown 5%] [--function GLOB] ...
                                        compare a run with a baseline; exit 1 on a slowdown
  tracebook convert IN OUT              convert a trace to a .parquet/.arrow/.csv events table
  tracebook info TRACE                  summarise a trace
  tracebook version
  tracebook help [COMMAND]              this text, or a command's own

Exit status: 0 success, 1 a failure (an error in a script, a slowdown past the limit),
2 a wrong command line or an unreadable file, 130 interrupted (SIGINT).
`

func usage() { fmt.Fprint(os.Stderr, usageText) }

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "kernel":
		err = runKernel(args)
	case "install":
		err = runInstall(args)
	case "version", "--version":
		fmt.Printf("tracebook %s\n", kernel.Version)
	case "help", "-h", "--help":
		if len(args) > 0 {
			f, ok := extraCommands[args[0]]
			if args[0] == "kernel" || args[0] == "install" || args[0] == "version" {
				fmt.Print(usageText) // described there
				break
			}
			if !ok {
				fmt.Fprintf(os.Stderr, "tracebook help: no command %q\n", args[0])
				usage()
				os.Exit(2)
			}
			err = f([]string{"-h"})
			break
		}
		fmt.Print(usageText)
	default:
		if f, ok := extraCommands[cmd]; ok {
			err = f(args)
		} else {
			fmt.Fprintf(os.Stderr, "tracebook: unknown command %q\n", cmd)
			usage()
			os.Exit(2)
		}
	}
	var ee exitError
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp): // help asked for and given
	case errors.As(err, &ee):
		os.Exit(ee.code)
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "tracebook %s: %v\n", os.Args[1], err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "tracebook %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func runInstall(args []string) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	user := fs.Bool("user", false, "install for the current user (default)")
	prefix := fs.String("prefix", "", "install under `DIR`/share/jupyter")
	sysPrefix := fs.Bool("sys-prefix", false, "install into the Python environment's sys.prefix")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n := 0
	for _, b := range []bool{*user, *prefix != "", *sysPrefix} {
		if b {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("choose one of --user, --prefix, --sys-prefix")
	}
	var dataDir string
	var err error
	switch {
	case *prefix != "":
		dataDir = filepath.Join(*prefix, "share", "jupyter")
	case *sysPrefix:
		var p string
		if p, err = kernelspec.SysPrefix(); err == nil {
			dataDir = filepath.Join(p, "share", "jupyter")
		}
	default:
		dataDir, err = kernelspec.UserDataDir()
	}
	if err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return err
	}
	dir, err := kernelspec.Install(dataDir, bin)
	if err != nil {
		return err
	}
	fmt.Printf("installed kernelspec %s in %s\n", kernelspec.Name, dir)
	return nil
}

// preimports returns the import paths of the builtins every session starts with.
func preimports() []string {
	var out []string
	for k := range symbols.Symbols {
		out = append(out, filepath.Dir(k))
	}
	sort.Strings(out)
	return out
}

// sink routes display calls of a session to the kernel.
type sink struct{ fe kernel.Frontend }

func (s sink) Display(data, md map[string]any, id string, update bool) {
	s.fe.Display(data, md, id, update)
}
func (s sink) Clear(wait bool) { s.fe.Clear(wait) }

// newInterp makes the session of a kernel.
func newInterp(fe kernel.Frontend) (kernel.Interpreter, error) {
	s, err := session.New(session.Options{
		IO:        fe,
		Symbols:   symbols.Symbols,
		Preimport: preimports(),
	})
	if err != nil {
		return nil, err
	}
	display.SetSink(sink{fe})
	return s, nil
}

func runKernel(args []string) error {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	file := fs.String("f", "", "connection `file` written by Jupyter")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("missing -f CONNECTION_FILE")
	}
	ci, err := wire.ReadConnectionFile(*file)
	if err != nil {
		return err
	}
	logger := log.New(os.Stderr, "", log.LstdFlags)
	return serve.Run(ci, newInterp, func(f string, a ...any) {
		if !strings.HasPrefix(f, "\n") {
			logger.Printf(f, a...)
		}
	})
}
