package session

import (
	"path/filepath"
	"sort"
	"strings"
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
	seen := map[string]bool{}
	for _, h := range hs {
		if seen[h.name] {
			t.Fatalf("two sequences named %q", h.name)
		}
		seen[h.name] = true
		t.Run(strings.ReplaceAll(h.name, " ", "_"), func(t *testing.T) {
			s, out, errb, panics := newTest(t)
			for run := 1; run <= 2; run++ {
				for i, st := range h.steps {
					if got := habitOutput(s, out, errb, panics, st.cell); got != st.want {
						t.Errorf("run %d, cell %d:\n%s\n--- got:\n%s\n--- want:\n%s", run, i+1, st.cell, got, st.want)
					}
				}
			}
		})
	}
}
