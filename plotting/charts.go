package plotting

// Bar is one interval of a timeline lane. Level is the call depth (0 = outermost); Color indexes
// the palette, or -1 picks a colour from a hash of Label so equal labels share a colour.
type Bar struct {
	Start, End float64
	Level      int
	Label      string
	Color      int
}

// Lane is one row of a timeline (a process, thread or aligned sequence).
type Lane struct {
	Name string
	Bars []Bar
}

// Series is one line of a [Lines] chart.
type Series struct {
	Name string
	X, Y []float64
}

// Box is one box of a [Boxes] chart: the 2nd, 25th, 50th, 75th and 98th percentiles (Brendel's
// profile box plots).
type Box struct {
	Label                  string
	P2, P25, P50, P75, P98 float64
}

// Timeline draws a state timeline: one row per lane, bars stacked by call level.
func Timeline(title string, lanes []Lane, opts ...Option) *Figure { return nil }

// Lines draws one line per series.
func Lines(title, xlabel, ylabel string, series ...Series) *Figure { return nil }

// Heatmap draws values[row][col] as coloured cells with a colour bar.
func Heatmap(title string, rowLabels, colLabels []string, values [][]float64, opts ...Option) *Figure {
	return nil
}

// Bars draws a bar chart of one value per label.
func Bars(title string, labels []string, values []float64) *Figure { return nil }

// Boxes draws box plots.
func Boxes(title string, boxes []Box) *Figure { return nil }

// Matrix draws a matrix (for example caller x callee) with the values written in the cells.
func Matrix(title string, rowLabels, colLabels []string, values [][]float64) *Figure { return nil }

// Stack draws figures above each other sharing the widest width; heights add up.
func Stack(title string, parts ...*Figure) *Figure { return nil }
