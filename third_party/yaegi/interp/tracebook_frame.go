package interp

import "reflect"

// This file is tracebook's addition to yaegi (see ../PATCHES.md): a
// notebook re-runs cells, and top-level code runs in the one global frame,
// which only grew. Each compilation's temporaries (a call's result, the
// copy of a ranged slice, the value of a cell's last expression) and each
// global declared again (x := ... in a cell run twice) took new slots of
// the global frame and kept their old values alive for the life of the
// session.

// globalSlot returns the global frame slot for a variable name declared
// at the top level (in scope sc) with type typ. A name already declared
// as a global variable with the same frame type keeps its slot: the new
// declaration assigns the slot, so the old value is released and code
// compiled before sees the new value, as a re-run cell should. Otherwise
// the name gets a new slot and the slot of an old variable is retired (see
// releaseFrame).
func (interp *Interpreter) globalSlot(sc *scope, name string, typ *itype) int {
	if !sc.global || name == "" || name == "_" {
		return sc.add(typ)
	}
	if old, ok := sc.sym[name]; ok && old.kind == varSym && old.index >= 0 && old.index < len(sc.types) {
		if t := typ.frameType(); t != nil && sc.types[old.index] == t {
			return old.index
		}
		interp.mutex.Lock()
		interp.retired = append(interp.retired, old.index)
		interp.mutex.Unlock()
	}
	return sc.add(typ)
}

// frameRange records the global frame slots a compilation allocated and
// which of them releaseFrame may reset: the slots its top-level code uses
// for temporaries, and for variables of its top-level blocks unless a
// function literal (a closure may read them after the program ran) is part
// of the program, when no interface wrapper or method value may read them
// later. yaegi binds the receiver of an interface wrapper
// (genInterfaceWrapper) and of a method value to the frame slot of the
// converted expression, read when a method is called: a slot whose type
// has methods is kept. Global variables are never reset (see
// releaseFrame).
func (p *Program) frameRange(lo, hi int) {
	p.frameLo, p.frameHi = lo, hi
	if hi <= lo {
		return
	}
	keep := map[int]bool{}
	closure := false
	note := func(i int, t *itype) {
		if i >= lo && i < hi && (t == nil || mayHaveMethods(t, nil)) {
			keep[i] = true
		}
	}
	seen := map[*scope]bool{}
	walkOnce(p.root, func(n *node) bool {
		if n.kind == funcLit {
			closure = true
		}
		sc := n.scope
		if sc == nil || sc.level != 0 {
			return true
		}
		if n.findex >= 0 {
			note(n.findex, n.typ)
		}
		if !seen[sc] {
			seen[sc] = true
			for _, s := range sc.sym {
				if s.kind == varSym {
					note(s.index, s.typ)
				}
			}
		}
		return true
	})
	if closure {
		for sc := range seen {
			for _, s := range sc.sym {
				if s.kind == varSym && s.index >= lo && s.index < hi {
					keep[s.index] = true
				}
			}
		}
	}
	for i := lo; i < hi; i++ {
		if !keep[i] {
			p.release = append(p.release, i)
		}
	}
}

// mayHaveMethods reports whether a value of type t may be the receiver of
// an interpreted method: a type with methods, an interface, a struct with
// an embedded field, or a pointer to one of them. Compiled types (valueT)
// have only compiled methods, which reflect binds by value.
func mayHaveMethods(t *itype, seen map[*itype]bool) bool {
	if t == nil {
		return true
	}
	if seen[t] {
		return false
	}
	if seen == nil {
		seen = map[*itype]bool{}
	}
	seen[t] = true
	if len(t.method) > 0 {
		return true
	}
	switch t.cat {
	case valueT:
		return false
	case interfaceT:
		return true
	case ptrT, linkedT:
		return mayHaveMethods(t.val, seen)
	case structT:
		for _, f := range t.field {
			if f.embed {
				return true
			}
		}
	}
	return false
}

// releaseFrame is called when a program has run. It resets to their zero
// value the global frame slots frameRange found safe to release, and the
// slots of retired variables that no current global uses, so that what
// they held can be collected. Slots of the package's variables are never
// reset. Retired functions are kept: code compiled before a signature
// changed still calls the old function. A retired variable of another
// type reads as its zero value in code compiled before its redefinition.
func (interp *Interpreter) releaseFrame(p *Program) {
	interp.mutex.Lock()
	retired := interp.retired
	interp.retired = nil
	live := map[int]bool{}
	if sc := interp.scopes[p.pkgName]; sc != nil {
		for _, s := range sc.sym {
			if s.kind == varSym { // global or not (compDefineX's)
				live[s.index] = true
			}
		}
	}
	types := interp.universe.types
	interp.mutex.Unlock()

	f := interp.frame
	f.mutex.Lock()
	defer f.mutex.Unlock()
	reset := func(i int) {
		if i < 0 || i >= len(f.data) || i >= len(types) || live[i] {
			return
		}
		if v := f.data[i]; !v.IsValid() || v.IsZero() {
			return
		}
		f.data[i] = reflect.New(types[i]).Elem()
	}
	for _, i := range p.release {
		reset(i)
	}
	for _, i := range retired {
		if i >= 0 && i < len(f.data) && f.data[i].IsValid() && f.data[i].Kind() == reflect.Func {
			continue
		}
		reset(i)
	}
}

// walkOnce calls in on each node under root once, in pre-order, until in
// returns false. Unlike Walk, it ends on the cycles that instantiated
// generic code leaves in a compiled tree.
func walkOnce(root *node, in func(*node) bool) {
	seen := map[*node]bool{}
	stack := []*node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		if !in(n) {
			return
		}
		for i := len(n.child) - 1; i >= 0; i-- {
			stack = append(stack, n.child[i])
		}
	}
}
