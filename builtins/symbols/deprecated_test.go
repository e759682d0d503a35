package symbols

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The generators' old notebook names (trace.Generate, ...) are the synth
// functions and types themselves.
func TestDeprecatedTraceGenerators(t *testing.T) {
	tr := Symbols["github.com/tracebook/tracebook/builtins/trace/trace"]
	for name, want := range map[string]reflect.Value{
		"Generate":         reflect.ValueOf(synth.Generate),
		"DefaultGenConfig": reflect.ValueOf(synth.DefaultGenConfig),
		"GenerateSMG":      reflect.ValueOf(synth.GenerateSMG),
		"BTMZConfig":       reflect.ValueOf(synth.BTMZConfig),
	} {
		got, ok := tr[name]
		if !ok || got.Pointer() != want.Pointer() {
			t.Errorf("trace.%s is not synth.%s", name, name)
		}
	}
	for _, name := range []string{"GenConfig", "SMGConfig", "ThreadKind"} {
		got, ok := tr[name]
		if !ok || got.Type() != Symbols["github.com/tracebook/tracebook/builtins/trace/synth/synth"][name].Type() {
			t.Errorf("trace.%s is not the type synth.%s", name, name)
		}
	}
	if _, ok := tr["Load"]; !ok {
		t.Error("trace's own symbols are gone")
	}
}

// Their documentation is synth's, marked deprecated.
func TestDeprecatedTraceGeneratorsDocs(t *testing.T) {
	e, ok := Docs["github.com/tracebook/tracebook/builtins/trace.Generate"]
	if !ok || !strings.HasPrefix(e.Doc, "Deprecated: use synth.Generate") ||
		!strings.HasSuffix(e.Doc, Docs["github.com/tracebook/tracebook/builtins/trace/synth.Generate"].Doc) {
		t.Errorf("trace.Generate's doc: %+v", e)
	}
	if _, ok := Docs["github.com/tracebook/tracebook/builtins/trace.GenConfig.Ranks"]; !ok {
		t.Error("no doc for trace.GenConfig.Ranks")
	}
}
