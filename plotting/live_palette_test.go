package plotting

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
)

// TestPaletted: an opaque image of at most 256 colours goes through encodePNG unchanged; with
// more, every pixel becomes the nearest colour (squared RGB distance, brute force here) of the
// 256 most frequent ones, and those keep their own colour.
func TestPaletted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 36))
	for _, ncol := range []int{1, 200, 256, 257, 3000} {
		cols := make([]color.RGBA, ncol)
		for k := range cols {
			cols[k] = color.RGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: uint8(rng.IntN(256)), A: 255}
		}
		m := image.NewRGBA(image.Rect(0, 0, 97, 61))
		for y := 0; y < 61; y++ {
			for x := 0; x < 97; x++ {
				k := rng.IntN(ncol)
				if rng.IntN(3) > 0 { // skewed counts, so that the most frequent are clear
					k = rng.IntN(min(ncol, 64))
				}
				m.SetRGBA(x, y, cols[k])
			}
		}
		b, err := encodePNG(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		counts := map[color.RGBA]int{}
		for y := 0; y < 61; y++ {
			for x := 0; x < 97; x++ {
				counts[m.RGBAAt(x, y)]++
			}
		}
		var pal []color.RGBA // the 256 most frequent, as paletted chooses them
		for c := range counts {
			pal = append(pal, c)
		}
		for i := range pal { // selection sort by count desc, colour asc (small n)
			for j := i + 1; j < len(pal); j++ {
				ki, kj := counts[pal[i]], counts[pal[j]]
				ci, cj := uint32(pal[i].R)<<16|uint32(pal[i].G)<<8|uint32(pal[i].B), uint32(pal[j].R)<<16|uint32(pal[j].G)<<8|uint32(pal[j].B)
				if kj > ki || kj == ki && cj < ci {
					pal[i], pal[j] = pal[j], pal[i]
				}
			}
		}
		pal = pal[:min(len(pal), 256)]
		d2 := func(a, b color.RGBA) int {
			dr, dg, db := int(a.R)-int(b.R), int(a.G)-int(b.G), int(a.B)-int(b.B)
			return dr*dr + dg*dg + db*db
		}
		for y := 0; y < 61; y++ {
			for x := 0; x < 97; x++ {
				want := m.RGBAAt(x, y)
				got := color.RGBAModel.Convert(back.At(x, y)).(color.RGBA)
				best := pal[0]
				for _, p := range pal {
					if d2(want, p) < d2(want, best) {
						best = p
					}
				}
				if d2(want, got) != d2(want, best) {
					t.Fatalf("%d colours: pixel (%d,%d) %v became %v, nearest of the palette is %v", ncol, x, y, want, got, best)
				}
				if len(counts) <= 256 && got != want {
					t.Fatalf("%d colours: pixel (%d,%d) %v became %v", ncol, x, y, want, got)
				}
			}
		}
	}
}
