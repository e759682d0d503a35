// Package plotting draws the charts of trace analysis with gonum/plot — state timelines (Gantt
// bars with call levels), metric lines, heatmaps, bar charts, box plots, matrices and vertical
// stacks of them — from domain-agnostic inputs (floats, labels, lanes of bars), and renders a
// [Figure] as PNG (96 dpi) and SVG for notebooks or as PNG/SVG/PDF files. Constructors never
// fail on data: empty input gives a figure with a "no data" note. Inconsistent input (rows and
// labels of different lengths, an End before a Start) is a programmer error and panics with a
// message naming the constructor and the argument. Timelines stay fast for millions of bars:
// before drawing, bars of one lane and level that are narrower than a pixel and touch are merged
// (see [Timeline]).
package plotting
