package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Each forged message wrote a log line: 10,000 lines from a burst.
func TestRateLog(t *testing.T) {
	var lines []string
	r := newRateLog(func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }, time.Hour)
	for i := 0; i < 10000; i++ {
		r.printf("dropped %d", i)
	}
	if len(lines) != 1 {
		t.Fatalf("%d log lines for a burst of 10,000 in one period", len(lines))
	}
	r.last = time.Now().Add(-2 * time.Hour)
	r.printf("dropped again")
	if len(lines) != 2 || !strings.Contains(lines[1], "9999 more") {
		t.Fatalf("the next line does not count what was held back: %q", lines)
	}
}
