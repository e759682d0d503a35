package plotting

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// specJSON round-trips f's spec through JSON, as a front end receives it, and checks that the
// bundle holds the same JSON.
func specJSON(t *testing.T, f *Figure) map[string]any {
	t.Helper()
	spec := f.VegaLite()
	if spec == nil {
		t.Fatalf("%s: no Vega-Lite spec", f)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > maxSpecBytes {
		t.Errorf("%s: spec is %d bytes, over the bound of %d", f, len(b), maxSpecBytes)
	}
	raw, ok := f.MIMEBundle()[VegaLiteMIME].(json.RawMessage)
	if !ok {
		t.Fatalf("%s: bundle has no %s", f, VegaLiteMIME)
	}
	if string(raw) != string(b) {
		t.Errorf("%s: bundle's spec differs from VegaLite()", f)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	// Every mark is clipped to the data area (zooming moves marks out of it).
	for _, unit := range append([]any{out}, asSlice(out["layer"])...) {
		if m, ok := path(unit, "mark").(map[string]any); ok && m["clip"] != true {
			t.Errorf("%s: %v mark not clipped", f, m["type"])
		}
	}
	return out
}

// logSizes logs the JSON sizes of f's bundle, its spec and its PNG (base64).
func logSizes(t *testing.T, f *Figure) {
	t.Helper()
	b := f.MIMEBundle()
	all, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(b[VegaLiteMIME])
	png, _ := json.Marshal(b["image/png"])
	t.Logf("%s: bundle %d bytes of JSON: Vega-Lite spec %d, PNG %d", f, len(all), len(spec), len(png))
}

// path walks a decoded spec by keys (maps) and indices (slices); nil if absent.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

func paramNamed(spec map[string]any, name string) map[string]any {
	var params []any
	if ps, ok := spec["params"].([]any); ok {
		params = append(params, ps...)
	}
	for _, l := range asSlice(spec["layer"]) {
		if ps, ok := path(l, "params").([]any); ok {
			params = append(params, ps...)
		}
	}
	for _, p := range params {
		if m := p.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// checkZoom checks the interval selection bound to the scales of the given channels.
func checkZoom(t *testing.T, spec map[string]any, encodings ...string) {
	t.Helper()
	z := paramNamed(spec, "zoom")
	if z == nil || z["bind"] != "scales" || path(z, "select", "type") != "interval" {
		t.Fatalf("no interval selection bound to scales: %v", z)
	}
	var got []string
	for _, e := range asSlice(path(z, "select", "encodings")) {
		got = append(got, e.(string))
	}
	if !slices.Equal(got, encodings) {
		t.Errorf("zoom encodings %v, want %v", got, encodings)
	}
}

// tooltipFields lists the fields and titles of an encoding's tooltip.
func tooltipFields(enc any) []string {
	var out []string
	for _, tt := range asSlice(path(enc, "tooltip")) {
		out = append(out, fmt.Sprint(path(tt, "field"), "=", path(tt, "title")))
	}
	return out
}

func subtitle(spec map[string]any) string {
	var s []string
	for _, l := range asSlice(path(spec, "title", "subtitle")) {
		s = append(s, l.(string))
	}
	return strings.Join(s, "\n")
}

func stringsOf(v any) []string {
	var out []string
	for _, x := range asSlice(v) {
		out = append(out, x.(string))
	}
	return out
}

// timelineRows decodes a timeline spec's bars, resolving lane and label indices.
type specBar struct {
	lane, label string
	level       int
	start, end  float64
	n           int
}

func timelineRows(t *testing.T, spec map[string]any) []specBar {
	t.Helper()
	lanes := stringsOf(paramNamed(spec, "tbLanes")["value"])
	labels := stringsOf(paramNamed(spec, "tbLabels")["value"])
	var out []specBar
	for _, v := range asSlice(path(spec, "data", "values")) {
		m := v.(map[string]any)
		b := specBar{lane: lanes[int(m["r"].(float64))], label: labels[int(m["k"].(float64))], level: int(m["l"].(float64)),
			start: m["s"].(float64), end: m["e"].(float64), n: 1}
		if n, ok := m["n"]; ok {
			b.n = int(n.(float64))
		}
		out = append(out, b)
	}
	return out
}

func TestVegaTimelineSmall(t *testing.T) {
	lanes := sampleLanes(3, 4)
	lanes = append(lanes, Lane{Name: "states", FullHeight: true, Bars: []Bar{{Start: 0, End: 5, Label: "equal", Fill: StateColor(0)}}})
	f := Timeline("small timeline", lanes, WithXLabel("time [s]"))
	spec := specJSON(t, f)
	if path(spec, "$schema") != vegaSchemaURL || path(spec, "mark", "type") != "rect" || path(spec, "mark", "tooltip") != true {
		t.Errorf("schema or mark: %v %v", spec["$schema"], spec["mark"])
	}
	if path(spec, "title", "text") != "small timeline" || path(spec, "title", "subtitle") != nil {
		t.Errorf("title %v: want the figure title and no subtitle", spec["title"])
	}
	if path(spec, "encoding", "x", "title") != "time [s]" || path(spec, "encoding", "x2", "field") != "e" {
		t.Errorf("x encoding %v", path(spec, "encoding", "x"))
	}
	checkZoom(t, spec, "x")
	want := []string{"lane=lane", "label=function", "s=start", "e=end", "dur=duration"}
	if got := tooltipFields(spec["encoding"]); !slices.Equal(got, want) {
		t.Errorf("tooltip %v, want %v", got, want)
	}
	// Every bar, with exact values.
	var wantBars []specBar
	for _, l := range lanes {
		for _, b := range l.Bars {
			lv := b.Level
			if l.FullHeight {
				lv = -1
			}
			wantBars = append(wantBars, specBar{lane: l.Name, label: b.Label, level: lv, start: b.Start, end: b.End, n: 1})
		}
	}
	got := timelineRows(t, spec)
	key := func(a, b specBar) int {
		return strings.Compare(fmt.Sprint(a.lane, a.level, a.start), fmt.Sprint(b.lane, b.level, b.start))
	}
	slices.SortFunc(got, key)
	slices.SortFunc(wantBars, key)
	if !slices.Equal(got, wantBars) {
		t.Errorf("bars differ:\n got %v\nwant %v", got, wantBars)
	}
	// Colours: the label's colour of the static figure, by label index.
	labels := stringsOf(paramNamed(spec, "tbLabels")["value"])
	domain := asSlice(path(spec, "encoding", "color", "scale", "domain"))
	rng := stringsOf(path(spec, "encoding", "color", "scale", "range"))
	if path(spec, "encoding", "color", "field") != "k" || len(domain) != len(labels) || len(rng) != len(labels) {
		t.Fatalf("colour encoding %v for labels %v", path(spec, "encoding", "color"), labels)
	}
	tp := f.body.(*timelinePlot)
	for i, d := range domain {
		l := labels[int(d.(float64))]
		c := hexColor(tp.colorOf(Bar{Label: l, Color: -1}))
		if l == "equal" {
			c = hexColor(StateColor(0))
		}
		if rng[i] != c {
			t.Errorf("label %q: colour %s, static figure %s", l, rng[i], c)
		}
	}
	if legend := asSlice(path(spec, "encoding", "color", "legend", "values")); len(legend) == 0 || labels[int(legend[0].(float64))] != "equal" {
		t.Errorf("legend %v: want the filled label first", legend)
	}
	if title := path(spec, "encoding", "color", "legend", "title"); title != nil {
		t.Errorf("legend title %v, want none when every label is listed", title)
	}
	// More labels than the static legend lists: the legend says how many it shows.
	var many []Bar
	for i := 0; i < 20; i++ {
		many = append(many, Bar{Start: float64(i), End: float64(i) + 1, Label: fmt.Sprint("f", i), Color: -1})
	}
	manySpec := specJSON(t, Timeline("many labels", []Lane{{Name: "a", Bars: many}}))
	if title := path(manySpec, "encoding", "color", "legend", "title"); title != fmt.Sprintf("%d of 20 labels", maxLegend) {
		t.Errorf("legend title %v", title)
	}
	if w, h := path(spec, "width"), path(spec, "height"); w != float64(pixels(f.width)-2*pixels(margin)) || h != float64(pixels(f.height)-2*pixels(margin)) {
		t.Errorf("size %vx%v for %s", w, h, f)
	}
}

func TestVegaResize(t *testing.T) {
	for _, f := range []*Figure{
		Timeline("t", sampleLanes(2, 2)),
		Heatmap("h", nil, nil, [][]float64{{1, 2}, {3, 4}}),
		Lines("l", "x", "y", Series{X: []float64{1, 2}, Y: []float64{3, 4}}),
	} {
		g := f.Resize(300, 150)
		spec := specJSON(t, g)
		if w, h := spec["width"], spec["height"]; w != float64(pixels(300)-2*pixels(margin)) || h != float64(pixels(150)-2*pixels(margin)) {
			t.Errorf("%s resized to 300x150 pt: spec size %vx%v", g, w, h)
		}
		if specJSON(t, f)["width"] == spec["width"] {
			t.Errorf("%s: Resize changed the original's spec", f)
		}
	}
}

func TestVegaNone(t *testing.T) {
	for _, f := range []*Figure{
		Timeline("empty", nil),
		Timeline("empty lanes", []Lane{{Name: "a"}}),
		Heatmap("empty", nil, nil, nil),
		Lines("empty", "x", "y", Series{X: []float64{math.NaN()}, Y: []float64{1}}),
		Bars("bars", []string{"a"}, []float64{1}),
		Stack("stack", Timeline("t", sampleLanes(1, 1))),
		Timeline("svg", sampleLanes(1, 1)).SVGDisplay(),
	} {
		b := f.MIMEBundle()
		if _, ok := b[VegaLiteMIME]; ok {
			t.Errorf("%s: bundle has a Vega-Lite spec", f)
		}
		if _, ok := b["text/html"]; ok != f.svg {
			t.Errorf("%s: text/html in bundle: %v", f, ok)
		}
		if f.svg {
			continue
		}
		if f.VegaLite() != nil {
			t.Errorf("%s: VegaLite() is not nil", f)
		}
	}
	b := Timeline("t", sampleLanes(1, 1)).MIMEBundle()
	if len(b) != 3 || b["image/png"] == nil || b["text/plain"] == nil || b[VegaLiteMIME] == nil {
		t.Errorf("timeline bundle keys: want image/png, text/plain and %s only", VegaLiteMIME)
	}
}

// randomTimeline has n bars of random widths (some wide, most narrow) in lanes of two levels.
func randomTimeline(n, lanes int, seed uint64) []Lane {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]Lane, lanes)
	per := n / lanes
	for l := range out {
		t := 0.0
		bars := make([]Bar, 0, per)
		for i := 0; i < per; i++ {
			d := r.ExpFloat64() * 0.001
			if r.IntN(200) == 0 {
				d = r.Float64() * 50
			}
			lv := i % 2
			bars = append(bars, Bar{Start: t, End: t + d, Level: lv, Label: fmt.Sprintf("f%d", r.IntN(40)), Color: -1})
			if lv == 1 {
				t += d + r.ExpFloat64()*0.0005
			}
		}
		out[l] = Lane{Name: fmt.Sprintf("rank %d", l), Bars: bars}
	}
	return out
}

func TestVegaTimelineBounded(t *testing.T) {
	n := 1_000_000 // about a second; fewer bars would not reach the longest-kept cut
	lanes := randomTimeline(n, 16, 1)
	f := Timeline("huge timeline", lanes)
	spec := specJSON(t, f)
	logSizes(t, f)
	bars := timelineRows(t, spec)
	if len(bars) > vegaMaxBars {
		t.Errorf("%d bars in the spec, bound %d", len(bars), vegaMaxBars)
	}
	sub := subtitle(spec)
	if !strings.Contains(sub, fmt.Sprintf("%s of %s bars shown: bars under 1/%d of the time range merged, then the %s longest kept", grouped(len(bars)), grouped(n), vegaMergeCols, grouped(len(bars)))) {
		t.Errorf("subtitle %q does not state the reduction", sub)
	}
	// The bars kept are the longest of the merged groups.
	tp := f.body.(*timelinePlot)
	var durs []float64
	for _, byLevel := range tp.lanes {
		for _, bs := range byLevel {
			for _, g := range mergeBars(bs, (tp.xmax-tp.xmin)/vegaMergeCols, tp.colorOf) {
				durs = append(durs, g.end-g.start)
			}
		}
	}
	slices.Sort(durs)
	slices.Reverse(durs)
	if len(durs) <= len(bars) {
		t.Fatalf("%d merged groups, %d shown: no cut to test", len(durs), len(bars))
	}
	for _, b := range bars {
		if b.end-b.start < durs[len(bars)-1] {
			t.Fatalf("bar of %g kept, shorter than the %d-th longest group (%g)", b.end-b.start, len(bars), durs[len(bars)-1])
		}
	}
	total := 0
	for _, b := range bars {
		total += b.n
	}
	if total > n || total < len(bars) {
		t.Errorf("merged counts sum to %d", total)
	}
}

// TestVegaMergeCoverage: merged bars cover every input bar of their lane and level, and only
// bars narrower than the merge width are merged; the dominant (longest) label names a group.
func TestVegaMergeCoverage(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		lanes := randomTimeline(vegaMaxBars+500, 3, seed)
		f := Timeline("merge", lanes)
		tv := &timelineVega{tp: f.body.(*timelinePlot), nbars: vegaMaxBars + 500}
		for shrink := 0; shrink < 3; shrink++ {
			merged, _ := tv.bars(shrink)
			if len(merged) > vegaMaxBars>>shrink {
				t.Fatalf("seed %d shrink %d: %d bars", seed, shrink, len(merged))
			}
		}
		// Coverage without the longest-kept cut: merge only.
		px := (tv.tp.xmax - tv.tp.xmin) / vegaMergeCols
		for li, byLevel := range tv.tp.lanes {
			for lv, bs := range byLevel {
				groups := mergeBars(bs, px, tv.tp.colorOf)
				n, j := 0, 0
				for _, g := range groups {
					n += g.n
					var longest float64
					var label string
					for _, b := range bs[j : j+g.n] {
						if b.Start < g.start || b.End > g.end {
							t.Fatalf("seed %d lane %d level %d: bar [%g, %g] outside its group [%g, %g]", seed, li, lv, b.Start, b.End, g.start, g.end)
						}
						if g.n > 1 && b.End-b.Start >= px {
							t.Fatalf("seed %d: a bar of width %g >= %g was merged", seed, b.End-b.Start, px)
						}
						if b.End-b.Start > longest {
							longest, label = b.End-b.Start, b.Label
						}
					}
					if g.label != label {
						t.Fatalf("seed %d: group named %q, longest member %q", seed, g.label, label)
					}
					j += g.n
				}
				if n != len(bs) {
					t.Fatalf("seed %d: groups hold %d bars of %d", seed, n, len(bs))
				}
			}
		}
	}
}

// heatCells decodes a heatmap spec's cells as a grid (nil values NaN).
func heatCells(t *testing.T, spec map[string]any) [][]float64 {
	t.Helper()
	var out [][]float64
	for i, v := range asSlice(path(spec, "data", "values")) {
		if int(path(v, "r").(float64)) != i {
			t.Fatalf("row %d has r=%v", i, path(v, "r"))
		}
		var row []float64
		for _, x := range asSlice(path(v, "v")) {
			if x == nil {
				row = append(row, math.NaN())
			} else {
				row = append(row, x.(float64))
			}
		}
		out = append(out, row)
	}
	return out
}

func sameFloats(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(p, q float64) bool { return p == q || math.IsNaN(p) && math.IsNaN(q) })
	})
}

func TestVegaHeatmapSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := make([][]float64, 7)
	for i := range values {
		values[i] = make([]float64, 11)
		for j := range values[i] {
			values[i][j] = r.NormFloat64() * 1e3
		}
	}
	values[2][3], values[4][5], values[6][0] = math.NaN(), math.Inf(1), math.Inf(-1)
	rows := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, f := range []*Figure{
		Heatmap("small heatmap", rows, nil, values, WithXLabel("bin"), WithYLabel("rank")),
		Matrix("small matrix", rows, nil, values),
	} {
		spec := specJSON(t, f)
		unit := spec // the cells' view: the spec, or for a Matrix its first layer (the second writes the values)
		if f.body.(*gridPlot).annotate {
			layers := asSlice(spec["layer"])
			if len(layers) != 2 || path(layers[1], "mark", "type") != "text" || path(layers[1], "encoding", "text", "field") != "v" {
				t.Fatalf("matrix layers %v", layers)
			}
			unit = layers[0].(map[string]any)
			// White text exactly on the cells the static figure writes white.
			sc := f.body.(*gridPlot).scale
			for r, row := range asSlice(path(spec, "data", "values")) {
				for c, w := range asSlice(path(row, "w")) {
					v := values[r][c]
					if want := finite(v) && luminance(sc.color(v)) < 0.45; (w == 1.0) != want {
						t.Errorf("cell %d,%d (%g): white text %v, want %v", r, c, v, w, want)
					}
				}
			}
		} else if spec["layer"] != nil {
			t.Errorf("heatmap has layers")
		}
		if path(unit, "mark", "type") != "rect" || path(unit, "mark", "invalid") != "show" {
			t.Errorf("mark %v", unit["mark"])
		}
		checkZoom(t, spec, "x", "y")
		if got, want := tooltipFields(unit["encoding"]), []string{"row=row", "column=column", "v=value"}; !slices.Equal(got, want) {
			t.Errorf("tooltip %v, want %v", got, want)
		}
		if subtitle(spec) != "" {
			t.Errorf("subtitle %q for an unbinned grid", subtitle(spec))
		}
		want := make([][]float64, len(values))
		for i, row := range values {
			want[i] = slices.Clone(row)
			for j, v := range row {
				if !finite(v) {
					want[i][j] = math.NaN()
				}
			}
		}
		cells := heatCells(t, spec)
		if !sameFloats(cells, want) {
			t.Errorf("cells differ:\n got %v\nwant %v", cells, want)
		}
		if raw := asSlice(path(spec, "data", "values", 2, "v")); raw[3] != nil {
			t.Errorf("NaN cell is %v, want null", raw[3])
		}
		if got := stringsOf(paramNamed(spec, "tbRows")["value"]); !slices.Equal(got, rows) {
			t.Errorf("row labels %v", got)
		}
		if got := stringsOf(paramNamed(spec, "tbCols")["value"]); len(got) != 11 || got[10] != "10" {
			t.Errorf("column labels %v", got)
		}
		// Signed data: diverging, white at 0, blue for negative (like the static scale).
		if path(unit, "encoding", "color", "scale", "scheme", "name") != "redblue" || path(unit, "encoding", "color", "scale", "domainMid") != 0.0 {
			t.Errorf("colour scale %v: want diverging", path(unit, "encoding", "color", "scale"))
		}
		if path(unit, "encoding", "color", "condition", "value") != vegaNoValue {
			t.Errorf("no grey for missing values: %v", path(unit, "encoding", "color"))
		}
	}
	spec := specJSON(t, Heatmap("seq", nil, nil, [][]float64{{1, 2}}, WithXRange(0, 10)))
	if path(spec, "encoding", "color", "scale", "scheme") != "viridis" {
		t.Errorf("positive data: scale %v, want viridis", path(spec, "encoding", "color", "scale"))
	}
	if got, want := tooltipFields(spec["encoding"]), []string{"row=row", "x0=from", "x1=to", "v=value"}; !slices.Equal(got, want) {
		t.Errorf("xRange tooltip %v, want %v", got, want)
	}
	if d := path(spec, "encoding", "x", "scale", "domain"); fmt.Sprint(d) != "[0 10]" {
		t.Errorf("xRange domain %v", d)
	}
	// WithMarks: a rule layer at the marks within the range; too many marks are named instead.
	row := [][]float64{{1, 2, 3, 4, 5, 6, 7, 8}}
	spec = specJSON(t, Heatmap("marks", nil, nil, [][]float64{slices.Repeat(row[0], 2)}, WithXRange(0, 8), WithMarks(2, 4, 9)))
	layers := asSlice(spec["layer"])
	if len(layers) != 2 || path(layers[1], "mark", "type") != "rule" || fmt.Sprint(path(layers[1], "data", "values")) != "[map[m:2] map[m:4]]" {
		t.Errorf("marks layers %v", layers)
	}
	if paramNamed(spec, "zoom") == nil || path(layers[0], "mark", "type") != "rect" {
		t.Errorf("cells layer %v", layers[0])
	}
	spec = specJSON(t, Heatmap("marks", nil, nil, row, WithXRange(0, 8), WithMarks(1, 2, 3), WithXLabel("t")))
	if spec["layer"] != nil || path(spec, "encoding", "x", "title") != "t (3 marks not drawn: too many)" {
		t.Errorf("too many marks: layers %v, x title %v", spec["layer"], path(spec, "encoding", "x", "title"))
	}
}

// bruteBin is the block mean (finite values only; NaN if none) by definition.
func bruteBin(values [][]float64, rk, ck int) [][]float64 {
	var out [][]float64
	for i := 0; i < len(values); i += rk {
		var row []float64
		for j := 0; j < len(values[0]); j += ck {
			sum, n := 0.0, 0
			for a := i; a < min(i+rk, len(values)); a++ {
				for b := j; b < min(j+ck, len(values[0])); b++ {
					if finite(values[a][b]) {
						sum += values[a][b]
						n++
					}
				}
			}
			if n == 0 {
				row = append(row, math.NaN())
			} else {
				row = append(row, sum/float64(n))
			}
		}
		out = append(out, row)
	}
	return out
}

func TestVegaHeatmapBinned(t *testing.T) {
	n := 4096
	if testing.Short() {
		n = 1024
	}
	r := rand.New(rand.NewPCG(5, 6))
	values := make([][]float64, n)
	for i := range values {
		values[i] = make([]float64, n)
		for j := range values[i] {
			values[i][j] = -r.Float64() * 1e-300 // long numbers, one sign
		}
	}
	f := Heatmap("huge heatmap", nil, nil, values)
	spec := specJSON(t, f)
	logSizes(t, f)
	cells := heatCells(t, spec)
	rk, ck := ceilDiv(n, len(cells)), ceilDiv(n, len(cells[0]))
	if len(cells)*len(cells[0]) > vegaMaxCells || len(cells) > vegaMaxRows || len(cells[0]) > vegaMaxCols {
		t.Errorf("%dx%d cells, bound %d", len(cells), len(cells[0]), vegaMaxCells)
	}
	if !sameFloats(cells, bruteBin(values, rk, ck)) {
		t.Errorf("binned cells differ from the block means")
	}
	want := fmt.Sprintf("%s rows binned by %d (mean), %s columns binned by %d (mean)", grouped(n), rk, grouped(n), ck)
	if subtitle(spec) != want {
		t.Errorf("subtitle %q, want %q", subtitle(spec), want)
	}
	if got := stringsOf(paramNamed(spec, "tbRows")["value"]); got[1] != fmt.Sprintf("%d–%d", rk, 2*rk-1) {
		t.Errorf("binned row names %v", got[:2])
	}
	// Rows only, and the subtitle says only that.
	tall := make([][]float64, 1000)
	for i := range tall {
		tall[i] = []float64{float64(i), 1}
	}
	spec = specJSON(t, Heatmap("tall", nil, nil, tall, WithBinMax()))
	if s := subtitle(spec); s != "1,000 rows binned by 8 (max)" {
		t.Errorf("tall subtitle %q", s)
	}
}

func linePoints(t *testing.T, spec map[string]any) map[int][][2]float64 {
	t.Helper()
	out := map[int][][2]float64{}
	for _, v := range asSlice(path(spec, "data", "values")) {
		s := int(path(v, "s").(float64))
		xs, ys := asSlice(path(v, "x")), asSlice(path(v, "y"))
		for i := range xs {
			out[s] = append(out[s], [2]float64{xs[i].(float64), ys[i].(float64)})
		}
	}
	return out
}

func TestVegaLinesSmall(t *testing.T) {
	xs := []float64{3, 1, 2, math.NaN(), 5}
	ys := []float64{0.1, 0.25, math.Inf(1), 4, 1e-9}
	f := Lines("small lines", "time", "value", Series{Name: "a", X: xs, Y: ys}, Series{X: []float64{7}, Y: []float64{8}},
		Series{Name: "empty"}).YRange(-1, 2)
	spec := specJSON(t, f)
	checkZoom(t, spec, "x")
	layers := asSlice(spec["layer"])
	if len(layers) != 2 || path(layers[0], "mark", "type") != "line" || path(layers[1], "mark", "type") != "point" {
		t.Fatalf("layers %v", layers)
	}
	if got, want := tooltipFields(path(layers[1], "encoding")), []string{"series=series", "x=time", "y=value"}; !slices.Equal(got, want) {
		t.Errorf("tooltip %v, want %v", got, want)
	}
	pts := linePoints(t, spec)
	want := map[int][][2]float64{0: {{3, 0.1}, {1, 0.25}, {5, 1e-9}}, 1: {{7, 8}}}
	if fmt.Sprint(pts) != fmt.Sprint(want) {
		t.Errorf("points %v, want %v", pts, want)
	}
	if got := stringsOf(paramNamed(spec, "tbSeries")["value"]); !slices.Equal(got, []string{"a", "series 1", ""}) {
		t.Errorf("series names %v", got)
	}
	if d := fmt.Sprint(path(layers[0], "encoding", "y", "scale", "domain")); d != "[-1 8]" {
		t.Errorf("y domain %s, want the data and YRange", d)
	}
	if path(layers[0], "encoding", "x", "title") != "time" || subtitle(spec) != "" {
		t.Errorf("x title %v, subtitle %q", path(layers[0], "encoding", "x", "title"), subtitle(spec))
	}
}

func TestVegaLinesBounded(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	r := rand.New(rand.NewPCG(8, 9))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i)*1.000000001, r.NormFloat64()
	}
	y[n/3] = 1e6 // a spike must survive
	f := Lines("huge lines", "x", "y", Series{Name: "noise", X: x, Y: y}, Series{Name: "unsorted", X: slices.Repeat([]float64{2, 1}, 5000), Y: make([]float64, 10000)})
	spec := specJSON(t, f)
	logSizes(t, f)
	pts := linePoints(t, spec)
	shown := len(pts[0]) + len(pts[1])
	if shown > vegaMaxPoints {
		t.Errorf("%d points shown, bound %d", shown, vegaMaxPoints)
	}
	if !slices.Contains(pts[0], [2]float64{x[n/3], 1e6}) {
		t.Errorf("the spike was lost")
	}
	sub := subtitle(spec)
	if !strings.HasPrefix(sub, fmt.Sprintf("%s of %s points shown: ", grouped(shown), grouped(n+10000))) || !strings.Contains(sub, "every") {
		t.Errorf("subtitle %q", sub)
	}
}

// TestVegaSizeBound: long names and many series still fit.
func TestVegaSizeBound(t *testing.T) {
	long := strings.Repeat("ж", 1000)
	var lanes []Lane
	for l := 0; l < 50; l++ {
		var bars []Bar
		for i := 0; i < 200; i++ {
			bars = append(bars, Bar{Start: float64(i), End: float64(i) + 0.5, Label: fmt.Sprint(long, l, i), Color: -1})
		}
		lanes = append(lanes, Lane{Name: long, Bars: bars})
	}
	f := Timeline("long labels", lanes)
	spec := specJSON(t, f)
	logSizes(t, f)
	if !strings.Contains(subtitle(spec), "bars shown") {
		t.Errorf("subtitle %q", subtitle(spec))
	}
	var series []Series
	for i := 0; i < 3000; i++ {
		series = append(series, Series{Name: long, X: []float64{1, 2, 3, 4, 5}, Y: []float64{math.Pi, math.E, math.Pi, math.E, math.Pi}})
	}
	f = Lines("many series", "x", "y", series...)
	specJSON(t, f)
	logSizes(t, f)
}

// TestVegaWriteExamples writes example specs for test/render/vega.mjs (validation against the
// Vega-Lite schema and rendering in Chromium) when TRACEBOOK_VEGA_OUT names a directory.
func TestVegaWriteExamples(t *testing.T) {
	dir := os.Getenv("TRACEBOOK_VEGA_OUT")
	if dir == "" {
		t.Skip("TRACEBOOK_VEGA_OUT not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	heat := func(rows, cols int, f func(i, j int) float64) [][]float64 {
		v := make([][]float64, rows)
		for i := range v {
			v[i] = make([]float64, cols)
			for j := range v[i] {
				v[i][j] = f(i, j)
			}
		}
		return v
	}
	bigLines := make([]float64, 200_000)
	xs := make([]float64, len(bigLines))
	for i := range bigLines {
		xs[i], bigLines[i] = float64(i), math.Sin(float64(i)/5000)+0.1*math.Sin(float64(i))
	}
	lanes := sampleLanes(4, 3)
	lanes = append(lanes, Lane{Name: "idle (empty lane)"})
	figs := map[string]*Figure{
		"timeline-small":   Timeline("Small timeline", lanes, WithXLabel("time [s]")),
		"timeline-huge":    Timeline("Huge timeline", randomTimeline(300_000, 8, 2)),
		"timeline-states":  Timeline("States", []Lane{{Name: "A", Bars: []Bar{{Start: 0, End: 1, Label: "main", Color: -1}}}, {Name: "cmp", FullHeight: true, Bars: []Bar{{Start: 0, End: 0.5, Label: "equal", Fill: StateColor(0)}, {Start: 0.5, End: 1, Label: "gap", Fill: StateColor(2)}}}}).Resize(400, 160),
		"heatmap-small":    Heatmap("Small heatmap", []string{"rank 0", "rank 1", "rank 2"}, []string{"a", "b", "c", "d"}, heat(3, 4, func(i, j int) float64 { return float64(i*4 + j) }), WithXLabel("phase")),
		"heatmap-nan":      Heatmap("Heatmap with gaps", nil, nil, heat(5, 6, func(i, j int) float64 { return []float64{1, math.NaN(), 3}[(i+j)%3] })),
		"heatmap-binned":   Heatmap("Binned heatmap", nil, nil, heat(1000, 900, func(i, j int) float64 { return math.Sin(float64(i)/50) * math.Cos(float64(j)/70) }), WithXRange(0, 2.5), WithXLabel("time [s]")),
		"heatmap-diverge":  Heatmap("Diverging heatmap", nil, nil, heat(8, 8, func(i, j int) float64 { return float64(i - j) }), WithDiverging()),
		"heatmap-marks":    Heatmap("Heatmap with marks", []string{"a", "b"}, nil, heat(2, 40, func(i, j int) float64 { return float64(i + j%7) }), WithXRange(0, 4), WithMarks(1, 2, 3)),
		"heatmap-coldwarm": Heatmap("Cold-warm", nil, nil, heat(4, 10, func(i, j int) float64 { return float64(i + j) }), WithColdWarm()),
		"matrix-small":     Matrix("Matrix", []string{"a", "b", "c"}, []string{"a", "b", "c"}, heat(3, 3, func(i, j int) float64 { return float64(i * j) })),
		"lines-small":      Lines("Small lines", "iteration", "seconds", Series{Name: "a", X: []float64{1, 2, 3, 4}, Y: []float64{4, 2, 3, 1}}, Series{Name: "b", X: []float64{2}, Y: []float64{2.5}}).YRange(0, 5),
		"lines-huge":       Lines("Huge lines", "sample", "value", Series{Name: "signal", X: xs, Y: bigLines}),
		"lines-unnamed":    Lines("One series", "", "", Series{X: []float64{0, 1, 2}, Y: []float64{0, 1, 0}}),
		// Issue 32: units on axes and colour bars, and windows of the x axis.
		"timeline-units": Timeline("Timeline in µs", []Lane{{Name: "rank 0", Bars: []Bar{{Start: 0, End: 2e-6, Label: "MPI_Send", Color: -1}, {Start: 2e-6, End: 3e-6, Label: "compute", Color: -1}}}},
			WithXLabel("time"), WithXUnit(Seconds)),
		"timeline-window": Timeline("Window of a timeline", sampleLanes(4, 3), WithXUnit(Nanoseconds)).XRange(5, 20),
		"heatmap-units": Heatmap("Bytes over time", []string{"0", "1"}, nil, heat(2, 30, func(i, j int) float64 { return float64((i + 1) * j << 16) }),
			WithXRange(0, 3e-3), WithXLabel("time"), WithXUnit(Seconds), WithColorUnit(Bytes)).XRange(1e-3, 2e-3),
		"lines-units": Lines("Skew", "time", "skew", Series{X: []float64{0, 1e-3, 2e-3, 3e-3}, Y: []float64{0, 0.2, 0.1, 0.3}}).
			XUnit(Seconds).YUnit(Milliseconds).XRange(5e-4, 2.5e-3),
	}
	for name, f := range figs {
		b, err := json.MarshalIndent(f.VegaLite(), "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".vl.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
