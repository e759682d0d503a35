package plotting

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// synthLive makes a LiveTimeline of nested calls: per lane, level-0 calls one after another
// with gaps, each holding children at the next level (up to depth), labels from a small set.
func synthLive(r *rand.Rand, lanes, callsPerLane, depth int, labels []string) *LiveTimeline {
	lt := &LiveTimeline{Title: "synthetic"}
	var fill func(bars []LiveBar, start, end int64, level int, n int) []LiveBar
	fill = func(bars []LiveBar, start, end int64, level int, n int) []LiveBar {
		if n <= 0 || end-start < 2 {
			return bars
		}
		step := (end - start) / int64(n)
		if step < 2 {
			step, n = 2, int((end-start)/2)
		}
		for i := 0; i < n; i++ {
			a := start + int64(i)*step + r.Int64N(step/2+1)
			b := a + 1 + r.Int64N(max(start+int64(i+1)*step-a-1, 1))
			b = min(b, start+int64(i+1)*step)
			bars = append(bars, LiveBar{Start: a, End: b, Level: level, Label: labels[r.IntN(len(labels))]})
			if level+1 < depth && r.IntN(3) > 0 {
				bars = fill(bars, a, b, level+1, 1+r.IntN(3))
			}
		}
		return bars
	}
	for li := 0; li < lanes; li++ {
		bars := fill(nil, 0, int64(callsPerLane)*1000, 0, callsPerLane)
		lt.Lanes = append(lt.Lanes, LiveLane{Name: fmt.Sprintf("rank %d", li), Kind: LaneCalls, Bars: bars})
	}
	return lt
}

// decodeVarints is the test's own decoder of a level string.
func decodeLevelString(t *testing.T, s string, merged bool) []liveGroup {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	next := func() uint64 {
		v, n := binary.Uvarint(raw)
		if n <= 0 {
			t.Fatalf("bad varint")
		}
		raw = raw[n:]
		return v
	}
	var out []liveGroup
	var prev int64
	for len(raw) > 0 {
		z := next()
		delta := int64(z >> 1)
		if z&1 != 0 {
			delta = -delta - 1
		}
		g := liveGroup{start: prev + delta}
		g.end = g.start + int64(next())
		g.label = int32(next())
		g.n = 1
		if merged {
			g.n = int32(next())
		}
		prev = g.end
		out = append(out, g)
	}
	return out
}

type bruteGroup struct {
	start, end int64
	label      string
	n          int
}

// bruteMerge merges bars at resolution res by the rule stated in the package (written apart
// from mergeLive): walk the bars by start; a bar joins the open group when it, the group and
// the gap between them are all narrower than res and the group would stay at most res wide;
// the group's label is that of its longest member (the first of equal ones).
func bruteMerge(bars []LiveBar, res float64) []bruteGroup {
	sorted := slices.Clone(bars)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out []bruteGroup
	var longest int64
	for _, b := range sorted {
		if len(out) > 0 && res > 0 {
			g := &out[len(out)-1]
			narrow := float64(b.End-b.Start) < res
			groupNarrow := float64(g.end-g.start) < res
			gapNarrow := float64(b.Start-g.end) < res
			wide := float64(max(g.end, b.End)-g.start) <= res
			if narrow && groupNarrow && gapNarrow && wide {
				if b.End > g.end {
					g.end = b.End
				}
				if b.End-b.Start > longest {
					longest = b.End - b.Start
					g.label = b.Label
				}
				g.n++
				continue
			}
		}
		out = append(out, bruteGroup{b.Start, b.End, b.Label, 1})
		longest = b.End - b.Start
	}
	return out
}

func checkLevels(t *testing.T, lt *LiveTimeline, d *liveData) {
	t.Helper()
	for _, lv := range d.Levels {
		for li, l := range lt.Lanes {
			byLevel := map[int][]LiveBar{}
			for _, b := range l.Bars {
				byLevel[b.Level] = append(byLevel[b.Level], b)
			}
			if len(lv.Bars[li]) != len(byLevel) {
				t.Fatalf("res %g lane %d: %d levels encoded, want %d", lv.Res, li, len(lv.Bars[li]), len(byLevel))
			}
			for level, s := range lv.Bars[li] {
				got := decodeLevelString(t, s, lv.Res > 0)
				want := bruteMerge(byLevel[level], lv.Res)
				if len(got) != len(want) {
					t.Fatalf("res %g lane %d level %d: %d groups, want %d", lv.Res, li, level, len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					if g.start != w.start || g.end != w.end || d.Labels[g.label] != w.label || int(g.n) != w.n {
						t.Fatalf("res %g lane %d level %d group %d: [%d %d %q n=%d], want [%d %d %q n=%d]", lv.Res, li, level, i,
							g.start, g.end, d.Labels[g.label], g.n, w.start, w.end, w.label, w.n)
					}
				}
			}
		}
	}
}

func TestLiveFullDetail(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lt := synthLive(r, 4, 50, 3, []string{"main", "MPI_Send", "MPI_Recv", "compute", "io"})
	// Shuffle the bars: the view must not depend on their order.
	for _, l := range lt.Lanes {
		r.Shuffle(len(l.Bars), func(i, j int) { l.Bars[i], l.Bars[j] = l.Bars[j], l.Bars[i] })
	}
	d, _, err := lt.data()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Levels) != 1 || d.Levels[0].Res != 0 {
		t.Fatalf("small input: %d levels (res %v), want exact bars only", len(d.Levels), d.Levels)
	}
	checkLevels(t, lt, d)
}

func TestLiveLevelsWithinBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lt := synthLive(r, 16, 4000, 4, []string{"main", "MPI_Send", "MPI_Recv", "compute", "io", "MPI_Wait", "pack"})
	// Lane 3 unsorted: it is merged level by level through sorted indices.
	bars := lt.Lanes[3].Bars
	r.Shuffle(len(bars), func(i, j int) { bars[i], bars[j] = bars[j], bars[i] })
	for i := 0; i < 3000; i++ {
		lt.Messages = append(lt.Messages, LiveMessage{From: r.IntN(16), To: r.IntN(16), Send: int64(i) * 1000, Recv: int64(i)*1000 + 500, Bytes: 64, Tag: 3, Comm: "world"})
	}
	long := synthLive(r, 2, 30000, 3, []string{"main", "MPI_Send", "MPI_Recv", "compute"})
	bars = long.Lanes[1].Bars
	r.Shuffle(len(bars), func(i, j int) { bars[i], bars[j] = bars[j], bars[i] })
	multi := false
	for _, c := range []struct {
		lt     *LiveTimeline
		budget int
	}{{lt, 40 << 10}, {lt, 200 << 10}, {lt, 1 << 20}, {long, 100 << 10}, {long, 300 << 10}, {long, 600 << 10}} {
		lt, budget := c.lt, c.budget
		lt.Budget = budget
		d, ix, err := lt.data()
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(d)
		if len(js) > budget {
			t.Errorf("budget %d: %d bytes of JSON embedded", budget, len(js))
		}
		if len(d.Levels) == 0 || d.Levels[0].Res == 0 {
			t.Fatalf("budget %d: %d bars embedded exactly, want merged levels", budget, ix.nbars)
		}
		for i := 1; i < len(d.Levels); i++ {
			if d.Levels[i].Res*2 != d.Levels[i-1].Res {
				t.Errorf("budget %d: level %d resolution %g after %g", budget, i, d.Levels[i].Res, d.Levels[i-1].Res)
			}
		}
		multi = multi || len(d.Levels) > 1
		checkLevels(t, lt, d)
		t.Logf("%d bars, budget %d: %d levels, finest %g ns, JSON %d bytes, %d messages", ix.nbars, budget, len(d.Levels), d.Levels[len(d.Levels)-1].Res, len(js), d.NMsgs)
	}
	if !multi {
		t.Errorf("no input gave more than one level")
	}
}

// TestLiveColors: the view's colour table is what Timeline gives the same bars.
func TestLiveColors(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var labels []string
	for i := 0; i < 30; i++ {
		labels = append(labels, fmt.Sprintf("f%d", i))
	}
	for _, n := range []int{3, 10, 11, 30} {
		lt := synthLive(r, 3, 40, 3, labels[:n])
		lt.Lanes = append(lt.Lanes, LiveLane{Name: "states", Kind: LaneStates, Bars: []LiveBar{
			{Start: 0, End: 100, Label: "equal", Fill: StateColor(0)}, {Start: 100, End: 900, Label: "different", Fill: StateColor(1)}}})
		var lanes []Lane
		for _, l := range lt.Lanes {
			var bars []Bar
			for _, b := range l.Bars {
				bars = append(bars, Bar{Start: float64(b.Start), End: float64(b.End), Level: b.Level, Label: b.Label, Color: -1, Fill: b.Fill})
			}
			lanes = append(lanes, Lane{Name: l.Name, Bars: bars})
		}
		tp := Timeline("x", lanes).body.(*timelinePlot)
		d, _, err := lt.data()
		if err != nil {
			t.Fatal(err)
		}
		for id, l := range d.Labels {
			var fill color.Color
			for _, ln := range lanes {
				for _, b := range ln.Bars {
					if b.Label == l && fill == nil {
						fill = b.Fill
					}
				}
			}
			want := hexColor(tp.colorOf(Bar{Label: l, Color: -1, Fill: fill}))
			if d.Colors[id] != want {
				t.Errorf("%d labels: %q is %s in the view, %s in Timeline", n, l, d.Colors[id], want)
			}
		}
	}
}

// bruteSummary is the exclusive time per label in [t0, t1): for every ns, the label of the
// deepest bar containing it, over the call and accelerator lanes.
func bruteSummary(lt *LiveTimeline, t0, t1 int64) []map[string]any {
	tot := map[string]int64{}
	for _, l := range lt.Lanes {
		if l.Kind != LaneCalls && l.Kind != LaneAccelerator {
			continue
		}
		for t := t0; t < t1; t++ {
			best := -1
			for i, b := range l.Bars {
				if b.Start <= t && t < b.End && (best < 0 || b.Level > l.Bars[best].Level) {
					best = i
				}
			}
			if best >= 0 {
				tot[l.Bars[best].Label]++
			}
		}
	}
	var out []map[string]any
	for l, ns := range tot {
		out = append(out, map[string]any{"label": l, "ns": ns})
	}
	slices.SortFunc(out, func(a, b map[string]any) int {
		return cmp.Or(cmp.Compare(b["ns"].(int64), a["ns"].(int64)), cmp.Compare(a["label"].(string), b["label"].(string)))
	})
	return out
}

// TestLiveBrowser opens pages in headless Chromium (test/render/timeline.mjs): a SaveHTML page
// and a page with two timelines, as nbconvert writes them.
func TestLiveBrowser(t *testing.T) {
	node, err := exec.LookPath("node")
	_, cerr := os.Stat("/usr/bin/chromium")
	_, merr := os.Stat("../test/render/node_modules/playwright-core")
	if err != nil || cerr != nil || merr != nil {
		if os.Getenv("TRACEBOOK_REQUIRE_BROWSER") == "1" {
			t.Fatalf("TRACEBOOK_REQUIRE_BROWSER=1 but node (%v), /usr/bin/chromium (%v) or playwright-core in test/render (%v) is missing", err, cerr, merr)
		}
		t.Skip("node, /usr/bin/chromium or test/render/node_modules (npm ci in test/render) missing")
	}
	if testing.Short() && os.Getenv("TRACEBOOK_REQUIRE_BROWSER") != "1" {
		t.Skip("short mode: the browser test takes about 30 s")
	}
	script, _ := filepath.Abs("../test/render/timeline.mjs")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	a := synthLive(r, 5, 30, 3, []string{"main", "MPI_Send", "MPI_Recv", "compute", "io"})
	a.Title = "first"
	for i := 0; i < 20; i++ {
		a.Messages = append(a.Messages, LiveMessage{From: i % 5, To: (i + 2) % 5, Send: int64(i) * 1400, Recv: int64(i)*1400 + 900, Bytes: 1024, Tag: 1, Comm: "world"})
	}
	a.Markers = []LiveMarker{{Lane: 1, Start: 5000, End: 6000, Label: "MPI_Barrier"}}
	a.Shades = []LiveShade{{Lane: -1, Start: 20000, End: 22000, Label: "measurement off"}}
	a.Lanes = append(a.Lanes,
		LiveLane{Name: "ranks 5-9", Kind: LaneFolded, Info: "5 lanes folded", Bars: []LiveBar{{Start: 0, End: 9000, Label: "compute"}, {Start: 9000, End: 25000, Label: "MPI_Recv"}}},
		LiveLane{Name: "states", Kind: LaneStates, Bars: []LiveBar{{Start: 0, End: 5000, Label: "equal", Fill: StateColor(0)}, {Start: 5000, End: 9000, Label: "different", Fill: StateColor(1)}}})
	a.Lanes = append(a.Lanes, LiveLane{Name: "flops", Kind: LaneCounter, Samples: []LiveSample{{0, 1}, {10000, 5}, {20000, 2}}, Unit: "GF/s"})
	b := synthLive(r, 3, 20, 2, []string{"kernel", "memcpy", "sync"})
	b.Title = "second"
	b.Lanes[2].Kind = LaneAccelerator

	expect := func(lt *LiveTimeline, t0, t1 int64) map[string]any {
		return map[string]any{"title": lt.Title, "range": []int64{t0, t1}, "summary": bruteSummary(lt, t0, t1), "messages": len(lt.Messages) > 0}
	}
	write := func(name string, v any) string {
		p := filepath.Join(dir, name)
		js, _ := json.Marshal(v)
		if err := os.WriteFile(p, js, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(page, exp string) {
		t.Helper()
		cmd := exec.Command(node, script, page, "--expect", exp)
		cmd.Dir = filepath.Dir(script)
		done := make(chan struct{})
		timer := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill(); close(done) })
		out, err := cmd.CombinedOutput()
		timer.Stop()
		t.Logf("%s", out)
		if err != nil {
			t.Fatalf("timeline.mjs %s: %v", page, err)
		}
	}
	single := filepath.Join(dir, "single.html")
	a.SaveHTML(single)
	// Random ranges, each checked against the brute-force summary.
	ea := expect(a, 3000, 17000)
	var cases []any
	for i := 0; i < 6; i++ {
		t0 := r.Int64N(28000)
		t1 := t0 + 10 + r.Int64N(30000-t0) // the view shows at least 10 ns
		cases = append(cases, map[string]any{"range": []int64{t0, t1}, "summary": bruteSummary(a, t0, t1)})
	}
	ea["cases"] = cases
	run(single, write("single.json", []any{ea}))

	// Two timelines on one page, as nbconvert writes two outputs.
	page := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n<div class=\"output\">" +
		a.MIMEBundle()["text/html"].(string) + "</div>\n<div class=\"output\">" + b.MIMEBundle()["text/html"].(string) + "</div></body></html>"
	double := filepath.Join(dir, "double.html")
	if err := os.WriteFile(double, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	run(double, write("double.json", []any{expect(a, 0, 30000), expect(b, 2000, 9000)}))

	// Notebook 6 inserts an output with jQuery's html() into a detached element, which runs the
	// scripts before the element is in the document.
	const jquery = "/usr/share/javascript/jquery/jquery.js"
	if _, err := os.Stat(jquery); err == nil {
		frag, _ := json.Marshal(b.MIMEBundle()["text/html"].(string))
		page := `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="file://` + jquery + `"></script></head><body><div id="nb"></div><script>
var area = $("<div class='output_area'></div>");
area.html(` + string(frag) + `);
setTimeout(function () { $("#nb").append(area); }, 300);
</script></body></html>`
		nb6 := filepath.Join(dir, "notebook6.html")
		if err := os.WriteFile(nb6, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		run(nb6, write("notebook6.json", []any{expect(b, 2000, 9000)}))
	}

	// nbconvert's HTML report of a notebook with the two timelines as outputs of two cells.
	if nbconvert, err := exec.LookPath("jupyter-nbconvert"); err == nil {
		cell := func(lt *LiveTimeline) map[string]any {
			bundle := lt.MIMEBundle()
			bundle["image/png"] = base64.StdEncoding.EncodeToString(bundle["image/png"].([]byte))
			return map[string]any{"cell_type": "code", "execution_count": 1, "metadata": map[string]any{}, "source": "tr.Timeline()",
				"outputs": []any{map[string]any{"output_type": "display_data", "data": bundle, "metadata": lt.MIMEMetadata()}}}
		}
		nb := map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{}, "cells": []any{cell(a), cell(b)}}
		ipynb := filepath.Join(dir, "report.ipynb")
		js, _ := json.Marshal(nb)
		if err := os.WriteFile(ipynb, js, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(nbconvert, "--to", "html", ipynb).CombinedOutput(); err != nil {
			t.Fatalf("nbconvert: %v\n%s", err, out)
		}
		run(filepath.Join(dir, "report.html"), write("report.json", []any{expect(a, 1000, 12000), expect(b, 0, 20000)}))
	}

	// Merged levels: a budget far under the bars.
	c := synthLive(r, 4, 20000, 3, []string{"main", "MPI_Send", "MPI_Recv", "compute", "io"})
	c.Title, c.Budget = "merged", 200<<10
	if d, _, _ := c.data(); d.Levels[0].Res == 0 {
		t.Fatalf("%d bars in %d bytes embedded exactly", len(c.Lanes[0].Bars)*4, c.Budget)
	}
	merged := filepath.Join(dir, "merged.html")
	c.SaveHTML(merged)
	run(merged, write("merged.json", []any{map[string]any{"title": c.Title}}))
}

func TestLiveSaveHTMLError(t *testing.T) {
	lt := synthLive(rand.New(rand.NewPCG(1, 1)), 1, 3, 1, []string{"a"})
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "/no/such/dir/x.html") {
			t.Fatalf("SaveHTML to a missing directory: panic %v, want an error naming the file", r)
		}
	}()
	lt.SaveHTML("/no/such/dir/x.html")
}

func TestLiveString(t *testing.T) {
	lt := synthLive(rand.New(rand.NewPCG(1, 1)), 2, 3, 1, []string{"a"})
	lt.Messages = []LiveMessage{{From: 0, To: 1}}
	n := len(lt.Lanes[0].Bars) + len(lt.Lanes[1].Bars)
	if got, want := lt.String(), fmt.Sprintf("<LiveTimeline synthetic: 2 lanes, %d bars, 1 messages>", n); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	b := lt.MIMEBundle()
	for _, k := range []string{"text/html", "image/png", "text/plain"} {
		if b[k] == nil {
			t.Errorf("MIMEBundle has no %s", k)
		}
	}
	if got, want := fmt.Sprint(lt.MIMEMetadata()), fmt.Sprint(lt.Figure().MIMEMetadata()); got != want {
		t.Errorf("MIMEMetadata() = %s, the figure's is %s", got, want)
	}
	lt.Lanes = append(lt.Lanes, LiveLane{Name: "deep", Bars: []LiveBar{{Start: 0, End: 9, Level: 5, Label: "x"}}}, LiveLane{Name: "fold", Kind: LaneFolded, Bars: []LiveBar{{Start: 0, End: 9, Level: 7}}})
	if got, want := fmt.Sprint(lt.MIMEMetadata()), fmt.Sprint(lt.Figure().MIMEMetadata()); got != want {
		t.Errorf("MIMEMetadata() = %s, the figure's is %s", got, want)
	}
	if got, want := fmt.Sprint((&LiveTimeline{}).MIMEMetadata()), fmt.Sprint((&LiveTimeline{}).Figure().MIMEMetadata()); got != want {
		t.Errorf("empty: MIMEMetadata() = %s, the figure's is %s", got, want)
	}
	bad := &LiveTimeline{Lanes: []LiveLane{{Bars: []LiveBar{{Start: 5, End: 1}}}}}
	if b := bad.MIMEBundle(); b["text/html"] != nil || !strings.Contains(b["text/plain"].(string), "lane 0") {
		t.Errorf("invalid bar: bundle %v", b)
	}
}

// benchLive is 10M bars over 64 lanes, 4 levels deep.
func benchLive(b *testing.B) *LiveTimeline {
	b.Helper()
	r := rand.New(rand.NewPCG(9, 9))
	labels := make([]string, 40)
	for i := range labels {
		labels[i] = fmt.Sprintf("function_%d", i)
	}
	lt := &LiveTimeline{Title: "bench"}
	const lanes, perLane = 64, 10_000_000 / 64
	for li := 0; li < lanes; li++ {
		bars := make([]LiveBar, 0, perLane)
		var t int64
		for len(bars) < perLane {
			// a level-0 call with 3 nested calls below it, one per level
			d := 200 + r.Int64N(2000)
			bars = append(bars, LiveBar{Start: t, End: t + d, Level: 0, Label: labels[r.IntN(8)]})
			s, e := t, t+d
			for lv := 1; lv < 4 && len(bars) < perLane; lv++ {
				s, e = s+(e-s)/8, e-(e-s)/8
				bars = append(bars, LiveBar{Start: s, End: e, Level: lv, Label: labels[r.IntN(len(labels))]})
			}
			t += d + r.Int64N(100)
		}
		lt.Lanes = append(lt.Lanes, LiveLane{Name: fmt.Sprintf("rank %d", li), Bars: bars})
	}
	return lt
}

func BenchmarkLiveData10M(b *testing.B) {
	lt := benchLive(b)
	b.ResetTimer()
	var d *liveData
	for i := 0; i < b.N; i++ {
		var err error
		d, _, err = lt.data()
		if err != nil {
			b.Fatal(err)
		}
	}
	js, _ := json.Marshal(d)
	b.ReportMetric(float64(len(js)), "json-bytes")
	b.ReportMetric(float64(len(d.Levels)), "levels")
}

func BenchmarkLiveHTML10M(b *testing.B) {
	lt := benchLive(b)
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		h, _, err := lt.element()
		if err != nil {
			b.Fatal(err)
		}
		n = len(h)
	}
	b.ReportMetric(float64(n), "html-bytes")
}

func ExampleLiveTimeline() {
	lt := &LiveTimeline{
		Title: "ping-pong",
		Lanes: []LiveLane{
			{Name: "rank 0", Bars: []LiveBar{{Start: 0, End: 1000, Label: "main"}, {Start: 100, End: 300, Level: 1, Label: "MPI_Send"}}},
			{Name: "rank 1", Bars: []LiveBar{{Start: 0, End: 1000, Label: "main"}, {Start: 50, End: 400, Level: 1, Label: "MPI_Recv"}}},
		},
		Messages: []LiveMessage{{From: 0, To: 1, Send: 120, Recv: 390, Bytes: 8, Comm: "world"}},
	}
	fmt.Println(lt)
	b := lt.MIMEBundle()
	fmt.Println(strings.HasPrefix(b["text/html"].(string), `<div class="tb-timeline"`), len(b["image/png"].([]byte)) > 0)
	// lt.SaveHTML("ping-pong.html") writes the same view as a page.
	// Output:
	// <LiveTimeline ping-pong: 2 lanes, 4 bars, 1 messages>
	// true true
}

// TestLiveFigureOverlay: the static figure draws messages and counter lanes (the figure
// without them differs, in dark pixels for messages and green ones for the counter).
func TestLiveFigureOverlay(t *testing.T) {
	lt := synthLive(rand.New(rand.NewPCG(2, 2)), 3, 10, 2, []string{"a", "b"})
	lt.Lanes = append(lt.Lanes, LiveLane{Name: "counter", Kind: LaneCounter, Samples: []LiveSample{{0, 1}, {4000, 3}, {8000, 2}}})
	lt.Messages = []LiveMessage{{From: 0, To: 2, Send: 1000, Recv: 9000}}
	count := func(lt *LiveTimeline, want func(r, g, b uint32) bool) int {
		b, err := lt.Figure().PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if want(r>>8, g>>8, b>>8) {
					n++
				}
			}
		}
		return n
	}
	green := func(r, g, b uint32) bool { return g > r+25 && g > b+25 }
	dark := func(r, g, b uint32) bool { return r < 90 && g < 90 && b < 90 }
	bare := *lt
	bare.Messages = nil
	bare.Lanes = slices.Clone(lt.Lanes)
	bare.Lanes[3].Samples = nil
	if a, b := count(lt, green), count(&bare, green); a < b+20 {
		t.Errorf("counter lane: %d green pixels, %d without samples", a, b)
	}
	if a, b := count(lt, dark), count(&bare, dark); a < b+50 {
		t.Errorf("message: %d dark pixels, %d without it", a, b)
	}
}

func TestLiveHalfImage(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	for x := 0; x < 4; x++ {
		for y := 0; y < 2; y++ {
			src.SetRGBA(x, y, color.RGBA{R: uint8(40 * x), G: uint8(100 * y), B: 8, A: 255})
		}
	}
	img := halfImage(src)
	if img.Bounds().Dx() != 2 || img.Bounds().Dy() != 1 {
		t.Fatalf("size %v, want 2x1", img.Bounds())
	}
	for x, want := range []color.RGBA{{R: 20, G: 50, B: 8, A: 255}, {R: 100, G: 50, B: 8, A: 255}} {
		if got := color.RGBAModel.Convert(img.At(x, 0)).(color.RGBA); got != want {
			t.Errorf("pixel %d = %v, want %v", x, got, want)
		}
	}
}

// TestLiveHalfImageGray: an image neither RGBA nor NRGBA takes the general path.
func TestLiveHalfImageGray(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 2, 2))
	src.Pix = []uint8{0, 40, 80, 120}
	img := halfImage(src)
	if got, want := color.RGBAModel.Convert(img.At(0, 0)).(color.RGBA), (color.RGBA{R: 60, G: 60, B: 60, A: 255}); got != want {
		t.Errorf("pixel = %v, want %v", got, want)
	}
}
