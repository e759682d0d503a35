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
	d := printDyn(v)
	if t != nil && isInterface(t) {
		// an interface prints its dynamic type and data words
		if !d.IsValid() {
			b.WriteString("(0x0,0x0)")
			return
		}
		b.WriteString("(")
		appendHex(b, uint64(reflect.ValueOf(d.Type()).Pointer()))
		b.WriteString(",")
		appendHex(b, uint64(dataWord(d)))
		b.WriteString(")")
		return
	}
	if !d.IsValid() {
		b.WriteString("(0x0,0x0)")
		return
	}
	switch d.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(d.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(d.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(d.Uint(), 10))
	case reflect.Float32:
		b.WriteString(strconv.FormatFloat(d.Float(), 'g', -1, 32))
	case reflect.Float64:
		b.WriteString(strconv.FormatFloat(d.Float(), 'g', -1, 64))
	case reflect.Complex64:
		b.WriteString(strconv.FormatComplex(d.Complex(), 'g', -1, 64))
	case reflect.Complex128:
		b.WriteString(strconv.FormatComplex(d.Complex(), 'g', -1, 128))
	case reflect.String:
		b.WriteString(d.String())
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		appendHex(b, uint64(d.Pointer()))
	case reflect.Slice:
		b.WriteString("[" + strconv.Itoa(d.Len()) + "/" + strconv.Itoa(d.Cap()) + "]")
		appendHex(b, uint64(d.Pointer()))
	default:
		// Go rejects other kinds at compile time (illegal types for operand: print)
		b.WriteString("(" + d.Type().String() + ")")
	}
}

// printDyn returns the dynamic value of v, through reflect interfaces and
// the interpreter's boxes (valueInterface); invalid when nil.
func printDyn(v reflect.Value) reflect.Value {
	for v.IsValid() && v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	if v.IsValid() && v.Type() == valueInterfaceType {
		return printDyn(v.Interface().(valueInterface).value)
	}
	return v
}

// dataWord stands for the data word of a non-nil interface holding d: an
// address, not necessarily the runtime's.
func dataWord(d reflect.Value) uintptr {
	switch d.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer, reflect.Slice:
		return d.Pointer()
	}
	if d.CanAddr() {
		return d.UnsafeAddr()
	}
	c := reflect.New(d.Type())
	c.Elem().Set(d)
	return c.Pointer()
}
