package interp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// make and append ask Options.Reserve before allocating 1 MiB or more, and
// panic with its error instead of allocating.
func TestTracebookReserve(t *testing.T) {
	var asked []string
	var out strings.Builder
	i := interp.New(interp.Options{Stdout: &out, Stderr: &strings.Builder{}, Reserve: func(what string, bytes int64) error {
		asked = append(asked, fmt.Sprintf("%s %d", what, bytes))
		if bytes > 64<<20 {
			return fmt.Errorf("%s needs %d bytes", what, bytes)
		}
		return nil
	}})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	evalTB(t, i, "import \"fmt\"")
	evalTB(t, i, "x := 7\nsmall := make([]int, 1000)\nok := make([]byte, 2<<20)\nb63 := make([]byte, 63<<20)\nb64 := make([]byte, 64<<20)")
	for _, c := range []struct{ src, want string }{
		{"make([]byte, 30<<30)", "make([]uint8, 32212254720) needs 32212254720 bytes"},
		{"make([]int64, 1<<62)", "make([]int64, 4611686018427387904) needs 9223372036854775807 bytes"},
		{"make([]int, 0, 1<<30)", "make([]int, 1073741824) needs 8589934592 bytes"},
		{"make(map[int64]int64, 1<<30)", "make(map[int64]int64, 1073741824) needs 17179869184 bytes"},
		{"make(chan [1024]byte, 1<<20)", "make(chan [1024]uint8, 1048576) needs 1073741824 bytes"},
		{"append(ok, b63...)", "append to []uint8 of length 2097152 needs 68157440 bytes"},
		{"append(b64, 1)", "append to []uint8 of length 67108864 needs 67108865 bytes"},
		{"append(b64, 1, 2)", "append to []uint8 of length 67108864 needs 67108866 bytes"},
	} {
		_, err := i.Eval(c.src)
		p, isPanic := err.(interp.Panic)
		if !isPanic || fmt.Sprint(p.Value) != c.want {
			t.Errorf("%s: %v, want a panic %q", c.src, err, c.want)
		}
	}
	evalTB(t, i, "fmt.Println(x, len(small), len(ok))")
	if got := out.String(); got != "7 1000 2097152\n" {
		t.Errorf("output %q", got)
	}
	if len(asked) == 0 || asked[0] != "make([]uint8, 2097152) 2097152" {
		t.Errorf("asked %q", asked)
	}
}
