package interp

import (
	"errors"
	"reflect"
	"sort"
)

// Dynamic types of interface values, for type switches, type assertions and
// interface comparison (see PATCHES.md, "types, type switches and
// interfaces").
//
// An interface value reaches the interpreter in one of three forms: a
// valueInterface{node, value} (interpreted interfaces, and the empty
// interface holding a value of a type with interpreted methods), whose node's
// type is the dynamic type; a wrapper struct made by genInterfaceWrapper for a
// compiled interface type (error, fmt.Stringer: its first field IValue holds
// the concrete value); or the concrete value itself, whose reflect type is all
// that is known of its type.

// dynValue is the dynamic type and value of an interface value.
type dynValue struct {
	isNil bool
	typ   *itype        // interpreted dynamic type, if known (from a valueInterface)
	node  *node         // the valueInterface's node, if any
	val   reflect.Value // concrete value
	wrap  reflect.Value // the outermost compiled wrapper met, if any
}

var nodePtrType = reflect.TypeOf((*node)(nil))

func isIfaceWrapper(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() > 0 && t.Field(0).Name == "IValue" && t.Field(0).Type == emptyInterfaceType
}

// dynamicOf unwraps v, a value held in a slot of interface type (or a
// concrete value), to its dynamic type and value.
func dynamicOf(v reflect.Value) (d dynValue) {
	for i := 0; i < 64; i++ {
		if !v.IsValid() {
			d.isNil = d.typ == nil
			return d
		}
		switch {
		case v.Kind() == reflect.Interface:
			if v.IsNil() {
				d.isNil = d.typ == nil
				return d
			}
			v = v.Elem()
			continue
		case v.Type() == valueInterfaceType:
			vi := v.Interface().(valueInterface)
			if vi.node != nil && vi.node.typ != nil && vi.node.typ.cat != nilT && !isInterface(vi.node.typ) {
				d.typ, d.node = vi.node.typ, vi.node
			}
			v = vi.value
			continue
		case v.Type() == nodePtrType:
			// An interpreted function value.
			if nod := v.Interface().(*node); nod != nil && nod.typ != nil {
				d.typ, d.node = nod.typ, nod
			}
		case isIfaceWrapper(v.Type()):
			if !d.wrap.IsValid() {
				d.wrap = v
			}
			v = v.Field(0)
			continue
		}
		break
	}
	d.val = v
	if d.typ != nil && d.typ.cat == valueT && d.typ.rtype != nil && d.typ.rtype.Kind() != reflect.Interface {
		// A compiled dynamic type is its reflect type.
		d.typ = nil
	}
	return d
}

// rtype returns the reflect type of the dynamic value.
func (d dynValue) rtype() reflect.Type {
	if !d.val.IsValid() {
		return nil
	}
	return d.val.Type()
}

// implements reports whether the dynamic type of d implements the interface
// type t.
func (d dynValue) implements(t *itype) bool {
	if d.isNil {
		return false
	}
	want := t.methods()
	if len(want) == 0 {
		return true
	}
	if d.typ != nil {
		have := d.typ.methods()
		if !have.contains(want) {
			return false
		}
		if !isInterfaceSrc(t) {
			return true
		}
		// Both interpreted: the signatures must match too (case
		// interface{ foo() T } with foo() float64 is no match for T int).
		for name, sig := range want {
			h := have[name]
			if h == sig {
				continue
			}
			if st, err := stripReceiverFromArgs(h); err != nil || st != sig {
				return false
			}
		}
		return true
	}
	rt := d.rtype()
	if rt == nil {
		return false
	}
	if (&itype{cat: valueT, rtype: rt}).methods().contains(want) {
		return true
	}
	if d.wrap.IsValid() {
		// The wrapper implements the compiled interface it was made for.
		return (&itype{cat: valueT, rtype: d.wrap.Type()}).methods().contains(want)
	}
	return false
}

// is reports whether the dynamic type of d is the concrete type t.
func (d dynValue) is(t *itype) bool {
	if d.isNil {
		return false
	}
	if d.typ != nil {
		if t.cat == valueT {
			return false
		}
		return d.typ.id() == t.id()
	}
	// Only the reflect type is known: an interpreted type has the reflect
	// type of its underlying type. A value of a type with methods is a
	// valueInterface (genDestValue) or a wrapper that keeps it
	// (genInterfaceWrapper), but is passed raw to compiled code, so it may
	// come back raw (atomic.Value, sync.Map, context.Value): a raw value of
	// a composite reflect type (a struct, a slice) matches such a type by
	// structure, a raw value of a predeclared type (float64) does not.
	rt := t.frameType()
	if t.cat != valueT && t.name != "" && rt != nil && rt.Name() != "" && rt.PkgPath() == "" && len(t.methods()) > 0 {
		return false
	}
	return rt != nil && d.rtype() == rt
}

// matches reports whether d matches a case (or assertion) type t.
func (d dynValue) matches(t *itype) bool {
	if t.cat == nilT {
		return d.isNil
	}
	if isInterface(t) {
		return d.implements(t)
	}
	return d.is(t)
}

// as returns the dynamic value d represented for a slot of type t, which d
// matches; orig is the interface value d was taken from.
func (d dynValue) as(t *itype, orig reflect.Value, f *frame) reflect.Value {
	switch {
	case !isInterface(t):
		v := d.val
		if v.Type() == nodePtrType {
			if nod := v.Interface().(*node); nod != nil {
				return genFunctionWrapper(nod)(f)
			}
		}
		if rt := t.frameType(); rt != nil && v.Type() != rt && v.Type().ConvertibleTo(rt) {
			v = v.Convert(rt)
		}
		return v
	case isInterfaceSrc(t):
		if isEmptyInterface(t) {
			if d.node != nil && len(d.typ.methods()) > 0 {
				return reflect.ValueOf(valueInterface{d.node, d.val})
			}
			if d.wrap.IsValid() {
				return d.wrap
			}
			return d.val
		}
		nod := d.node
		if nod == nil {
			nod = &node{typ: valueTOf(d.val.Type()), interp: nil}
		}
		return reflect.ValueOf(valueInterface{nod, d.val})
	default:
		// A compiled interface type.
		rt := t.TypeOf()
		if d.val.Type().Implements(rt) {
			return d.val
		}
		if d.wrap.IsValid() && d.wrap.Type().Implements(rt) {
			return d.wrap
		}
		if d.node != nil {
			return wrapValue(d.node, d.val, rt, f)
		}
		for orig.IsValid() && orig.Kind() == reflect.Interface && !orig.IsNil() {
			if orig.Type().Implements(rt) || orig.Elem().Type().Implements(rt) {
				return orig.Elem()
			}
			orig = orig.Elem()
		}
		return d.val
	}
}

// ifaceEqual compares two operands of == where one at least is an interface
// value: equal if their dynamic types are identical and their values equal.
// t0 and t1 are the operands' static types: the dynamic type of an operand
// of a concrete type is that type.
func ifaceEqual(t0, t1 *itype, i0, i1 interface{}) bool {
	_, w0 := i0.(valueInterface)
	_, w1 := i1.(valueInterface)
	if !w0 && !w1 && !isWrapped(i0) && !isWrapped(i1) {
		return i0 == i1
	}
	d0, d1 := staticDyn(t0, i0), staticDyn(t1, i1)
	if d0.isNil || d1.isNil {
		return d0.isNil && d1.isNil
	}
	switch {
	case d0.typ != nil && d1.typ != nil:
		if d0.typ.id() != d1.typ.id() {
			return false
		}
	case d0.typ != nil || d1.typ != nil:
		// One dynamic type is known to be interpreted: the other is the
		// type of its reflect value, the same only if the interpreted type
		// has no name.
		t := d0.typ
		if t == nil {
			t = d1.typ
		}
		if t.name != "" || d0.rtype() != d1.rtype() {
			return false
		}
	default:
		if d0.rtype() != d1.rtype() {
			return false
		}
	}
	return d0.val.Interface() == d1.val.Interface()
}

func staticDyn(t *itype, i interface{}) dynValue {
	d := dynamicOf(reflect.ValueOf(i))
	if t != nil && !isInterface(t) && t.cat != valueT && t.cat != nilT && !t.untyped && d.typ == nil && !d.isNil {
		d.typ = t
	}
	return d
}

func isWrapped(i interface{}) bool {
	return i != nil && isIfaceWrapper(reflect.TypeOf(i))
}

// typeName names the dynamic type of d, as in Go's panic messages.
func (d dynValue) typeName() string {
	switch {
	case d.isNil:
		return "nil"
	case d.typ != nil:
		return d.typ.id()
	}
	return d.rtype().String()
}

// missingMethod names a method of the interface t that d lacks.
func (d dynValue) missingMethod(t *itype) string {
	var have methodSet
	switch {
	case d.typ != nil:
		have = d.typ.methods()
	case d.rtype() != nil:
		have = (&itype{cat: valueT, rtype: d.rtype()}).methods()
	}
	var names []string
	for name := range t.methods() {
		if _, ok := have[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// inGenericInstance reports whether n is in the body of an instantiated
// generic function or method (genAST sets the param of its declaration).
func inGenericInstance(n *node) bool {
	for a := n; a != nil; a = a.anc {
		if a.kind == funcDecl && len(a.param) > 0 {
			return true
		}
	}
	return false
}

// wrapValue returns v, a value of the type of nod, wrapped for the compiled
// interface type rt (genInterfaceWrapper evaluates a node: here the value is
// known, the node may belong to another frame).
func wrapValue(nod *node, v reflect.Value, rt reflect.Type, f *frame) reflect.Value {
	c := *nod
	c.kind = identExpr
	c.sym = nil
	c.rval = v
	c.findex = notInFrame
	return genInterfaceWrapper(&c, rt)(f)
}

// Methods of interpreted types for fmt inside composite values.
//
// fmt finds String, Error and Format by reflection on the values it prints,
// also on the elements of slices, arrays and maps and on the exported fields
// of structs. Values of interpreted types have reflect types without methods
// (reflect cannot make named types), so a call of a print function of fmt or
// log passes such a composite value as a display copy: the same shape, with
// each element or field of a type with one of these methods replaced by the
// interface wrapper genInterfaceWrapper makes for it (as for a value passed
// directly). Slices and arrays become []interface{}, maps
// map[K]interface{}, structs a struct of the same field names whose such
// fields are interface{}: %v, %s, %d, %q print them as Go prints the
// original. %T and %#v name the copy's types (as they already did not name
// interpreted types).

var (
	errorType        = reflect.TypeOf((*error)(nil)).Elem()
	displayMaxDepth  = 8
	displayMethodSet = []string{"Format", "Error", "String"}
)

// displayMethod returns the name of the first method of fmt's that values of
// type t have (Format, Error, String), or "".
func displayMethod(t *itype) string {
	if t == nil || t.cat == valueT || isInterface(t) {
		return ""
	}
	for _, name := range displayMethodSet {
		m, _ := t.lookupMethod(name)
		if m == nil {
			continue
		}
		if t.cat != ptrT && ptrReceiver(m) {
			// Not in the method set of the value type.
			continue
		}
		if mt := m.typ; mt == nil || mt.cat != funcT || name == "Format" && len(mt.arg) != 2 ||
			name != "Format" && (len(mt.arg) != 0 || len(mt.ret) != 1 || mt.ret[0].TypeOf() == nil || mt.ret[0].TypeOf().Kind() != reflect.String) {
			continue
		}
		return name
	}
	return ""
}

func ptrReceiver(m *node) bool {
	if m == nil || m.kind != funcDecl || len(m.child) == 0 || len(m.child[0].child) == 0 {
		return false
	}
	recv := m.child[0].child[0]
	if len(recv.child) == 0 {
		return false
	}
	return recv.lastChild().kind == starExpr
}

// needsDisplay reports whether a value of type t passed to fmt has an
// element or field, at some depth, with a method of fmt's that the value
// itself does not show: it is then passed as a display copy.
func needsDisplay(t *itype) bool {
	if t == nil || displayMethod(t) != "" {
		return false
	}
	return hasDisplayElem(t, 0, true)
}

func hasDisplayElem(t *itype, depth int, top bool) bool {
	if t == nil || depth > displayMaxDepth {
		return false
	}
	if !top && displayMethod(t) != "" {
		return true
	}
	if !top && isInterface(t) {
		// An element of interface type may hold an interpreted value,
		// known only at run time.
		return true
	}
	switch t.cat {
	case linkedT:
		return hasDisplayElem(t.val, depth, top)
	case sliceT, arrayT, variadicT:
		return hasDisplayElem(t.val, depth+1, false)
	case mapT:
		return hasDisplayElem(t.val, depth+1, false)
	case structT:
		for _, fl := range t.field {
			if isExportedName(fl.name) && hasDisplayElem(fl.typ, depth+1, false) {
				return true
			}
		}
	case ptrT:
		// fmt follows a pointer to a struct, array, slice or map at the
		// top level only (deeper, it prints the address).
		if top && t.val != nil && (t.val.cat == structT || t.val.cat == arrayT || t.val.cat == sliceT || t.val.cat == mapT) {
			return hasDisplayElem(t.val, depth, true)
		}
	}
	return false
}

func isExportedName(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

// displayValue returns the display copy of v, of type t (see above).
func displayValue(interp *Interpreter, t *itype, v reflect.Value, f *frame, depth int, top bool) reflect.Value {
	if !v.IsValid() || depth > displayMaxDepth {
		return v
	}
	if !top && isInterface(t) {
		return displayIface(interp, v, f, depth, fmtWrap(interp))
	}
	if v.Type() == valueInterfaceType {
		vi := v.Interface().(valueInterface)
		if vi.node != nil && vi.node.typ != nil && !isInterface(vi.node.typ) {
			t = vi.node.typ
		}
		v = vi.value
	}
	if !top {
		if rt := fmtWrapperType(interp, t); rt != nil {
			switch v.Kind() {
			case reflect.Ptr, reflect.Map, reflect.Slice, reflect.Interface:
				if v.IsNil() {
					return v
				}
			}
			return wrapValue(&node{typ: t, interp: interp}, v, rt, f)
		}
	}
	if !hasDisplayElem(t, depth, top) {
		return v
	}
	switch t.cat {
	case linkedT:
		return displayValue(interp, t.val, v, f, depth, top)
	case sliceT, variadicT:
		if v.IsNil() {
			return v
		}
		fallthrough
	case arrayT:
		w := reflect.MakeSlice(reflect.SliceOf(emptyInterfaceType), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			if e := displayValue(interp, t.val, v.Index(i), f, depth+1, false); e.IsValid() {
				w.Index(i).Set(e)
			}
		}
		return w
	case mapT:
		if v.IsNil() {
			return v
		}
		w := reflect.MakeMapWithSize(reflect.MapOf(v.Type().Key(), emptyInterfaceType), v.Len())
		it := v.MapRange()
		for it.Next() {
			e := displayValue(interp, t.val, it.Value(), f, depth+1, false)
			if !e.IsValid() {
				e = reflect.Zero(emptyInterfaceType)
			}
			w.SetMapIndex(it.Key(), e)
		}
		return w
	case structT:
		st := v.Type()
		fields := make([]reflect.StructField, st.NumField())
		vals := make([]reflect.Value, st.NumField())
		for i := range fields {
			fields[i] = st.Field(i)
			vals[i] = v.Field(i)
			if i < len(t.field) && isExportedName(t.field[i].name) && hasDisplayElem(t.field[i].typ, depth+1, false) {
				fields[i].Type = emptyInterfaceType
				vals[i] = displayValue(interp, t.field[i].typ, v.Field(i), f, depth+1, false)
			}
		}
		w := reflect.New(reflect.StructOf(fields)).Elem()
		for i, e := range vals {
			if e.IsValid() && w.Field(i).CanSet() {
				w.Field(i).Set(e)
			}
		}
		return w
	case ptrT:
		if v.IsNil() {
			return v
		}
		e := displayValue(interp, t.val, v.Elem(), f, depth, true)
		p := reflect.New(e.Type())
		p.Elem().Set(e)
		return p
	}
	return v
}

// genPrintValue returns value, an argument of static type t of a function
// printing with fmt (a print function of fmt or log, or one mapTypes lists
// with fmt.Stringer), as fmt should see it: wrapped for the interface
// topWrap gives for its type (getMapType), a display copy if some element or
// field has a method of fmt's, the concrete value otherwise.
func genPrintValue(interp *Interpreter, t *itype, value func(*frame) reflect.Value, topWrap func(*itype) reflect.Type) func(*frame) reflect.Value {
	if !isInterface(t) && t.cat != valueT {
		if topWrap(t) == nil && !needsDisplay(t) {
			return func(f *frame) reflect.Value { return valueInterfaceValue(value(f)) }
		}
		return func(f *frame) reflect.Value {
			return printValue(interp, t, value(f), f, topWrap)
		}
	}
	return func(f *frame) reflect.Value {
		return displayIface(interp, value(f), f, 0, topWrap)
	}
}

// displayIface returns v, a value of an interface type, as fmt should see
// it: its dynamic value wrapped or as a display copy.
func displayIface(interp *Interpreter, v reflect.Value, f *frame, depth int, topWrap func(*itype) reflect.Type) reflect.Value {
	d := dynamicOf(v)
	switch {
	case d.isNil:
		return reflect.Zero(emptyInterfaceType)
	case d.typ == nil && d.wrap.IsValid():
		return d.wrap
	case d.typ == nil:
		return displayRaw(interp, d.val, f, depth)
	}
	return printValue(interp, d.typ, d.val, f, topWrap)
}

func printValue(interp *Interpreter, t *itype, v reflect.Value, f *frame, topWrap func(*itype) reflect.Type) reflect.Value {
	v = valueInterfaceValue(v)
	if rt := topWrap(t); rt != nil {
		return wrapValue(&node{typ: t, interp: interp}, v, rt, f)
	}
	if hasDisplayElem(t, 0, true) {
		return displayValue(interp, t, v, f, 0, true)
	}
	return v
}

func fmtWrap(interp *Interpreter) func(*itype) reflect.Type {
	return func(t *itype) reflect.Type { return fmtWrapperType(interp, t) }
}

// displayRaw returns v, a value whose interpreted type is unknown, with the
// elements of interface type of a slice, array or map made as fmt should
// see them.
func displayRaw(interp *Interpreter, v reflect.Value, f *frame, depth int) reflect.Value {
	if depth > displayMaxDepth || !v.IsValid() {
		return v
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
	default:
		return v
	}
	if et := v.Type().Elem(); et.Kind() != reflect.Interface && et != valueInterfaceType {
		return v
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		fallthrough
	case reflect.Array:
		w := reflect.MakeSlice(reflect.SliceOf(emptyInterfaceType), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			if e := displayIface(interp, v.Index(i), f, depth+1, fmtWrap(interp)); e.IsValid() {
				w.Index(i).Set(e)
			}
		}
		return w
	default:
		if v.IsNil() {
			return v
		}
		w := reflect.MakeMapWithSize(reflect.MapOf(v.Type().Key(), emptyInterfaceType), v.Len())
		it := v.MapRange()
		for it.Next() {
			e := displayIface(interp, it.Value(), f, depth+1, fmtWrap(interp))
			if !e.IsValid() {
				e = reflect.Zero(emptyInterfaceType)
			}
			w.SetMapIndex(it.Key(), e)
		}
		return w
	}
}

// isAnyParam reports whether the parameter i of the function type ft is
// interface{} (the variadic parameter's element from index variadic on).
func isAnyParam(ft reflect.Type, variadic, i int) bool {
	var pt reflect.Type
	switch {
	case variadic >= 0 && i >= variadic:
		pt = ft.In(variadic).Elem()
	case i < ft.NumIn():
		pt = ft.In(i)
	default:
		return false
	}
	return pt.Kind() == reflect.Interface && pt.NumMethod() == 0
}

// genUnwrapArg returns value, an argument of a compiled function whose
// parameter is interface{}, without the interpreter's valueInterface (which
// compiled code would see as a struct), unless getMapType wraps it.
func genUnwrapArg(getMapType func(*itype) reflect.Type, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	return func(f *frame) reflect.Value {
		v := value(f)
		if !v.IsValid() {
			return v
		}
		vi, ok := v.Interface().(valueInterface)
		if !ok {
			return v
		}
		if getMapType != nil && vi.node != nil && getMapType(vi.node.typ) != nil {
			return v
		}
		return valueInterfaceValue(v)
	}
}

// errors.Is, errors.As and errors.Unwrap on errors of interpreted types.
//
// The compiled functions find the Unwrap, Is and As methods by type
// assertion and the target type of As by reflection: an interpreted error
// reaches them as a wrapper with the Error method only, and a target of an
// interpreted type has a reflect type without methods ("*target must be
// interface or implement error"). A call of one of them is redirected to
// the functions below, which follow Go's errors package (wrap.go) over
// dynamic types (tracebook_types.go) and call interpreted methods.

var (
	errorsIs     = reflect.ValueOf(errors.Is)
	errorsAs     = reflect.ValueOf(errors.As)
	errorsUnwrap = reflect.ValueOf(errors.Unwrap)
)

// errorsHook returns the replacement of the binary function fn, the errors
// function called by n, or an invalid value.
func errorsHook(n *node, fn reflect.Value) func(*frame) reflect.Value {
	if !fn.IsValid() || fn.Kind() != reflect.Func || n.action == aCallSlice {
		return nil
	}
	p := fn.Pointer()
	switch {
	case p == errorsIs.Pointer():
		return func(f *frame) reflect.Value {
			return reflect.ValueOf(func(err, target error) bool {
				return tbErrorsIs(f, reflect.ValueOf(&err).Elem(), reflect.ValueOf(&target).Elem(), 0)
			})
		}
	case p == errorsUnwrap.Pointer():
		return func(f *frame) reflect.Value {
			return reflect.ValueOf(func(err error) error {
				u, _ := tbUnwrap(f, reflect.ValueOf(&err).Elem())
				if len(u) != 1 {
					return nil
				}
				e, _ := u[0].Interface().(error)
				return e
			})
		}
	case p == errorsAs.Pointer():
		if len(n.child) != 3 {
			return nil
		}
		var elem *itype
		switch t := n.child[2].typ; {
		case t == nil:
		case t.cat == ptrT:
			elem = t.val
		case t.cat == valueT && t.rtype.Kind() == reflect.Ptr:
			elem = valueTOf(t.rtype.Elem())
		}
		if elem == nil || elem.cat == valueT {
			// A compiled target type: the compiled As works (it sees
			// compiled errors, and wrappers by their Error method).
			return nil
		}
		return func(f *frame) reflect.Value {
			return reflect.ValueOf(func(err error, target interface{}) bool {
				return tbErrorsAs(f, reflect.ValueOf(&err).Elem(), target, elem, 0)
			})
		}
	}
	return nil
}

// callMethod calls the method name of the dynamic value d, interpreted or
// compiled; ok is false if d has no such method.
func callMethod(f *frame, d dynValue, name string, args ...reflect.Value) (res []reflect.Value, ok bool) {
	if d.isNil {
		return nil, false
	}
	if d.typ != nil {
		m, idx := d.typ.lookupMethod(name)
		if m != nil {
			nod := *m
			nod.recv = &receiver{nil, d.val, idx} // the value, not a node of some frame
			return genFunctionWrapper(&nod)(f).Call(args), true
		}
	}
	if mv := d.val.MethodByName(name); mv.IsValid() && mv.Type().NumIn() == len(args) {
		return mv.Call(args), true
	}
	return nil, false
}

// tbUnwrap returns the errors err wraps (Unwrap() error or Unwrap() []error).
func tbUnwrap(f *frame, err reflect.Value) ([]reflect.Value, bool) {
	d := dynamicOf(err)
	res, ok := callMethod(f, d, "Unwrap")
	if !ok || len(res) != 1 {
		if d.wrap.IsValid() {
			if r, ok2 := callMethod(f, dynValue{val: d.wrap}, "Unwrap"); ok2 && len(r) == 1 {
				res, ok = r, true
			}
		}
		if !ok || len(res) != 1 {
			return nil, false
		}
	}
	r := res[0]
	if r.Kind() == reflect.Slice {
		out := make([]reflect.Value, r.Len())
		for i := range out {
			out[i] = r.Index(i)
		}
		return out, true
	}
	return []reflect.Value{r}, true
}

const errorsMaxDepth = 10000

func tbErrorsIs(f *frame, err, target reflect.Value, depth int) bool {
	de, dt := dynamicOf(err), dynamicOf(target)
	if de.isNil || dt.isNil {
		return de.isNil && dt.isNil
	}
	comparable := dt.val.Type().Comparable()
	for i := depth; i < errorsMaxDepth; i++ {
		de = dynamicOf(err)
		if de.isNil {
			return false
		}
		if comparable && de.val.Type().Comparable() && ifaceEqual(nil, nil, err.Interface(), target.Interface()) {
			return true
		}
		if res, ok := callMethod(f, de, "Is", target); ok && len(res) == 1 && res[0].Kind() == reflect.Bool && res[0].Bool() {
			return true
		}
		u, ok := tbUnwrap(f, err)
		if !ok {
			return false
		}
		if len(u) == 1 {
			err = u[0]
			continue
		}
		for _, e := range u {
			if tbErrorsIs(f, e, target, i+1) {
				return true
			}
		}
		return false
	}
	return false
}

func tbErrorsAs(f *frame, err reflect.Value, target interface{}, elem *itype, depth int) bool {
	tv := reflect.ValueOf(target)
	if target == nil || tv.Kind() != reflect.Ptr || tv.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	for i := depth; i < errorsMaxDepth; i++ {
		d := dynamicOf(err)
		if d.isNil {
			return false
		}
		if d.matches(elem) {
			w := d.as(elem, err, f)
			dst := tv.Elem()
			switch {
			case w.Type().AssignableTo(dst.Type()):
				dst.Set(w)
			case w.Type().ConvertibleTo(dst.Type()):
				dst.Set(w.Convert(dst.Type()))
			default:
				panic("errors.As: cannot store " + w.Type().String() + " in " + dst.Type().String())
			}
			return true
		}
		if res, ok := callMethod(f, d, "As", reflect.ValueOf(&target).Elem()); ok && len(res) == 1 && res[0].Kind() == reflect.Bool && res[0].Bool() {
			return true
		}
		u, ok := tbUnwrap(f, err)
		if !ok {
			return false
		}
		if len(u) == 1 {
			err = u[0]
			continue
		}
		for _, e := range u {
			if tbErrorsAs(f, e, target, elem, i+1) {
				return true
			}
		}
		return false
	}
	return false
}

// copyValue returns a copy of v that does not alias v's storage.
func copyValue(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// Keys of maps of interface key type: a value of an interpreted type with
// methods is a valueInterface in an interface slot, but the raw value when
// written directly as a key (m[T(1)] = v), so m[k] with k an interface
// variable missed the entry. Keys are now always stored and looked up as
// the raw value. Limit (PATCHES.md): the raw value of an interpreted named
// type is that of its underlying type, so m[T(1)] and m[1] are one entry.

// genMapKey returns value, a key of a map of type mt, as stored.
func genMapKey(mt *itype, key *node, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	if isIfaceKeyedMap(mt) {
		// tracebook (i30-fixA): a map keyed by an interpreted interface.
		return func(f *frame) reflect.Value { return ifaceMapKey(key, value(f)) }
	}
	rt := mt.TypeOf()
	for rt != nil && rt.Kind() == reflect.Ptr {
		rt = rt.Elem()
	}
	if rt == nil || rt.Kind() != reflect.Map || rt.Key().Kind() != reflect.Interface {
		return value
	}
	kt := rt.Key()
	return func(f *frame) reflect.Value {
		k := mapKeyValue(value(f))
		if k.IsValid() && k.Type() != kt && k.Kind() == reflect.Interface && k.IsNil() {
			// tracebook (i30-fixA): a nil key of another interface type.
			return reflect.Zero(kt)
		}
		return k
	}
}

func mapKeyValue(v reflect.Value) reflect.Value {
	if !v.IsValid() {
		return v
	}
	w := v
	if w.Kind() == reflect.Interface && !w.IsNil() {
		w = w.Elem()
	}
	if w.Type() != valueInterfaceType {
		return v
	}
	if r := valueInterfaceValue(w); r.IsValid() {
		return r
	}
	return reflect.Zero(emptyInterfaceType)
}

// hasMethods reports whether values of the type t, stored in an empty
// interface, need a valueInterface to keep their methods: t has methods,
// its own or, for a pointer or a struct, those of its element or embedded
// fields (upstream looked at t's own methods only, so &T{} of a type T
// with value methods lost them in an interface).
func hasMethods(t *itype) bool {
	if t == nil {
		return false
	}
	if len(t.method) > 0 {
		return true
	}
	if isInterface(t) || t.cat == valueT || t.cat == nilT {
		return false
	}
	return len(t.methods()) > 0
}

// hasNamedResults reports whether the function declaration def names its
// results.
func hasNamedResults(def *node) bool {
	if def == nil || len(def.child) < 3 {
		return false
	}
	ft := def.child[2]
	if ft == nil || ft.kind != funcType || len(ft.child) < 2 || def.typ == nil || len(def.typ.ret) == 0 {
		return false
	}
	// funcType: [type parameters] parameters [results]
	res := ft.lastChild()
	if res == nil || res.kind != fieldList {
		return false
	}
	for _, fld := range res.child {
		if len(fld.child) > 1 {
			return true
		}
	}
	return false
}

// printOperands returns the values and static types of the operands of
// print or println: println(f()) of a call with several results prints
// each of them (only the first was printed).
func printOperands(child []*node) ([]func(*frame) reflect.Value, []*itype) {
	if len(child) == 1 {
		c := child[0]
		var rets []*itype
		switch {
		case isCall(c) && c.child[0].typ != nil && c.child[0].typ.cat == funcT && len(c.child[0].typ.ret) > 1:
			rets = c.child[0].typ.ret
		case isCall(c) && c.child[0].typ != nil && c.child[0].typ.cat == valueT && c.child[0].typ.rtype != nil &&
			c.child[0].typ.rtype.Kind() == reflect.Func && c.child[0].typ.rtype.NumOut() > 1:
			ft := c.child[0].typ.rtype
			for j := 0; j < ft.NumOut(); j++ {
				rets = append(rets, valueTOf(ft.Out(j)))
			}
		}
		if rets != nil {
			values := make([]func(*frame) reflect.Value, len(rets))
			for j := range rets {
				ind, l := c.findex+j, c.level
				values[j] = func(f *frame) reflect.Value { return getFrame(f, l).data[ind] }
			}
			return values, rets
		}
	}
	values := make([]func(*frame) reflect.Value, len(child))
	static := make([]*itype, len(child))
	for i, c := range child {
		values[i] = genValue(c)
		static[i] = c.typ
	}
	return values, static
}
