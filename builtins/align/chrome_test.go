package align

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The export of a sequence alignment: each pair lasts 1 µs, the states
// track holds one event per run of equal states (an oracle computed from
// the state row of AlignedStrings), and each side's track one event per
// symbol it has.
func TestWriteChromeSequences(t *testing.T) {
	r := Strings("GATTACAGG", "GCATGCAG")
	path := filepath.Join(t.TempDir(), "s.json")
	r.WriteChrome(path)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Name string
			Tid      int
			Ts, Dur  json.Number
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// runs of the state row: '=' Equal, '!' Diff, '-' a gap (in A or B)
	_, _, states := r.AlignedStrings()
	type run struct {
		name  string
		start int
		n     int
	}
	var want []run
	names := stateNames(r.sides.run(true, r.LabelA), r.sides.run(false, r.LabelB))
	for k := range r.Len() {
		nm := names[r.state[k]]
		if len(want) > 0 && want[len(want)-1].name == nm {
			want[len(want)-1].n++
			continue
		}
		want = append(want, run{nm, k, 1})
	}
	if len(states) == 0 {
		t.Fatal("no state row")
	}
	var got []run
	perTid := map[int]int{}
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		perTid[e.Tid]++
		if e.Tid != 1 {
			continue
		}
		ts, _ := e.Ts.Float64()
		dur, _ := e.Dur.Float64()
		n := int(dur)
		if float64(n) != dur || e.Args["pairs"] != strconv.Itoa(n) {
			t.Fatalf("state run %q lasts %v µs but has %v pairs", e.Name, dur, e.Args["pairs"])
		}
		got = append(got, run{e.Name, int(ts), n})
	}
	if len(got) != len(want) {
		t.Fatalf("state runs %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("state run %d: %v, want %v", i, got[i], want[i])
		}
	}
	eq, diff, gapA, gapB := r.Counts()
	if perTid[0] != eq+diff+gapB || perTid[2] != eq+diff+gapA {
		t.Fatalf("A has %d events (want %d), B %d (want %d)", perTid[0], eq+diff+gapB, perTid[2], eq+diff+gapA)
	}
}
