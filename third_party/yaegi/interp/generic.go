package interp

import (
	"reflect"
	"strings"
	"sync/atomic"
)

// adot produces an AST dot(1) directed acyclic graph for the given node. For debugging only.
// func (n *node) adot() { n.astDot(dotWriter(n.interp.dotCmd), n.ident) }

// genAST returns a new AST where generic types are replaced by instantiated types.
func genAST(sc *scope, root *node, types []*itype) (*node, bool, error) {
	typeParam := map[string]*node{}
	pindex := 0
	tname := ""
	rtname := ""
	recvrPtr := false
	fixNodes := []*node{}
	var gtree func(*node, *node) (*node, error)
	sname := root.child[0].ident + "["
	if root.kind == funcDecl {
		sname = genericMethodPrefix(root) + root.child[1].ident + "["
	}

	// Input type parameters must be resolved prior AST generation, as compilation
	// of generated AST may occur in a different scope.
	for _, t := range types {
		sname += t.id() + ","
	}
	sname = strings.TrimSuffix(sname, ",") + "]"

	gtree = func(n, anc *node) (*node, error) {
		nod := copyNode(n, anc, false)
		switch n.kind {
		case funcDecl, funcType:
			nod.val = nod

		case identExpr:
			// Replace generic type by instantiated one.
			nt, ok := typeParam[n.ident]
			if !ok || isFieldName(n) {
				break
			}
			nod = copyNode(nt, anc, true)
			nod.typ = nt.typ
			nod.typeArg = true

		case indexExpr, indexListExpr:
			// Catch a possible recursive generic type definition
			if root.kind != typeSpec {
				break
			}
			if root.child[0].ident != n.child[0].ident {
				break
			}
			if !sameTypeParams(root, n) {
				// tracebook: T[[]P] in the declaration of T[P] is another instance.
				break
			}
			nod := copyNode(n.child[0], anc, false)
			fixNodes = append(fixNodes, nod)
			return nod, nil

		case fieldList:
			//  Node is the type parameters list of a generic function.
			if root.kind == funcDecl && n.anc == root.child[2] && childPos(n) == 0 {
				// Fill the types lookup table used for type substitution.
				for _, c := range n.child {
					l := len(c.child) - 1
					for _, cc := range c.child[:l] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = types[pindex].id()
						typeParam[cc.ident].typ = types[pindex]
						pindex++
					}
				}
				if err := checkTypeArgs(sc, root, n, types); err != nil {
					return nil, err
				}
				// Skip type parameters specification, so generated func doesn't look generic.
				return nod, nil
			}

			// Node is the receiver of a generic method.
			if root.kind == funcDecl && n.anc == root && childPos(n) == 0 && len(n.child) > 0 {
				rtn := n.child[0].lastChild() // tracebook: the receiver may be unnamed
				// Method receiver is a generic type if it takes some type parameters.
				if rtn.kind == indexExpr || rtn.kind == indexListExpr || (rtn.kind == starExpr && (rtn.child[0].kind == indexExpr || rtn.child[0].kind == indexListExpr)) {
					if rtn.kind == starExpr {
						// Method receiver is a pointer on a generic type.
						rtn = rtn.child[0]
						recvrPtr = true
					}
					rtname = rtn.child[0].ident + "["
					for _, cc := range rtn.child[1:] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						it := types[pindex]
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = it.id()
						typeParam[cc.ident].typ = it
						rtname += it.id() + ","
						pindex++
					}
					rtname = strings.TrimSuffix(rtname, ",") + "]"
				}
			}

			// Node is the type parameters list of a generic type.
			if root.kind == typeSpec && n.anc == root && childPos(n) == 1 {
				// Fill the types lookup table used for type substitution.
				tname = n.anc.child[0].ident + "["
				for _, c := range n.child {
					l := len(c.child) - 1
					for _, cc := range c.child[:l] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						it := types[pindex]
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = it.id()
						typeParam[cc.ident].typ = it
						tname += it.id() + ","
						pindex++
					}
				}
				if err := checkTypeArgs(sc, root, n, types); err != nil {
					return nil, err
				}
				tname = strings.TrimSuffix(tname, ",") + "]"
				return nod, nil
			}
		}

		for _, c := range n.child {
			gn, err := gtree(c, nod)
			if err != nil {
				return nil, err
			}
			nod.child = append(nod.child, gn)
		}
		return nod, nil
	}

	// tracebook: an instance is reused only if generated from a
	// declaration of the same file, not from one of the same name declared
	// by an earlier compilation (a notebook cell run again or changed)
	if nod, found := root.interp.generic[sname]; found && sameFile(root.interp.genericSrc[sname], root) {
		return nod, true, nil
	}

	r, err := gtree(root, root.anc)
	if err != nil {
		return nil, false, err
	}
	root.interp.generic[sname] = r
	root.interp.genericSrc[sname] = root
	r.param = append(r.param, types...)
	if tname != "" {
		for _, nod := range fixNodes {
			nod.ident = tname
		}
		r.child[0].ident = tname
	}
	if rtname != "" {
		// Replace method receiver type by synthetized ident.
		nod := r.child[0].child[0].lastChild() // tracebook: the receiver may be unnamed
		if recvrPtr {
			nod = nod.child[0]
		}
		nod.kind = identExpr
		nod.ident = rtname
		nod.child = nil
	}
	// r.adot() // Used for debugging only.
	return r, false, nil
}

// genericMethodPrefix returns "T." for a method of the generic type T, the
// prefix of its instances' names in the cache of generated ASTs (tracebook:
// without it a method g0 of T and a generic function g0, or methods of the
// same name of two generic types, instantiated with the same types, shared
// one entry).
func genericMethodPrefix(fn *node) string {
	if len(fn.child) == 0 || len(fn.child[0].child) == 0 {
		return ""
	}
	rtn := fn.child[0].child[0].lastChild()
	for rtn != nil && (rtn.kind == starExpr || rtn.kind == indexExpr || rtn.kind == indexListExpr) && len(rtn.child) > 0 {
		rtn = rtn.child[0]
	}
	if rtn == nil || rtn.ident == "" {
		return ""
	}
	return rtn.ident + "."
}

// isFieldName reports whether identifier n names a struct field (in a
// struct type, a selector or a keyed literal), not a type: tracebook, in
// type Pair[A, B any] struct{ A A; B B } the field names are no type
// parameters (got.A was "undefined selector: A").
func isFieldName(n *node) bool {
	a := n.anc
	if a == nil {
		return false
	}
	switch a.kind {
	case fieldExpr:
		// The names come before the type, which a tag may follow.
		l := len(a.child)
		if l > 0 && a.lastChild().kind == basicLit {
			l--
		}
		return l > 1 && n != a.child[l-1]
	case selectorExpr:
		return n == a.child[1]
	case keyValueExpr:
		return n == a.child[0] && a.anc != nil && a.anc.kind == compositeLitExpr
	}
	return false
}

// typeInstance types the generated function g if its compilation is still
// in progress up the stack (Some[int] whose result type Opt[int] has a
// method calling Some[int]): a call needs only its signature.
func typeInstance(interp *Interpreter, g *node, sc *scope) (err error) {
	if g.typ == nil && g.kind == funcDecl {
		g.typ, err = nodeType(interp, sc, g.child[2])
	}
	return err
}

// recvTypeName returns the name of the receiver's base type of method
// declaration n (List for func (l *List[T]) Len() int), or "".
func recvTypeName(n *node) string {
	if n.kind != funcDecl || len(n.child[0].child) == 0 {
		return ""
	}
	rtn := n.child[0].child[0].lastChild()
	if rtn.kind == starExpr {
		rtn = rtn.child[0]
	}
	if rtn.kind == indexExpr || rtn.kind == indexListExpr {
		rtn = rtn.child[0]
	}
	return rtn.ident
}

// sameTypeParams reports whether the index expression n, in the generic type
// declaration root, names the declared type with its own type parameters
// (List[T] in type List[T any], Tree[K, V] in type Tree[K, V any]).
func sameTypeParams(root, n *node) bool {
	var params []string
	for _, c := range root.child[1].child {
		for _, cc := range c.child[:len(c.child)-1] {
			params = append(params, cc.ident)
		}
	}
	if len(n.child)-1 != len(params) {
		return false
	}
	for i, c := range n.child[1:] {
		if c.kind != identExpr || c.ident != params[i] {
			return false
		}
	}
	return true
}

func copyNode(n, anc *node, recursive bool) *node {
	var i interface{}
	nindex := atomic.AddInt64(&n.interp.nindex, 1)
	nod := &node{
		debug:  n.debug,
		anc:    anc,
		interp: n.interp,
		index:  nindex,
		level:  n.level,
		nleft:  n.nleft,
		nright: n.nright,
		kind:   n.kind,
		pos:    n.pos,
		action: n.action,
		gen:    n.gen,
		val:    &i,
		rval:   n.rval,
		ident:  n.ident,
		meta:   n.meta,

		typeArg: n.typeArg,
	}
	nod.start = nod
	if recursive {
		for _, c := range n.child {
			nod.child = append(nod.child, copyNode(c, nod, true))
		}
	}
	return nod
}

func inferTypesFromCall(sc *scope, fun *node, call *node) ([]*itype, error) {
	args := call.child[1:]
	argTypes := make([]*itype, len(args))
	for i, a := range args {
		argTypes[i] = a.typ
	}
	var explicit []*itype
	ellipsis := call.action == aCallSlice
	// Type arguments given in F[A](...), as in Grow[S](nil, n); tracebook:
	// also for a call without arguments (Zero[[]int]()).
	if c0 := call.child[0]; c0.kind == indexExpr || c0.kind == indexListExpr {
		for _, c := range c0.child[1:] {
			explicit = append(explicit, c.typ)
		}
	}
	ft := fun.typ
	if ft == nil {
		// tracebook: the declaration of a generic function called from
		// another generic function's instance may not be typed yet.
		ft = call.child[0].typ
		if c0 := call.child[0]; (c0.kind == indexExpr || c0.kind == indexListExpr) && c0.child[0].typ != nil {
			ft = c0.child[0].typ
		}
	}
	if ft == nil || ft.node == nil {
		return nil, call.cfgErrorf("generic function call: undefined function type")
	}
	return inferTypeArgs(sc, ft, explicit, argTypes, ellipsis)
}

// genericCallType returns the result type of call n and true if n calls a
// generic function (Id(4), Counter[string]()), with the type arguments given
// or inferred, so that a global x := Id(4) gets its type before the call is
// compiled. It returns false when the result type can not be built here.
func genericCallType(interp *Interpreter, sc *scope, n *node, seen []*node) (*itype, bool, error) {
	fn := n.child[0]
	if fn.kind == indexExpr || fn.kind == indexListExpr {
		fn = fn.child[0]
	}
	ft, err := nodeType2(interp, sc, fn, seen)
	if err != nil || ft == nil || !isGeneric(ft) {
		return nil, false, err
	}
	var explicit []*itype
	if fn != n.child[0] {
		for _, c := range n.child[0].child[1:] {
			t, err := nodeType2(interp, sc, c, seen)
			if err != nil || t == nil || t.incomplete {
				return nil, false, err
			}
			explicit = append(explicit, t)
		}
	}
	argTypes := make([]*itype, len(n.child)-1)
	for i, c := range n.child[1:] {
		t, err := nodeType2(interp, sc, c, seen)
		if err != nil || t == nil || t.incomplete {
			return nil, false, err
		}
		argTypes[i] = t
	}
	types, err := inferTypeArgs(sc, ft, explicit, argTypes, n.action == aCallSlice)
	if err != nil || len(ft.ret) != 1 {
		return nil, false, err
	}
	tps, err := funcTypeParams(sc, ft)
	if err != nil {
		return nil, false, err
	}
	bound := map[string]*itype{}
	for i, tp := range tps {
		bound[tp.name] = types[i]
	}
	if t, ok := substType(ft.ret[0], bound); ok {
		return t, true, nil
	}
	// The result type holds an instantiated generic type (*Stack[T]): evaluate
	// a copy of its expression with the type parameters declared as types.
	ftn := ft.node
	if len(ftn.child) < 3 || len(ftn.child[2].child) != 1 {
		return nil, false, nil
	}
	tsc := &scope{anc: sc, level: sc.level, sym: map[string]*symbol{}, types: sc.types, global: sc.global, pkgID: sc.pkgID, pkgName: sc.pkgName}
	for name, t := range bound {
		tsc.sym[name] = &symbol{kind: typeSym, typ: t}
	}
	rn := ftn.child[2].child[0].lastChild()
	t, err := nodeType2(interp, tsc, copyNode(rn, rn.anc, true), seen)
	if err != nil || t == nil || t.incomplete {
		return nil, false, err
	}
	return t, true, nil
}

// genericFuncValueType returns the type of the generic function value F[A, B]
// of type ft with type argument expressions targs, or nil (incomplete) if
// they are not all given.
func genericFuncValueType(interp *Interpreter, sc *scope, ft *itype, targs []*node, seen []*node) (*itype, error) {
	if !isGeneric(ft) {
		return nil, nil
	}
	tps, err := funcTypeParams(sc, ft)
	if err != nil || len(targs) != len(tps) {
		return nil, err
	}
	bound := map[string]*itype{}
	for i, c := range targs {
		t, err := nodeType2(interp, sc, c, seen)
		if err != nil || t == nil || t.incomplete {
			return nil, err
		}
		bound[tps[i].name] = t
	}
	args := make([]*itype, len(ft.arg))
	for i, a := range ft.arg {
		var ok bool
		if args[i], ok = substType(a, bound); !ok {
			return nil, nil
		}
	}
	rets := make([]*itype, len(ft.ret))
	for i, r := range ft.ret {
		var ok bool
		if rets[i], ok = substType(r, bound); !ok {
			return nil, nil
		}
	}
	return funcOf(args, rets, withScope(sc)), nil
}

// typeParam is a type parameter of a generic function: its name and constraint.
type typeParam struct {
	name       string
	constraint *itype
}

// funcTypeParams returns the type parameters of the generic function type ft, in order.
func funcTypeParams(sc *scope, ft *itype) ([]typeParam, error) {
	// Constraints are resolved where the function is declared (they may
	// name other type parameters, or types of another package).
	if ft.scope != nil {
		sc = ft.scope
	}
	var tps []typeParam
	names := map[string]bool{}
	for _, c := range ft.node.child[0].child {
		for _, cc := range c.child[:len(c.child)-1] {
			names[cc.ident] = true
		}
	}
	for _, c := range ft.node.child[0].child {
		typ, ok := genericConstraint(ft.node.interp, sc, c.lastChild(), names)
		if !ok {
			var err error
			if typ, err = nodeType(ft.node.interp, sc, c.lastChild()); err != nil {
				return nil, err
			}
		}
		for _, cc := range c.child[:len(c.child)-1] {
			tps = append(tps, typeParam{cc.ident, typ})
		}
	}
	return tps, nil
}

// genericConstraint returns the constraint e of a type parameter when it is
// a generic interface instantiated with type parameters of the same list
// (S _SliceOf[E], U numericAbs[T]): the interface with those type
// parameters in it (~[]E), for inference. It returns false otherwise.
func genericConstraint(interp *Interpreter, sc *scope, e *node, names map[string]bool) (*itype, bool) {
	if e.kind != indexExpr && e.kind != indexListExpr {
		return nil, false
	}
	base, err := nodeType(interp, sc, e.child[0])
	if err != nil || base == nil || base.cat != genericT || base.node == nil || base.node.anc == nil {
		return nil, false
	}
	decl := base.node.anc
	if decl.kind != typeSpec || len(decl.child) != 3 || decl.child[2].kind != interfaceType {
		return nil, false
	}
	return genericBodyType(interp, sc, e, base, names)
}

// genericBodyType returns the type of the declaration of generic type base
// instantiated by e (Func2[A1, A2, R], _SliceOf[E]), where the arguments of
// e that are in names (type parameters being inferred) stay type parameters:
// func(A1, A2) R, ~[]E. It returns false if it can not be built.
func genericBodyType(interp *Interpreter, sc *scope, e *node, base *itype, names map[string]bool) (*itype, bool) {
	decl := base.node.anc
	if decl.kind != typeSpec || len(decl.child) != 3 {
		return nil, false
	}
	var err error
	var params []string
	for _, c := range decl.child[1].child {
		for _, cc := range c.child[:len(c.child)-1] {
			params = append(params, cc.ident)
		}
	}
	if len(params) != len(e.child)-1 {
		return nil, false
	}
	dsc := sc
	if base.scope != nil {
		dsc = base.scope
	}
	tsc := &scope{anc: dsc, level: dsc.level, sym: map[string]*symbol{}, types: dsc.types, global: dsc.global, pkgID: dsc.pkgID, pkgName: dsc.pkgName}
	for i, a := range e.child[1:] {
		var t *itype
		if a.kind == identExpr && names[a.ident] {
			t = genericOf(nil, a.ident, "")
		} else if t, err = nodeType(interp, sc, a); err != nil || t == nil || t.incomplete {
			return nil, false
		}
		tsc.sym[params[i]] = &symbol{index: -1, kind: typeSym, typ: t}
	}
	body := decl.child[2]
	// The copy hangs from no type declaration: nodeType would update the
	// generic type's own symbol (a struct type declared in place).
	anc := &node{kind: parenExpr, interp: interp}
	t, err := nodeType(interp, tsc, copyNode(body, anc, true))
	if err != nil || t == nil {
		return nil, false
	}
	return t, true
}

// inferTypeArgs returns the type arguments of a call to the generic function
// of type ft, in type parameter order. The first type arguments may be
// given explicitly, the others are inferred by unifying the parameter types
// with argTypes, then the core types of constraints (as in S ~[]E) with the
// type arguments found so far. Untyped constant arguments give their default
// type (the largest kind among them), unless a typed argument binds the same
// type parameter.
func inferTypeArgs(sc *scope, ft *itype, explicit, argTypes []*itype, ellipsis bool) ([]*itype, error) {
	ftn := ft.node
	dsc := sc
	if ft.scope != nil {
		dsc = ft.scope
	}
	tps, err := funcTypeParams(sc, ft)
	if err != nil {
		return nil, err
	}
	if len(explicit) > len(tps) {
		return nil, ftn.cfgErrorf("got %d type arguments but %d type parameters", len(explicit), len(tps))
	}
	isParam := map[string]bool{}
	for _, tp := range tps {
		isParam[tp.name] = true
	}
	bound := map[string]*itype{}
	for i, t := range explicit {
		bound[tps[i].name] = t
	}

	var unify func(param, input *itype)
	unify = func(param, input *itype) {
		if param == nil || input == nil || input.cat == nilT {
			return
		}
		if param.cat == genericT {
			if !isParam[param.name] {
				return
			}
			if old, ok := bound[param.name]; ok && !(old.untyped && (!input.untyped || untypedRank(input) > untypedRank(old))) {
				return
			}
			bound[param.name] = input
			return
		}
		if input.cat == linkedT {
			// A named type argument matches an unnamed parameter type by its underlying type.
			input = input.underlying()
		}
		switch param.cat {
		case chanT, chanSendT, chanRecvT, ptrT, sliceT, arrayT, variadicT:
			unify(param.val, elemType(input))
		case mapT:
			unify(param.key, keyType(input))
			unify(param.val, elemType(input))
		case funcT:
			for i, t := range param.arg {
				unify(t, funcArgType(input, i))
			}
			for i, t := range param.ret {
				unify(t, funcRetType(input, i))
			}
		case structT:
			if input.cat == structT && len(input.field) == len(param.field) {
				for i, f := range param.field {
					unify(f.typ, input.field[i].typ)
				}
			}
		}
	}

	// A generic type in a parameter (*Stack[T]) has lost its type arguments
	// in the parameter's itype: walk the parameter's type expression instead.
	var unifyExpr func(e *node, input *itype)
	unifyExpr = func(e *node, input *itype) {
		if e == nil || input == nil || input.cat == nilT {
			return
		}
		switch e.kind {
		case identExpr:
			if isParam[e.ident] {
				unify(genericOf(nil, e.ident, ""), input)
			}
		case starExpr:
			if input.cat == ptrT {
				unifyExpr(e.child[0], input.val)
			}
		case indexExpr, indexListExpr:
			args := instanceTypeArgs(input, e.child[0].ident)
			for k, c := range e.child[1:] {
				if k < len(args) {
					unifyExpr(c, args[k])
				}
			}
			if args == nil {
				// tracebook: an argument of another type than an instance
				// (a func literal for a Func2[A1, A2, R] parameter) is
				// unified with the generic type's definition.
				if base, err := nodeType(ftn.interp, dsc, e.child[0]); err == nil && base != nil && base.cat == genericT && base.node != nil && base.node.anc != nil {
					if bt, ok := genericBodyType(ftn.interp, dsc, e, base, isParam); ok {
						unify(bt, input)
					}
				}
			}
		case arrayType:
			if u := input.underlying(); u.cat == sliceT || u.cat == arrayT {
				unifyExpr(e.lastChild(), u.val)
			}
		case mapType:
			if u := input.underlying(); u.cat == mapT {
				unifyExpr(e.child[0], u.key)
				unifyExpr(e.child[1], u.val)
			}
		}
	}
	var paramExprs []*node
	for _, c := range ftn.child[1].child {
		n := len(c.child) - 1
		if n == 0 {
			n = 1
		}
		for j := 0; j < n; j++ {
			paramExprs = append(paramExprs, c.lastChild())
		}
	}

	params := ft.arg
	for i, p := range params {
		if p.cat == variadicT && i == len(params)-1 {
			for _, a := range argTypes[min(i, len(argTypes)):] {
				if ellipsis {
					unify(p, a)
				} else {
					unify(p.val, a)
				}
			}
			break
		}
		if i < len(argTypes) {
			unify(p, argTypes[i])
			if i < len(paramExprs) && len(paramExprs) == len(params) {
				unifyExpr(paramExprs[i], argTypes[i])
			}
		}
	}

	// Constraint type inference: a bound type parameter determines those in the
	// core type of its constraint; a constraint's core type made only of bound
	// type parameters determines its type parameter.
	for changed := true; changed; {
		changed = false
		for _, tp := range tps {
			core := coreType(tp.constraint)
			if core == nil {
				continue
			}
			n := len(bound)
			if t, ok := bound[tp.name]; ok {
				unify(core, t)
			} else if t, ok := substType(core, bound); ok {
				bound[tp.name] = t
			}
			changed = changed || len(bound) != n
		}
	}

	types := make([]*itype, len(tps))
	for i, tp := range tps {
		t, ok := bound[tp.name]
		if !ok {
			return nil, ftn.cfgErrorf("in call to %s, cannot infer %s", ftn.anc.child[1].ident, tp.name)
		}
		if t.untyped {
			t = t.defaultType(reflect.Value{}, sc)
		}
		types[i] = t
	}
	return types, nil
}

// instanceTypeArgs returns the type arguments of t if it is an instance of
// the generic type named name (Stack[int] for Stack), or nil.
func instanceTypeArgs(t *itype, name string) []*itype {
	if t == nil || !strings.HasPrefix(t.name, name+"[") {
		return nil
	}
	if t.typeArgs != nil {
		// tracebook: the node of an instance's type may be another one
		// than its declaration's.
		return t.typeArgs
	}
	if t.node == nil || t.node.anc == nil || t.node.anc.kind != typeSpec {
		return nil
	}
	return t.node.anc.param
}

// untypedRank orders untyped numeric constants kinds: a type parameter bound
// by 1 and 2.5 is float64.
func untypedRank(t *itype) int {
	switch t.cat {
	case int32T:
		return 1
	case float64T:
		return 2
	case complex128T:
		return 3
	}
	return 0
}

// coreType returns the single type in constraint ct (~[]E in S ~[]E, or
// interface{ ~map[K]V }), or nil.
func coreType(ct *itype) *itype {
	switch ct.cat {
	case interfaceT, constraintT:
		// The methods of a constraint do not change its core type.
		if len(ct.constraint)+len(ct.ulconstraint) != 1 {
			return nil
		}
		if len(ct.constraint) == 1 {
			return ct.constraint[0]
		}
		return ct.ulconstraint[0]
	case valueT, genericT, comparableT:
		// tracebook: comparable is no core type (it bound an
		// uninferred type parameter to the type "comparable").
		return nil
	}
	return ct
}

// substType returns t with its type parameters replaced by their bound
// types, and false if t holds an unbound type parameter or a composite
// type that is not rebuilt here.
func substType(t *itype, bound map[string]*itype) (*itype, bool) {
	if t == nil {
		return nil, false
	}
	opt := withScope(t.scope)
	switch t.cat {
	case genericT:
		b, ok := bound[t.name]
		return b, ok
	case ptrT, sliceT, arrayT, variadicT, chanT, chanSendT, chanRecvT:
		v, ok := substType(t.val, bound)
		if !ok {
			return nil, false
		}
		if v == t.val {
			return t, true
		}
		switch t.cat {
		case ptrT:
			return ptrOf(v, opt), true
		case sliceT:
			return sliceOf(v, opt), true
		case arrayT:
			return arrayOf(v, t.length, opt), true
		case variadicT:
			return variadicOf(v, opt), true
		case chanSendT:
			return chanOf(v, chanSend, opt), true
		case chanRecvT:
			return chanOf(v, chanRecv, opt), true
		}
		return chanOf(v, chanSendRecv, opt), true
	case mapT:
		k, ok1 := substType(t.key, bound)
		v, ok2 := substType(t.val, bound)
		if !ok1 || !ok2 {
			return nil, false
		}
		if k == t.key && v == t.val {
			return t, true
		}
		return mapOf(k, v, opt), true
	case funcT:
		if t.node != nil && len(t.node.child) > 0 && len(t.node.child[0].child) > 0 {
			return nil, false // a generic function value
		}
		changed := false
		args := make([]*itype, len(t.arg))
		for i, a := range t.arg {
			var ok bool
			if args[i], ok = substType(a, bound); !ok {
				return nil, false
			}
			changed = changed || args[i] != a
		}
		rets := make([]*itype, len(t.ret))
		for i, r := range t.ret {
			var ok bool
			if rets[i], ok = substType(r, bound); !ok {
				return nil, false
			}
			changed = changed || rets[i] != r
		}
		if !changed {
			return t, true
		}
		return funcOf(args, rets, opt), true
	case structT, interfaceT:
		for _, f := range t.field {
			if hasTypeParam(f.typ) {
				return nil, false
			}
		}
	}
	return t, true
}

// hasTypeParam reports whether t refers to a type parameter.
func hasTypeParam(t *itype) bool {
	_, ok := substType(t, nil)
	return !ok
}

// elemType, keyType, funcArgType and funcRetType return the component types
// of t (nil if none), for interpreter types and for binary (valueT) types.
func elemType(t *itype) *itype {
	if t.cat == valueT {
		switch t.rtype.Kind() {
		case reflect.Array, reflect.Chan, reflect.Map, reflect.Pointer, reflect.Slice:
			return valueTOf(t.rtype.Elem())
		}
		return nil
	}
	return t.val
}

func keyType(t *itype) *itype {
	if t.cat == valueT {
		if t.rtype.Kind() == reflect.Map {
			return valueTOf(t.rtype.Key())
		}
		return nil
	}
	return t.key
}

func funcArgType(t *itype, i int) *itype {
	if t.cat == valueT {
		if t.rtype.Kind() == reflect.Func && i < t.rtype.NumIn() {
			return valueTOf(t.rtype.In(i))
		}
		return nil
	}
	if t.cat != funcT || i >= len(t.arg) {
		return nil
	}
	return t.arg[i]
}

func funcRetType(t *itype, i int) *itype {
	if t.cat == valueT {
		if t.rtype.Kind() == reflect.Func && i < t.rtype.NumOut() {
			return valueTOf(t.rtype.Out(i))
		}
		return nil
	}
	if t.cat != funcT || i >= len(t.ret) {
		return nil
	}
	return t.ret[i]
}

// checkTypeArgs checks type arguments types against the constraints of the
// type parameter list tpl of the generic declaration root. tracebook: the
// constraints are evaluated with the type parameters bound to the type
// arguments, in the scope of the declaration (interface{ ~map[K]V } or
// _SliceOf[E] name other type parameters; v0.16.1 evaluated them in the
// scope of the instantiation, declaring K and V there as unknown types, and
// panicked on the map of type parameters).
func checkTypeArgs(sc *scope, root, tpl *node, types []*itype) error {
	dsc := sc
	if root.typ != nil && root.typ.scope != nil {
		dsc = root.typ.scope
	}
	tsc := &scope{anc: dsc, level: dsc.level, sym: map[string]*symbol{}, types: dsc.types, global: dsc.global, pkgID: dsc.pkgID, pkgName: dsc.pkgName}
	i := 0
	for _, c := range tpl.child {
		for _, cc := range c.child[:len(c.child)-1] {
			if i < len(types) {
				tsc.sym[cc.ident] = &symbol{index: -1, kind: typeSym, typ: types[i]}
			}
			i++
		}
	}
	i = 0
	for _, c := range tpl.child {
		cn := c.lastChild()
		ct, err := nodeType(c.interp, tsc, copyNode(cn, cn.anc, true))
		if err != nil {
			return err
		}
		for range c.child[:len(c.child)-1] {
			if i < len(types) {
				if err := checkConstraint(types[i], ct); err != nil {
					return err
				}
			}
			i++
		}
	}
	return nil
}

func checkConstraint(it, ct *itype) error {
	if len(ct.constraint) == 0 && len(ct.ulconstraint) == 0 {
		return nil
	}
	for _, c := range ct.constraint {
		if it.equals(c) || it.matchDefault(c) {
			return nil
		}
	}
	for _, c := range ct.ulconstraint {
		if it.underlying().equals(c) || it.matchDefault(c) || sameUnderlying(it, c) {
			return nil
		}
	}
	return it.node.cfgErrorf("%s does not implement %s", it.id(), ct.id())
}

// sameFile reports whether nodes a and b belong to the same AST.
func sameFile(a, b *node) bool {
	return a != nil && b != nil && astRoot(a) == astRoot(b)
}

// sameUnderlying reports whether the underlying type of t is c, for a
// constraint term ~c. tracebook: a type declared from a composite type
// (type MySlice []int) is its own underlying type in yaegi, under its name,
// so ~[]int did not match it. The reflect types of interpreter types are
// unnamed, hence structural; a named binary type (time.Duration) is replaced
// by its underlying reflect type.
func sameUnderlying(t, c *itype) (same bool) {
	if isInterfaceSrc(t) || isInterfaceSrc(c) || isGeneric(t) || isGeneric(c) {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return underlyingRType(t.TypeOf()) == underlyingRType(c.TypeOf())
}

var basicRTypes = map[reflect.Kind]reflect.Type{}

func init() {
	for _, v := range []any{false, int(0), int8(0), int16(0), int32(0), int64(0), uint(0), uint8(0), uint16(0), uint32(0), uint64(0), uintptr(0), float32(0), float64(0), complex64(0), complex128(0), ""} {
		basicRTypes[reflect.TypeOf(v).Kind()] = reflect.TypeOf(v)
	}
}

// underlyingRType returns the unnamed reflect type of the named type rt.
func underlyingRType(rt reflect.Type) reflect.Type {
	if rt == nil || rt.Name() == "" {
		return rt
	}
	if b, ok := basicRTypes[rt.Kind()]; ok {
		return b
	}
	switch rt.Kind() {
	case reflect.Slice:
		return reflect.SliceOf(rt.Elem())
	case reflect.Array:
		return reflect.ArrayOf(rt.Len(), rt.Elem())
	case reflect.Map:
		return reflect.MapOf(rt.Key(), rt.Elem())
	case reflect.Pointer:
		return reflect.PointerTo(rt.Elem())
	case reflect.Chan:
		return reflect.ChanOf(rt.ChanDir(), rt.Elem())
	}
	return rt
}
