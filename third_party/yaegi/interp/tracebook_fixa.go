package interp

import "reflect"

// Keys of maps keyed by an interpreted interface type (type I interface{
// M() }; m := map[I]int{}): the reflect key type is valueInterface, a
// struct of the dynamic type's node and a reflect.Value, compared by Go as
// pointers. A key written as a concrete value (m[C(1)]) was the raw value
// (a panic in MapIndex), and two valueInterface of equal dynamic values
// were different keys. Keys are now interned: ifaceMapKey returns, for
// equal dynamic type and value, the same valueInterface (PATCHES.md,
// "map keys of interpreted interface type").

// ifaceKey identifies an interface value used as a map key: the dynamic
// type (its id when interpreted, else the reflect type carried by v) and
// the dynamic value.
type ifaceKey struct {
	id  string
	def *node // definition of the named type (a cell may redefine it)
	v   interface{}
}

// typeDef returns the node defining t, a named type or a pointer to one,
// or nil.
func typeDef(t *itype) *node {
	for i := 0; i < 8 && t != nil && t.cat == ptrT; i++ {
		t = t.val
	}
	if t == nil || t.name == "" {
		return nil
	}
	return t.node
}

// isIfaceKeyedMap reports whether mt (or what it points to) is a map type
// whose keys are stored as valueInterface.
func isIfaceKeyedMap(mt *itype) bool {
	rt := mt.TypeOf()
	for rt != nil && rt.Kind() == reflect.Ptr {
		rt = rt.Elem()
	}
	return rt != nil && rt.Kind() == reflect.Map && rt.Key() == valueInterfaceType
}

// constMapKey returns the key of a constant index of a map of type mt.
func constMapKey(mt *itype, key *node) reflect.Value {
	if isIfaceKeyedMap(mt) {
		return ifaceMapKey(key, key.rval)
	}
	return mapKeyValue(key.rval)
}

// ifaceMapKey returns the interned key for v, the value of the key
// expression key: a valueInterface, or the concrete value of key's static
// (non-interface) type.
func ifaceMapKey(key *node, v reflect.Value) reflect.Value {
	d := dynamicOf(v)
	if d.isNil || !d.val.IsValid() {
		return reflect.ValueOf(valueInterface{})
	}
	typ, nod := d.typ, d.node
	if typ == nil && key.typ != nil && !isInterface(key.typ) && key.typ.cat != valueT {
		typ, nod = key.typ, key
	}
	id := ""
	if typ != nil {
		id = typ.id()
	}
	if !d.val.CanInterface() {
		panic(key.cfgErrorf("map key of type %s: value not usable as a key", d.val.Type()))
	}
	// Hashing an uncomparable dynamic value panics as in Go ("hash of
	// unhashable type").
	k := ifaceKey{id: id, def: typeDef(typ), v: d.val.Interface()}
	if c, ok := key.interp.ifaceKeys.Load(k); ok {
		return c.(reflect.Value)
	}
	if nod == nil {
		// Dynamic type known by its reflect type only (a compiled type).
		if vi, ok := asValueInterface(v); ok && vi.node != nil {
			nod = vi.node
		}
	}
	c := reflect.ValueOf(valueInterface{nod, reflect.ValueOf(k.v)})
	if a, loaded := key.interp.ifaceKeys.LoadOrStore(k, c); loaded {
		return a.(reflect.Value)
	}
	return c
}

// asValueInterface returns v as a valueInterface, if it is one.
func asValueInterface(v reflect.Value) (valueInterface, bool) {
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.IsValid() && v.Type() == valueInterfaceType {
		return v.Interface().(valueInterface), true
	}
	return valueInterface{}, false
}
