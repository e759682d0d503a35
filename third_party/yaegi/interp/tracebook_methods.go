package interp

// Method expressions (T.m, (*T).m, I.m, pkg.T.m) as function values, and
// method values (x.m) whose receiver is evaluated when the method value is.

import (
	"reflect"
)

// runtimeError is a panic value that recover() sees as a runtime.Error.
type runtimeError string

func (e runtimeError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks runtimeError as a runtime.Error.
func (e runtimeError) RuntimeError() {}

// nilDerefError is Go's runtime error for a nil pointer dereference; recover()
// sees a runtime.Error.
type nilDerefError struct{}

func (nilDerefError) Error() string {
	return "runtime error: invalid memory address or nil pointer dereference"
}

// RuntimeError marks nilDerefError as a runtime.Error.
func (nilDerefError) RuntimeError() {}

// ptrElem returns the value v points to; a nil v panics with Go's runtime
// error (reflect's Elem gave an invalid value, and FieldByIndex a reflect
// panic).
func ptrElem(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Ptr && v.IsNil() {
		panic(nilDerefError{})
	}
	return v.Elem()
}

// typeAssertionError is the panic of a failed type assertion x.(T), worded
// as Go's *runtime.TypeAssertionError, and like it a runtime.Error (it was a
// compile error value, its message prefixed with the position).
type typeAssertionError string

func (e typeAssertionError) Error() string { return string(e) }

// RuntimeError marks typeAssertionError as a runtime.Error.
func (typeAssertionError) RuntimeError() {}

// boundReceiver returns the receiver of a method value made from r, following
// the embedded fields index: for a method with a value receiver, a copy of the
// receiver (later changes to the variable are not seen, as in Go), for a
// pointer receiver, a pointer to it. A nil pointer met on the way, or a nil
// pointer for a value receiver, panics as in Go.
func boundReceiver(r reflect.Value, index []int, ptrRecv bool) reflect.Value {
	return bindReceiver(r, index, ptrRecv, true)
}

// bindReceiver is boundReceiver; without copyVal a value receiver is not
// copied (the caller copies it at once: a direct call x.m()).
func bindReceiver(r reflect.Value, index []int, ptrRecv, copyVal bool) reflect.Value {
	unwrap := func(v reflect.Value) reflect.Value {
		for v.IsValid() && v.Kind() != reflect.Ptr {
			vi, ok := v.Interface().(valueInterface)
			if !ok {
				break
			}
			v = vi.value
		}
		if !v.IsValid() {
			panic(nilDerefError{})
		}
		return v
	}
	r = unwrap(r)
	for _, i := range index {
		if r.Kind() == reflect.Ptr {
			if r.IsNil() {
				panic(nilDerefError{})
			}
			r = r.Elem()
		}
		r = unwrap(r.Field(i))
	}
	if ptrRecv {
		if r.Kind() == reflect.Ptr {
			return r
		}
		if r.CanAddr() {
			return r.Addr()
		}
		p := reflect.New(r.Type())
		p.Elem().Set(r)
		return p
	}
	if r.Kind() == reflect.Ptr {
		if r.IsNil() {
			panic(nilDerefError{})
		}
		r = r.Elem()
	}
	if !copyVal {
		return r
	}
	c := reflect.New(r.Type()).Elem()
	c.Set(r)
	return c
}

// genBoundMethod returns the function value of the method m selected by n
// (x.m), its receiver evaluated when the returned function is called: the
// deferred call x.m() takes x at the defer statement.
func genBoundMethod(n, m *node) func(*frame) reflect.Value {
	recv := genValue(n.recv.node)
	index := n.recv.index
	ptrRecv := isPtrRecvMethod(m)
	return func(f *frame) reflect.Value {
		nod := *m
		nod.val = &nod
		nod.recv = &receiver{val: boundReceiver(recv(f), index, ptrRecv)}
		return genFunctionWrapper(&nod)(f)
	}
}

// isPtrRecvMethod reports whether the method declaration m has a pointer
// receiver.
func isPtrRecvMethod(m *node) bool {
	if m == nil || m.typ == nil || m.typ.recv == nil {
		return false
	}
	return m.typ.recv.cat == ptrT || m.typ.recv.TypeOf().Kind() == reflect.Ptr
}

// methodExpr compiles the method expression n (X.m, X a type) into a function
// value whose first argument is the receiver. It returns false, leaving n to
// the upstream code, for a direct call T.m(x, ...) of a method declared on T
// itself with a receiver of T's kind (the fast path: the method's declaration
// is called with the receiver as its first argument).
func methodExpr(sc *scope, n *node) (bool, error) {
	recvT := n.child[0].typ
	if recvT == nil {
		return false, nil
	}
	name := n.child[1].ident
	direct := n.anc != nil && n.anc.kind == callExpr && n.anc.child[0] == n
	if m, lind := recvT.lookupMethod(name); m != nil {
		needPtr := isPtrRecvMethod(m)
		isPtr := recvT.cat == ptrT
		if needPtr && !isPtr && !embedsPointer(recvT, lind) {
			return true, n.cfgErrorf("invalid method expression %s.%s (needs pointer receiver (*%s).%s)", recvT.id(), name, recvT.id(), name)
		}
		if direct && len(lind) == 0 && needPtr == isPtr {
			return false, nil
		}
	}

	// The method is found as the selector r.m of a receiver r in slot 0 of a
	// frame of its own, compiled by the selector code.
	r := &node{kind: identExpr, typ: recvT, interp: n.interp, scope: sc, pos: n.pos}
	id := &node{kind: identExpr, ident: name, interp: n.interp, scope: sc, pos: n.child[1].pos}
	sel := &node{kind: selectorExpr, child: []*node{r, id}, typ: recvT, interp: n.interp, scope: sc, pos: n.pos, anc: n}
	r.anc, id.anc = sel, sel
	if err := matchSelectorMethod(sc, sel); err != nil {
		return true, err
	}
	if sel.action != aGetMethod && !(sel.typ != nil && (sel.typ.cat == funcT || sel.typ.cat == valueT && sel.typ.rtype.Kind() == reflect.Func)) {
		return true, n.cfgErrorf("%s.%s undefined (type %s has no method %s)", recvT.id(), name, recvT.id(), name)
	}
	sig, err := methodSignature(recvT, sel)
	if err != nil {
		return true, err
	}
	sel.findex = 1
	sel.level = 0
	n.val = nil
	// The type's node is a childless func type node (not a declaration, not
	// generic).
	tn := &node{kind: funcType, anc: n, interp: n.interp, scope: sc, pos: n.pos}
	n.typ = funcOf(append([]*itype{recvT}, sig.arg...), sig.ret, withNode(tn), withScope(sc))
	n.gen = func(n *node) { getMethodExpr(n, sel) }
	n.action = aGetMethod
	n.recv = nil
	return true, nil
}

// embedsPointer reports whether the path index of embedded fields from t goes
// through a pointer (so the method set of t has the pointer methods found
// there).
func embedsPointer(t *itype, index []int) bool {
	for _, i := range index {
		for t.cat == ptrT || t.cat == linkedT {
			t = t.val
		}
		if i >= len(t.field) {
			return false
		}
		t = t.field[i].typ
		if t.cat == ptrT {
			return true
		}
	}
	return false
}

// methodSignature returns the type of the method selected by sel (compiled
// by matchSelectorMethod) without its receiver.
func methodSignature(recvT *itype, sel *node) (*itype, error) {
	if m, ok := sel.val.(*node); ok && m.kind == funcDecl {
		return m.typ, nil
	}
	if sel.typ.cat == funcT {
		return sel.typ, nil
	}
	if sel.typ.cat != valueT || sel.typ.rtype.Kind() != reflect.Func {
		return nil, sel.cfgErrorf("method expression %s.%s: unsupported method type %s", recvT.id(), sel.child[1].ident, sel.typ.id())
	}
	// A compiled method: its reflect type has the receiver if it was found on
	// a concrete type. Look it up again on the type that declares it.
	owner := recvT
	if sel.recv != nil && len(sel.recv.index) > 0 {
		for owner.cat == ptrT {
			owner = owner.val
		}
		owner = owner.fieldSeq(sel.recv.index)
	}
	rt := owner.TypeOf()
	name := sel.child[1].ident
	var ft reflect.Type
	if rt.Kind() == reflect.Interface {
		if m, ok := rt.MethodByName(name); ok {
			ft = m.Type
		}
	} else {
		m, ok := rt.MethodByName(name)
		if !ok && rt.Kind() != reflect.Ptr {
			m, ok = reflect.PtrTo(rt).MethodByName(name)
		}
		if !ok && rt.Kind() == reflect.Ptr {
			m, ok = rt.Elem().MethodByName(name)
		}
		if ok {
			in := make([]reflect.Type, m.Type.NumIn()-1)
			for i := range in {
				in[i] = m.Type.In(i + 1)
			}
			out := make([]reflect.Type, m.Type.NumOut())
			for i := range out {
				out[i] = m.Type.Out(i)
			}
			ft = reflect.FuncOf(in, out, m.Type.IsVariadic())
		}
	}
	if ft == nil {
		return nil, sel.cfgErrorf("method expression %s.%s: method not found", recvT.id(), name)
	}
	args := make([]*itype, ft.NumIn())
	for i := range args {
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			args[i] = variadicOf(valueTOf(ft.In(i).Elem()))
			continue
		}
		args[i] = valueTOf(ft.In(i))
	}
	rets := make([]*itype, ft.NumOut())
	for i := range rets {
		rets[i] = valueTOf(ft.Out(i))
	}
	return funcOf(args, rets), nil
}

// getMethodExpr makes the function value of a method expression: called, it
// puts its first argument in a frame of its own as the receiver, evaluates
// the method value r.m there, and calls it with the other arguments.
func getMethodExpr(n *node, sel *node) {
	recvT := sel.child[0].typ
	slotT := recvT.frameType()
	setExec(sel)
	selExec := sel.exec
	fnT := n.typ.TypeOf()
	variadic := n.typ.isVariadic()
	outT := make([]reflect.Type, fnT.NumOut())
	for i := range outT {
		outT[i] = fnT.Out(i)
	}
	i := n.findex
	l := n.level
	next := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		fn := reflect.MakeFunc(fnT, func(in []reflect.Value) []reflect.Value {
			fr := newFrame(f, 2, f.runid())
			fr.depth = n.interp.enterDepth(f)
			r := reflect.New(slotT).Elem()
			switch a := in[0]; {
			case a.Type() == slotT || slotT.Kind() == reflect.Interface:
				r.Set(a)
			case slotT == valueInterfaceType:
				r.Set(reflect.ValueOf(valueInterface{value: a}))
			default:
				r.Set(a)
			}
			fr.data[0] = r
			selExec(fr)
			m := fr.data[1]
			if nod, ok := m.Interface().(*node); ok {
				m = genFunctionWrapper(nod)(fr)
			}
			var out []reflect.Value
			if variadic {
				out = m.CallSlice(in[1:])
			} else {
				out = m.Call(in[1:])
			}
			for k, v := range out {
				if v.Type() != outT[k] {
					w := reflect.New(outT[k]).Elem()
					w.Set(v)
					out[k] = w
				}
			}
			return out
		})
		getFrame(f, l).data[i] = fn
		return next
	}
}

// runDeferred runs the deferred call val (function and arguments) of frame f.
// As in Go, a panic in a deferred call replaces the panic under way, if any,
// and the remaining deferred calls still run (and may recover it): the panic
// is recorded in f.recovered. Deferring a nil function panics here, when the
// call runs, with Go's runtime error.
func runDeferred(f *frame, val []reflect.Value) {
	defer func() {
		if r := recover(); r != nil {
			f.recovered = r
		}
	}()
	if fn := val[0]; fn.Kind() == reflect.Func && fn.IsNil() {
		panic(nilDerefError{})
	}
	val[0].Call(val[1:])
}

// instantiateType returns the type of the generic type instance n (G[A]),
// instantiating it, or nil if that fails (a recursive generic type may panic
// with "incomplete type" while its methods are compiled).
func instantiateType(interp *Interpreter, sc *scope, n *node) (t *itype) {
	defer func() {
		if r := recover(); r != nil {
			t = nil
		}
	}()
	it, err := nodeType(interp, sc, n)
	if err != nil || it == nil || it.cat == genericT || it.incomplete {
		return nil
	}
	return it
}

// deferRecover compiles `defer recover()`. v0.16.1 called recover at the
// defer statement, stopping at once the panic the enclosing deferred
// function runs for. As in Go, the deferred recover runs when the function
// returns: called by the function's normal return, it stops the panic the
// function was deferred for (the one recover() in its body would stop);
// called by a panic of the function itself (the runtime calls it, not a
// deferred function) it does nothing.
func deferRecover(n *node, tnext bltn) {
	n.exec = func(f *frame) bltn {
		fn := reflect.ValueOf(func() {
			if f.recovered != nil {
				return
			}
			a := f.anc
			if a != nil && a.origin != nil {
				a = a.origin
			}
			if a != nil && a.recovered != nil {
				a.recovered = nil
				n.interp.panicRecovered()
			}
		})
		f.deferred = append([][]reflect.Value{{fn}}, f.deferred...)
		return tnext
	}
}

// embeddedInterfacePath returns the field indices, through embedded
// structs, of the embedded interface field of struct type t whose method
// set has the method name (tracebook: getMethodByName took the first
// exported anonymous field holding an interface, at the top level only, so
// a method promoted from an interface embedded after another field or at
// a deeper level failed with "invalid interface value").
func embeddedInterfacePath(t *itype, name string) []int {
	var walk func(t *itype, depth int) []int
	walk = func(t *itype, depth int) []int {
		for t != nil && (t.cat == linkedT || t.cat == ptrT) {
			t = t.val
		}
		if t == nil || t.cat != structT || depth > 8 {
			return nil
		}
		for i, fld := range t.field {
			if !fld.embed || fld.typ == nil {
				continue
			}
			if isInterfaceSrc(fld.typ) {
				if _, ok := fld.typ.methods()[name]; ok {
					return []int{i}
				}
				continue
			}
		}
		for i, fld := range t.field {
			if !fld.embed || fld.typ == nil || isInterfaceSrc(fld.typ) {
				continue
			}
			if p := walk(fld.typ, depth+1); p != nil {
				return append([]int{i}, p...)
			}
		}
		return nil
	}
	return walk(t, 0)
}

// embeddedInterfaceAt returns the interface value at the field path of v.
func embeddedInterfaceAt(v reflect.Value, path []int) (valueInterface, bool) {
	for _, i := range path {
		for v.Kind() == reflect.Ptr {
			if v.IsNil() {
				panic(nilDerefError{})
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct || i >= v.NumField() {
			return valueInterface{}, false
		}
		v = v.Field(i)
	}
	if !v.CanInterface() {
		return valueInterface{}, false
	}
	vi, ok := v.Interface().(valueInterface)
	return vi, ok
}
