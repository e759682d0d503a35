package plotting

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one interval of a timeline lane. Level is the call depth (0 = outermost, drawn at the
// top of the lane); Color indexes the palette, or -1 picks the colour from a hash of Label so
// that a label has the same colour in every figure (see [Timeline] for collisions). Fill, if not
// nil, is the colour itself and overrides Color: for bars that are not functions, such as the
// comparison states of [StateColor], which must not look like one.
type Bar struct {
	Start, End float64
	Level      int
	Label      string
	Color      int
	Fill       color.Color
}

// Lane is one row of a timeline (a process, thread or aligned sequence).
// FullHeight draws every bar over the whole height of the lane, ignoring Level: for a lane of
// states (such as the comparison states of an alignment) beside lanes of nested calls.
type Lane struct {
	Name       string
	Bars       []Bar
	FullHeight bool
}

// maxLegend is the number of labels a timeline legend lists (those with the longest total time).
const maxLegend = 12

// Timeline draws a state timeline (a Gantt chart with call levels): lanes from top to bottom in
// the given order, each split into one sub-row per call level, bars coloured by Color or Label
// and a legend of the labels with the longest total time. Options: WithSize, WithRowHeight
// (per lane), WithPalette, WithXLabel (default "time").
//
// Large inputs: at drawing time, bars of one lane and level that are narrower than a pixel are
// merged with their neighbours (when the gaps are under a pixel too) into groups at most one
// pixel wide, and a group takes the colour of its longest member, so each pixel column shows
// the dominant state. What is drawn is therefore bounded by about two bars per pixel column per
// lane and level, and a timeline of millions of bars renders in about the time it takes to sort
// them. Bars need not be sorted.
//
// Labels of bars with Color -1 are coloured by a hash of the label into the palette; if two
// labels of one figure hash to the same colour, the one with less total time moves to the next
// free colour. The legend lists the labels of bars with a Fill first, in the order in which they
// first occur (lanes in order, bars in the order given), then the other labels.
//
// Timeline panics if a bar has End < Start, a non-finite time, or a negative Level.
func Timeline(title string, lanes []Lane, opts ...Option) *Figure {
	o := collect(opts)
	maxLevel, nbars := -1, 0
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for li, l := range lanes {
		for bi, b := range l.Bars {
			if math.IsNaN(b.Start) || math.IsInf(b.Start, 0) || math.IsNaN(b.End) || math.IsInf(b.End, 0) || b.End < b.Start {
				panic(fmt.Sprintf("plotting.Timeline: lane %d (%q) bar %d: invalid interval [%g, %g]", li, l.Name, bi, b.Start, b.End))
			}
			if b.Level < 0 {
				panic(fmt.Sprintf("plotting.Timeline: lane %d (%q) bar %d: negative Level %d", li, l.Name, bi, b.Level))
			}
			maxLevel = max(maxLevel, b.Level)
			xmin, xmax = min(xmin, b.Start), max(xmax, b.End)
			nbars++
		}
	}
	all := lanes // lanes is clipped below
	remake := func(lo, hi float64) *Figure {
		return Timeline(title, all, append(slices.Clip(opts), withWindow(lo, hi))...)
	}
	if o.window != nil {
		lanes = clipLanes(lanes, o.window[0], o.window[1])
		nbars = 0
		for _, l := range lanes {
			nbars += len(l.Bars)
		}
		xmin, xmax = o.window[0], o.window[1]
	}
	if nbars == 0 {
		f := noData(title, o)
		if o.window != nil {
			f.note = fmt.Sprintf("no bars in the time range [%g, %g]", o.window[0], o.window[1])
		}
		f.window = remake
		return f
	}
	levels := maxLevel + 1
	tp := &timelinePlot{levels: levels, opts: o, xmin: xmin, xmax: xmax}
	totals := map[string]float64{}
	explicit := map[string]color.Color{} // colour of the first bar of a label with a Fill or Color >= 0
	var filled []string                  // labels with a Fill, in order of first occurrence
	for _, l := range lanes {
		byLevel := make([][]Bar, levels)
		for _, b := range l.Bars {
			byLevel[b.Level] = append(byLevel[b.Level], b)
			if b.Label != "" {
				totals[b.Label] += b.End - b.Start
				if _, ok := explicit[b.Label]; !ok {
					switch {
					case b.Fill != nil:
						explicit[b.Label] = b.Fill
						filled = append(filled, b.Label)
					case b.Color >= 0:
						explicit[b.Label] = o.color(b.Color)
					}
				}
			}
		}
		for _, bs := range byLevel {
			if !slices.IsSortedFunc(bs, byStart) {
				slices.SortStableFunc(bs, byStart)
			}
		}
		tp.lanes = append(tp.lanes, byLevel)
		tp.full = append(tp.full, l.FullHeight)
	}

	n := len(lanes)
	rowH := o.rowHeightOr(vg.Length(max(16, min(40, 9*levels))))
	height := o.heightOr(min(max(70+rowH*vg.Length(n), 160), 1400))
	width := o.widthOr(defaultWidth)

	p := newPlot(title)
	p.Add(tp)
	p.X.Label.Text = o.xlabel
	if o.xlabel == "" {
		p.X.Label.Text = "time"
	}
	p.Y.Label.Text = o.ylabel
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, float64(n)
	p.Y.Padding, p.X.Padding = 0, 0
	p.Y.Tick.Length = 0
	names := make([]string, n)
	for i, l := range lanes {
		names[i] = l.Name
	}
	p.Y.Tick.Marker = rowTicks(p, names, height-70, width)

	// Legend: the labels with a Fill, then the others with the longest total time, longest first.
	labels := make([]string, 0, len(totals))
	for l := range totals {
		if !slices.Contains(filled, l) {
			labels = append(labels, l)
		}
	}
	tp.slots = legendSlots(labels, func(l string) float64 { return totals[l] }, o.paletteLen(), len(o.palette) > 0)
	var entries []legendEntry
	for _, l := range filled {
		entries = append(entries, legendEntry{name: l, sw: swatch{c: explicit[l]}})
	}
	for i, l := range labels[:min(len(labels), maxLegend)] {
		c, ok := explicit[l]
		if !ok {
			c = o.color(tp.slots[l])
		}
		entries = append(entries, legendEntry{name: l, sw: swatch{c: c}, gap: i == 0 && len(filled) > 0})
	}
	side, sideW := sideLegend(entries, len(labels)-min(len(labels), maxLegend), legendWidth(width))
	tv := &timelineVega{tp: tp, names: names, labelColor: map[string]string{}, xlabel: p.X.Label.Text, ylabel: o.ylabel, nbars: nbars}
	for _, e := range entries {
		tv.legend = append(tv.legend, e.name)
	}
	for l := range totals {
		c, ok := explicit[l]
		if !ok {
			c = o.color(tp.slots[l])
		}
		tv.labelColor[l] = hexColor(c)
	}
	tv.labelColor[""] = hexColor(tp.colorOf(Bar{Color: -1})) // bars without a label
	return &Figure{title: title, width: width, height: height, plot: p, body: tp, side: side, sideW: sideW, vega: tv.spec,
		xUnit: o.xUnit, window: remake}
}

// clipLanes returns the lanes with their bars clipped to [lo, hi]; bars outside are left out
// (the lanes stay, so that a process without a bar in the range keeps its row).
func clipLanes(lanes []Lane, lo, hi float64) []Lane {
	out := make([]Lane, len(lanes))
	for i, l := range lanes {
		bars := make([]Bar, 0, len(l.Bars))
		for _, b := range l.Bars {
			if b.End < lo || b.Start > hi || (b.End == lo && b.Start < lo) || (b.Start == hi && b.End > hi) {
				continue
			}
			b.Start, b.End = max(b.Start, lo), min(b.End, hi)
			bars = append(bars, b)
		}
		out[i] = Lane{Name: l.Name, Bars: bars, FullHeight: l.FullHeight}
	}
	return out
}

func byStart(a, b Bar) int { return cmp.Compare(a.Start, b.Start) }

type timelinePlot struct {
	lanes      [][][]Bar // lane, level, bars sorted by Start
	full       []bool    // per lane: bars fill the lane (Lane.FullHeight)
	levels     int
	opts       options
	xmin, xmax float64
	slots      map[string]int // palette slot per label, for bars with Color < 0
}

func (tp *timelinePlot) colorOf(b Bar) color.Color {
	switch {
	case b.Fill != nil:
		return b.Fill
	case b.Color >= 0:
		return tp.opts.color(b.Color)
	}
	return tp.opts.color(tp.slots[b.Label])
}

// labelSlots gives each label the palette slot of its hash, so that a label keeps its colour
// across figures; when the slot is taken by a label with more total time (labels come longest
// first), the next free slot is used, so the labels of one figure stay distinguishable while
// there are fewer labels than colours.
func labelSlots(labels []string, n int) map[string]int {
	slots := make(map[string]int, len(labels))
	used := make([]bool, n)
	free := n
	for _, l := range labels {
		h := fnv.New32a()
		h.Write([]byte(l))
		s := int(h.Sum32() % uint32(n))
		for free > 0 && used[s] {
			s = (s + 1) % n
		}
		if !used[s] {
			used[s] = true
			free--
		}
		slots[l] = s
	}
	return slots
}

// legendSlots sorts labels as a timeline's legend lists them (by total time, longest first,
// then by name) and gives each its slot of a palette of paletteLen colours (labelSlots); with
// the default palette (custom false) and at most 10 labels, only its 10 strong colours. The
// one rule of Timeline and LiveTimeline, so that a label has one colour in both.
func legendSlots(labels []string, total func(string) float64, paletteLen int, custom bool) map[string]int {
	slices.SortFunc(labels, func(a, b string) int {
		return cmp.Or(cmp.Compare(total(b), total(a)), cmp.Compare(a, b))
	})
	slotN := paletteLen
	if !custom && len(labels) <= 10 {
		slotN = 10 // the strong half of Tableau 20 suffices and is easier to tell apart
	}
	return labelSlots(labels, slotN)
}

func (tp *timelinePlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	return tp.xmin, tp.xmax, 0, float64(len(tp.lanes))
}

// drawnBar is a bar after merging, in data coordinates.
type drawnBar struct {
	start, end float64
	longest    float64 // duration of the longest member, which gives the colour
	color      color.Color
	label      string
	merged     bool
	n          int // bars merged into this one
}

// mergeBars merges runs of bars narrower than px (data units per pixel) into groups at most
// one pixel wide, so that a pixel shows its dominant state: a group takes the colour of its
// longest member. Bars at least px wide are drawn as they are. bars must be sorted by Start
// and must not overlap (bars of one call level never do); then consecutive groups advance by
// more than px every two groups, which bounds the output by about two bars per pixel plus the
// wide bars.
func mergeBars(bars []Bar, px float64, colorOf func(Bar) color.Color) []drawnBar {
	var out []drawnBar
	for _, b := range bars {
		d := b.End - b.Start
		if k := len(out) - 1; k >= 0 {
			last := &out[k]
			if d < px && last.end-last.start < px && b.Start-last.end < px && max(last.end, b.End)-last.start <= px {
				last.end = max(last.end, b.End)
				if d > last.longest {
					last.longest, last.color, last.label = d, colorOf(b), b.Label
				}
				last.merged = true
				last.n++
				continue
			}
		}
		out = append(out, drawnBar{start: b.Start, end: b.End, longest: d, color: colorOf(b), label: b.Label, n: 1})
	}
	return out
}

func (tp *timelinePlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	widthPx := float64(c.Max.X-c.Min.X) * dpi / 72
	px := (p.X.Max - p.X.Min) / max(widthPx, 1)
	sub := 0.84 / float64(tp.levels) // lane band height is 1: 8% margin above and below
	labelSty := textStyle(8, color.Black)
	labelSty.XAlign, labelSty.YAlign = draw.XCenter, draw.YCenter
	n := len(tp.lanes)
	for li, byLevel := range tp.lanes {
		top := float64(n-li) - 0.08
		for level, bars := range byLevel {
			y1 := trY(top - float64(level)*sub)
			y0 := trY(top-float64(level+1)*sub) + 0.5
			if tp.full[li] {
				y1, y0 = trY(top), trY(top-float64(tp.levels)*sub)
			}
			// Bars of one colour are filled a few at a time as one path: every fill costs
			// the rasteriser a pass over the image's rows, so one fill per bar made a
			// timeline of 300k drawn bars take a second, while a path's cells are kept in
			// lists per row, so one fill per colour is quadratic in its bars. The row's
			// bars do not overlap, so the picture is the same. Labels go on top.
			merged := mergeBars(bars, px, tp.colorOf)
			paths := map[color.Color]*rowPath{}
			var order []color.Color // flushed in the order of first use: deterministic pictures
			for _, b := range merged {
				x0, x1 := trX(b.start), trX(b.end)
				if x1-x0 < 0.75 { // keep sub-pixel bars visible
					x1 = x0 + 0.75
				}
				rp := paths[b.color]
				if rp == nil {
					rp = &rowPath{}
					paths[b.color] = rp
					order = append(order, b.color)
				}
				rp.add(c, b.color, x0, x1, y0, y1)
			}
			for _, col := range order {
				paths[col].flush(c, col)
			}
			for _, b := range merged {
				x0, x1 := trX(b.start), trX(b.end)
				if !b.merged && b.label != "" && y1-y0 >= 10 && x1-x0 > labelSty.Width(b.label)+6 {
					labelSty.Color = color.Black
					if luminance(b.color) < 0.45 {
						labelSty.Color = color.White
					}
					c.FillText(labelSty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, b.label)
				}
			}
		}
		if li > 0 { // faint separator between lanes
			y := trY(float64(n - li))
			c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 225}, Width: 0.5}, c.Min.X, y, c.Max.X, y)
		}
	}
}

// rowPathBars is the number of bars filled as one path (see timelinePlot.Plot).
const rowPathBars = 32

// rowPath collects rectangles of one colour to fill together.
type rowPath struct {
	p vg.Path
	n int
}

func (rp *rowPath) add(c draw.Canvas, col color.Color, x0, x1, y0, y1 vg.Length) {
	rp.p.Move(vg.Point{X: x0, Y: y0})
	rp.p.Line(vg.Point{X: x1, Y: y0})
	rp.p.Line(vg.Point{X: x1, Y: y1})
	rp.p.Line(vg.Point{X: x0, Y: y1})
	rp.p.Close()
	if rp.n++; rp.n == rowPathBars {
		rp.flush(c, col)
	}
}

func (rp *rowPath) flush(c draw.Canvas, col color.Color) {
	if rp.n > 0 {
		c.SetColor(col)
		c.Fill(rp.p)
		rp.p, rp.n = rp.p[:0], 0
	}
}
