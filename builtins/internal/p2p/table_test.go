package p2p_test

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
)

// ccg.Messages and profile.Messages share the matcher and the table: the
// same columns with the same types and units, and on the ping-pong trace
// the same rows.
func TestMessageTablesAgree(t *testing.T) {
	tr, err := trace.Load("../../../test/data/traces/ping-pong-otf2/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	a := profile.Messages(tr).Table()
	b := ccg.Messages(ccg.BuildTrace(tr, ccg.Bounds{})).Table()
	if a.NumRows() == 0 {
		t.Fatal("no messages on the ping-pong trace")
	}
	sa, sb := a.Schema(), b.Schema()
	if !sa.Equal(sb) || !sa.HasMetadata() && sb.HasMetadata() {
		t.Fatalf("schemas differ:\nprofile %v\nccg     %v", sa, sb)
	}
	for i, f := range sa.Fields() {
		if f.Name != p2p.TableColumns[i] {
			t.Errorf("column %d is %q, want %q", i, f.Name, p2p.TableColumns[i])
		}
		if g := sb.Field(i); !f.Metadata.Equal(g.Metadata) {
			t.Errorf("column %s: metadata %v and %v", f.Name, f.Metadata, g.Metadata)
		}
	}
	if a.String() != b.String() {
		t.Errorf("rows differ:\nprofile %s\nccg     %s", a, b)
	}
}
