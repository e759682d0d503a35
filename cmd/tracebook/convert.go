package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
)

// runConvert implements `tracebook convert IN OUT`: any readable trace (OTF2
// anchor, or a .parquet/.arrow/.csv events table) to an events table whose
// format follows OUT's extension (.parquet, .arrow/.feather, .csv).
func runConvert(args []string) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tracebook convert IN OUT\n\nIN is an OTF2 anchor file (*.otf2) or an events table (.parquet, .arrow, .csv);\nOUT's extension (.parquet, .arrow, .feather, .csv) selects the output format.")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errors.New("convert: need IN and OUT")
	}
	in, out := fs.Arg(0), fs.Arg(1)
	start := time.Now()
	tr, err := trace.Load(in)
	if err != nil {
		return err
	}
	loaded := time.Since(start)
	ev := tr.Events()
	defer ev.Release()
	if err := write(out, ev); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d events of %d locations read in %v; wrote %s in %v\n",
		in, tr.NumEvents(), tr.NumProcesses(), loaded.Round(time.Millisecond), out, (time.Since(start) - loaded).Round(time.Millisecond))
	return nil
}

// write is arrowio.Write returning its error (the notebook form panics with it).
func write(path string, t *arrowio.Table) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	arrowio.Write(path, t)
	return nil
}
