package align

import (
	"fmt"
	"html"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// RunsResult compares every process pair (same index) of two runs
// (Weber Figs. 4.7, 4.9).
type RunsResult struct {
	Names   []string  // process names of run A
	Results []*Result // one per process pair
}

// Runs aligns process i of a with process i of b for every i present in
// both, in parallel.
func Runs(a, b *trace.Trace, opts ...Option) *RunsResult {
	if a == nil || b == nil {
		fail("align.Runs", "nil trace")
	}
	o := collect("align.Runs", opts)
	defer surfaceRecover("align.Runs")
	n := min(a.NumProcesses(), b.NumProcesses())
	rr := &RunsResult{Names: make([]string, n), Results: make([]*Result, n)}
	job := work.Start("align.Runs", int64(n), "pairs")
	defer job.Done()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failure any // the first panic of a pair (bad input, interrupt), re-raised here
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := 0; i < n; i++ {
		rr.Names[i] = a.Process(i).String()
		if job.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if failure == nil || work.Interrupted(failure) && !work.Interrupted(r) {
						failure = r
					}
					mu.Unlock()
				}
			}()
			rr.Results[i] = pair(a.Process(i), b.Process(i), o)
			job.Add(1)
		}(i)
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
	job.Check()
	return rr
}

// Table has one row per process pair: similarity, score, counts and the
// final runtime skew.
func (rr *RunsResult) Table() *arrowio.Table {
	n := len(rr.Results)
	idx := make([]int32, n)
	sim := make([]float64, n)
	score, eq, df, ga, gb, skew := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, r := range rr.Results {
		idx[i] = int32(i)
		sim[i], score[i] = r.Similarity(), int64(r.Score())
		e, d, x, y := r.Counts()
		eq[i], df[i], ga[i], gb[i] = int64(e), int64(d), int64(x), int64(y)
		if _, _, _, sk := r.skew(); len(sk) > 0 {
			skew[i] = sk[len(sk)-1]
		}
	}
	return arrowio.MustTable(arrowio.Int32("process", idx), arrowio.String("name", rr.Names),
		arrowio.Float64("similarity", sim), arrowio.Int64("score", score), arrowio.Int64("equal", eq),
		arrowio.Int64("diff", df), arrowio.Int64("gap_a", ga), arrowio.Int64("gap_b", gb),
		arrowio.Int64("final_skew_ns", skew))
}

// heat bins each process's timeline into cols columns over its alignment:
// the mean of the Dissimilarity samples, or of the Runtime skew (ms) of
// the Equal pairs, in each column; NaN where a column has none.
func (rr *RunsResult) heat(cols int, skew bool) [][]float64 {
	out := make([][]float64, len(rr.Results))
	for i, r := range rr.Results {
		row := make([]float64, cols)
		cnt := make([]int, cols)
		n := r.Len()
		if skew {
			pos, _, _, sk := r.skew()
			for k, p := range pos {
				c := min(cols-1, int(r.frac(int(p))*float64(cols)))
				row[c] += float64(sk[k]) / 1e6
				cnt[c]++
			}
		} else {
			_, at, val := r.dissimilarity(cols * 4)
			vt := r.axis()
			for k, t := range at {
				c := min(cols-1, int(t/max(1e-300, vt[n])*float64(cols)))
				row[c] += val[k]
				cnt[c]++
			}
		}
		for c := range row {
			if cnt[c] > 0 {
				row[c] /= float64(cnt[c])
			} else {
				row[c] = math.NaN()
			}
		}
		out[i] = row
	}
	return out
}

// Plot shows per-process heatmaps of the Dissimilarity (on its full scale,
// 0 to 1) and the Runtime skew (ms, diverging around 0) timelines, in 50
// columns over each alignment. Rows are processes, named by their labels
// ("rank 3"), the title names the runs; many processes are averaged in
// groups of consecutive rows, as the y axis label then says.
func (rr *RunsResult) Plot() *plotting.Figure {
	const cols = 50
	rows := make([]string, len(rr.Results))
	runA, runB := "run A", "run B"
	for i, r := range rr.Results {
		rows[i] = r.sides.procA
		if r.sides.procB != r.sides.procA {
			rows[i] += " / " + r.sides.procB
		}
		if rows[i] == "" {
			rows[i] = rr.Names[i]
		}
		runA, runB = r.sides.run(true, runA), r.sides.run(false, runB)
	}
	xlabel := "aligned time [% of each alignment]"
	return plotting.Stack(fmt.Sprintf("%s vs %s, process by process", runA, runB),
		plotting.Heatmap("dissimilarity (window 10%)", rows, nil, rr.heat(cols, false),
			plotting.WithColorRange(0, 1), plotting.WithXRange(0, 100), plotting.WithXLabel(xlabel), plotting.WithYLabel("process")),
		plotting.Heatmap(fmt.Sprintf("runtime skew %s − %s [ms] (red: %[1]s behind)", runB, runA), rows, nil, rr.heat(cols, true),
			plotting.WithDiverging(), plotting.WithXRange(0, 100), plotting.WithXLabel(xlabel), plotting.WithYLabel("process")))
}

// MIMEBundle renders the per-process table.
func (rr *RunsResult) MIMEBundle() map[string]any {
	t := rr.Table()
	b := t.MIMEBundle()
	if h, ok := b["text/html"].(string); ok {
		b["text/html"] = "<div><b>runs compared</b>: " + html.EscapeString(fmt.Sprint(len(rr.Results))) + " process pairs</div>" + h
	}
	if s, ok := b["text/plain"].(string); ok {
		b["text/plain"] = "runs compared: " + fmt.Sprint(len(rr.Results)) + " process pairs\n" + strings.TrimSpace(s)
	}
	return b
}
