package trace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// FuzzFromTable feeds arbitrary bytes, as a pipit CSV events table, to Load (arrowio.ReadCSV,
// then FromTable): a trace or an *Error naming the file, never a panic. A trace it returns
// summarises, and its events table maps back to a trace of as many events.
func FuzzFromTable(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(tooltest.Traces(), "csv", "ping-pong-csv.csv")); err == nil {
		f.Add(b[:min(len(b), 4096)])
	}
	f.Add([]byte("Timestamp (ns),Event Type,Name,Thread,Process,Attributes\n" +
		"0,Enter,main,0,0,\n5,Instant,MpiSend,0,0,\"{'receiver': 1, 'communicator': 'Comm 1', 'msg_tag': 3, 'msg_length': 8}\"\n" +
		"7,Instant,MpiRecv,0,1,\"{'sender': 0, 'communicator': 'Comm 1', 'msg_tag': 3, 'msg_length': 8}\"\n9,Leave,main,0,0,\n"))
	f.Add([]byte("Timestamp (s),Event Type,Name,Process,Collective,Root,Bytes sent,Bytes received,Communicator\n" +
		"0.5,Instant,MpiCollectiveEnd,3,MPI_Bcast,0,8,8,world\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := Load(path)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Path != path {
				t.Fatalf("error %T %v, want an *Error naming %s", err, err, path)
			}
			return
		}
		_ = tr.Summary()
		_ = tr.Profile()
		back, err := FromTable(tr.Events())
		if err != nil {
			t.Fatalf("the events table of a trace read from a table: %v", err)
		}
		if back.NumEvents() != tr.NumEvents() {
			t.Fatalf("%d events, %d after a round trip through Events", tr.NumEvents(), back.NumEvents())
		}
	})
}
