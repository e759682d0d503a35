package interp

import "reflect"

// This file is tracebook's addition to yaegi (see ../PATCHES.md): undoing the
// declarations of a compilation that failed, so that a notebook cell with a
// compile error leaves no name of it behind.

// Snapshot records the global declarations of the main package, and the
// method sets of its types, so that Restore can undo what later
// compilations declared.
type Snapshot struct {
	sym     map[string]*symbol
	methods map[*itype]int
	// instances of generic types, and generated generic ASTs
	instances  map[*itype]int
	generic    map[string]*node
	genericSrc map[string]*node
}

// Snapshot returns the current global declarations of the main package.
func (interp *Interpreter) Snapshot() *Snapshot {
	interp.mutex.RLock()
	defer interp.mutex.RUnlock()
	s := &Snapshot{sym: map[string]*symbol{}, methods: map[*itype]int{}, instances: map[*itype]int{},
		generic: make(map[string]*node, len(interp.generic)), genericSrc: make(map[string]*node, len(interp.generic))}
	for k, v := range interp.generic {
		s.generic[k], s.genericSrc[k] = v, interp.genericSrc[k]
	}
	sc := interp.scopes[mainID]
	if sc == nil {
		return s
	}
	for k, v := range sc.sym {
		s.sym[k] = v
		if v.kind == typeSym && v.typ != nil {
			s.methods[v.typ] = len(v.typ.method)
			if v.typ.cat == genericT {
				s.instances[v.typ] = len(v.typ.instance)
			}
		}
	}
	return s
}

// Restore undoes the global declarations made since s was taken: names
// declared since are removed, names redeclared get their earlier symbol
// back, and methods added to earlier types are removed. Frame slots given to
// removed variables stay allocated (unused). Instances of generic types
// and generic ASTs generated since are forgotten too, so that the next
// compilation generates them afresh. Restore is meant for compilations
// that failed; values of code that ran are not restored.
func (interp *Interpreter) Restore(s *Snapshot) {
	interp.mutex.Lock()
	defer interp.mutex.Unlock()
	for k, v := range interp.generic {
		if s.generic[k] != v {
			if old, ok := s.generic[k]; ok {
				interp.generic[k], interp.genericSrc[k] = old, s.genericSrc[k]
			} else {
				delete(interp.generic, k)
				delete(interp.genericSrc, k)
			}
		}
	}
	for t, n := range s.instances {
		if len(t.instance) > n {
			t.instance = t.instance[:n]
		}
	}
	sc := interp.scopes[mainID]
	if sc == nil {
		return
	}
	for k, v := range sc.sym {
		if old, ok := s.sym[k]; !ok {
			delete(sc.sym, k)
		} else if old != v {
			sc.sym[k] = old
		}
	}
	for k, v := range s.sym {
		sc.sym[k] = v
	}
	for t, n := range s.methods {
		if len(t.method) > n {
			t.method = t.method[:n]
		}
	}
}

// incremental reports whether a file name is that of code evaluated
// incrementally (Eval, Compile of a string), where each evaluation is a new
// file: an import may then rebind a package name imported before.
func (interp *Interpreter) incremental(baseName string) bool {
	return baseName == DefaultSourceName
}

// deferArg copies an argument of a deferred call when it is a variable's
// storage (an addressable value of the frame): Go evaluates the arguments
// of a deferred call when the defer statement runs, so later assignments
// to the variable (a loop variable, say) must not reach the call.
func deferArg(v reflect.Value) reflect.Value {
	if !v.IsValid() || !v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}
