package plotting

import (
	"cmp"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot/plotter"
)

// Interactive figures (see the package documentation): the spec holds its data inline, bounded
// to maxSpecBytes of JSON; when the data had to be reduced to fit, the subtitle says how.

// VegaLiteMIME is the MIME type of a figure's Vega-Lite spec in its MIMEBundle.
const VegaLiteMIME = "application/vnd.vegalite.v5+json"

const (
	vegaSchemaURL = "https://vega.github.io/schema/vega-lite/v5.json"
	// maxSpecBytes bounds the serialized spec of one figure.
	maxSpecBytes = 512 << 10
	// Data bounds before any size check: bars of a timeline, cells of a heatmap (rows and
	// columns), points of a Lines chart (all series together). Each halves at every shrink step.
	vegaMaxBars     = 4000
	vegaMergeCols   = 2000 // timeline bars narrower than 1/vegaMergeCols of the range are merged
	vegaMaxCells    = 16384
	vegaMaxRows     = 128
	vegaMaxCols     = 256
	vegaMaxPoints   = 8000
	vegaMaxTextRows = 60  // a Matrix writes its values in the cells up to this many rows
	vegaMaxTextCols = 40  // and columns
	vegaMaxTextRune = 120 // lane names and labels are cut to this many characters
	vegaMaxShrink   = 10
	vegaNoValue     = "#c8c8c8" // noValue, grey for non-finite heatmap cells
	vegaTimeFormat  = ",.6~g"
	vegaValueFormat = ",.4~g"
)

// vegaSpec builds a figure's Vega-Lite spec at its current size; shrink > 0 asks for data
// bounds divided by 2^shrink, when the spec at the previous step was too large.
type vegaSpec func(f *Figure, shrink int) map[string]any

// VegaLite returns the figure's interactive Vega-Lite v5 spec (as MIMEBundle holds it under
// "application/vnd.vegalite.v5+json"), for saving or exporting with encoding/json; nil for
// figures without one (charts other than Timeline, Heatmap, Matrix and Lines, notes, stacks).
func (f *Figure) VegaLite() map[string]any {
	spec, _ := f.vegaLite()
	return spec
}

// vegaLite returns the spec and its JSON, shrinking the data until the JSON fits in
// maxSpecBytes; nil if the figure has none or it does not fit.
func (f *Figure) vegaLite() (map[string]any, []byte) {
	if f.vega == nil || f.plot == nil {
		return nil, nil
	}
	for shrink := 0; shrink <= vegaMaxShrink; shrink++ {
		spec := f.vega(f, shrink)
		if spec == nil {
			return nil, nil
		}
		b, err := json.Marshal(spec)
		if err != nil {
			panic(fmt.Sprintf("plotting: Vega-Lite spec of %q: %v", f.title, err)) // a NaN slipped in
		}
		if len(b) <= maxSpecBytes {
			return spec, b
		}
	}
	return nil, nil
}

// vegaBase is the part of every spec: schema, title with the reduction notes as subtitle, the
// figure size (the whole figure, axes and legend included) and parameters.
func vegaBase(f *Figure, notes []string, params []any) map[string]any {
	spec := map[string]any{
		"$schema":  vegaSchemaURL,
		"width":    pixels(f.width) - 2*pixels(margin),
		"height":   pixels(f.height) - 2*pixels(margin),
		"autosize": map[string]any{"type": "fit", "contains": "padding"},
		"padding":  pixels(margin),
		"params":   params,
		"config":   map[string]any{"font": "Liberation Sans, Arial, sans-serif", "view": map[string]any{"stroke": "#787878"}},
	}
	if f.title != "" || len(notes) > 0 {
		t := map[string]any{"text": f.title, "fontSize": 13}
		if len(notes) > 0 {
			t["subtitle"] = notes
			t["subtitleColor"] = "#8a4b00"
		}
		spec["title"] = t
	}
	return spec
}

// zoomParam zooms and pans the given position channels by binding an interval selection to
// their scales.
func zoomParam(encodings ...string) map[string]any {
	return map[string]any{"name": "zoom", "select": map[string]any{"type": "interval", "encodings": encodings}, "bind": "scales"}
}

func valueParam(name string, v any) map[string]any { return map[string]any{"name": name, "value": v} }

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// vegaText cuts s to vegaMaxTextRune characters (halved at each shrink step, down to 16), so
// that long names cannot break the size bound.
func vegaText(s string, shrink int) string {
	limit := max(vegaMaxTextRune>>shrink, 16)
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit-1]) + ellipsis
}

func quant(field, title, format string) map[string]any {
	m := map[string]any{"field": field, "type": "quantitative", "title": title}
	if format != "" {
		m["format"] = format
	}
	return m
}

// vegaUnit is what an axis of data in u over [lo, hi] shows, as in the static figure: its title
// with the unit shown, the factor from data to that unit and, when it is not 1, the axis's
// label expression.
func vegaUnit(label string, u Unit, lo, hi float64) (title string, mult float64, axis map[string]any) {
	name, mult := u.display(lo, hi)
	title = unitLabel(label, name)
	if mult != 1 {
		axis = map[string]any{"labelExpr": fmt.Sprintf("format(datum.value * %s, '%s')", strconv.FormatFloat(mult, 'g', -1, 64), vegaValueFormat)}
	}
	return title, mult, axis
}

// unitTooltip is the tooltip entry of field, titled title, in the unit shown (mult times the
// data, "1.2 ms"), with the transform that writes it; without a unit, the plain entry and nil.
func unitTooltip(field, title, unit string, mult float64, format string) (any, map[string]any) {
	if unit == "" {
		return quant(field, title, format), nil
	}
	expr := fmt.Sprintf("isValid(datum.%s) ? format(datum.%[1]s * %s, '%s') + ' %s' : null", field, strconv.FormatFloat(mult, 'g', -1, 64), format, unit)
	return nominal(field+"_u", title), map[string]any{"calculate": expr, "as": field + "_u"}
}

// withAxis sets the axis properties of encoding channel ch, if any (a null axis would hide it).
func withAxis(ch map[string]any, axis map[string]any) map[string]any {
	if axis == nil {
		return ch
	}
	a, _ := ch["axis"].(map[string]any)
	if a == nil {
		a = map[string]any{}
	}
	for k, v := range axis {
		a[k] = v
	}
	ch["axis"] = a
	return ch
}

// withLegend sets the legend of colour channel ch, if any.
func withLegend(ch map[string]any, legend any) map[string]any {
	if legend != nil {
		ch["legend"] = legend
	}
	return ch
}

func nominal(field, title string) map[string]any {
	return map[string]any{"field": field, "type": "nominal", "title": title}
}

// ---------------------------------------------------------------------------------------------
// Timeline

// timelineVega is what a Timeline's spec is made of.
type timelineVega struct {
	tp         *timelinePlot
	names      []string          // lane names
	labelColor map[string]string // hex colour of each label, as in the legend
	legend     []string          // labels the static legend lists, in its order
	xlabel     string
	ylabel     string
	nbars      int
}

// vegaBar is one bar of a timeline spec: lane, level (-1: full height), label, interval and
// the number of bars merged into it.
type vegaBar struct {
	lane, level int
	label       string
	start, end  float64
	n           int
}

func (tv *timelineVega) bars(shrink int) (bars []vegaBar, notes []string) {
	tp := tv.tp
	maxBars := max(vegaMaxBars>>shrink, 1)
	merged := tv.nbars > maxBars
	px := (tp.xmax - tp.xmin) / vegaMergeCols
	bars = make([]vegaBar, 0, min(tv.nbars, 4*maxBars))
	for li, byLevel := range tp.lanes {
		level := func(lv int) int {
			if tp.full[li] {
				return -1
			}
			return lv
		}
		for lv, bs := range byLevel {
			if !merged {
				for _, b := range bs {
					bars = append(bars, vegaBar{lane: li, level: level(lv), label: b.Label, start: b.Start, end: b.End, n: 1})
				}
				continue
			}
			for _, d := range mergeBars(bs, px, tp.colorOf) {
				bars = append(bars, vegaBar{lane: li, level: level(lv), label: d.label, start: d.start, end: d.end, n: d.n})
			}
		}
	}
	if !merged {
		return bars, nil
	}
	note := fmt.Sprintf("%s of %s bars shown: bars under 1/%d of the time range merged (the longest names the group)",
		grouped(len(bars)), grouped(tv.nbars), vegaMergeCols)
	if len(bars) > maxBars {
		slices.SortStableFunc(bars, func(a, b vegaBar) int { return cmp.Compare(b.end-b.start, a.end-a.start) })
		dropped := len(bars) - maxBars
		bars = bars[:maxBars]
		slices.SortFunc(bars, func(a, b vegaBar) int {
			return cmp.Or(cmp.Compare(a.lane, b.lane), cmp.Compare(a.level, b.level), cmp.Compare(a.start, b.start))
		})
		note = fmt.Sprintf("%s of %s bars shown: bars under 1/%d of the time range merged, then the %s longest kept (%s shorter ones not shown)",
			grouped(len(bars)), grouped(tv.nbars), vegaMergeCols, grouped(maxBars), grouped(dropped))
	}
	return bars, []string{note}
}

func (tv *timelineVega) spec(f *Figure, shrink int) map[string]any {
	tp := tv.tp
	bars, notes := tv.bars(shrink)
	// Labels in the order of the legend, then the others in order of first occurrence.
	index := map[string]int{}
	var labels, colors []string
	var domain []int
	add := func(l string) {
		if _, ok := index[l]; !ok {
			index[l] = len(labels)
			domain = append(domain, len(labels))
			labels = append(labels, vegaText(l, shrink))
			colors = append(colors, tv.labelColor[l])
		}
	}
	present := map[string]bool{}
	for _, b := range bars {
		present[b.label] = true
	}
	var legend []int
	for _, l := range tv.legend {
		if present[l] {
			add(l)
			legend = append(legend, index[l])
		}
	}
	values := make([]map[string]any, len(bars))
	anyMerged := false
	for i, b := range bars {
		add(b.label)
		row := map[string]any{"r": b.lane, "l": b.level, "k": index[b.label], "s": b.start, "e": b.end}
		if b.n > 1 {
			row["n"] = b.n
			anyMerged = true
		}
		values[i] = row
	}
	names := make([]string, len(tv.names))
	for i, n := range tv.names {
		names[i] = vegaText(n, shrink)
	}
	n := len(tp.lanes)
	sub := 0.84 / float64(tp.levels)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	transform := []any{
		map[string]any{"calculate": "tbLanes[datum.r]", "as": "lane"},
		map[string]any{"calculate": "tbLabels[datum.k]", "as": "label"},
		map[string]any{"calculate": "datum.e - datum.s", "as": "dur"},
		map[string]any{"calculate": "datum.l < 0 ? datum.r + 0.08 : datum.r + 0.08 + datum.l * " + g(sub), "as": "y0"},
		map[string]any{"calculate": "datum.l < 0 ? datum.r + 0.92 : datum.r + 0.08 + (datum.l + 1) * " + g(sub), "as": "y1"},
	}
	xlabel := tv.xlabel
	if xlabel == "" {
		xlabel = "time"
	}
	xtitle, xmult, xaxis := vegaUnit(xlabel, f.xUnit, tp.xmin, tp.xmax)
	xunit, _ := f.xUnit.display(tp.xmin, tp.xmax)
	tooltip := []any{nominal("lane", "lane"), nominal("label", "function")}
	for _, fd := range [][2]string{{"s", "start"}, {"e", "end"}, {"dur", "duration"}} {
		tt, tr := unitTooltip(fd[0], fd[1], xunit, xmult, vegaTimeFormat)
		if tr != nil {
			transform = append(transform, tr)
		}
		tooltip = append(tooltip, tt)
	}
	if anyMerged {
		transform = append(transform, map[string]any{"calculate": "datum.n || 1", "as": "bars"})
		tooltip = append(tooltip, quant("bars", "bars merged", ","))
	}
	centres := make([]float64, n)
	for i := range centres {
		centres[i] = float64(i) + 0.5
	}
	colorLegend := any(nil)
	if len(legend) > 0 {
		var title any
		if len(legend) < len(labels) { // as the static legend's "+ N more"
			title = fmt.Sprintf("%d of %d labels", len(legend), len(labels))
		}
		colorLegend = map[string]any{"title": title, "values": legend, "labelExpr": "tbLabels[datum.value]", "labelLimit": 160}
	}
	spec := vegaBase(f, notes, []any{valueParam("tbLanes", names), valueParam("tbLabels", labels), zoomParam("x")})
	spec["data"] = map[string]any{"values": values}
	spec["transform"] = transform
	// Marks are clipped to the data area, which zooming moves them out of.
	spec["mark"] = map[string]any{"type": "rect", "tooltip": true, "clip": true}
	spec["encoding"] = map[string]any{
		"x": withAxis(map[string]any{"field": "s", "type": "quantitative", "title": xtitle,
			"scale": map[string]any{"domain": []float64{tp.xmin, tp.xmax}, "nice": false, "zero": false}}, xaxis),
		"x2": map[string]any{"field": "e"},
		"y": map[string]any{"field": "y0", "type": "quantitative", "title": nilIfEmpty(tv.ylabel),
			"scale": map[string]any{"domain": []float64{0, float64(n)}, "reverse": true, "nice": false, "zero": false},
			"axis": map[string]any{"values": centres, "labelExpr": "tbLanes[floor(datum.value)]", "grid": false,
				"ticks": false, "labelOverlap": "greedy", "labelLimit": 140}},
		"y2": map[string]any{"field": "y1"},
		// Colour by label index: labels cut to the same text keep their own colours.
		"color":   map[string]any{"field": "k", "type": "nominal", "scale": map[string]any{"domain": domain, "range": colors}, "legend": colorLegend},
		"tooltip": tooltip,
	}
	spec["usermeta"] = map[string]any{"tracebook": map[string]any{"kind": "timeline", "marks": len(values)}}
	return spec
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ---------------------------------------------------------------------------------------------
// Heatmap and Matrix

// gridVega is what a Heatmap's or Matrix's spec is made of: the unbinned input.
type gridVega struct {
	values               [][]float64
	rowLabels, colLabels []string
	o                    options
	annotate             bool // a Matrix: values written in the cells (when there are few)
}

// vegaBins chooses the binning factors of a rows x cols grid for at most maxCells cells:
// rows first (at most vegaMaxRows, leaving room for up to vegaMaxRows columns), then columns.
func vegaBins(rows, cols, maxCells int) (rk, ck int) {
	maxRows := max(1, min(vegaMaxRows, maxCells/min(cols, vegaMaxRows)))
	rk = ceilDiv(rows, maxRows)
	brows := ceilDiv(rows, rk)
	maxCols := max(1, min(vegaMaxCols, maxCells/brows))
	return rk, ceilDiv(cols, maxCols)
}

// gridNames labels the rows (or columns) of a grid binned by k: the given labels, or the index
// ("4", or "4–7" when binned).
func gridNames(labels []string, n, k, shrink int) []string {
	if labels != nil {
		out := binLabels(labels, k)
		for i, l := range out {
			out[i] = vegaText(l, shrink)
		}
		return out
	}
	out := make([]string, 0, ceilDiv(n, k))
	for i := 0; i < n; i += k {
		last := min(n, i+k) - 1
		if last == i {
			out = append(out, strconv.Itoa(i))
		} else {
			out = append(out, strconv.Itoa(i)+"–"+strconv.Itoa(last))
		}
	}
	return out
}

func (gv *gridVega) spec(f *Figure, shrink int) map[string]any {
	o := gv.o
	rows, cols := len(gv.values), len(gv.values[0])
	rk, ck := vegaBins(rows, cols, max(vegaMaxCells>>shrink, 1))
	values := gv.values
	if rk > 1 || ck > 1 {
		values = binGrid(values, rk, ck, o.binMax)
	}
	reduce := "mean"
	if o.binMax {
		reduce = "max"
	}
	var notes []string
	if rk > 1 {
		notes = append(notes, fmt.Sprintf("%s rows binned by %d (%s)", grouped(rows), rk, reduce))
	}
	if ck > 1 {
		notes = append(notes, fmt.Sprintf("%s columns binned by %d (%s)", grouped(cols), ck, reduce))
	}
	if len(notes) == 2 {
		notes = []string{notes[0] + ", " + notes[1]}
	}
	brows, bcols := len(values), len(values[0])
	lo, hi := math.Inf(1), math.Inf(-1)
	data := make([]map[string]any, brows)
	for r, row := range values {
		vs := make([]any, bcols)
		for c, v := range row {
			if finite(v) {
				vs[c] = v
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		data[r] = map[string]any{"r": r, "v": vs}
	}
	sc := newScale(lo, hi, o)
	// A Matrix of few cells writes each non-zero value in its cell, white on dark colours; "w"
	// marks those.
	annotate := gv.annotate && brows <= vegaMaxTextRows && bcols <= vegaMaxTextCols
	if annotate {
		for r, row := range values {
			w := make([]int, bcols)
			for c, v := range row {
				if finite(v) && luminance(sc.color(v)) < 0.45 {
					w[c] = 1
				}
			}
			data[r]["w"] = w
		}
	}
	colorScale := map[string]any{"domain": []float64{sc.lo, sc.hi}, "clamp": true, "nice": false, "zero": false}
	switch {
	case sc.diverging:
		colorScale["scheme"] = map[string]any{"name": "redblue", "extent": []float64{1, 0}}
		if sc.lo < 0 && sc.hi > 0 {
			colorScale["domainMid"] = 0
		}
	case sc.coldWarm:
		colorScale["scheme"] = map[string]any{"name": "redyellowblue", "extent": []float64{1, 0}}
	default:
		colorScale["scheme"] = "viridis"
	}

	rowNames := gridNames(gv.rowLabels, rows, rk, shrink)
	colNames := gridNames(gv.colLabels, cols, ck, shrink)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	flattened := []string{"v"}
	if annotate {
		flattened = append(flattened, "w")
	}
	transform := []any{
		map[string]any{"flatten": flattened},
		map[string]any{"window": []any{map[string]any{"op": "row_number", "as": "c1"}}, "groupby": []string{"r"}},
		map[string]any{"calculate": "datum.c1 - 1", "as": "c"},
		map[string]any{"calculate": "tbRows[datum.r]", "as": "row"},
		map[string]any{"calculate": "datum.r - 0.5", "as": "y0"},
		map[string]any{"calculate": "datum.r + 0.5", "as": "y1"},
	}
	xlabel := binnedLabel(o.xlabel, "columns", ck, reduce)
	ylabel := binnedLabel(o.ylabel, "rows", rk, reduce)
	// Axis values at cell centres: every cell of a labelled axis (Vega hides labels that would
	// overlap), about ten of a numbered one.
	centres := func(n int, labelled bool) []int {
		step := niceStep(n)
		if labelled && n <= 256 {
			step = 1
		}
		var out []int
		for i := 0; i < n; i += step {
			out = append(out, i)
		}
		return out
	}
	tooltip := []any{nominal("row", "row")}
	var x map[string]any
	if o.xRange != nil {
		xlo, w := o.xRange[0], (o.xRange[1]-o.xRange[0])/float64(bcols)
		transform = append(transform,
			map[string]any{"calculate": g(xlo) + " + datum.c * " + g(w), "as": "x0"},
			map[string]any{"calculate": g(xlo) + " + (datum.c + 1) * " + g(w), "as": "x1"})
		xtitle, xmult, xaxis := vegaUnit(xlabel, o.xUnit, o.xRange[0], o.xRange[1])
		xunit, _ := o.xUnit.display(o.xRange[0], o.xRange[1])
		x = withAxis(map[string]any{"field": "x0", "type": "quantitative", "title": nilIfEmpty(xtitle),
			"scale": map[string]any{"domain": []float64{o.xRange[0], o.xRange[1]}, "nice": false, "zero": false}}, xaxis)
		for _, fd := range [][2]string{{"x0", "from"}, {"x1", "to"}} {
			tt, tr := unitTooltip(fd[0], fd[1], xunit, xmult, vegaTimeFormat)
			if tr != nil {
				transform = append(transform, tr)
			}
			tooltip = append(tooltip, tt)
		}
	} else {
		transform = append(transform,
			map[string]any{"calculate": "tbCols[datum.c]", "as": "column"},
			map[string]any{"calculate": "datum.c - 0.5", "as": "x0"},
			map[string]any{"calculate": "datum.c + 0.5", "as": "x1"})
		x = map[string]any{"field": "x0", "type": "quantitative", "title": nilIfEmpty(xlabel),
			"scale": map[string]any{"domain": []float64{-0.5, float64(bcols) - 0.5}, "nice": false, "zero": false},
			"axis": map[string]any{"values": centres(bcols, gv.colLabels != nil), "labelExpr": "tbCols[datum.value]", "grid": false,
				"labelOverlap": "greedy", "labelLimit": 90, "labelAngle": labelAngle(colNames, bcols)}}
		tooltip = append(tooltip, nominal("column", "column"))
	}
	vunit, vmult := o.colorUnit.display(sc.lo, sc.hi)
	vtt, vtr := unitTooltip("v", "value", vunit, vmult, vegaValueFormat)
	if vtr != nil {
		transform = append(transform, vtr)
	}
	tooltip = append(tooltip, vtt)
	var colorLegend any
	if vunit != "" {
		leg := map[string]any{"title": vunit}
		var vals []float64 // the colour bar's round values in the unit shown, as the PNG's
		for _, tk := range scaleTicks(niceTicks(sc.lo*vmult, sc.hi*vmult, 5), vmult) {
			vals = append(vals, tk.Value)
		}
		if len(vals) > 0 {
			leg["values"] = vals
		}
		if vmult != 1 {
			leg["labelExpr"] = fmt.Sprintf("format(datum.value * %s, '%s')", g(vmult), vegaValueFormat)
		}
		colorLegend = leg
	}
	spec := vegaBase(f, notes, []any{valueParam("tbRows", rowNames), valueParam("tbCols", colNames), zoomParam("x", "y")})
	spec["data"] = map[string]any{"values": data}
	spec["transform"] = transform
	// Each cell overlaps its right and lower neighbours by half a pixel (drawn over it), so that
	// anti-aliasing leaves no seams between cells.
	spec["mark"] = map[string]any{"type": "rect", "tooltip": true, "invalid": "show", "x2Offset": 0.5, "y2Offset": 0.5, "clip": true}
	spec["encoding"] = map[string]any{
		"x":  x,
		"x2": map[string]any{"field": "x1"},
		"y": map[string]any{"field": "y0", "type": "quantitative", "title": nilIfEmpty(ylabel),
			"scale": map[string]any{"domain": []float64{-0.5, float64(brows) - 0.5}, "reverse": true, "nice": false, "zero": false},
			"axis": map[string]any{"values": centres(brows, gv.rowLabels != nil), "labelExpr": "tbRows[datum.value]", "grid": false,
				"labelOverlap": "greedy", "labelLimit": 140}},
		"y2": map[string]any{"field": "y1"},
		"color": withLegend(map[string]any{"field": "v", "type": "quantitative", "scale": colorScale, "title": nil,
			"condition": map[string]any{"test": "!isValid(datum.v)", "value": vegaNoValue}}, colorLegend),
		"tooltip": tooltip,
	}
	// Layers over the cells: the values of a Matrix, the vertical lines of WithMarks.
	var over []any
	if annotate {
		textX := map[string]any{"field": "c", "type": "quantitative"}
		if o.xRange != nil {
			textX = map[string]any{"field": "xc", "type": "quantitative"}
			transform = append(transform, map[string]any{"calculate": "(datum.x0 + datum.x1) / 2", "as": "xc"})
			spec["transform"] = transform
		}
		over = append(over, map[string]any{
			"transform": []any{map[string]any{"filter": "isValid(datum.v) && datum.v != 0"}},
			"mark":      map[string]any{"type": "text", "fontSize": 9, "limit": 40, "clip": true},
			"encoding": map[string]any{"x": textX, "y": map[string]any{"field": "r", "type": "quantitative"},
				"text":    map[string]any{"field": "v", "type": "quantitative", "format": ".3~g"},
				"color":   map[string]any{"condition": map[string]any{"test": "datum.w == 1", "value": "white"}, "value": "black"},
				"tooltip": tooltip},
		})
	}
	if len(o.marks) > 0 && o.xRange != nil {
		// As the static figure: marks within the range, none when there are more than a quarter
		// of the columns (the x-axis title says so).
		if len(o.marks) > bcols/4 {
			t, _ := x["title"].(string)
			x["title"] = strings.TrimSpace(t + fmt.Sprintf(" (%d marks not drawn: too many)", len(o.marks)))
		} else {
			var ms []map[string]any
			for _, m := range o.marks {
				if m >= o.xRange[0] && m <= o.xRange[1] {
					ms = append(ms, map[string]any{"m": m})
				}
			}
			if len(ms) > 0 {
				over = append(over, map[string]any{
					"data":     map[string]any{"values": ms},
					"mark":     map[string]any{"type": "rule", "color": "#3c3c3c", "strokeWidth": 0.8, "clip": true},
					"encoding": map[string]any{"x": map[string]any{"field": "m", "type": "quantitative"}},
				})
			}
		}
	}
	if len(over) > 0 {
		// A selection parameter belongs to one layer (at the top it would be defined twice).
		cells := map[string]any{"mark": spec["mark"], "encoding": spec["encoding"], "params": []any{zoomParam("x", "y")}}
		spec["layer"] = append([]any{cells}, over...)
		spec["params"] = []any{valueParam("tbRows", rowNames), valueParam("tbCols", colNames)}
		delete(spec, "mark")
		delete(spec, "encoding")
	}
	spec["usermeta"] = map[string]any{"tracebook": map[string]any{"kind": "heatmap", "marks": brows * bcols}}
	return spec
}

// labelAngle slants column labels that would not fit side by side.
func labelAngle(names []string, n int) int {
	w := 0
	for _, s := range names {
		w = max(w, utf8.RuneCountInString(s))
	}
	if w*6 > 600/max(n, 1) && n > 1 {
		return -45
	}
	return 0
}

// ---------------------------------------------------------------------------------------------
// Lines

// linesVega is what a Lines chart's spec is made of: the finite points of each series.
type linesVega struct {
	series         []plotter.XYs // finite points, nil for a series without any
	names          []string
	legend         bool
	xlabel, ylabel string
	xmin, xmax     float64
	ymin, ymax     float64
}

func (lv *linesVega) spec(f *Figure, shrink int) map[string]any {
	maxPoints := max(vegaMaxPoints>>shrink, 8)
	total, nonEmpty := 0, 0
	for _, xy := range lv.series {
		total += len(xy)
		if len(xy) > 0 {
			nonEmpty++
		}
	}
	reduced := make([]plotter.XYs, len(lv.series))
	copy(reduced, lv.series)
	var how []string
	shown := total
	if total > maxPoints {
		buckets := max(1, maxPoints/(4*nonEmpty))
		shown = 0
		decimated := false
		for i, xy := range reduced {
			d := decimate(xy, buckets)
			decimated = decimated || len(d) < len(xy)
			reduced[i] = d
			shown += len(d)
		}
		if decimated {
			how = append(how, fmt.Sprintf("each long series with ascending x reduced to the first, lowest, highest and last point of %s x ranges", grouped(buckets)))
		}
		// Series that are not ascending or short: every k-th point and the last, k as small as
		// fits (at least 2 points per series remain).
		for k, longest := ceilDiv(shown, maxPoints), maxLen(reduced); shown > maxPoints; k++ {
			n := 0
			for _, xy := range reduced {
				n += len(stride(xy, k))
			}
			if n <= maxPoints || k >= longest {
				for i, xy := range reduced {
					reduced[i] = stride(xy, k)
				}
				shown = n
				how = append(how, fmt.Sprintf("every %s point kept (and the last)", ordinal(k)))
				break
			}
		}
	}
	var notes []string
	if shown < total {
		notes = []string{fmt.Sprintf("%s of %s points shown: %s", grouped(shown), grouped(total), strings.Join(how, ", "))}
	}
	var data []map[string]any
	var domain []int
	var colors []string
	names := make([]string, len(lv.names))
	for i, n := range lv.names {
		names[i] = vegaText(n, shrink)
	}
	for i, xy := range reduced {
		if len(xy) == 0 {
			continue
		}
		xs, ys := make([]float64, len(xy)), make([]float64, len(xy))
		for j, p := range xy {
			xs[j], ys[j] = p.X, p.Y
		}
		data = append(data, map[string]any{"s": i, "x": xs, "y": ys})
		domain = append(domain, i)
		colors = append(colors, hexColor(Categorical(i)))
	}
	ymin, ymax := lv.ymin, lv.ymax
	if f.yRange != nil {
		ymin, ymax = min(ymin, f.yRange[0]), max(ymax, f.yRange[1])
	}
	var legend any
	if lv.legend {
		legend = map[string]any{"title": nil, "labelExpr": "tbSeries[datum.value]", "labelLimit": 160}
	}
	color := map[string]any{"field": "s", "type": "nominal", "scale": map[string]any{"domain": domain, "range": colors}, "legend": legend}
	xtitle, xmult, xaxis := vegaUnit(lv.xlabel, f.xUnit, lv.xmin, lv.xmax)
	ytitle, ymult, yaxis := vegaUnit(lv.ylabel, f.yUnit, ymin, ymax)
	x := withAxis(map[string]any{"field": "x", "type": "quantitative", "title": nilIfEmpty(xtitle),
		"scale": map[string]any{"domain": []float64{lv.xmin, lv.xmax}, "nice": false, "zero": false}}, xaxis)
	y := withAxis(map[string]any{"field": "y", "type": "quantitative", "title": nilIfEmpty(ytitle),
		"scale": map[string]any{"domain": []float64{ymin, ymax}, "nice": true, "zero": false}}, yaxis)
	spec := vegaBase(f, notes, nil)
	delete(spec, "params")
	spec["data"] = map[string]any{"values": data}
	transform := []any{
		map[string]any{"flatten": []string{"x", "y"}},
		map[string]any{"window": []any{map[string]any{"op": "row_number", "as": "i"}}, "groupby": []string{"s"}},
		map[string]any{"joinaggregate": []any{map[string]any{"op": "count", "as": "npts"}}, "groupby": []string{"s"}},
		map[string]any{"calculate": "tbSeries[datum.s]", "as": "series"},
	}
	xunit, _ := f.xUnit.display(lv.xmin, lv.xmax)
	yunit, _ := f.yUnit.display(ymin, ymax)
	xtt, xtr := unitTooltip("x", nonEmptyOr(lv.xlabel, "x"), xunit, xmult, vegaTimeFormat)
	ytt, ytr := unitTooltip("y", nonEmptyOr(lv.ylabel, "y"), yunit, ymult, vegaTimeFormat)
	for _, tr := range []map[string]any{xtr, ytr} {
		if tr != nil {
			transform = append(transform, tr)
		}
	}
	spec["transform"] = transform
	spec["params"] = []any{valueParam("tbSeries", names)}
	spec["layer"] = []any{
		map[string]any{
			"mark": map[string]any{"type": "line", "strokeWidth": 1.5, "clip": true},
			"encoding": map[string]any{"x": x, "y": y, "color": color,
				"order": map[string]any{"field": "i", "type": "quantitative"}},
		},
		map[string]any{
			// Points to hover (invisible unless the series is a single point, which has no line).
			"params": []any{zoomParam("x")},
			"mark":   map[string]any{"type": "point", "filled": true, "size": 40, "tooltip": true, "clip": true},
			"encoding": map[string]any{"x": map[string]any{"field": "x", "type": "quantitative"},
				"y": map[string]any{"field": "y", "type": "quantitative"}, "color": color,
				"opacity": map[string]any{"condition": map[string]any{"test": "datum.npts == 1", "value": 1}, "value": 0},
				"tooltip": []any{nominal("series", "series"), xtt, ytt}},
		},
	}
	spec["usermeta"] = map[string]any{"tracebook": map[string]any{"kind": "lines", "marks": shown, "series": len(data)}}
	return spec
}

func nonEmptyOr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func maxLen(xys []plotter.XYs) int {
	n := 0
	for _, xy := range xys {
		n = max(n, len(xy))
	}
	return n
}

// stride keeps every k-th point of xy and its last.
func stride(xy plotter.XYs, k int) plotter.XYs {
	if k <= 1 || len(xy) <= 1 {
		return xy
	}
	out := make(plotter.XYs, 0, len(xy)/k+2)
	for i := 0; i < len(xy); i += k {
		out = append(out, xy[i])
	}
	if (len(xy)-1)%k != 0 {
		out = append(out, xy[len(xy)-1])
	}
	return out
}

// ordinal is "2nd", "3rd", "4th", ...
func ordinal(k int) string {
	suffix := "th"
	switch {
	case k%100 >= 11 && k%100 <= 13:
	case k%10 == 1:
		suffix = "st"
	case k%10 == 2:
		suffix = "nd"
	case k%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(k) + suffix
}
