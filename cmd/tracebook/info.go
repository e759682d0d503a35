package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
)

// runInfo implements `tracebook info TRACE`: locations, events by kind,
// regions, duration and clock of any readable trace, and the call-stack
// repairs (mismatched Enter/Leave) of each location that needed any.
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
	_, err = fmt.Fprint(os.Stdout, tr.Summary()+repairsByLocation(tr, infoMaxLocations))
	return err
}

// infoMaxLocations is the number of repaired locations info lists one by one.
const infoMaxLocations = 10

// repairsByLocation lists the call-stack repairs (trace.CallRepairs) of each
// location that needed any, in location order when there are at most limit of
// them, else the limit with the most repairs (ties by location order); "" when
// every location is properly nested. The summary above it has the totals.
func repairsByLocation(tr *trace.Trace, limit int) string {
	type loc struct {
		p *trace.Process
		r trace.CallRepairs
	}
	var locs []loc
	for _, p := range tr.Processes() {
		if r := p.CallRepairs(); !r.IsZero() {
			locs = append(locs, loc{p, r})
		}
	}
	if len(locs) == 0 {
		return ""
	}
	var b strings.Builder
	if len(locs) <= limit {
		b.WriteString("call stack repairs by location:\n")
	} else {
		sort.SliceStable(locs, func(i, j int) bool { return locs[i].r.Count() > locs[j].r.Count() })
		fmt.Fprintf(&b, "call stack repairs, the %d of %d repaired locations with the most:\n", limit, len(locs))
		locs = locs[:limit]
	}
	for _, l := range locs {
		fmt.Fprintf(&b, "  %s: %s\n", l.p.Label(), l.r)
	}
	return b.String()
}
