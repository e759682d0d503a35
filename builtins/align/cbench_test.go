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
		t0 := time.Now()
		res := Align(in.a, in.b)
		goT := time.Since(t0)
		t.Logf("%s: Go Auto (%v) score %d in %v", in.name, res.Method, res.Score, goT)
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
	name   string
	a, b   []int32
	cModes []string
}

func benchInputs() []benchInput {
	r := rand.New(rand.NewSource(7))
	a20, b20 := randomSeq(r, 20000, 20), randomSeq(r, 20000, 20)
	a100 := randomSeq(r, 100000, 20)
	b100 := mutate(r, a100, 0.05, 20)
	la, lb := weberSets[3].gen(1_000_000)
	a10, b10 := randomSeq(r, 10000, 20), randomSeq(r, 10000, 20)
	return []benchInput{
		{"random10k", a10, b10, []string{"full", "score"}},
		{"random20k", a20, b20, []string{"full", "score"}},
		{"equal95_100k", a100, b100, []string{"score"}},
		{"largeEqualBlocks1M", la, lb, nil}, // C NW: 1e12 cells, not run
	}
}
