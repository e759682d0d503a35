package interp

import "reflect"

// switchCaseEqual reports whether a switch tag equals a case value, as
// tag == value in Go: when either side is an interface, the dynamic types
// must be identical and the values equal (so `switch x { case 5: }` with x
// an interface holding int64(5) does not match); otherwise the case value,
// of the tag's type once converted by the compiler, is compared. Comparing
// values of an uncomparable dynamic type panics, as in Go.
func switchCaseEqual(a, b reflect.Value) bool {
	ai := isIfaceValue(a)
	bi := isIfaceValue(b)
	a, b = unwrapIfaceValue(a), unwrapIfaceValue(b)
	if !a.IsValid() || !b.IsValid() {
		return !a.IsValid() && !b.IsValid()
	}
	if ai || bi {
		if a.Type() != b.Type() {
			return false
		}
	} else if a.Type() != b.Type() {
		switch {
		case a.Type().ConvertibleTo(b.Type()):
			a = a.Convert(b.Type())
		case b.Type().ConvertibleTo(a.Type()):
			b = b.Convert(a.Type())
		default:
			return false
		}
	}
	if !a.Type().Comparable() {
		panic(runtimeError("comparing uncomparable type " + a.Type().String()))
	}
	return a.Interface() == b.Interface()
}

func isIfaceValue(v reflect.Value) bool {
	return v.IsValid() && (v.Kind() == reflect.Interface || v.Type() == valueInterfaceType)
}

// unwrapIfaceValue returns the dynamic value of an interface (a reflect
// interface or an interpreter's valueInterface), invalid when nil.
func unwrapIfaceValue(v reflect.Value) reflect.Value {
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Interface:
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		case v.Type() == valueInterfaceType:
			vi := v.Interface().(valueInterface)
			if vi.node == nil && !vi.value.IsValid() {
				return reflect.Value{}
			}
			v = vi.value
		default:
			return v
		}
	}
	return v
}

// runtimeError is a panic value that recover() sees as a runtime.Error.
type runtimeError string

func (e runtimeError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks runtimeError as a runtime.Error.
func (e runtimeError) RuntimeError() {}
