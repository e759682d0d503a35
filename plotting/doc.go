// Package plotting draws the charts of trace analysis with gonum/plot — state timelines (Gantt
// bars with call levels), metric lines, heatmaps, bar charts, box plots, matrices, layered graphs
// ([DAG]), grids of labelled cells such as a multiple sequence alignment block ([TextGrid]) and
// vertical stacks of them — from domain-agnostic inputs (floats, labels, lanes of bars). A
// [Figure] shows in a notebook as one PNG rendered at 192 dpi and displayed at its 96-dpi size
// (MIMEBundle and MIMEMetadata), which every front end and nbconvert's HTML export render alike;
// SVGDisplay shows it as SVG instead, and Save writes PNG, SVG or PDF files. Timelines,
// heatmaps, matrices and line charts also carry an interactive Vega-Lite v5 spec
// ([Figure.VegaLite]: zoom and pan along x, tooltips on hover), which JupyterLab and Notebook 7
// show instead of the PNG; its inline data is bounded (at most 512 KiB of JSON), and a subtitle
// says when bars were merged, cells binned or points reduced to fit.
//
// Figures are made to read without help: titles, labels and legend entries are measured in
// their font and wrapped or shortened to the space they have (titles at their end, legend
// entries and row labels in the middle, "very-long-na…device=0", so that names differing at
// their end stay distinct); a legend lists what fits and "+ N more"; axes and colour bars of
// data with a [Unit] (WithXUnit, WithColorUnit, [Figure.XUnit], [Figure.YUnit]) show their ticks
// in the unit their range suits — the largest of s, ms, µs, ns (B, KiB, MiB, GiB, TiB) in which
// the largest value is at least 1 and a tick step at least 1/100 — named in the axis label or
// above the colour bar; comparison states have their own palette ([StateColor]), apart from the
// categorical one of functions ([Categorical]); heatmap colour scales are anchored at 0
// (diverging around 0 for signed data) unless asked to stretch, and large heatmaps are binned
// to a bounded size, as their axis labels say.
//
// [Figure.XRange] shows a window of any figure with a numeric x axis — timelines (bars clipped
// to it), line charts (y fitted to the window) and heatmaps on a numeric x axis (the whole
// columns that overlap it) — and of every part of a [Stack]; it is rebuilt from the figure's
// input, so a second XRange is a window of the whole, not of the first window.
//
// Constructors never fail on data: empty input gives a figure with a "no data" note.
// Inconsistent input (rows and labels of different lengths, an End before a Start) is a
// programmer error and panics with a message naming the constructor and the argument. Timelines
// stay fast for millions of bars: before drawing, bars of one lane and level that are narrower
// than a pixel and touch are merged (see [Timeline]).
package plotting
