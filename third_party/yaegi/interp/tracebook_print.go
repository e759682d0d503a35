package interp

import (
	"bytes"
	"io"
	"reflect"
	"strconv"
)

// The print and println builtins write to standard error in the format of
// Go's runtime (src/runtime/print.go): numbers in decimal (floats and
// complexes in the shortest 'g' form), pointers, channels, maps and funcs
// as a hexadecimal address (0x0 when nil), slices as [len/cap]address and
// interfaces as (type,data) addresses, (0x0,0x0) when nil. Addresses of
// interpreted values are those of their reflect storage.

// printArgs writes the arguments of print (println adds the spaces and the
// newline) as one write, as the runtime does under its print lock.
func printArgs(w io.Writer, args []reflect.Value, static []*itype, ln bool) {
	var b bytes.Buffer
	for i, v := range args {
		if ln && i > 0 {
			b.WriteByte(' ')
		}
		var t *itype
		if i < len(static) {
			t = static[i]
		}
		appendPrint(&b, v, t)
	}
	if ln {
		b.WriteByte('\n')
	}
	_, _ = w.Write(b.Bytes())
}

func appendHex(b *bytes.Buffer, u uint64) {
	b.WriteString("0x")
	b.WriteString(strconv.FormatUint(u, 16))
}

func appendPrint(b *bytes.Buffer, v reflect.Value, t *itype) {
	if t != nil && isInterface(t) {
		// an interface prints its dynamic type and data words
		if !v.IsValid() || (v.Kind() == reflect.Interface && v.IsNil()) || isNilValueInterface(v) {
			b.WriteString("(0x0,0x0)")
			return
		}
		b.WriteString("(")
		appendHex(b, uint64(typeWord(v)))
		b.WriteString(",")
		appendHex(b, uint64(dataWord(v)))
		b.WriteString(")")
		return
	}
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.IsValid() && v.CanInterface() {
		if vi, ok := v.Interface().(valueInterface); ok {
			v = vi.value
		}
	}
	if !v.IsValid() {
		b.WriteString("(0x0,0x0)")
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 32))
	case reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64:
		b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 64))
	case reflect.Complex128:
		b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	case reflect.String:
		b.WriteString(v.String())
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		appendHex(b, uint64(v.Pointer()))
	case reflect.Slice:
		b.WriteString("[" + strconv.Itoa(v.Len()) + "/" + strconv.Itoa(v.Cap()) + "]")
		appendHex(b, uint64(v.Pointer()))
	default:
		// Go rejects other kinds at compile time (illegal types for operand: print)
		b.WriteString("(" + v.Type().String() + ")")
	}
}

func isNilValueInterface(v reflect.Value) bool {
	if !v.IsValid() || !v.CanInterface() {
		return false
	}
	vi, ok := v.Interface().(valueInterface)
	return ok && (!vi.value.IsValid() || vi.node == nil && vi.value.Kind() == reflect.Interface && vi.value.IsNil())
}

// typeWord and dataWord stand for the two words of a non-nil interface:
// they are not the runtime's addresses, only non-zero values.
func typeWord(v reflect.Value) uintptr {
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.IsValid() && v.CanInterface() {
		if vi, ok := v.Interface().(valueInterface); ok {
			v = vi.value
		}
	}
	if !v.IsValid() {
		return 0
	}
	return reflect.ValueOf(v.Type()).Pointer()
}

func dataWord(v reflect.Value) uintptr {
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.IsValid() && v.CanInterface() {
		if vi, ok := v.Interface().(valueInterface); ok {
			v = vi.value
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer, reflect.Slice:
		return v.Pointer()
	}
	if !v.IsValid() {
		return 0
	}
	if v.CanAddr() {
		return v.UnsafeAddr()
	}
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return c.Pointer()
}
