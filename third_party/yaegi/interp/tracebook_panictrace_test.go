package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// A panic that interpreted code recovers prints nothing (as in Go); one
// that leaves the program still writes its interpreted stack to stderr.
func TestTracebookRecoveredPanicSilent(t *testing.T) {
	var stderr bytes.Buffer
	i := interp.New(interp.Options{Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(`
func div(a, b int) int { return a / b }
func inner() int { return div(1, 0) }
func safe() (err any) {
	defer func() { err = recover() }()
	inner()
	return nil
}
func run() string {
	s := ""
	for k := 0; k < 3; k++ {
		s += fmtAny(safe())
	}
	return s
}
func fmtAny(x any) string {
	if e, ok := x.(error); ok {
		return e.Error() + ";"
	}
	return "?;"
}
`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval(`run()`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Interface().(string); got != strings.Repeat("runtime error: integer divide by zero;", 3) {
		t.Errorf("run() = %q", got)
	}
	if stderr.Len() != 0 {
		t.Errorf("recovered panics printed %q", stderr.String())
	}
	_, err = i.Eval(`inner()`)
	if err == nil || !strings.Contains(err.Error(), "divide by zero") {
		t.Fatalf("inner(): err %v", err)
	}
	if n := strings.Count(stderr.String(), "panic: "); n < 2 {
		t.Errorf("an unrecovered panic wrote %d frames: %q", n, stderr.String())
	}
}
