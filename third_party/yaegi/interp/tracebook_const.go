package interp

import (
	"fmt"
	"go/constant"
	"go/token"
	"math"
	"reflect"
)

// tracebook: a comparison of two untyped constants is a constant, computed
// exactly (go/constant) at compile time. It was computed at run time on
// values converted to int64, which failed for big values (1<<100 > 1<<100-1:
// "constant ... overflows int64").
func init() {
	for a, op := range map[action]token.Token{
		aEqual: token.EQL, aNotEqual: token.NEQ,
		aLower: token.LSS, aLowerEqual: token.LEQ,
		aGreater: token.GTR, aGreaterEqual: token.GEQ,
	} {
		op := op
		constOp[a] = func(n *node) { compareConst(n, op) }
	}
	// ^x of a typed unsigned constant held as a constant.Value is computed
	// in the type's size (^F where F Flags = 1, Flags uint8, is 254; it was
	// -2, then "constant -2 overflows uint8").
	bitNot := constOp[aBitNot]
	constOp[aBitNot] = func(n *node) {
		v0 := n.child[0].rval
		if n.typ != nil && !n.typ.untyped && v0.IsValid() && isConstantValue(v0.Type()) {
			if t := n.typ.TypeOf(); t != nil && t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
				n.rval = reflect.ValueOf(constant.UnaryOp(token.XOR, vConstantValue(v0), uint(t.Bits())))
				return
			}
		}
		bitNot(n)
	}
	// The result of an operation on typed constants is a value of the type:
	// it is rounded (const a float64 = 1<<100 - 1; a+1 == a).
	for a, f := range constOp {
		f := f
		a := a
		constOp[a] = func(n *node) {
			checkIntConstOverflow(n, a)
			f(n)
			roundNodeConst(n)
		}
	}
}

// roundNodeConst rounds the constant value of n to n's type, if typed.
func roundNodeConst(n *node) {
	if n.typ == nil || n.typ.untyped || !n.rval.IsValid() || !isConstantValue(n.rval.Type()) {
		return
	}
	n.rval = reflect.ValueOf(roundConst(vConstantValue(n.rval), n.typ.TypeOf()))
}

// roundConstValue is v rounded to type t if v is a constant.Value.
func roundConstValue(v reflect.Value, t *itype) reflect.Value {
	if !v.IsValid() || !isConstantValue(v.Type()) || t == nil || t.untyped {
		return v
	}
	return reflect.ValueOf(roundConst(vConstantValue(v), t.TypeOf()))
}

// roundConst is c as a value of type t, as a constant: rounded to float32
// or float64 precision for a floating-point type. c is returned unchanged if
// t is not a numeric type or if c is not representable in t (reported
// elsewhere).
func roundConst(c constant.Value, t reflect.Type) constant.Value {
	if c == nil || t == nil || !isBasicKind(t.Kind()) || t.Kind() == reflect.Bool || t.Kind() == reflect.String {
		return c
	}
	v, err := constantToValue(c, t)
	if err != nil {
		return c
	}
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return constant.MakeInt64(v.Int())
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case k == reflect.Float32 || k == reflect.Float64:
		return constant.MakeFloat64(v.Float())
	default:
		x := v.Complex()
		return constant.BinaryOp(constant.MakeFloat64(real(x)), token.ADD, constant.MakeImag(constant.MakeFloat64(imag(x))))
	}
}

func compareConst(n *node, op token.Token) {
	v0, v1 := n.child[0].rval, n.child[1].rval
	if !v0.IsValid() || !v1.IsValid() || !isConstantValue(v0.Type()) || !isConstantValue(v1.Type()) {
		return // typed constants are compared at run time
	}
	c0, c1 := vConstantValue(v0), vConstantValue(v1)
	// A typed operand is a value of its type; an untyped one is converted
	// to the type of the other operand.
	var t reflect.Type
	for _, c := range n.child[:2] {
		if c.typ != nil && !c.typ.untyped && t == nil {
			t = c.typ.TypeOf()
		}
	}
	if t != nil {
		c0, c1 = roundConst(c0, t), roundConst(c1, t)
	}
	if c0.Kind() == constant.Unknown || c1.Kind() == constant.Unknown {
		return
	}
	n.rval = reflect.ValueOf(constant.MakeBool(constant.Compare(c0, op, c1)))
}

// constantToValue is the value of constant c as a value of type t, or an
// error if c is not representable in t (Go rejects such a program). For a t
// that is not a basic type (an interface), c has its default type.
func constantToValue(c constant.Value, t reflect.Type) (reflect.Value, error) {
	if c.Kind() == constant.Unknown {
		return reflect.Value{}, fmt.Errorf("unknown constant value")
	}
	if t == nil || !isBasicKind(t.Kind()) {
		switch c.Kind() {
		case constant.Bool:
			t = reflect.TypeOf(false)
		case constant.String:
			t = reflect.TypeOf("")
		case constant.Int:
			t = reflect.TypeOf(0)
		case constant.Float:
			t = reflect.TypeOf(0.0)
		default:
			t = reflect.TypeOf(0i)
		}
	}
	overflow := func() (reflect.Value, error) {
		return reflect.Value{}, fmt.Errorf("constant %s overflows %s", c.ExactString(), t.Kind())
	}
	v := reflect.New(t).Elem()
	switch k := t.Kind(); {
	case k == reflect.Bool:
		if c.Kind() != constant.Bool {
			break
		}
		v.SetBool(constant.BoolVal(c))
		return v, nil
	case k == reflect.String:
		if c.Kind() != constant.String {
			break
		}
		v.SetString(constant.StringVal(c))
		return v, nil
	case k >= reflect.Int && k <= reflect.Int64:
		ci := constant.ToInt(c)
		if ci.Kind() != constant.Int {
			return reflect.Value{}, fmt.Errorf("constant %s truncated to integer", c.ExactString())
		}
		i, exact := constant.Int64Val(ci)
		if !exact || v.OverflowInt(i) {
			return overflow()
		}
		v.SetInt(i)
		return v, nil
	case k >= reflect.Uint && k <= reflect.Uintptr:
		ci := constant.ToInt(c)
		if ci.Kind() != constant.Int {
			return reflect.Value{}, fmt.Errorf("constant %s truncated to integer", c.ExactString())
		}
		u, exact := constant.Uint64Val(ci)
		if !exact || v.OverflowUint(u) {
			return overflow()
		}
		v.SetUint(u)
		return v, nil
	case k == reflect.Float32 || k == reflect.Float64:
		cf := constant.ToFloat(c)
		if cf.Kind() != constant.Float {
			break
		}
		var f float64
		if k == reflect.Float32 {
			f32, _ := constant.Float32Val(cf)
			f = float64(f32)
		} else {
			f, _ = constant.Float64Val(cf)
		}
		if math.IsInf(f, 0) {
			return overflow()
		}
		v.SetFloat(f)
		return v, nil
	case k == reflect.Complex64 || k == reflect.Complex128:
		cc := constant.ToComplex(c)
		if cc.Kind() != constant.Complex {
			break
		}
		var r, i float64
		if k == reflect.Complex64 {
			r32, _ := constant.Float32Val(constant.Real(cc))
			i32, _ := constant.Float32Val(constant.Imag(cc))
			r, i = float64(r32), float64(i32)
		} else {
			r, _ = constant.Float64Val(constant.Real(cc))
			i, _ = constant.Float64Val(constant.Imag(cc))
		}
		if math.IsInf(r, 0) || math.IsInf(i, 0) {
			return overflow()
		}
		v.SetComplex(complex(r, i))
		return v, nil
	}
	return reflect.Value{}, fmt.Errorf("cannot convert constant %s to type %s", c.ExactString(), t)
}

func isBasicKind(k reflect.Kind) bool {
	return k == reflect.Bool || k == reflect.String || k >= reflect.Int && k <= reflect.Complex128
}

// constPanic is a compile error found while folding constants: the CFG
// post-order pass turns it into the error of the compilation.
type constPanic struct{ err error }

// checkIntConstOverflow reports (panics with a constPanic) an operation on
// typed integer constants whose exact result is not a value of the type
// (const x int8 = 100; x * 2): Go rejects the program, the operation in the
// type wrapped around.
func checkIntConstOverflow(n *node, a action) {
	if n.typ == nil || n.typ.untyped {
		return
	}
	t := n.typ.TypeOf()
	if t == nil || t.Kind() < reflect.Int || t.Kind() > reflect.Uintptr {
		return
	}
	// Only an operation on typed operands is typed: an untyped shift or
	// sum may have been given the type of its context (uint64(1<<64 - 1)),
	// it is exact.
	typed := false
	for i, c := range n.child {
		if c.typ != nil && !c.typ.untyped && (i == 0 || a != aShl) {
			typed = true
		}
	}
	if !typed {
		return
	}
	var ops []constant.Value
	for _, c := range n.child {
		if !c.rval.IsValid() {
			return
		}
		cv := valueToConstant(c.rval)
		if cv == nil || cv.Kind() == constant.Unknown {
			return
		}
		ops = append(ops, cv)
	}
	var r constant.Value
	switch {
	case len(ops) == 1 && a == aNeg:
		r = constant.UnaryOp(token.SUB, ops[0], 0)
	case len(ops) != 2:
		return
	case a == aAdd:
		r = constant.BinaryOp(ops[0], token.ADD, ops[1])
	case a == aSub:
		r = constant.BinaryOp(ops[0], token.SUB, ops[1])
	case a == aMul:
		r = constant.BinaryOp(ops[0], token.MUL, ops[1])
	case a == aQuo:
		if constant.Sign(ops[1]) == 0 {
			return
		}
		r = constant.BinaryOp(constant.ToInt(ops[0]), token.QUO_ASSIGN, constant.ToInt(ops[1]))
	case a == aShl:
		s, ok := constant.Uint64Val(constant.ToInt(ops[1]))
		if !ok || s > 10000 {
			return
		}
		r = constant.Shift(constant.ToInt(ops[0]), token.SHL, uint(s))
	default:
		return
	}
	if _, err := constantToValue(r, t); err != nil {
		panic(constPanic{n.cfgErrorf("constant %s overflows %s", r.ExactString(), n.typ.id())})
	}
}

// valueToConstant is the constant value of v, a constant.Value or a value
// of a basic type, or nil.
func valueToConstant(v reflect.Value) constant.Value {
	if isConstantValue(v.Type()) {
		return vConstantValue(v)
	}
	switch k := v.Kind(); {
	case k == reflect.Bool:
		return constant.MakeBool(v.Bool())
	case k == reflect.String:
		return constant.MakeString(v.String())
	case k >= reflect.Int && k <= reflect.Int64:
		return constant.MakeInt64(v.Int())
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case k == reflect.Float32 || k == reflect.Float64:
		return constant.MakeFloat64(v.Float())
	}
	return nil
}

// isConstArrayLen reports whether len(x) and cap(x) are constants: x is of
// array type or pointer to array type and contains no function call (other
// than a conversion) and no channel receive.
func isConstArrayLen(x *node) bool {
	if x.typ == nil {
		return false
	}
	t := x.typ.TypeOf()
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	if t.Kind() != reflect.Array {
		return false
	}
	ok := true
	x.Walk(func(c *node) bool {
		switch {
		case !ok:
		case c.kind == callExpr && c.action != aConvert:
			ok = false
		case c.action == aRecv:
			ok = false
		case c.kind == funcLit:
			return false
		}
		return ok
	}, nil)
	return ok
}

// complexOfConsts is the untyped complex constant re + im*i.
func complexOfConsts(re, im constant.Value) constant.Value {
	return constant.BinaryOp(constant.ToFloat(re), token.ADD, constant.MakeImag(constant.ToFloat(im)))
}

// isIntegerType reports whether t is an integer type.
func isIntegerType(t *itype) bool {
	if t == nil {
		return false
	}
	rt := t.TypeOf()
	return rt != nil && rt.Kind() >= reflect.Int && rt.Kind() <= reflect.Uintptr
}
