package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// print and println write to standard error in the runtime's format
// (expected outputs from the same code compiled with Go 1.26).
func TestTracebookPrint(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`println(int64(-7), uint8(7), uintptr(7), 8.0, 1.5, float32(0.1), complex(9.0, 10.0), true, "hi")`,
			"-7 7 7 8 1.5 0.1 (9+10i) true hi\n"},
		{`println((interface{})(nil), (map[int]int)(nil), ([]int)(nil), (chan int)(nil), (func())(nil), (*int)(nil))`,
			"(0x0,0x0) 0x0 [0/0]0x0 0x0 0x0 0x0\n"},
		{`print(-(1<<63), "\n"); print((1<<63)-1, "\n")`, "-9223372036854775808\n9223372036854775807\n"},
		{`print("a", 1, 2, "\n")`, "a12\n"},
		{"func f() { defer println(\"deferred\", 3); println(\"body\") }\n--\nf()", "body\ndeferred 3\n"},
		{`println((interface{ M() })(nil))`, "(0x0,0x0)\n"},
		{`xs := make([]byte, 2, 5); print(len(xs)); println()`, "2\n"},
	} {
		var stdout, stderr bytes.Buffer
		i := interp.New(interp.Options{Stdout: &stdout, Stderr: &stderr})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		var err error
		for _, part := range strings.Split(c.src, "\n--\n") {
			if _, err = i.Eval(part); err != nil {
				break
			}
		}
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if stderr.String() != c.want || stdout.Len() != 0 {
			t.Errorf("%s:\nstderr %q\nstdout %q\nwant on stderr %q", c.src, stderr.String(), stdout.String(), c.want)
		}
	}
}
