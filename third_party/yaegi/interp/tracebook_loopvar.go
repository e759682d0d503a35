package interp

// Go 1.22 per-iteration loop variables, added by tracebook (see PATCHES.md,
// "Go semantics (issue 30): loopvar").
//
// A variable lives in a frame slot holding a reflect.Value that points to its
// storage. A closure copies its frame's slots when it is made (frame.clone),
// so it shares the storage of each variable with the frame; &x points into
// the same storage. Giving a variable a fresh copy is replacing the slot's
// reflect.Value by a new one: closures and pointers made before keep the old
// storage, code after uses the new one.
//
// Only variables that need it get a fresh copy: those captured by a closure
// or whose address is taken (symbol.escapes, set by cfg). Other loops run as
// before.
//
//   - 3-clause loop `for i := ...; cond; post`: the body node, which every
//     iteration (and continue) passes through before the post statement,
//     renews the variables defined by the init statement, so the post
//     statement increments a fresh copy initialised from the body's value,
//     as the Go spec says. The init statement's definition already makes a
//     fresh variable each time the loop statement is run.
//   - range loops (arrays, slices, strings, maps, channels, integers,
//     functions) and select receive clauses `case v := <-c`: the slot is
//     renewed just before it is set for the iteration (or the clause).
//
// The index of a range over an array, slice or pointer to array was also its
// counter, so a body that changed it changed the iteration; the counter is
// now a hidden slot when the index variable is written or escapes.

import (
	"reflect"
	"unicode/utf8"
	"unsafe"
)

// needsFresh reports whether a loop variable needs a fresh copy per
// iteration.
func needsFresh(s *symbol) bool { return s != nil && s.escapes }

// loopVarSym returns the per-iteration symbol recorded on node n (a range
// key or value, a select clause's defined variable), or nil.
func loopVarSym(n *node) *symbol {
	if n == nil || len(n.loopVars) == 0 {
		return nil
	}
	return n.loopVars[0]
}

// renewSlot gives frame slot i fresh storage holding its current value.
func renewSlot(f *frame, i int) {
	v := f.data[i]
	nv := reflect.New(v.Type()).Elem()
	nv.Set(v)
	f.data[i] = nv
}

// freshSlot gives frame slot i fresh zero storage and returns it.
func freshSlot(f *frame, i int) reflect.Value {
	v := reflect.New(f.data[i].Type()).Elem()
	f.data[i] = v
	return v
}

// markLoopVarUse records, at the post-order of identifier n resolved to
// symbol sym at the given frame level, whether the use captures the variable
// in a closure (a deeper frame level) or writes it.
func markLoopVarUse(n *node, sym *symbol, level int) {
	if sym == nil || sym.kind != varSym || sym.global {
		return
	}
	if level > 0 {
		sym.escapes = true
	}
	if a := n.anc; a != nil {
		switch a.kind {
		case assignStmt, assignXStmt:
			if childPos(n) < a.nleft {
				sym.written = true
			}
		case incDecStmt:
			sym.written = true
		}
	}
}

// markEscape records that the address of the variable at the root of
// expression n is taken (&x, &x.f, &x[i] of an array, x[:] of an array,
// x.M() with a pointer receiver on a value).
func markEscape(n *node) {
	for n != nil {
		switch n.kind {
		case identExpr:
			if n.sym != nil && n.sym.kind == varSym && !n.sym.global {
				n.sym.escapes = true
			}
			return
		case parenExpr:
			n = n.child[0]
		case selectorExpr, indexExpr:
			if len(n.child) == 0 || isIndirect(n.child[0].typ) {
				return
			}
			n = n.child[0]
		default:
			return
		}
	}
}

// isIndirect reports whether a value of type t refers to its elements
// (pointer, slice, map): taking the address of an element or field through
// it does not take the address of the variable holding it.
func isIndirect(t *itype) bool {
	if t == nil {
		return false
	}
	switch t.cat {
	case ptrT, sliceT, mapT, variadicT:
		return true
	case valueT:
		if t.rtype == nil {
			return false
		}
		switch t.rtype.Kind() {
		case reflect.Ptr, reflect.Slice, reflect.Map:
			return true
		}
	}
	return false
}

// markPtrMethodEscape marks the receiver variable of method selector n
// (x.M, x.M()) as escaping when M has a pointer receiver and x is not a
// pointer: the call or method value takes &x.
func markPtrMethodEscape(n *node) {
	if n.action != aGetMethod || len(n.child) < 2 {
		return
	}
	recv := n.child[0]
	t := recv.typ
	if t == nil || isIndirect(t) || isInterface(t) {
		return
	}
	if m, ok := n.val.(*node); ok && len(m.child) > 0 && len(m.child[0].child) > 0 {
		// Interpreted method: its receiver declaration.
		if r := m.child[0].child[0].lastChild(); r.kind != starExpr {
			return
		}
	} else if rt := t.TypeOf(); rt != nil && rt.Kind() != reflect.Interface {
		if _, ok := rt.MethodByName(n.child[1].ident); ok {
			return // in the method set of the value: a value receiver
		}
	}
	markEscape(recv)
}

// markArraySliceEscape marks the array variable sliced by slice expression n.
func markArraySliceEscape(n *node) {
	if len(n.child) == 0 {
		return
	}
	if t := n.child[0].typ; t != nil && (t.cat == arrayT || (t.cat == valueT && t.rtype != nil && t.rtype.Kind() == reflect.Array)) {
		markEscape(n.child[0])
	}
}

// wireForLoopVars makes the body of 3-clause loop n renew the variables
// defined by its init statement when one of them escapes. It runs at the
// loop's post-order, in the loop's scope.
func wireForLoopVars(n, init, body *node, sc *scope) {
	if init == nil || body == nil || (init.kind != defineStmt && init.kind != defineXStmt) {
		return
	}
	nleft := init.nleft
	if init.kind == defineXStmt {
		nleft = len(init.child) - 1
	}
	var syms []*symbol
	for _, c := range init.child[:nleft] {
		if c.kind != identExpr || c.ident == "_" {
			continue
		}
		if s, ok := sc.sym[c.ident]; ok && s.kind == varSym && s.index >= 0 {
			syms = append(syms, s)
		}
	}
	for _, s := range syms {
		if needsFresh(s) {
			body.loopVars = syms
			body.gen = renewLoopVars
			return
		}
	}
}

// renewLoopVars generates the exec of the body node of a 3-clause loop whose
// variables escape: before the post statement, each variable that escapes
// gets a fresh copy.
func renewLoopVars(n *node) {
	next := getExec(n.tnext)
	var index []int
	for _, s := range n.loopVars {
		if needsFresh(s) {
			index = append(index, s.index)
		}
	}
	n.exec = func(f *frame) bltn {
		for _, i := range index {
			renewSlot(f, i)
		}
		return next
	}
}

// rangeString generates the exec of a range over a string: the index is the
// byte position of each rune, decoded from the string itself as Go does (an
// invalid byte is one U+FFFD rune of width 1). The byte position of the next
// rune is kept in the hidden slot before the string's copy, so the body may
// change the index. Upstream converted the string to []rune and computed each
// position by re-encoding the runes before it: quadratic, and wrong after an
// invalid byte.
func rangeString(n *node, renewK, renewV bool) {
	index0 := n.child[0].findex // index variable
	index2 := index0 - 1        // the string ranged over
	index3 := index0 - 2        // byte position of the next rune
	index1 := -1                // value variable
	an := n.child[1]
	if len(n.child) == 4 {
		index1 = n.child[1].findex
		an = n.child[2]
	}
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)
	value := genValue(an)
	n.exec = func(f *frame) bltn {
		s := f.data[index2].String()
		c := f.data[index3]
		pos := int(c.Int())
		if pos >= len(s) {
			return fnext
		}
		r, size := utf8.DecodeRuneInString(s[pos:])
		c.SetInt(int64(pos + size))
		if renewK {
			freshSlot(f, index0)
		}
		f.data[index0].SetInt(int64(pos))
		if index1 >= 0 {
			if renewV {
				freshSlot(f, index1)
			}
			f.data[index1].SetInt(int64(r))
		}
		return tnext
	}
	next := n.exec
	n.child[0].exec = func(f *frame) bltn {
		f.data[index2] = reflect.ValueOf(value(f).String())
		f.data[index3].SetInt(0)
		return next
	}
}

// clauseVarSym returns the symbol of the variable a select clause `case v :=
// <-c` defines (the definition's own symbol, which replaces the one the
// clause's pre-order declared), or nil when v is not defined by the clause.
func clauseVarSym(n *node) *symbol {
	if n == nil || n.kind != identExpr || n.scope == nil || n.anc == nil {
		return nil
	}
	if n.anc.kind != defineStmt && n.anc.kind != defineXStmt {
		return nil
	}
	return n.scope.sym[n.ident]
}

// rangeAssignToDefine: ast.go.

// nodeOf returns the *node held by v, if v holds one, without boxing other
// values in an interface: call checked each argument with
// v.Interface().(*node), an allocation per int argument of an interpreted
// call (test/copy.go spends most of its time in calls of small functions).
func nodeOf(v reflect.Value) (*node, bool) {
	if !v.IsValid() {
		return nil, false
	}
	if v.Type() != nodePtrType {
		if v.Kind() == reflect.Interface && !v.IsNil() {
			return nodeOf(v.Elem())
		}
		return nil, false
	}
	n, ok := v.Interface().(*node)
	return n, ok
}

// funcIdentity returns what tells two func values apart: the data word of
// the func in an interface (the closure it points to; reflect's Pointer
// gives the code pointer, the same for every reflect.MakeFunc), or nil
// for a value that is no valid, non-nil func.
func funcIdentity(v reflect.Value) unsafe.Pointer {
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() || !v.CanInterface() {
		return nil
	}
	x := v.Interface()
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1]
}
