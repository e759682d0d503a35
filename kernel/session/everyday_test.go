package session

import (
	"path/filepath"
	"sort"
	"testing"
)

// The everyday table (testdata/everyday/*.txt, the habits format) holds
// cell sequences of ordinary Go whose results an interpreter can get
// silently wrong: per-iteration loop variables, every assignment form of a
// channel receive, tuple assignments, type switches, methods of cell types
// seen by compiled code, generics, declarations in any order. Each expected
// output is what the same code prints compiled with Go 1.26. Every sequence
// runs twice in one session, the second time after the first: re-running
// cells must give the same result.

func TestEveryday(t *testing.T) {
	files, err := filepath.Glob("testdata/everyday/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var hs []habit
	for _, f := range files {
		hs = append(hs, loadHabits(t, f)...)
	}
	if len(hs) < 80 {
		t.Fatalf("%d sequences in the everyday table; the issue asks for at least 80", len(hs))
	}
	runHabits(t, hs, 2)
}
