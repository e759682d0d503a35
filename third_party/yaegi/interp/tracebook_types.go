package interp

import (
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
		return d.typ.methods().contains(want)
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
	// Only the reflect type is known: an interpreted type without methods
	// has the reflect type of its underlying type.
	rt := t.frameType()
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
