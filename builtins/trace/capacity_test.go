package trace

import (
	"os"
	"path/filepath"
	"testing"
)

// A corrupt NumEvents in the definitions must not drive the preallocation:
// 2^38 events would be a fatal out-of-memory, not a recoverable error.
func TestEventCapacityBoundedByFile(t *testing.T) {
	evt := filepath.Join(t.TempDir(), "0.evt")
	if err := os.WriteFile(evt, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		declared uint64
		want     int
	}{{10, 10}, {500, 500}, {501, 500}, {1 << 38, 500}, {^uint64(0), 500}} {
		if got := eventCapacity(c.declared, evt); got != c.want {
			t.Errorf("eventCapacity(%d) = %d, want %d", c.declared, got, c.want)
		}
	}
	if got := eventCapacity(1<<38, evt+".missing"); got != 0 {
		t.Errorf("missing file: %d", got)
	}
}
