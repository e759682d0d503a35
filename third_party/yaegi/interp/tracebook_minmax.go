package interp

// The Go 1.21 builtins min, max and clear.

import (
	"go/constant"
	"go/token"
	"math"
	"reflect"
)

// isOrderedKind reports whether values of kind k can be compared with <.
func isOrderedKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// minMaxType returns the type of min(args) or max(args): the type of the
// typed arguments, or if all are untyped, the untyped kind ranking highest
// (int < rune < float).
func minMaxType(interp *Interpreter, sc *scope, n *node, seen []*node) (*itype, error) {
	var untyped *itype
	for _, c := range n.child[1:] {
		t, err := nodeType2(interp, sc, c, seen)
		if err != nil {
			return nil, err
		}
		if t.incomplete || !t.untyped {
			return t, nil
		}
		if untyped == nil || untypedRank(t) > untypedRank(untyped) {
			untyped = t
		}
	}
	if untyped == nil {
		return nil, n.cfgErrorf("not enough arguments in call to %s", n.child[0].ident)
	}
	switch untyped.cat {
	case stringT:
		return untypedString(n), nil
	case int32T:
		return untypedRune(n), nil
	case float64T:
		return untypedFloat(n), nil
	}
	return untypedInt(n), nil
}

// minMax checks the arguments of min and max: all of one ordered type, the
// untyped constants converted to it; or all untyped constants of ordered
// kinds (numbers, or strings).
func (check typecheck) minMax(name string, n *node, params []param) error {
	var typed *itype
	var typedNode *node
	for _, p := range params {
		t := p.Type()
		if t.untyped {
			continue
		}
		if !isOrderedKind(t.TypeOf().Kind()) {
			return p.nod.cfgErrorf("invalid argument: %s (type %s) cannot be ordered", name, t.id())
		}
		if typed == nil {
			typed, typedNode = t, p.nod
			continue
		}
		if !t.equals(typed) {
			_ = typedNode
			return p.nod.cfgErrorf("invalid argument: mismatched types %s (previous argument) and %s in %s", typed.id(), t.id(), name)
		}
	}
	if typed != nil {
		for _, p := range params {
			if !p.Type().untyped {
				continue
			}
			if err := check.convertUntyped(p.nod, typed); err != nil {
				return err
			}
		}
		return nil
	}
	// All untyped.
	var top *itype
	for _, p := range params {
		t := p.Type()
		if !isOrderedKind(t.TypeOf().Kind()) {
			return p.nod.cfgErrorf("invalid argument: %s (%s) cannot be ordered", name, t.id())
		}
		if top == nil || untypedRank(t) > untypedRank(top) {
			top = t
		}
	}
	for _, p := range params {
		if isString(p.Type().TypeOf()) != isString(top.TypeOf()) {
			return p.nod.cfgErrorf("invalid argument: mismatched types %s and %s in %s", params[0].Type().id(), p.Type().id(), name)
		}
	}
	for _, p := range params {
		if err := check.convertUntyped(p.nod, top); err != nil {
			return err
		}
	}
	return nil
}

// clear checks the argument of clear: a map or a slice.
func (check typecheck) clear(p param) error {
	t := p.Type()
	switch t.TypeOf().Kind() {
	case reflect.Map, reflect.Slice:
		return nil
	}
	return p.nod.cfgErrorf("invalid argument: clear of %s: not a map or slice", t.id())
}

// minMaxPick returns the minimum (or maximum) of a and b, two values of the
// same ordered kind, as Go's min and max: a NaN wins, min(-0, +0) is -0 and
// max(-0, +0) is +0; a when they are equal.
func minMaxPick(isMax bool, a, b reflect.Value) reflect.Value {
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if (b.Int() > a.Int()) == isMax && b.Int() != a.Int() {
			return b
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if (b.Uint() > a.Uint()) == isMax && b.Uint() != a.Uint() {
			return b
		}
	case reflect.String:
		if (b.String() > a.String()) == isMax && b.String() != a.String() {
			return b
		}
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		switch {
		case math.IsNaN(x):
			return a
		case math.IsNaN(y):
			return b
		case x == y:
			// Only the zeros differ: min prefers -0, max prefers +0.
			if x == 0 && math.Signbit(x) != math.Signbit(y) && math.Signbit(y) != isMax {
				return b
			}
		case (y > x) == isMax:
			return b
		}
	}
	return a
}

// minMaxConst folds min and max of constants into a constant.
func minMaxConst(n *node) {
	args := n.child[1:]
	for _, c := range args {
		if !c.rval.IsValid() {
			return
		}
	}
	isMax := n.child[0].ident == bltnMax
	if n.typ.untyped {
		var r constant.Value
		for _, c := range args {
			v := vConstantValue(c.rval)
			if v == nil {
				return
			}
			switch {
			case r == nil:
				r = v
			case isMax && constant.Compare(v, token.GTR, r), !isMax && constant.Compare(v, token.LSS, r):
				r = v
			}
		}
		n.rval = reflect.New(constVal).Elem()
		n.rval.Set(reflect.ValueOf(r))
		n.gen = nop
		return
	}
	typ := n.typ.TypeOf()
	var r reflect.Value
	for _, c := range args {
		if isConstantValue(c.rval.Type()) {
			convertLiteralValue(c, typ)
		}
		v := c.rval
		if v.Type() != typ {
			v = v.Convert(typ)
		}
		if !r.IsValid() {
			r = v
			continue
		}
		r = minMaxPick(isMax, r, v)
	}
	n.rval = r
	n.gen = nop
}

func _min(n *node) { genMinMax(n, false) }
func _max(n *node) { genMinMax(n, true) }

func genMinMax(n *node, isMax bool) {
	typ := n.typ.TypeOf()
	dest := genValueOutput(n, typ)
	args := n.child[1:]
	values := make([]func(*frame) reflect.Value, len(args))
	for i, c := range args {
		convertLiteralValue(c, typ)
		values[i] = genValue(c)
	}
	next := getExec(n.tnext)
	first, rest := values[0], values[1:]
	n.exec = func(f *frame) bltn {
		r := first(f)
		for _, v := range rest {
			r = minMaxPick(isMax, r, v(f))
		}
		if r.Type() != typ {
			r = r.Convert(typ)
		}
		dest(f).Set(r)
		return next
	}
}

func _clear(n *node) {
	in := []func(*frame) reflect.Value{genValue(n.child[1])}
	genBuiltinDeferWrapper(n, in, nil, func(args []reflect.Value) []reflect.Value {
		args[0].Clear()
		return nil
	})
}
