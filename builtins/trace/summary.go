package trace

import (
	"fmt"
	"html"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
)

// KindCounts returns the number of events of each kind over all processes.
func (t *Trace) KindCounts() map[EventKind]int64 {
	m := map[EventKind]int64{}
	for _, p := range t.procs {
		var c [numEventKinds]int64
		for _, k := range p.Kind {
			c[k]++
		}
		for k, n := range c {
			if n > 0 {
				m[EventKind(k)] += n
			}
		}
	}
	return m
}

// summaryMaxEvents bounds the traces whose summaries list the top regions: those need every
// process's call tree, and the summary must stay cheap for 50M events.
const summaryMaxEvents = 5_000_000

// summaryTopRegions is the number of regions a summary lists.
const summaryTopRegions = 10

// regionTotal is one region aggregated over the processes of a trace.
type regionTotal struct {
	name            string
	calls           int64
	exclusive       int64 // summed over the processes
	maxExclusive    int64 // of the process with the most
	maxProcessLabel string
}

// topRegions returns the regions with the largest exclusive time summed over all processes,
// largest first, at most n; nil for traces above summaryMaxEvents.
func (t *Trace) topRegions(n int) []regionTotal {
	if t.NumEvents() > summaryMaxEvents {
		return nil
	}
	stats := make([][]RegionStat, len(t.procs))
	work.Each(len(t.procs), func(_, i int) { stats[i] = t.procs[i].RegionStats() })
	byID := map[int32]*regionTotal{}
	var ids []int32
	for i, p := range t.procs {
		for _, s := range stats[i] {
			r := byID[s.Region]
			if r == nil {
				r = &regionTotal{name: t.RegionName(s.Region)}
				byID[s.Region] = r
				ids = append(ids, s.Region)
			}
			r.calls += s.Calls
			r.exclusive += s.Exclusive
			if r.maxProcessLabel == "" || s.Exclusive > r.maxExclusive {
				r.maxExclusive, r.maxProcessLabel = s.Exclusive, p.Label()
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := byID[ids[i]], byID[ids[j]]
		return a.exclusive > b.exclusive || a.exclusive == b.exclusive && ids[i] < ids[j]
	})
	out := make([]regionTotal, 0, min(n, len(ids)))
	for _, id := range ids[:min(n, len(ids))] {
		out = append(out, *byID[id])
	}
	return out
}

// damagedLines are the Summary lines of the locations WithSkipDamaged left
// out: their number, then one line each (the first 10).
func (t *Trace) damagedLines() []string {
	n := len(t.damaged)
	if n == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("%d of %d locations not loaded (WithSkipDamaged), results cover the others:", n, len(t.Defs.Locations))}
	for _, d := range t.damaged[:min(n, 10)] {
		out = append(out, "  "+d.String())
	}
	if n > 10 {
		out = append(out, fmt.Sprintf("  ... and %d more (tr.Damaged())", n-10))
	}
	return out
}

// regionsHeading says what the top-regions table aggregates.
func (t *Trace) regionsHeading() string {
	return fmt.Sprintf("top regions by exclusive time, summed over %d processes", len(t.procs))
}

// regionColumns are the headers of the top-regions table.
var regionColumns = []string{"region", "calls", "exclusive (sum)", "mean per process", "max per process"}

// cells returns the table cells of r in a trace of nproc processes.
func (r regionTotal) cells(nproc int) []string {
	return []string{r.name, arrowio.FormatCount(r.calls), arrowio.FormatDuration(r.exclusive), arrowio.FormatDuration(r.exclusive / int64(max(1, nproc))),
		arrowio.FormatDuration(r.maxExclusive) + " (" + r.maxProcessLabel + ")"}
}

// Summary returns a multi-line text description: locations, events by kind, regions, duration
// and clock, the call-stack repairs (mismatched Enter/Leave, see CallTree) when there are any —
// counted for every trace, in one pass over the events without building call trees — and for
// traces of up to 5M events the top regions by exclusive time summed over the processes, with
// the mean and the largest per process (what `tracebook info` prints).
func (t *Trace) Summary() string {
	if t.IsSkeleton() {
		return t.skeletonSummary()
	}
	var b strings.Builder
	src := t.Path
	if src == "" {
		src = "(generated)"
	}
	fmt.Fprintf(&b, "trace      %s\n", src)
	if c := t.cutLine(); c != "" {
		fmt.Fprintf(&b, "cut        %s\n", c)
	}
	fmt.Fprintf(&b, "processes  %s location groups, %s locations\n", arrowio.FormatCount(int64(len(t.Defs.LocationGroups))), arrowio.FormatCount(int64(len(t.procs))))
	if m := t.metricStreamsLine(); m != "" {
		fmt.Fprintf(&b, "metric streams %s\n", m)
	}
	for i, l := range t.damagedLines() {
		head := "damaged   "
		if i > 0 {
			head = "          " // the locations, under the count
		}
		fmt.Fprintf(&b, "%s %s\n", head, l)
	}
	if m := t.measurementOffLine(); m != "" {
		fmt.Fprintf(&b, "measurement off %s\n", m)
	}
	fmt.Fprintf(&b, "events     %s\n", arrowio.FormatCount(t.NumEvents()))
	counts := t.KindCounts()
	for k := EventKind(0); k < numEventKinds; k++ {
		if counts[k] > 0 {
			fmt.Fprintf(&b, "  %-20s %s\n", k, arrowio.FormatCount(counts[k]))
		}
	}
	var skipped int64
	for _, p := range t.procs {
		skipped += p.Skipped
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "  %-20s %s\n", "(not modelled)", arrowio.FormatCount(skipped))
	}
	// What the reader skipped, reordered, clipped or approximated, in its words.
	for _, n := range t.readerNotes() {
		fmt.Fprintf(&b, "%-10s %s\n", n[0], n[1])
	}
	fmt.Fprintf(&b, "regions    %s\n", arrowio.FormatCount(int64(len(t.Defs.Regions))))
	fmt.Fprintf(&b, "duration   %s (%s ns)\n", arrowio.FormatDuration(t.Duration()), arrowio.FormatCount(t.Duration()))
	c := t.Defs.Clock
	fmt.Fprintf(&b, "clock      %s ticks/s, offset %s ticks, length %s ticks\n", arrowio.FormatCount(int64(c.Resolution)), arrowio.FormatCount(int64(c.Offset)), arrowio.FormatCount(int64(c.Length)))
	fmt.Fprintf(&b, "memory     %s bytes of event data (%.1f bytes/event)\n", arrowio.FormatCount(t.MemoryBytes()), float64(t.MemoryBytes())/float64(max(1, t.NumEvents())))
	if r := t.repairLine(); r != "" {
		fmt.Fprintf(&b, "call stacks %s\n", r)
	}
	if top := t.topRegions(summaryTopRegions); len(top) > 0 {
		rows := [][]string{regionColumns}
		for _, r := range top {
			rows = append(rows, r.cells(len(t.procs)))
		}
		width := make([]int, len(regionColumns))
		for _, row := range rows {
			for j, s := range row {
				width[j] = max(width[j], utf8.RuneCountInString(s))
			}
		}
		fmt.Fprintf(&b, "%s:\n", t.regionsHeading())
		for _, row := range rows {
			b.WriteString(" ")
			for j, s := range row {
				pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(s))
				switch {
				case j == 0:
					b.WriteString(" " + s + pad)
				case j == len(row)-1:
					b.WriteString("  " + s) // left-aligned, no trailing spaces
				default:
					b.WriteString("  " + pad + s)
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// MIMEBundle renders the trace as an HTML summary (counts, clock, call-stack repairs if any, the top regions by exclusive
// time summed over all processes with the mean and the largest per process) and text/plain.
func (t *Trace) MIMEBundle() map[string]any {
	if t.IsSkeleton() {
		return map[string]any{"text/plain": t.skeletonSummary(), "text/html": "<pre>" + html.EscapeString(t.skeletonSummary()) + "</pre>"}
	}
	var b strings.Builder
	e := html.EscapeString
	src := t.Path
	if src == "" {
		src = "generated"
	}
	fmt.Fprintf(&b, `<div class="tracebook-trace"><b>Trace</b> <code>%s</code><table>`, e(src))
	row := func(k, v string) {
		fmt.Fprintf(&b, "<tr><th style=\"text-align:left\">%s</th><td style=\"text-align:left\">%s</td></tr>", e(k), e(v))
	}
	if c := t.cutLine(); c != "" {
		row("cut", c)
	}
	row("processes", fmt.Sprintf("%s location groups, %s locations", arrowio.FormatCount(int64(len(t.Defs.LocationGroups))), arrowio.FormatCount(int64(len(t.procs)))))
	if m := t.metricStreamsLine(); m != "" {
		row("metric streams", m)
	}
	for _, l := range t.damagedLines() {
		row("damaged", l)
	}
	if m := t.measurementOffLine(); m != "" {
		row("measurement off", m)
	}
	row("events", arrowio.FormatCount(t.NumEvents()))
	counts := t.KindCounts()
	var parts []string
	for k := EventKind(0); k < numEventKinds; k++ {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", k, arrowio.FormatCount(counts[k])))
		}
	}
	row("by kind", strings.Join(parts, ", "))
	for _, n := range t.readerNotes() {
		row(n[0], n[1])
	}
	row("regions", arrowio.FormatCount(int64(len(t.Defs.Regions))))
	row("duration", arrowio.FormatDuration(t.Duration()))
	c := t.Defs.Clock
	row("clock", fmt.Sprintf("%s ticks/s, offset %s", arrowio.FormatCount(int64(c.Resolution)), arrowio.FormatCount(int64(c.Offset))))
	if r := t.repairLine(); r != "" {
		row("call stacks", r)
	}
	b.WriteString("</table>")
	if top := t.topRegions(summaryTopRegions); len(top) > 0 {
		fmt.Fprintf(&b, "<p>%s</p><table><tr>", e(t.regionsHeading()))
		for _, h := range regionColumns {
			fmt.Fprintf(&b, "<th>%s</th>", e(h))
		}
		b.WriteString("</tr>")
		for _, r := range top {
			b.WriteString("<tr>")
			for j, s := range r.cells(len(t.procs)) {
				align := "right"
				if j == 0 {
					align = "left"
				}
				fmt.Fprintf(&b, `<td style="text-align:%s">%s</td>`, align, e(s))
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</table>")
	}
	b.WriteString("</div>")
	return map[string]any{"text/html": b.String(), "text/plain": t.String()}
}

// declaredEvents is the number of events the definitions declare for the
// trace's processes (OTF2's per-location counts).
func (t *Trace) declaredEvents() int64 {
	var n int64
	for _, p := range t.procs {
		if p.Location < len(t.Defs.Locations) {
			n += int64(t.Defs.Locations[p.Location].NumEvents)
		}
	}
	return n
}

// skeletonSummary describes a trace whose events are held elsewhere.
func (t *Trace) skeletonSummary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "trace      %s\n", t.Path)
	fmt.Fprintf(&b, "processes  %s location groups, %s locations\n", arrowio.FormatCount(int64(len(t.Defs.LocationGroups))), arrowio.FormatCount(int64(len(t.procs))))
	fmt.Fprintf(&b, "events     %s declared, held by the ranks of an MPI job (package dist): the methods run there\n", arrowio.FormatCount(t.declaredEvents()))
	fmt.Fprintf(&b, "regions    %s\n", arrowio.FormatCount(int64(len(t.Defs.Regions))))
	if c := t.Defs.Clock; c.Resolution > 0 && c.Length > 0 {
		d := int64(float64(c.Length) * 1e9 / float64(c.Resolution))
		fmt.Fprintf(&b, "duration   %s (the clock's length)\n", arrowio.FormatDuration(d))
	}
	return b.String()
}

// countsByName formats a reader's counts by name, for its notes:
// "OmpFork ×120, USER_EVENT ×3", by name.
func countsByName(m map[string]int64) string {
	names := make([]string, 0, len(m))
	for k, n := range m {
		if n > 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + " ×" + arrowio.FormatCount(m[k])
	}
	return strings.Join(parts, ", ")
}

// readerNoteKinds are the Definitions.Properties a reader sets, under its
// format's prefix ("chrome:skipped", "otf2:skipped"), to say what of the
// source the model does not hold as it was.
var readerNoteKinds = []string{"skipped", "reordered", "clipped", "approximated"}

// readerNotes returns the reader's notes as (kind, text), in the order of
// readerNoteKinds, then by key.
func (t *Trace) readerNotes() [][2]string {
	var notes [][2]string
	for _, kind := range readerNoteKinds {
		var keys []string
		for k, v := range t.Defs.Properties {
			if v != "" && strings.HasSuffix(k, ":"+kind) && strings.IndexByte(k, ':') == len(k)-len(kind)-1 {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			notes = append(notes, [2]string{kind, t.Defs.Properties[k]})
		}
	}
	return notes
}
