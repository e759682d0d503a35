package projections

import (
	"io"
	"strings"
	"testing"
)

// TestLogLineTooLong: a log line beyond maxLine is an error naming the line,
// not a buffer that grows with the line.
func TestLogLineTooLong(t *testing.T) {
	long := "6 " + strings.Repeat("1 ", maxLine) + "\n"
	lr := NewLogReader(strings.NewReader("PROJECTIONS-RECORD 1\n"+long), "x.log", &Sts{Version: 11})
	var rec Record
	var err error
	for err == nil {
		err = lr.Next(&rec)
	}
	if err == io.EOF || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("got %v, want a too-long-line error at line 2", err)
	}
}
