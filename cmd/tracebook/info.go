package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tracebook/tracebook/builtins/trace"
)

// runInfo implements `tracebook info TRACE`: locations, events by kind,
// regions, duration and clock of any readable trace.
func runInfo(args []string) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tracebook info TRACE\n\nTRACE is an OTF2 anchor file (*.otf2) or an events table (.parquet, .arrow, .csv).")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("info: need one TRACE")
	}
	tr, err := trace.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(os.Stdout, tr.Summary())
	return err
}
