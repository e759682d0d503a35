package interp

import (
	"fmt"
	"reflect"
)

// Wrappers of interpreted values for the print functions of fmt and log
// (see PATCHES.md, "types, type switches and interfaces").
//
// The stdlib wrappers (_fmt_Stringer, _error) have only the String or Error
// method, so fmt used it for every verb: Printf("%d", T(1)) of a type T int
// with a String method printed the wrapper struct. These wrappers also
// implement fmt.Formatter, and do what fmt's handleMethods does: String or
// Error for %v %s %x %X %q (not %#v), the value itself otherwise.

// tbFmtStringer and tbFmtError are the interface types whose wrappers
// getWrapper finds by fmtWrapper.
type tbFmtStringer interface{ String() string }
type tbFmtError interface{ Error() string }

type _tbFmtStringer struct {
	IValue  interface{}
	WString func() string
}

func (w _tbFmtStringer) String() string { return w.WString() }

func (w _tbFmtStringer) Format(s fmt.State, verb rune) { tbFormat(s, verb, w.IValue, w.WString) }

type _tbFmtError struct {
	IValue interface{}
	WError func() string
}

func (w _tbFmtError) Error() string { return w.WError() }

func (w _tbFmtError) Format(s fmt.State, verb rune) { tbFormat(s, verb, w.IValue, w.WError) }

var (
	tbFmtStringerType = reflect.TypeOf((*tbFmtStringer)(nil)).Elem()
	tbFmtErrorType    = reflect.TypeOf((*tbFmtError)(nil)).Elem()
)

func tbFormat(s fmt.State, verb rune, v interface{}, str func() string) {
	switch verb {
	case 'v', 's', 'x', 'X', 'q':
		if verb != 'v' || !s.Flag('#') {
			fmt.Fprintf(s, fmt.FormatString(s, verb), str())
			return
		}
	}
	fmt.Fprintf(s, fmt.FormatString(s, verb), rawValue(v))
}

// rawValue returns the concrete value held by v, without its valueInterface.
func rawValue(v interface{}) interface{} {
	for {
		vi, ok := v.(valueInterface)
		if !ok || !vi.value.IsValid() {
			return v
		}
		if !vi.value.CanInterface() {
			return v
		}
		v = vi.value.Interface()
	}
}

// fmtWrapperType returns the interface type to wrap a value of type t in
// for fmt, or nil (see displayMethod).
func fmtWrapperType(interp *Interpreter, t *itype) reflect.Type {
	switch displayMethod(t) {
	case "Format":
		if w, ok := interp.binPkg["fmt"]["Formatter"]; ok {
			return w.Type().Elem()
		}
	case "Error":
		return tbFmtErrorType
	case "String":
		return tbFmtStringerType
	}
	return nil
}

// fmtWrapper returns the wrapper struct type for t if t is one of the
// interface types above (getWrapper), or nil.
func fmtWrapper(t reflect.Type) reflect.Type {
	switch t {
	case tbFmtStringerType:
		return reflect.TypeOf(_tbFmtStringer{})
	case tbFmtErrorType:
		return reflect.TypeOf(_tbFmtError{})
	}
	return nil
}
