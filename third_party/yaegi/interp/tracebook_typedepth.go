package interp

import "fmt"

// This file is tracebook's addition to yaegi (see ../PATCHES.md): a type
// whose construction recursed without end (a recursive generic type, an
// instantiation cycle, a recursive type that reflect can not represent)
// grew the goroutine's stack to Go's limit and ended the whole process with
// "fatal error: stack overflow", which no recover catches. The recursions
// of type construction are bounded here, and going past a bound is a
// compile error.

const (
	// maxTypeDepth bounds the nesting of nodeType2 calls. A type
	// expression of a program is a few levels deep; each nested
	// instantiation of a generic type or method adds a few dozen levels.
	maxTypeDepth = 4000
	// maxInstanceDepth bounds the nesting of generic type instantiations
	// (G[int] whose construction instantiates H[int], ...): an expanding
	// cycle such as type T[P any] struct{ f *T[[]P] } never ends.
	maxInstanceDepth = 100
	// maxRefTypeDepth bounds the recursion of refType, which builds the
	// reflect type of an interpreter type.
	maxRefTypeDepth = 10000
)

// enterType counts a nested nodeType2 call; leave must be called when it
// returns.
func (interp *Interpreter) enterType(n *node) error {
	if interp.typeDepth.Add(1) > maxTypeDepth {
		return n.cfgErrorf("type definition too deeply nested or recursive (more than %d levels)", maxTypeDepth)
	}
	return nil
}

func (interp *Interpreter) leaveType() { interp.typeDepth.Add(-1) }

// enterInstance counts a nested instantiation of a generic type.
func (interp *Interpreter) enterInstance(n *node, name string) error {
	if interp.instanceDepth.Add(1) > maxInstanceDepth {
		return n.cfgErrorf("instantiation cycle: %s instantiated within itself more than %d levels deep", name, maxInstanceDepth)
	}
	return nil
}

func (interp *Interpreter) leaveInstance() { interp.instanceDepth.Add(-1) }

// recursiveTypeError is the panic of refType on a type that contains
// itself other than through a struct: reflect can make no such type.
type recursiveTypeError struct{ name string }

func (e recursiveTypeError) Error() string {
	return fmt.Sprintf("invalid recursive type %s: a type that contains itself other than through a struct field is not supported by tracebook's interpreter", e.name)
}

// enterRefType counts a nested refType call of t and panics on a cycle
// that does not pass through a struct (type C chan C, type F func() F), or
// past maxRefTypeDepth. A cycle through a struct is left to refType, which
// builds it with a placeholder field type. The panic becomes a compile
// error (CompileAST, cfg) or a run-time panic. leaveRefType must be called
// with its result when refType returns.
func (c *refTypeContext) enterRefType(t *itype) (prev int, ok bool) {
	c.depth++
	if c.depth > maxRefTypeDepth {
		panic(fmt.Errorf("type %s too deeply nested or recursive (more than %d levels)", t.id(), maxRefTypeDepth))
	}
	if c.building == nil {
		c.building = map[*itype]int{}
	}
	prev, ok = c.building[t]
	if ok && prev == c.slevel && t.cat != structT {
		panic(recursiveTypeError{t.id()})
	}
	c.building[t] = c.slevel
	return prev, ok
}

func (c *refTypeContext) leaveRefType(t *itype, prev int, ok bool) {
	c.depth--
	if ok {
		c.building[t] = prev
	} else {
		delete(c.building, t)
	}
}
