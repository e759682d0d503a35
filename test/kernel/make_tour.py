"""Writes notebooks/00-kernel-tour.ipynb (outputs are produced by executing it).
Cells may carry metadata {"tracebook": {"expect": [substrings]}}: the notebook
runner checks that the executed cell's outputs contain each of them."""
from nbgen import code, md, write

md("""# A tour of the tracebook kernel

Cells are Go, interpreted by [yaegi](https://github.com/traefik/yaegi), with live state: variables,
types and functions persist from cell to cell. This notebook is executed by `make test`; the outputs
you see are checked.""")
code("x := 6 * 7\nx", expect=["42"])
md("A cell may mix declarations and statements in any order; the last expression is shown. "
   "Common standard packages (`strings`, `math`, `sort`, ...) are imported when first used.")
code('''type Run struct {
	Name    string
	Seconds float64
}

runs := []Run{{"baseline", 12.5}, {"patched", 9.75}, {"noisy", 14.0}}

func fastest(rs []Run) Run {
	best := rs[0]
	for _, r := range rs[1:] {
		if r.Seconds < best.Seconds {
			best = r
		}
	}
	return best
}

sort.Slice(runs, func(i, j int) bool { return runs[i].Seconds < runs[j].Seconds })
strings.ToUpper(fastest(runs).Name)''', expect=['"PATCHED"'])
md("Redefining a function changes what its callers call (unlike plain yaegi).")
code('''func speedup(base, new float64) float64 { return base / new }
func report(r Run) string { return fmt.Sprintf("%s: %.2fx", r.Name, speedup(12.5, r.Seconds)) }
report(runs[0])''', expect=['"patched: 1.28x"'])
code('''func speedup(base, new float64) float64 { return (base - new) / base * 100 } // percent saved
report(runs[0])''', expect=['"patched: 22.00x"'])
md("Output from `fmt`, `log`, `os.Stdout` and `os.Stderr` streams to the notebook while the cell runs.")
code('''for i := 1; i <= 3; i++ {
	fmt.Printf("step %d of 3\\n", i)
	time.Sleep(50 * time.Millisecond)
}
os.Stdout.WriteString("written to os.Stdout\\n")
fmt.Fprintln(os.Stderr, "a warning on stderr")''', expect=["step 3 of 3", "written to os.Stdout", "a warning on stderr"])
md("## Rich display\n\n`display.Show` renders now; `HTML`, `Markdown`, `SVG`, `PNG`, `JSON` mark content with a MIME type; "
   "any value with a `MIMEBundle() map[string]any` method renders itself.")
code('''display.Show(display.Markdown("**Fastest run:** " + fastest(runs).Name))
display.HTML("<table><tr><th>run</th><th>s</th></tr><tr><td>patched</td><td>9.75</td></tr></table>")''',
     expect=["Fastest run", "<table>"])
code('''display.SVG(`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="20"><rect width="90" height="20" fill="#4e79a7"/></svg>`)''',
     expect=["<svg"])
md("Long work reports progress with an updatable display (builtins use the same helper).")
code('''p := display.NewProgress("processing", 20)
for i := 1; i <= 20; i++ {
	time.Sleep(10 * time.Millisecond)
	p.Set(i)
}
p.Done()''', expect=["20/20"])
md("Long builtins (loading, writing, alignment) show the same bar once they have run for a second, stop within "
   "milliseconds when you interrupt (■), and check their memory need before allocating: an impossible request "
   "is an error, not a killed kernel.")
code('''seq := strings.Repeat("ab", 500000)
align.Strings(seq, seq[1:]+"c", align.WithMethod(align.NW))   // a 1M x 1M matrix: 3.6 TiB''',
     expect=["Needleman-Wunsch matrix needs 3.64 TiB of memory", "is available"], raises=True)
md("## Errors point to the cell's own lines, and the session survives")
code('''values := []int{1, 2, 3}
idx := 5
values[idx]''', expect=["cell line 3"], raises=True)
code('''go func() { panic("worker failed") }()
time.Sleep(200 * time.Millisecond)
"the kernel is still here"''', expect=["worker failed", '"the kernel is still here"'], raises=True)
md("## Magics\n\n`%who` lists the session's variables, `%time` times a cell, `%help` lists builtins and the display API.")
code("%who", expect=["runs", "baseline", "idx"])
code("%time\ntotal := 0\nfor i := 0; i < 100000; i++ { total += i }\ntotal", expect=["wall time:", "4999950000"])

write("notebooks/00-kernel-tour.ipynb")
