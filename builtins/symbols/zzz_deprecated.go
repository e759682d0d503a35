package symbols

import (
	"reflect"
	"strings"

	"github.com/tracebook/tracebook/builtins/symbols/godoc"
)

// Deprecated notebook names, kept for one release (issue 33): the
// synthetic generators moved from package trace to trace/synth, and a Go
// package cannot keep wrappers for them (synth imports trace). So the
// notebook names trace.Generate, trace.GenConfig, trace.BTMZConfig, ...
// stay bound here: the trace table gets synth's symbols under their old
// names, the same functions and types. Remove after the next release.
//
// This file is written by hand. Its name sorts after the generated tables,
// so its init runs after theirs (Go runs a package's init functions in the
// order of its files' names).
func init() {
	const tracePath = "github.com/tracebook/tracebook/builtins/trace/trace"
	const synthPath = "github.com/tracebook/tracebook/builtins/trace/synth/synth"
	old, moved := Symbols[tracePath], Symbols[synthPath]
	if old == nil || moved == nil {
		return
	}
	for name, v := range moved {
		if _, taken := old[name]; !taken {
			old[name] = v
		}
	}
	// Their documentation: synth's, with the deprecation first.
	const synthDoc, traceDoc = "github.com/tracebook/tracebook/builtins/trace/synth.", "github.com/tracebook/tracebook/builtins/trace."
	for k, e := range Docs {
		name, ok := strings.CutPrefix(k, synthDoc)
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(name, ".")
		if _, taken := Docs[traceDoc+name]; taken || moved[top] == (reflect.Value{}) {
			continue
		}
		if top == name {
			e.Doc = "Deprecated: use synth." + name + " (the generators moved to package trace/synth).\n\n" + e.Doc
		}
		Docs[traceDoc+name] = godoc.Entry{Decl: e.Decl, Doc: e.Doc}
	}
}
