package align

import (
	"encoding/binary"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCBaseline writes the benchmark inputs, builds testdata/cbench/nw.c
// with gcc -O2 and runs it next to the Go Auto method. Opt-in:
//
//	TRACEBOOK_CBENCH=1 go test -run CBaseline -v ./builtins/align/
func TestCBaseline(t *testing.T) {
	if os.Getenv("TRACEBOOK_CBENCH") == "" {
		t.Skip("set TRACEBOOK_CBENCH=1")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "nw")
	if out, err := exec.Command("gcc", "-O2", "-o", bin, "testdata/cbench/nw.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	write := func(name string, s []int32) string {
		p := filepath.Join(dir, name)
		buf := make([]byte, 4*len(s))
		for i, x := range s {
			binary.LittleEndian.PutUint32(buf[4*i:], uint32(x))
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, in := range benchInputs() {
		pa, pb := write(in.name+".a", in.a), write(in.name+".b", in.b)
		cells := float64(len(in.a)) * float64(len(in.b))
		for _, m := range in.methods {
			best := time.Duration(1 << 62)
			var res *Alignment
			for rep := 0; rep < 3; rep++ {
				t0 := time.Now()
				res = Align(in.a, in.b, WithMethod(m))
				best = min(best, time.Since(t0))
			}
			t.Logf("%s: Go %v (ran %v) score %d in %v (best of 3): %.4f ns/cell, %.2f Gcells/s per core (2 cores)",
				in.name, m, res.Method, res.Score, best, float64(best.Nanoseconds())/cells, cells/best.Seconds()/2e9)
			if m == Auto {
				t.Logf("%s: Auto: %s", in.name, res.Why)
			}
		}
		for _, mode := range in.cModes {
			out, err := exec.Command(bin, mode, pa, pb).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", in.name, mode, err, out)
			}
			t.Logf("%s: C %s", in.name, out)
		}
	}
}

type benchInput struct {
	name    string
	a, b    []int32
	methods []Method
	cModes  []string
}

func benchInputs() []benchInput {
	r := rand.New(rand.NewSource(7))
	a20, b20 := randomSeq(r, 20000, 20), randomSeq(r, 20000, 20)
	a100 := randomSeq(r, 100000, 20)
	b100 := mutate(r, a100, 0.05, 20)
	la, lb := weberSets[3].gen(1_000_000)
	a10, b10 := randomSeq(r, 10000, 20), randomSeq(r, 10000, 20)
	a4, b4 := randomSeq(r, 20000, 4), randomSeq(r, 20000, 4)
	r100a, r100b := randomSeq(r, 100000, 4), randomSeq(r, 100000, 4)
	exact := []Method{Auto, BitParallel, BiWFA}
	return []benchInput{
		{"random10k", a10, b10, exact, []string{"full", "score"}},
		{"random20k_sigma20", a20, b20, exact, []string{"full", "score"}},
		{"random20k_sigma4", a4, b4, exact, []string{"full", "score"}},
		{"random100k_sigma4", r100a, r100b, []Method{Auto}, []string{"score"}},
		{"equal95_100k", a100, b100, []Method{Auto, BiWFA}, []string{"score"}},
		{"largeEqualBlocks1M", la, lb, []Method{Auto}, nil}, // C NW: 1e12 cells, not run
	}
}
