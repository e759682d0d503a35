package symbols

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/symbols/godoc"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
)

// The surface test checks the rules of docs/surface.md that the generated tables can show, on
// every package they export. A rule broken today by a package not converted yet is listed in
// surfaceAllowed with the issue-33 point that removes it; an entry that is no longer broken
// fails the test too ("stale allow-list entry"), so the list only shrinks. Names documented as
// deprecated ("Deprecated: use X.") are kept for one release and not checked.

// methodPackage reports whether path is a trace-analysis method package, whose exported types
// with a String or MIMEBundle method are results (docs/surface.md, Results): every package
// under builtins/ but the model (trace and its sub-packages) and the machinery (display, part,
// work, symbols).
func methodPackage(path string) bool {
	const builtins = "github.com/tracebook/tracebook/builtins/"
	rest, ok := strings.CutPrefix(path, builtins)
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "trace", "display", "part", "work", "symbols", "internal":
		return false
	}
	return true
}

// surfaceAllowed are today's violations, "rule: package.Name" -> the issue-33 point (and its
// task) that removes them. Shrink it when a conversion is merged and the tables regenerated.
var surfaceAllowed = map[string]string{
	// point 3: every result has Table, String, MIMEBundle (and Plot with a figure)
	"result without MIMEBundle func() map[string]interface {}: ccg.MessageOrder": "point 3: ccg's results",
	"result without Table func() *arrowio.Table: ccg.MessageOrder":               "point 3: ccg's results",
}

// parameterTypes are structs with a String method that are arguments of a
// builtin, not results: they need no Table.
var parameterTypes = map[string]string{
	"ccg.Bounds": "the deviation bounds a graph is built with (ccg.Build(tr, b))",
}

func TestSurface(t *testing.T) {
	got := surfaceViolations(Symbols, Docs, methodPackage)
	if len(got) == 0 && len(Symbols) == 0 {
		t.Fatal("no symbol tables")
	}
	for _, v := range got {
		if _, ok := surfaceAllowed[v]; !ok {
			t.Errorf("%s (docs/surface.md)", v)
		}
	}
	var stale []string
	for v := range surfaceAllowed {
		if !slices.Contains(got, v) {
			stale = append(stale, v)
		}
	}
	sort.Strings(stale)
	for _, v := range stale {
		t.Errorf("stale allow-list entry %q (%s): no longer violated; remove it from surfaceAllowed", v, surfaceAllowed[v])
	}
}

var (
	figureType  = reflect.TypeOf((*plotting.Figure)(nil))
	tableType   = reflect.TypeOf((*arrowio.Table)(nil))
	partialType = reflect.TypeOf((*part.Partial)(nil)).Elem()
	errorType   = reflect.TypeOf((*error)(nil)).Elem()
	processType = reflect.TypeOf((*trace.Process)(nil))
	bundleType  = reflect.TypeOf(map[string]any(nil))
	stringType  = reflect.TypeOf("")
)

// testOnly matches names of exports that only tests need (docs/surface.md, Results).
var testOnly = regexp.MustCompile(`ForTest|Testing|TestOnly|^Test([A-Z_0-9]|$)|^Must.*ForTest|^Debug[A-Z]`)

// processWords end the names of options that restrict the processes (WithLocations(3, 4)).
var processWords = regexp.MustCompile(`(?i)(procs|processes|ranks|locations)$`)

// surfaceViolations checks the tables (import path + "/" + package name -> symbol -> value, as
// Symbols holds them) against docs/surface.md and returns the violations as sorted
// "rule: package.Name[.Method]" lines. methodPkg tells the import paths whose result types
// are checked.
func surfaceViolations(tables map[string]map[string]reflect.Value, docs map[string]godoc.Entry, methodPkg func(string) bool) []string {
	var out []string
	add := func(rule, name string) { out = append(out, rule+": "+name) }
	deprecated := func(key string) bool {
		d := docs[key].Doc
		return strings.HasPrefix(d, "Deprecated:") || strings.Contains(d, "\nDeprecated:")
	}
	for key, syms := range tables {
		path := key[:strings.LastIndex(key, "/")]
		pkg := key[strings.LastIndex(key, "/")+1:]
		names := make([]string, 0, len(syms))
		for n := range syms {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			v := syms[n]
			q := pkg + "." + n
			if deprecated(path + "." + n) {
				continue
			}
			if testOnly.MatchString(n) {
				add("test-only export", q)
			}
			if isType(v) {
				typ := v.Type().Elem()
				if n == "Merged" {
					add("type named Merged", q)
				}
				if typ.PkgPath() != path || typ.Name() != n {
					continue // an alias of another package's type, checked there
				}
				out = append(out, typeViolations(pkg, path, typ, docs, methodPkg(path))...)
				continue
			}
			if v.Kind() != reflect.Func {
				continue
			}
			ft := v.Type()
			if !returnsOption(ft, path) {
				continue
			}
			if !strings.HasPrefix(n, "With") {
				add("option not named WithX", q)
			}
			switch {
			case n == "WithProcesses":
				if !ft.IsVariadic() || ft.NumIn() != 1 || ft.In(0).Elem() != processType {
					add("WithProcesses not func(...*trace.Process)", q)
				}
			case n == "WithRanks" && ft.NumIn() == 1 && ft.IsVariadic() && ft.In(0).Elem().Kind() == reflect.Int:
				// rank-indexed results (the communication matrix) restrict MPI ranks
			case takesProcesses(ft) || ft.NumIn() > 0 && processWords.MatchString(n):
				add("processes restricted by another name than WithProcesses", q)
			}
		}
	}
	sort.Strings(out)
	return out
}

// isType reports whether a table value stands for a type: (*T)(nil).
func isType(v reflect.Value) bool {
	return v.Kind() == reflect.Pointer && v.IsNil() && v.Type().Elem().Name() != ""
}

// takesProcesses reports whether f takes processes: a *trace.Process, or a slice of them.
func takesProcesses(f reflect.Type) bool {
	for i := 0; i < f.NumIn(); i++ {
		if in := f.In(i); in == processType || in.Kind() == reflect.Slice && in.Elem() == processType {
			return true
		}
	}
	return false
}

// returnsOption reports whether f returns a type of package path named Option or XOption.
func returnsOption(f reflect.Type, path string) bool {
	for i := 0; i < f.NumOut(); i++ {
		o := f.Out(i)
		if o.PkgPath() == path && strings.HasSuffix(o.Name(), "Option") {
			return true
		}
	}
	return false
}

// typeViolations checks the methods of the named type typ of package pkg (import path path):
// Merge's signature everywhere, and for a result type of a method package Table, String,
// MIMEBundle, and Plot when a method of it draws a figure.
func typeViolations(pkg, path string, typ reflect.Type, docs map[string]godoc.Entry, method bool) []string {
	var out []string
	q := pkg + "." + typ.Name()
	pt := reflect.PointerTo(typ)
	ms := map[string]reflect.Type{} // method name -> its type without the receiver
	figures := false
	for i := 0; i < pt.NumMethod(); i++ {
		m := pt.Method(i)
		d := docs[path+"."+typ.Name()+"."+m.Name].Doc
		if strings.HasPrefix(d, "Deprecated:") || strings.Contains(d, "\nDeprecated:") {
			continue
		}
		ft := m.Type
		in := make([]reflect.Type, 0, ft.NumIn()-1)
		for j := 1; j < ft.NumIn(); j++ {
			in = append(in, ft.In(j))
		}
		outs := make([]reflect.Type, ft.NumOut())
		for j := range outs {
			outs[j] = ft.Out(j)
			if outs[j] == figureType {
				figures = true
			}
		}
		ms[m.Name] = reflect.FuncOf(in, outs, ft.IsVariadic())
		if testOnly.MatchString(m.Name) {
			out = append(out, "test-only export: "+q+"."+m.Name)
		}
	}
	if m, ok := ms["Merge"]; ok && m != reflect.TypeOf(func(part.Partial) error { return nil }) {
		out = append(out, "Merge not Merge(part.Partial) error: "+q+".Merge")
	}
	_, str := ms["String"]
	_, bun := ms["MIMEBundle"]
	// A result: a struct with a MIMEBundle method, or with a String method that is not an
	// error or a partial of the per-process contract (whose String is for debugging).
	if !method || typ.Kind() != reflect.Struct || pt.Implements(errorType) || !bun && (!str || pt.Implements(partialType)) || parameterTypes[q] != "" {
		return out
	}
	want := func(name string, sig reflect.Type) {
		if m, ok := ms[name]; !ok || m != sig {
			out = append(out, fmt.Sprintf("result without %s %v: %s", name, sig, q))
		}
	}
	want("Table", reflect.FuncOf(nil, []reflect.Type{tableType}, false))
	want("String", reflect.FuncOf(nil, []reflect.Type{stringType}, false))
	want("MIMEBundle", reflect.FuncOf(nil, []reflect.Type{bundleType}, false))
	if m, ok := ms["Plot"]; figures && (!ok || m.NumOut() != 1 || m.Out(0) != figureType) {
		out = append(out, "result drawing figures without Plot: "+q)
	}
	return out
}

// Types and functions of a made-up method package, for TestSurfaceRules.
type (
	fakeOption   func(*int)
	fakeGood     struct{}
	fakeNoTable  struct{}
	fakeDrawing  struct{}
	fakeBadMerge struct{}
	fakePartial  struct{}
	fakeEnum     int
	fakeOld      struct{}
	Merged       struct{}
)

func (fakeGood) String() string                     { return "" }
func (fakeGood) MIMEBundle() map[string]any         { return nil }
func (fakeGood) Table() *arrowio.Table              { return nil }
func (fakeGood) Plot() *plotting.Figure             { return nil }
func (fakeNoTable) String() string                  { return "" }
func (fakeDrawing) String() string                  { return "" }
func (fakeDrawing) MIMEBundle() map[string]any      { return nil }
func (fakeDrawing) Table() *arrowio.Table           { return nil }
func (fakeDrawing) Heatmap() *plotting.Figure       { return nil }
func (*fakeBadMerge) Merge(o *fakeBadMerge) error   { return nil }
func (*fakePartial) Merge(o part.Partial) error     { return nil }
func (*fakePartial) MarshalBinary() ([]byte, error) { return nil, nil }
func (*fakePartial) String() string                 { return "" }
func (*fakePartial) ResetForTest()                  {}
func (fakeOld) Merge(int)                           {}
func (fakeEnum) String() string                     { return "" }

func TestMethodPackage(t *testing.T) {
	for path, want := range map[string]bool{
		"github.com/tracebook/tracebook/builtins/align":       true,
		"github.com/tracebook/tracebook/builtins/profile":     true,
		"github.com/tracebook/tracebook/builtins/trace":       false,
		"github.com/tracebook/tracebook/builtins/trace/synth": false,
		"github.com/tracebook/tracebook/builtins/display":     false,
		"github.com/tracebook/tracebook/builtins/symbols":     false,
		"github.com/tracebook/tracebook/arrowio":              false,
		"github.com/tracebook/tracebook/plotting":             false,
	} {
		if got := methodPackage(path); got != want {
			t.Errorf("methodPackage(%s) = %v", path, got)
		}
	}
}

func TestSurfaceRules(t *testing.T) {
	const path = "github.com/tracebook/tracebook/builtins/symbols"
	opt := func(*int) {}
	tables := map[string]map[string]reflect.Value{path + "/symbols": {
		"WithLimit":     reflect.ValueOf(func(int) fakeOption { return opt }),
		"Limit":         reflect.ValueOf(func(int) fakeOption { return opt }),
		"OldLimit":      reflect.ValueOf(func(int) fakeOption { return opt }), // deprecated
		"WithLocations": reflect.ValueOf(func(...int) fakeOption { return opt }),
		"WithPerRank":   reflect.ValueOf(func() fakeOption { return opt }),
		"WithOnly":      reflect.ValueOf(func([]*trace.Process) fakeOption { return opt }),
		"WithProcesses": reflect.ValueOf(func(...int) fakeOption { return opt }),
		"Analyze":       reflect.ValueOf(func(...fakeOption) fakeGood { return fakeGood{} }),
		"SeedForTest":   reflect.ValueOf(func() {}),
		"Limit2":        reflect.ValueOf(3),
		"fakeGood":      reflect.ValueOf((*fakeGood)(nil)),
		"fakeNoTable":   reflect.ValueOf((*fakeNoTable)(nil)),
		"fakeDrawing":   reflect.ValueOf((*fakeDrawing)(nil)),
		"fakeBadMerge":  reflect.ValueOf((*fakeBadMerge)(nil)),
		"fakePartial":   reflect.ValueOf((*fakePartial)(nil)),
		"fakeEnum":      reflect.ValueOf((*fakeEnum)(nil)),
		"Merged":        reflect.ValueOf((*Merged)(nil)),
		"fakeOld":       reflect.ValueOf((*fakeOld)(nil)),     // its Merge is deprecated
		"Alias":         reflect.ValueOf((*fakeNoTable)(nil)), // an alias: checked under its own name
	}}
	docs := map[string]godoc.Entry{
		path + ".OldLimit":      {Doc: "OldLimit limits.\n\nDeprecated: use WithLimit.\n"},
		path + ".fakeOld.Merge": {Doc: "Deprecated: use Coarsen.\n"},
	}
	want := []string{
		"Merge not Merge(part.Partial) error: symbols.fakeBadMerge.Merge",
		"WithProcesses not func(...*trace.Process): symbols.WithProcesses",
		"option not named WithX: symbols.Limit",
		"processes restricted by another name than WithProcesses: symbols.WithLocations",
		"processes restricted by another name than WithProcesses: symbols.WithOnly",
		"result drawing figures without Plot: symbols.fakeDrawing",
		"result without MIMEBundle func() map[string]interface {}: symbols.fakeNoTable",
		"result without Table func() *arrowio.Table: symbols.fakeNoTable",
		"test-only export: symbols.SeedForTest",
		"test-only export: symbols.fakePartial.ResetForTest",
		"type named Merged: symbols.Merged",
	}
	got := surfaceViolations(tables, docs, func(p string) bool { return p == path })
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// outside a method package only the rules for every package apply
	got = surfaceViolations(tables, docs, methodPackage)
	want = slices.DeleteFunc(want, func(s string) bool { return strings.HasPrefix(s, "result") })
	if !slices.Equal(got, want) {
		t.Errorf("outside a method package:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
