package trace

import (
	"fmt"
	"html"
	"sort"
	"strings"
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

// Summary returns a multi-line text description: locations, events by
// kind, regions, duration and clock (what `tracebook info` prints).
func (t *Trace) Summary() string {
	var b strings.Builder
	src := t.Path
	if src == "" {
		src = "(generated)"
	}
	fmt.Fprintf(&b, "trace      %s\n", src)
	fmt.Fprintf(&b, "processes  %d location groups, %d locations\n", len(t.Defs.LocationGroups), len(t.procs))
	fmt.Fprintf(&b, "events     %d\n", t.NumEvents())
	counts := t.KindCounts()
	for k := EventKind(0); k < numEventKinds; k++ {
		if counts[k] > 0 {
			fmt.Fprintf(&b, "  %-20s %d\n", k, counts[k])
		}
	}
	var skipped int64
	for _, p := range t.procs {
		skipped += p.Skipped
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "  %-20s %d\n", "(not modelled)", skipped)
	}
	fmt.Fprintf(&b, "regions    %d\n", len(t.Defs.Regions))
	fmt.Fprintf(&b, "duration   %s (%d ns)\n", fmtNs(t.Duration()), t.Duration())
	c := t.Defs.Clock
	fmt.Fprintf(&b, "clock      %d ticks/s, offset %d ticks, length %d ticks\n", c.Resolution, c.Offset, c.Length)
	fmt.Fprintf(&b, "memory     %d bytes of event data (%.1f bytes/event)\n", t.MemoryBytes(), float64(t.MemoryBytes())/float64(max(1, t.NumEvents())))
	return b.String()
}

// MIMEBundle renders the trace as an HTML summary (counts, clock, the top
// regions by exclusive time over all processes, the first processes) and
// text/plain.
func (t *Trace) MIMEBundle() map[string]any {
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
	row("processes", fmt.Sprintf("%d location groups, %d locations", len(t.Defs.LocationGroups), len(t.procs)))
	row("events", fmt.Sprint(t.NumEvents()))
	counts := t.KindCounts()
	var parts []string
	for k := EventKind(0); k < numEventKinds; k++ {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	row("by kind", strings.Join(parts, ", "))
	row("regions", fmt.Sprint(len(t.Defs.Regions)))
	row("duration", fmtNs(t.Duration()))
	c := t.Defs.Clock
	row("clock", fmt.Sprintf("%d ticks/s, offset %d", c.Resolution, c.Offset))
	b.WriteString("</table>")
	// top regions by exclusive time, only for modest traces (the summary
	// must stay cheap for 50M events: call trees are built lazily)
	if t.NumEvents() <= 5_000_000 {
		excl := map[int32]int64{}
		calls := map[int32]int64{}
		for _, p := range t.procs {
			for _, s := range p.RegionStats() {
				excl[s.Region] += s.Exclusive
				calls[s.Region] += s.Calls
			}
		}
		ids := make([]int32, 0, len(excl))
		for id := range excl {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			return excl[ids[i]] > excl[ids[j]] || excl[ids[i]] == excl[ids[j]] && ids[i] < ids[j]
		})
		if len(ids) > 10 {
			ids = ids[:10]
		}
		if len(ids) > 0 {
			b.WriteString("<table><tr><th>region</th><th>calls</th><th>exclusive</th></tr>")
			for _, id := range ids {
				fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td></tr>", e(t.RegionName(id)), calls[id], e(fmtNs(excl[id])))
			}
			b.WriteString("</table>")
		}
	}
	b.WriteString("</div>")
	return map[string]any{"text/html": b.String(), "text/plain": t.String()}
}
