package trace_test

import (
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// TestRunNames: a run is named by trace.Named, else by the name its export
// carries, else by its archive's directory (every Score-P anchor is
// traces.otf2), else by its file, else by its generator (issue 32, point 6).
func TestRunNames(t *testing.T) {
	pp := filepath.Join(tooltest.Traces(), "ping-pong-otf2", "traces.otf2")
	if got := trace.Open(pp).Name(); got != "ping-pong-otf2" {
		t.Errorf("Open(%s).Name() = %q, want the archive's directory", pp, got)
	}
	if got := trace.Open(filepath.Dir(pp)).Name(); got != "ping-pong-otf2" {
		t.Errorf("Open of the archive directory: Name() = %q", got)
	}
	named := trace.Open(pp, trace.WithName("baseline"))
	if got := named.Name(); got != "baseline" {
		t.Errorf("Named: Name() = %q", got)
	}
	// an export carries the name, whatever the file is called; Named still wins
	dir := t.TempDir()
	for _, ext := range []string{".parquet", ".arrow"} {
		p := filepath.Join(dir, "events"+ext)
		arrowio.Write(p, named.Events())
		if got := trace.Open(p).Name(); got != "baseline" {
			t.Errorf("export %s: Name() = %q, want the exported run's name", ext, got)
		}
		if got := trace.Open(p, trace.WithName("x")).Name(); got != "x" {
			t.Errorf("export %s opened Named(x): Name() = %q", ext, got)
		}
	}
	if got := trace.Open(filepath.Join(tooltest.Traces(), "csv", "foo-bar.csv")).Name(); got != "foo-bar" {
		t.Errorf("CSV: Name() = %q, want the file's stem", got)
	}
	cfg := synth.DefaultGenConfig()
	a := synth.Generate(cfg)
	cfg.Version = 1
	b := synth.Generate(cfg)
	if a.Name() == "" || a.Name() == b.Name() {
		t.Errorf("generated runs of two code versions are named %q and %q", a.Name(), b.Name())
	}
	if s := synth.GenerateSMG(synth.SMG2000Config(4, 8000)); s.Name() == "" {
		t.Error("GenerateSMG: no name")
	}
	// a generator's name is a fallback: an export of a generated run is
	// named by its file (v1.parquet and v2.parquet of one generator stay apart)
	p := filepath.Join(dir, "v1.parquet")
	arrowio.Write(p, a.Events())
	if got := trace.Open(p).Name(); got != "v1" {
		t.Errorf("export of a generated run: Name() = %q, want the file's stem v1", got)
	}
	a.SetName("mine")
	if a.Name() != "mine" {
		t.Errorf("SetName: %q", a.Name())
	}
}
