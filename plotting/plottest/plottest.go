// Package plottest reads figures as users see them, for tests of the builtins that make them:
// the strings a figure draws (titles, axis labels, tick labels, legend entries, colour-bar
// ticks), read from its SVG.
package plottest

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/plotting"
)

// Texts returns the strings f draws, in drawing order; a figure that cannot
// be drawn or read fails the test.
func Texts(t testing.TB, f *plotting.Figure) []string {
	t.Helper()
	out, err := texts(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func texts(f *plotting.Figure) ([]string, error) {
	b, err := f.SVG()
	if err != nil {
		return nil, err
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var out []string
	in := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch x := tok.(type) {
		case xml.StartElement:
			in = x.Name.Local == "text"
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in {
				out = append(out, string(x))
			}
		}
	}
}

// Exponents returns the numbers among texts written with an exponent ("1e-06", "4e+06"): tick
// labels of an axis or colour bar without a unit suited to its range.
func Exponents(texts []string) []string {
	var bad []string
	for _, s := range texts {
		if _, err := strconv.ParseFloat(s, 64); err == nil && strings.ContainsAny(s, "eE") {
			bad = append(bad, s)
		}
	}
	return bad
}

// HasPrefix returns the first of texts that starts with prefix, and whether there is one.
func HasPrefix(texts []string, prefix string) (string, bool) {
	for _, s := range texts {
		if strings.HasPrefix(s, prefix) {
			return s, true
		}
	}
	return "", false
}
