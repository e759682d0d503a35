package plotting

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// dpi is the PNG resolution of PNG and Save; 96 dpi matches how browsers show notebook images
// 1:1. Notebooks get PNGs rendered at displayScale times that, shown at the 96-dpi size.
const (
	dpi          = 96
	displayScale = 2
)

// Default sizes in points (1/72 inch); 640 pt is 853 px at 96 dpi, the width of a notebook cell.
const (
	defaultWidth  = 640
	defaultHeight = 320
	margin        = 6 // around the whole figure
	sideGap       = 10
)

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(sans, size), Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot with sans-serif fonts sized for notebooks.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.Title.Padding = 8
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Marker = roundTicks{}
		a.Tick.Label.Font = font.From(sans, 9)
		a.Tick.Label.Color = color.Gray{Y: 40}
		a.Tick.LineStyle.Color = color.Gray{Y: 120}
		a.LineStyle.Color = color.Gray{Y: 120}
	}
	p.Legend.TextStyle.Font = font.From(sans, 10)
	return p
}

// Figure is a chart ready to render: a title, a size and what to draw. Figures are immutable
// and may be rendered any number of times, concurrently.
type Figure struct {
	title         string
	width, height vg.Length

	plot  *plot.Plot        // the chart; nil for notes and stacks
	body  plot.Plotter      // the chart's own plotter (timeline, grid), if it has one
	side  func(draw.Canvas) // legend or colour bar, drawn in a right-hand column
	sideW vg.Length         // width of the right-hand column, 0 if none
	note  string            // shown instead of a chart ("no data")
	parts []*Figure         // a Stack's parts, top to bottom
	svg   bool              // the notebook display is SVG instead of PNG (SVGDisplay)
	lines bool              // a Lines chart, whose y range YRange may widen

	xUnit, yUnit Unit // the data units of the axes (XUnit, WithXUnit), zero if none
	// window rebuilds the figure with its x axis spanning [lo, hi] (XRange); nil for figures
	// without a numeric x axis.
	window func(lo, hi float64) *Figure

	vega   vegaSpec    // builds the interactive Vega-Lite spec (VegaLite), nil if none
	yRange *[2]float64 // the y range YRange asked for, for the Vega-Lite spec
}

// Title returns the figure title.
func (f *Figure) Title() string { return f.title }

// Size returns the figure size in points (1/72 inch).
func (f *Figure) Size() (wPt, hPt float64) { return float64(f.width), float64(f.height) }

// Resize returns a copy of f with a new size in points.
func (f *Figure) Resize(wPt, hPt float64) *Figure {
	if !(wPt > 0 && hPt > 0) {
		panic(fmt.Sprintf("plotting.Figure.Resize: size %gx%g is not positive", wPt, hPt))
	}
	g := *f
	g.width, g.height = vg.Length(wPt), vg.Length(hPt)
	return &g
}

// render draws the whole figure on a canvas of the figure's size.
func (f *Figure) render(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plotting: rendering %q: %v", f.title, r)
		}
	}()
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	f.drawAt(draw.Crop(c, margin, -margin, margin, -margin), f.sideW, 0, 0)
	return nil
}

// drawAt draws f in c with a right-hand column of width sideW (shared by a Stack's parts) and
// the chart narrowed by padL and padR so that stacked data areas line up.
func (f *Figure) drawAt(c draw.Canvas, sideW, padL, padR vg.Length) {
	switch {
	case f.parts != nil:
		f.drawStack(c)
	case f.plot == nil:
		drawNote(c, f.title, f.note)
	default:
		main := f.mainCanvas(c, sideW)
		p := f.plotFor(main)
		if f.side != nil {
			sc := c
			sc.Min.X = c.Max.X - sideW
			sc.Max.Y -= titleHeight(p) // level with the chart under its title
			f.side(sc)
		}
		main.Min.X += padL
		main.Max.X -= padR
		p.Draw(main)
	}
}

// plotFor returns a copy of f's plot to draw in c, with the title fitted to c's width. Drawing
// a copy keeps figures immutable (gonum's Draw adjusts the axes of the plot it draws).
func (f *Figure) plotFor(c draw.Canvas) *plot.Plot {
	p := *f.plot
	if p.Title.Text != "" {
		p.Title.Text = fitLines(p.Title.TextStyle, p.Title.Text, c.Max.X-c.Min.X, 2)
	}
	applyUnit(&p.X, f.xUnit)
	applyUnit(&p.Y, f.yUnit)
	return &p
}

// titleHeight is the height that p's title takes from the top of its canvas.
func titleHeight(p *plot.Plot) vg.Length {
	if p.Title.Text == "" {
		return 0
	}
	r := p.Title.TextStyle.Rectangle(p.Title.Text)
	return r.Max.Y - r.Min.Y + p.Title.Padding
}

func (f *Figure) mainCanvas(c draw.Canvas, sideW vg.Length) draw.Canvas {
	if sideW > 0 {
		c.Max.X -= sideW + sideGap
	}
	return c
}

func drawNote(c draw.Canvas, title, note string) {
	top := c.Max.Y
	if title != "" {
		sty := textStyle(13, color.Black)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: top}, fitLines(sty, title, c.Max.X-c.Min.X, 2))
	}
	sty := textStyle(11, color.Gray{Y: 110})
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), note)
}

// noData is the figure of a constructor given nothing to draw.
func noData(title string, o options) *Figure {
	return &Figure{title: title, width: o.widthOr(defaultWidth), height: o.heightOr(120), note: "no data"}
}

// PNG renders the figure as a PNG image at 96 dpi, one pixel per CSS pixel.
func (f *Figure) PNG() ([]byte, error) { return f.PNGScaled(1) }

// PNGScaled renders the figure as a PNG image at scale times 96 dpi: PNGScaled(2) is the sharp
// image that notebooks show at the size of PNG() (see MIMEBundle).
func (f *Figure) PNGScaled(scale float64) ([]byte, error) {
	if !(scale > 0 && scale <= 16) {
		return nil, fmt.Errorf("plotting: PNGScaled(%g): scale must be in (0, 16]", scale)
	}
	img := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(int(math.Round(dpi*scale))), vgimg.UseBackgroundColor(color.White))
	if err := f.render(draw.New(img)); err != nil {
		return nil, err
	}
	return writeTo(vgimg.PngCanvas{Canvas: img})
}

// image renders the figure at scale times 96 dpi (scale as PNGScaled).
func (f *Figure) image(scale float64) (image.Image, error) {
	img := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(int(math.Round(dpi*scale))), vgimg.UseBackgroundColor(color.White))
	if err := f.render(draw.New(img)); err != nil {
		return nil, err
	}
	return img.Image(), nil
}

// SVG renders the figure as an SVG document (fonts referenced by name, not embedded).
func (f *Figure) SVG() ([]byte, error) {
	c := vgsvg.New(f.width, f.height)
	if err := f.render(draw.New(c)); err != nil {
		return nil, err
	}
	return writeTo(c)
}

func (f *Figure) pdf() ([]byte, error) {
	c := vgpdf.New(f.width, f.height)
	if err := f.render(draw.New(c)); err != nil {
		return nil, err
	}
	return writeTo(c)
}

func writeTo(w io.WriterTo) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MIMEBundle is the kernel's display contract: "image/png" ([]byte), rendered at 192 dpi (twice
// the pixels of PNG) and shown at the 96-dpi size that MIMEMetadata gives, and "text/plain". A
// bundle with only a PNG renders the same in JupyterLab, Notebook, VS Code, GitHub and
// nbconvert's HTML (whose sanitiser blanks an inline SVG) and keeps notebooks small. Timelines,
// heatmaps, matrices and line charts also carry their interactive Vega-Lite spec under
// "application/vnd.vegalite.v5+json" (json.RawMessage, see VegaLite), which JupyterLab and
// Notebook 7 show instead of the PNG; Notebook 6 and nbconvert show the PNG. A figure
// made by SVGDisplay has "image/svg+xml" (string) instead, and the same SVG as an <img> data URI
// in "text/html", which front ends prefer and nbconvert keeps. If rendering fails, the bundle
// holds only text/plain with the error.
func (f *Figure) MIMEBundle() map[string]any {
	if f.svg {
		svg, err := f.SVG()
		if err != nil {
			return map[string]any{"text/plain": f.String() + ": " + err.Error()}
		}
		img := fmt.Sprintf(`<img src="data:image/svg+xml;base64,%s" width="%d" height="%d" alt="%s">`,
			base64.StdEncoding.EncodeToString(svg), pixels(f.width), pixels(f.height), html.EscapeString(f.title))
		return map[string]any{"image/svg+xml": string(svg), "text/html": img, "text/plain": f.String()}
	}
	png, err := f.PNGScaled(displayScale)
	if err != nil {
		return map[string]any{"text/plain": f.String() + ": " + err.Error()}
	}
	bundle := map[string]any{"image/png": png, "text/plain": f.String()}
	if _, spec := f.vegaLite(); spec != nil {
		bundle[VegaLiteMIME] = json.RawMessage(spec)
	}
	return bundle
}

// HTMLImage returns the figure as an HTML <img> element holding the PNG of MIMEBundle (192 dpi,
// shown at its 96-dpi size), for results whose HTML shows text, tables and a figure together;
// if rendering fails, a <p> with the error.
func (f *Figure) HTMLImage() string {
	png, err := f.PNGScaled(displayScale)
	if err != nil {
		return "<p>" + html.EscapeString(f.String()+": "+err.Error()) + "</p>"
	}
	return fmt.Sprintf(`<img src="data:image/png;base64,%s" width="%d" height="%d" alt="%s">`,
		base64.StdEncoding.EncodeToString(png), pixels(f.width), pixels(f.height), html.EscapeString(f.title))
}

// MIMEMetadata is the display metadata of MIMEBundle: the image's width and height in CSS pixels
// (96 dpi), {"image/png": {"width": W, "height": H}} (or "image/svg+xml" for SVGDisplay).
func (f *Figure) MIMEMetadata() map[string]any {
	key := "image/png"
	if f.svg {
		key = "image/svg+xml"
	}
	return map[string]any{key: map[string]any{"width": pixels(f.width), "height": pixels(f.height)}}
}

// SVGDisplay returns a copy of f that a notebook shows as SVG instead of PNG: vector graphics
// that stay sharp at any zoom. An SVG of many cells or bars is large, and it is stored twice (as
// image/svg+xml and as the <img> that survives nbconvert's HTML export); the default PNG is
// smaller. fig.Save("fig.svg") writes an SVG file.
func (f *Figure) SVGDisplay() *Figure {
	g := *f
	g.svg = true
	return &g
}

// String returns "<Figure title WxH>" with the PNG size in pixels.
func (f *Figure) String() string {
	return fmt.Sprintf("<Figure %s %dx%d>", f.title, pixels(f.width), pixels(f.height))
}

func pixels(l vg.Length) int { return int(math.Round(l.Dots(dpi))) }

// Save writes the figure to path as PNG, SVG or PDF, chosen by the extension.
// A save that fails panics with an error naming the file and the cause, so the
// cell fails (a notebook run headless stops there instead of going on without
// the file).
func (f *Figure) Save(path string) {
	if err := f.save(path); err != nil {
		panic(err)
	}
}

// save is Save returning its error.
func (f *Figure) save(path string) error {
	var b []byte
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		b, err = f.PNG()
	case ".svg":
		b, err = f.SVG()
	case ".pdf":
		b, err = f.pdf()
	default:
		err = fmt.Errorf("unknown image format: want extension .png, .svg or .pdf")
	}
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("plotting: %s: %w", path, err)
	}
	return nil
}

// Option adjusts a figure: size, palette, axis labels, row height.
type Option func(*options)

type options struct {
	width, height vg.Length
	palette       []color.Color
	xlabel        string
	ylabel        string
	rowHeight     vg.Length
	colorRange    *[2]float64 // heatmap colour scale range, nil: anchored at 0
	xRange        *[2]float64 // heatmap columns span this numeric x range
	diverging     bool
	stretch       bool
	coldWarm      bool        // sequential blue - yellow - red scale instead of viridis
	binMax        bool        // binned heatmap cells show the block's maximum, not its mean
	marks         []float64   // vertical lines at these x values (with xRange)
	greenRed      bool        // Brendel's green - orange - red scale (BoxSquares)
	xUnit         Unit        // data unit of the x axis
	colorUnit     Unit        // data unit of the colour bar
	window        *[2]float64 // the x range shown (XRange)
}

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func (o options) widthOr(d vg.Length) vg.Length {
	if o.width > 0 {
		return o.width
	}
	return d
}

func (o options) heightOr(d vg.Length) vg.Length {
	if o.height > 0 {
		return o.height
	}
	return d
}

func (o options) rowHeightOr(d vg.Length) vg.Length {
	if o.rowHeight > 0 {
		return o.rowHeight
	}
	return d
}

func (o options) color(i int) color.Color {
	if len(o.palette) > 0 {
		return o.palette[mod(i, len(o.palette))]
	}
	return Categorical(i)
}

func (o options) paletteLen() int {
	if len(o.palette) > 0 {
		return len(o.palette)
	}
	return len(categorical)
}

// WithSize sets the figure size in points (1/72 inch; a PNG has 4/3 pixel per point).
func WithSize(wPt, hPt float64) Option {
	if !(wPt > 0 && hPt > 0) {
		panic(fmt.Sprintf("plotting.WithSize: size %gx%g is not positive", wPt, hPt))
	}
	return func(o *options) { o.width, o.height = vg.Length(wPt), vg.Length(hPt) }
}

// WithPalette replaces the categorical palette that Bar.Color and series indices select from.
func WithPalette(colors ...color.Color) Option {
	return func(o *options) { o.palette = colors }
}

// WithXLabel sets the x-axis label.
func WithXLabel(label string) Option { return func(o *options) { o.xlabel = label } }

// WithYLabel sets the y-axis label.
func WithYLabel(label string) Option { return func(o *options) { o.ylabel = label } }

// WithXUnit says that the x axis's data are in unit u (Seconds, Bytes, ...): its ticks are then
// shown in the unit that suits the range drawn (µs, ms, s; KiB, MiB, ...) and the x-axis label
// says which ("time [ms]"). For Lines, which takes no options, use Figure.XUnit.
func WithXUnit(u Unit) Option { return func(o *options) { o.xUnit = u } }

// WithColorUnit says that the values of a Heatmap or Matrix are in unit u: the colour bar's ticks
// are shown in the unit that suits its range, named above the bar ("MiB").
func WithColorUnit(u Unit) Option { return func(o *options) { o.colorUnit = u } }

// withWindow restricts a figure's x axis to [lo, hi] (XRange).
func withWindow(lo, hi float64) Option { return func(o *options) { o.window = &[2]float64{lo, hi} } }

// WithRowHeight sets the height in points of one timeline lane, heatmap row or bar; the figure
// height follows from it unless WithSize is given.
func WithRowHeight(pt float64) Option {
	return func(o *options) { o.rowHeight = vg.Length(pt) }
}

// WithColorRange fixes the colour scale of a Heatmap or Matrix to [lo, hi], for example [0, 1]
// for a dissimilarity, so that figures of different data compare; values outside get the colour
// of the nearer end. It panics unless lo < hi, both finite.
func WithColorRange(lo, hi float64) Option {
	if !(lo < hi) || !finite(lo) || !finite(hi) {
		panic(fmt.Sprintf("plotting.WithColorRange: range [%g, %g] is empty or not finite", lo, hi))
	}
	return func(o *options) { o.colorRange = &[2]float64{lo, hi} }
}

// WithXRange puts a Heatmap's or Matrix's columns on a numeric x axis from lo (left edge of the
// first column) to hi (right edge of the last), with round-valued ticks, instead of labelling or
// numbering them: time bins from t0 to t1, or 0 to 100 for percent of a run. Column labels, if
// given, are then ignored. It panics unless lo < hi, both finite.
func WithXRange(lo, hi float64) Option {
	if !(lo < hi) || !finite(lo) || !finite(hi) {
		panic(fmt.Sprintf("plotting.WithXRange: range [%g, %g] is empty or not finite", lo, hi))
	}
	return func(o *options) { o.xRange = &[2]float64{lo, hi} }
}

// WithDiverging gives a Heatmap or Matrix a diverging colour scale (blue - white - red) with white
// at 0, symmetric around 0 unless WithStretch or WithColorRange is given: for signed differences
// such as a runtime skew, so that the sign reads at a glance. Data of both signs gets it anyway.
func WithDiverging() Option { return func(o *options) { o.diverging = true } }

// WithStretch stretches the colour scale of a Heatmap or Matrix over the data's own range. By
// default the scale is anchored at 0 (it runs from 0 to the largest value, or symmetric around 0
// for signed data), so that small differences do not look large.
func WithStretch() Option { return func(o *options) { o.stretch = true } }

// WithColdWarm gives a Heatmap or Matrix a sequential cold-to-warm colour scale (blue - pale
// yellow - red, ColorBrewer's RdYlBu reversed) instead of viridis: short durations cold, long
// ones warm, as performance tools colour a metric on a timeline (Weber 2016, 6.2.3).
func WithColdWarm() Option { return func(o *options) { o.coldWarm = true } }

// WithBinMax makes a binned Heatmap or Matrix show the largest finite value of each block of
// cells instead of the mean, so that one hot cell among many (a slow rank among a thousand)
// stays visible; the axis labels say "max".
func WithBinMax() Option { return func(o *options) { o.binMax = true } }

// WithMarks draws thin vertical lines across a Heatmap at the given x values (in the units of
// WithXRange, which it needs), such as iteration boundaries on a time axis. Marks outside the
// range are ignored; when there are more marks than a quarter of the drawn columns, none are
// drawn (they would hide the cells) and the x-axis label says so.
func WithMarks(xs ...float64) Option {
	return func(o *options) { o.marks = append([]float64(nil), xs...) }
}

// categorical is Tableau 10 followed by its lighter companions (Tableau 20).
var categorical = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
	rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
	rgb(0xa0cbe8), rgb(0xffbe7d), rgb(0xff9d9a), rgb(0x8cd17d), rgb(0xb6992d),
	rgb(0xf1ce63), rgb(0x86bcb6), rgb(0xd37295), rgb(0xfabfd2), rgb(0xd4a6c8),
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// Categorical returns colour i of the stable categorical palette (Tableau 20 order, cycling;
// negative i wraps too).
func Categorical(i int) color.Color { return categorical[mod(i, len(categorical))] }

func mod(i, n int) int { return ((i % n) + n) % n }

// states is the palette of comparison states, far from every Categorical colour (CIE76 colour
// difference at least 15) so that a state never looks like a function: pale grey for equal, so
// that differences stand out, near-black for different, dark magenta and dark teal for the two
// kinds of gap.
var states = []color.Color{rgb(0xe5e5e5), rgb(0x1a1a1a), rgb(0x01665e), rgb(0x8e0152)}

// StateColor returns the colour of comparison state s of two aligned sequences, in the order of
// align.State: 0 equal, 1 different, 2 gap in A (only in B), 3 gap in B (only in A). Use it as a
// Bar's Fill. It panics for other s.
func StateColor(s int) color.Color {
	if s < 0 || s >= len(states) {
		panic(fmt.Sprintf("plotting.StateColor(%d): states are 0 (equal), 1 (different), 2 (gap in A), 3 (gap in B)", s))
	}
	return states[s]
}

// luminance in [0, 1], to choose black or white text on a coloured cell.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
