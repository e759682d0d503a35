package disttest

import (
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/waits"
)

// The wait-state analysis: the per-location part on the job, the matching,
// the wait states, the delays and the critical path here.
func init() {
	Add(Case{Name: "waits.Analyze", Run: func(tr *trace.Trace) (string, error) {
		return structureRun(func(b *strings.Builder) {
			r := waits.Analyze(tr)
			b.WriteString(r.String() + "\n")
			structureTables(b, "waits", r.Table(), r.Instances(), r.Processes(), r.Delays(), r.CriticalPath(), r.Segments())
		})
	}})
}
