package plotting

import (
	"bytes"
	"cmp"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
)

// liveJS is the viewer: plain JS and canvas 2D, defined once per page as
// window.tracebookTimeline.
//
//go:embed live/timeline.js
var liveJS string

// liveFigureBars is the most bars the static figure takes as they are; above, it takes them
// merged at 1/2000 of its range (about its pixel at 192 dpi: it merges at a pixel anyway).
const liveFigureBars = 200000

// liveFallbackBytes is the largest 192-dpi PNG that a bundle holds (as its fallback image and
// as image/png); a larger one is replaced by the 96-dpi PNG.
const liveFallbackBytes = 512 << 10

// String returns "<LiveTimeline title: N lanes, M bars, K messages>".
func (lt *LiveTimeline) String() string {
	n := 0
	for _, l := range lt.Lanes {
		n += len(l.Bars)
	}
	return fmt.Sprintf("<LiveTimeline %s: %d lanes, %d bars, %d messages>", lt.Title, len(lt.Lanes), n, len(lt.Messages))
}

// Plot returns the static figure (Figure).
func (lt *LiveTimeline) Plot() *Figure { return lt.Figure() }

// Figure returns the static figure of the timeline: a Timeline of the call, accelerator, folded
// and state lanes (counter lanes keep an empty row), coloured exactly as the interactive view
// colours the labels, over [Start, End] if set, with counter lanes as step lines and messages
// as lines (at most 5000, one in k beyond). Markers and shades are not drawn.
// Beyond 200000 bars, the figure is drawn from the bars merged at about its pixel.
func (lt *LiveTimeline) Figure() *Figure {
	ix, err := lt.index()
	if err != nil {
		return &Figure{title: lt.Title, width: defaultWidth, height: 120, note: err.Error()}
	}
	return lt.figure(ix)
}

func (lt *LiveTimeline) figure(ix *liveIndex) *Figure {
	_, slots, _ := ix.colors()
	lo, hi := ix.lo, ix.hi
	if lt.End > lt.Start {
		lo, hi = lt.Start, lt.End
	}
	res := 0.0
	if ix.nbars > liveFigureBars {
		res = float64(hi-lo) / liveColumns
	}
	lanes := make([]Lane, len(lt.Lanes))
	for li, l := range lt.Lanes {
		lanes[li] = Lane{Name: l.Name, FullHeight: l.Kind == LaneStates || l.Kind == LaneFolded}
		var bars []Bar
		ix.mergeLane(lt, li, res, func(d int, g liveGroup) {
			if g.end < lo || g.start > hi {
				return
			}
			b := l.Bars[g.idx]
			bar := Bar{Start: float64(g.start), End: float64(g.end), Level: d, Label: b.Label, Fill: b.Fill, Color: -1}
			if b.Fill == nil {
				bar.Color = slots[g.label]
			}
			bars = append(bars, bar)
		})
		lanes[li].Bars = bars
	}
	opts := []Option{WithXUnit(Nanoseconds)}
	if lt.End > lt.Start {
		opts = append(opts, withWindow(float64(lo), float64(hi)))
	}
	f := Timeline(lt.Title, lanes, opts...)
	if f.plot != nil && (len(lt.Messages) > 0 || hasCounters(lt)) {
		p := *f.plot // Timeline's plot is not shared yet, but keep it untouched anyway
		p.Add(liveOverlay{lt: lt})
		f.plot = &p
	}
	return f
}

// halfImage scales an image to half its width and height, each pixel the mean of four.
func halfImage(src image.Image) *image.RGBA {
	r := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx()/2, r.Dy()/2))
	var pix []uint8 // 8-bit RGBA rows of an opaque image, read directly
	stride := 0
	switch m := src.(type) {
	case *image.RGBA:
		pix, stride = m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride
	case *image.NRGBA:
		if m.Opaque() {
			pix, stride = m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride
		}
	}
	if pix != nil {
		for y := 0; y < r.Dy()/2; y++ {
			for x := 0; x < r.Dx()/2; x++ {
				i, o := 2*y*stride+8*x, dst.PixOffset(x, y)
				for ch := 0; ch < 4; ch++ {
					sum := uint32(pix[i+ch]) + uint32(pix[i+4+ch]) + uint32(pix[i+stride+ch]) + uint32(pix[i+stride+4+ch])
					dst.Pix[o+ch] = uint8(sum / 4)
				}
			}
		}
		return dst
	}
	for y := 0; y < r.Dy()/2; y++ {
		for x := 0; x < r.Dx()/2; x++ {
			var sum [4]uint32
			for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				c := color.RGBAModel.Convert(src.At(r.Min.X+2*x+d[0], r.Min.Y+2*y+d[1])).(color.RGBA)
				sum[0] += uint32(c.R)
				sum[1] += uint32(c.G)
				sum[2] += uint32(c.B)
				sum[3] += uint32(c.A)
			}
			dst.SetRGBA(x, y, color.RGBA{R: uint8(sum[0] / 4), G: uint8(sum[1] / 4), B: uint8(sum[2] / 4), A: uint8(sum[3] / 4)})
		}
	}
	return dst
}

// encodePNG encodes an image as PNG at the standard library's default compression; an opaque
// RGBA image as a paletted PNG (see paletted).
func encodePNG(m image.Image) ([]byte, error) {
	if rgba, ok := m.(*image.RGBA); ok && rgba.Opaque() {
		m = paletted(rgba)
	}
	var out bytes.Buffer
	if err := png.Encode(&out, m); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// paletted converts an opaque image to 256 colours: exactly when it has at most 256 (a
// timeline's flat bars and text mostly do), else its 256 most frequent colours, every other
// colour (the anti-aliased edges) drawn in the nearest of them. A timeline's PNG is a third of
// its RGBA size so: the image is in a notebook twice (the fallback of the HTML view and
// image/png).
func paletted(m *image.RGBA) *image.Paletted {
	r := m.Bounds()
	key := func(i int) uint32 { return uint32(m.Pix[i])<<16 | uint32(m.Pix[i+1])<<8 | uint32(m.Pix[i+2]) }
	// Runs of one colour (bars, background) are counted at once: a map access per run, not
	// per pixel.
	counts := map[uint32]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := m.PixOffset(r.Min.X, y)
		run, n := key(i), 0
		for x := r.Min.X; x < r.Max.X; x, i = x+1, i+4 {
			if k := key(i); k != run {
				counts[run] += n
				run, n = k, 0
			}
			n++
		}
		counts[run] += n
	}
	colors := make([]uint32, 0, len(counts))
	for c := range counts {
		colors = append(colors, c)
	}
	// most frequent first, ties by colour: the same image gives the same palette
	slices.SortFunc(colors, func(a, b uint32) int {
		if d := counts[b] - counts[a]; d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})
	n := min(len(colors), 256)
	pal := make(color.Palette, n)
	index := make(map[uint32]uint8, len(colors))
	for k, c := range colors[:n] {
		pal[k] = color.RGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 255}
		index[c] = uint8(k)
	}
	for _, c := range colors[n:] {
		best, bestD := 0, int64(math.MaxInt64)
		for k, p := range colors[:n] {
			dr, dg, db := int64(c>>16&255)-int64(p>>16&255), int64(c>>8&255)-int64(p>>8&255), int64(c&255)-int64(p&255)
			if d := dr*dr + dg*dg + db*db; d < bestD {
				best, bestD = k, d
			}
		}
		index[c] = uint8(best)
	}
	out := image.NewPaletted(r, pal)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i, o := m.PixOffset(r.Min.X, y), out.PixOffset(r.Min.X, y)
		last, li := key(i), index[key(i)]
		for x := r.Min.X; x < r.Max.X; x, i, o = x+1, i+4, o+1 {
			if k := key(i); k != last {
				last, li = k, index[k]
			}
			out.Pix[o] = li
		}
	}
	return out
}

// liveDenseBars is the number of bars above which a timeline's PNG is drawn at 96 dpi at once:
// its 192-dpi PNG would exceed liveFallbackBytes, and drawing and encoding four times the
// pixels to scale them down took most of the time of a bundle of 10M events.
const liveDenseBars = 100000

// figurePNGs renders f once at 192 dpi and encodes it and its 96-dpi half concurrently; the
// 192-dpi PNG if it is at most liveFallbackBytes, else the 96-dpi one (a dense timeline: a
// third of the bytes, and what a notebook shows at its size anyway). A dense figure (bars >
// liveDenseBars) is drawn at 96 dpi directly.
func figurePNGs(f *Figure, bars int) ([]byte, error) {
	if bars > liveDenseBars {
		img, err := f.image(1)
		if err != nil {
			return nil, err
		}
		return encodePNG(img)
	}
	img, err := f.image(displayScale)
	if err != nil {
		return nil, err
	}
	var small []byte
	var smallErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		small, smallErr = encodePNG(halfImage(img))
	}()
	full, err := encodePNG(img)
	<-done
	if err != nil {
		return nil, err
	}
	if len(full) > liveFallbackBytes && smallErr == nil {
		return small, nil
	}
	return full, nil
}

func hasCounters(lt *LiveTimeline) bool {
	for _, l := range lt.Lanes {
		if l.Kind == LaneCounter && len(l.Samples) > 0 {
			return true
		}
	}
	return false
}

// MIMEBundle is the kernel's display contract: "text/html" is one <div class="tb-timeline">
// holding the static PNG as an <img> (what front ends that do not run scripts show: GitHub,
// untrusted notebooks), the data as JSON and an inline script that replaces the image by the
// interactive view (canvas; no network, no libraries; the viewer code is defined once per page
// as window.tracebookTimeline); "image/png" is the same static Figure (at 192 dpi, or at 96 dpi
// when that PNG would exceed 512 KiB: a dense timeline) and "text/plain"
// String. The data is bounded by Budget: bars exactly if they fit, else levels of bars merged
// at resolutions span/(2000*2^k) (see the notes under the view).
func (lt *LiveTimeline) MIMEBundle() map[string]any {
	elem, png, err := lt.element()
	if err != nil {
		return map[string]any{"text/plain": lt.String() + ": " + err.Error()}
	}
	return map[string]any{"text/html": elem, "image/png": png, "text/plain": lt.String()}
}

// MIMEMetadata gives the PNG's size in CSS pixels, as Figure.MIMEMetadata.
func (lt *LiveTimeline) MIMEMetadata() map[string]any {
	// The size of Timeline's figure, without building it: it follows from the number of lanes
	// and of call levels.
	levels, some := 0, false
	for _, l := range lt.Lanes {
		for _, b := range l.Bars {
			some = true
			if l.Kind == LaneCalls || l.Kind == LaneAccelerator {
				levels = max(levels, b.Level+1)
			} else {
				levels = max(levels, 1)
			}
		}
	}
	w, h := vg.Length(defaultWidth), vg.Length(120)
	if some {
		rowH := vg.Length(max(16, min(40, 9*levels)))
		h = min(max(70+rowH*vg.Length(len(lt.Lanes)), 160), 1400)
	}
	return map[string]any{"image/png": map[string]any{"width": pixels(w), "height": pixels(h)}}
}

// SaveHTML writes the interactive view as a standalone HTML page (no network needed). A save
// that fails panics with an error naming the file and the cause, as Figure.Save.
func (lt *LiveTimeline) SaveHTML(path string) {
	elem, _, err := lt.element()
	if err == nil {
		page := "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(lt.Title) +
			"</title></head>\n<body style=\"font-family:sans-serif;margin:12px\">\n" + elem + "\n</body></html>\n"
		err = os.WriteFile(path, []byte(page), 0o644)
	}
	if err != nil {
		panic(fmt.Errorf("plotting: %s: %w", path, err))
	}
}

// element returns the HTML element of the view and the PNG inside it.
func (lt *LiveTimeline) element() (string, []byte, error) {
	d, ix, err := lt.data()
	if err != nil {
		return "", nil, fmt.Errorf("LiveTimeline %q: %w", lt.Title, err)
	}
	f := lt.figure(ix)
	png, err := figurePNGs(f, ix.nbars)
	if err != nil {
		return "", nil, err
	}
	js, err := json.Marshal(d)
	if err != nil {
		return "", nil, fmt.Errorf("LiveTimeline %q: %w", lt.Title, err)
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", nil, err
	}
	elemID := "tb-tl-" + hex.EncodeToString(id[:])
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="tb-timeline" id="%s" data-t0="%d" data-t1="%d">`, elemID, d.T0, d.T1)
	fmt.Fprintf(&b, `<img class="tb-fallback" src="data:image/png;base64,%s" width="%d" height="%d" alt="%s">`,
		base64.StdEncoding.EncodeToString(png), pixels(f.width), pixels(f.height), html.EscapeString(lt.Title))
	b.WriteString(`<script type="application/json" class="tb-data">`)
	b.Write(js) // json.Marshal escapes <, > and &, so the data cannot end the script
	b.WriteString("</script><script>\n")
	b.WriteString(liveJS)
	fmt.Fprintf(&b, "\nwindow.tracebookTimeline.mount(%q);\n</script></div>", elemID)
	return b.String(), png, nil
}
