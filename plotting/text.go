package plotting

import (
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Text that must fit (titles, lane and tick labels, legend entries) is measured with the font it
// is drawn in and shortened or wrapped to the space it has, never cut by the canvas edge.

// ellipsis marks text shortened to fit.
const ellipsis = "…"

// fitWidth returns s if it is at most w wide in sty, otherwise its longest prefix that fits with
// "…" appended (just "…" if nothing else fits).
func fitWidth(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	r := []rune(s)
	// Binary search for the longest prefix that fits with the ellipsis.
	lo, hi := 0, len(r)
	for lo < hi {
		m := (lo + hi + 1) / 2
		if sty.Width(strings.TrimRight(string(r[:m]), " ")+ellipsis) <= w {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return strings.TrimRight(string(r[:lo]), " ") + ellipsis
}

// fitMiddle returns s if it is at most w wide in sty, otherwise its start and its end, as long
// as fit, joined by "…" ("very-long-na…device=0"): names that differ at their end (device=0,
// device=1) stay distinct, as legends and lane labels need. The start gets the odd character.
func fitMiddle(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	r := []rune(s)
	cut := func(n int) string { // n characters kept
		head, tail := (n+1)/2, n/2
		return strings.TrimRight(string(r[:head]), " ") + ellipsis + strings.TrimLeft(string(r[len(r)-tail:]), " ")
	}
	lo, hi := 0, len(r)-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if sty.Width(cut(m)) <= w {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return cut(lo)
}

// fitLines breaks s at spaces into at most maxLines lines, each at most w wide in sty, and
// shortens the last line with "…" if s does not fit (and any word wider than a line). Lines are
// joined with "\n", which gonum's text handler draws as separate lines.
func fitLines(sty text.Style, s string, w vg.Length, maxLines int) string {
	if maxLines <= 1 || sty.Width(s) <= w {
		return fitWidth(sty, s, w)
	}
	words := strings.Fields(s)
	var lines []string
	for len(words) > 0 {
		if len(lines) == maxLines-1 {
			lines = append(lines, fitWidth(sty, strings.Join(words, " "), w))
			break
		}
		n := 1 // as many words as fit, at least one
		for n < len(words) && sty.Width(strings.Join(words[:n+1], " ")) <= w {
			n++
		}
		lines = append(lines, fitWidth(sty, strings.Join(words[:n], " "), w))
		words = words[n:]
	}
	return strings.Join(lines, "\n")
}
