package otf2

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// FuzzReadEvents feeds arbitrary bytes to the event decoder (as an event
// file with 4 KiB chunks, and as local definitions): it must return events
// or a *Error, never panic. The corpus is under testdata/fuzz.
func FuzzReadEvents(f *testing.F) {
	for _, p := range []string{"ping-pong-otf2/traces/0.evt", "ping-pong-otf2-papi/traces/1.evt", "ping-pong-otf2/traces/1.def"} {
		if b, err := os.ReadFile(filepath.Join(tooltest.Traces(), p)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var e *Error
		for _, chunk := range []int{4096, len(data) + 1} {
			n := 0
			_, err := readEvents("fuzz.evt", bytes.NewReader(data), chunk, &LocalDefs{}, func(ev *Event) error {
				n++
				return nil
			})
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
		}
		if _, err := readLocalDefs("fuzz.def", bytes.NewReader(data), len(data)+1); err != nil && !errors.As(err, &e) {
			t.Fatalf("error %T %v", err, err)
		}
	})
}
