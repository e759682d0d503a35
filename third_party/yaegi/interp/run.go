package interp

//go:generate go run ../internal/cmd/genop/genop.go

import (
	"errors"
	"fmt"
	"go/constant"
	"reflect"
	"regexp"
	"unsafe"
)

// bltn type defines functions which run at CFG execution.
type bltn func(f *frame) bltn

// bltnGenerator type defines a builtin generator function.
type bltnGenerator func(n *node)

var builtin = [...]bltnGenerator{
	aNop:          nop,
	aAddr:         addr,
	aAssign:       assign,
	aAdd:          add,
	aAddAssign:    addAssign,
	aAnd:          and,
	aAndAssign:    andAssign,
	aAndNot:       andNot,
	aAndNotAssign: andNotAssign,
	aBitNot:       bitNot,
	aCall:         call,
	aCallSlice:    call,
	aCase:         _case,
	aCompositeLit: arrayLit,
	aDec:          dec,
	aEqual:        equal,
	aGetFunc:      getFunc,
	aGreater:      greater,
	aGreaterEqual: greaterEqual,
	aInc:          inc,
	aLand:         land,
	aLor:          lor,
	aLower:        lower,
	aLowerEqual:   lowerEqual,
	aMul:          mul,
	aMulAssign:    mulAssign,
	aNeg:          neg,
	aNot:          not,
	aNotEqual:     notEqual,
	aOr:           or,
	aOrAssign:     orAssign,
	aPos:          pos,
	aQuo:          quo,
	aQuoAssign:    quoAssign,
	aRange:        _range,
	aRecv:         recv,
	aRem:          rem,
	aRemAssign:    remAssign,
	aReturn:       _return,
	aSend:         send,
	aShl:          shl,
	aShlAssign:    shlAssign,
	aShr:          shr,
	aShrAssign:    shrAssign,
	aSlice:        slice,
	aSlice0:       slice0,
	aStar:         deref,
	aSub:          sub,
	aSubAssign:    subAssign,
	aTypeAssert:   typeAssertShort,
	aXor:          xor,
	aXorAssign:    xorAssign,
}

var receiverStripperRxp *regexp.Regexp

func init() {
	re := `func\(((.*?(, |\)))(.*))`
	var err error
	receiverStripperRxp, err = regexp.Compile(re)
	if err != nil {
		panic(err)
	}
}

type valueInterface struct {
	node  *node
	value reflect.Value
}

var floatType, complexType reflect.Type

func init() {
	floatType = reflect.ValueOf(0.0).Type()
	complexType = reflect.ValueOf(complex(0, 0)).Type()
}

func (interp *Interpreter) run(n *node, cf *frame) {
	if n == nil {
		return
	}
	var f *frame
	if cf == nil {
		f = interp.frame
	} else {
		f = newFrame(cf, len(n.types), interp.runid())
	}
	interp.mutex.RLock()
	c := reflect.ValueOf(interp.done)
	interp.mutex.RUnlock()

	f.mutex.Lock()
	f.done = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: c}
	f.mutex.Unlock()

	for i, t := range n.types {
		f.data[i] = reflect.New(t).Elem()
	}
	runCfg(n.start, f, n, nil)
}

func isExecNode(n *node, exec bltn) bool {
	if n == nil || n.exec == nil || exec == nil {
		return false
	}

	a1 := reflect.ValueOf(n.exec).Pointer()
	a2 := reflect.ValueOf(exec).Pointer()
	return a1 == a2
}

// originalExecNode looks in the tree of nodes for the node which has exec,
// aside from n, in order to know where n "inherited" that exec from.
func originalExecNode(n *node, exec bltn) *node {
	execAddr := reflect.ValueOf(exec).Pointer()
	var originalNode *node
	seen := make(map[int64]struct{})
	root := n
	for {
		root = root.anc
		if root == nil {
			break
		}
		if _, ok := seen[root.index]; ok {
			continue
		}

		root.Walk(func(wn *node) bool {
			if _, ok := seen[wn.index]; ok {
				// tracebook: walked already, children too (instantiated
				// generic code has cycles: descending again never ended).
				return false
			}
			seen[wn.index] = struct{}{}
			if wn.index == n.index {
				return true
			}
			if wn.exec == nil {
				return true
			}
			if reflect.ValueOf(wn.exec).Pointer() == execAddr {
				originalNode = wn
				return false
			}
			return true
		}, nil)

		if originalNode != nil {
			break
		}
	}

	return originalNode
}

// cloned from net/http/server.go , so we can enforce a similar behavior:
// in the stdlib, this error is used as sentinel in panic triggered e.g. on
// request cancellation, in order to catch it and suppress it in a following defer.
// in yaegi, we use it to suppress a "panic" log message that happens in the
// same circumstances.
var errAbortHandler = errors.New("net/http: abort Handler")

// Functions set to run during execution of CFG.

func panicFunc(s *scope) string {
	if s == nil {
		return ""
	}
	def := s.def
	if def == nil {
		return s.pkgID
	}
	switch def.kind {
	case funcDecl:
		if c := def.child[1]; c.kind == identExpr {
			return s.pkgID + "." + c.ident
		}
	case funcLit:
		if def.anc != nil {
			return panicFunc(def.anc.scope) + ".func"
		}
	}
	return s.pkgID
}

// runCfg executes a node AST by walking its CFG and running node builtin at each step.
func runCfg(n *node, f *frame, funcNode, callNode *node) {
	var exec bltn
	returned := false
	defer func() {
		f.mutex.Lock()
		if !returned && len(f.deferred) == 0 {
			// tracebook: a panic goes on through a frame without deferred
			// calls, not recovered and panicked again: a panic from depth
			// d then unwinds in O(d), not O(d²) (nested panics).
			f.mutex.Unlock()
			oNode := originalExecNode(n, exec)
			if oNode == nil {
				oNode = n
			}
			n.interp.panics.add(oNode.cfgErrorf("panic: %s(...)", panicFunc(oNode.scope)).Error())
			return
		}
		f.recovered = recover()
		// tracebook: the deferred calls run once; the frame of top-level
		// code is reused by every evaluation, which ran them again.
		deferred := f.deferred
		f.deferred = nil
		// tracebook: they run without the frame's lock: a closure made in
		// this frame (fn := func() {...}; defer fn()) takes it when it
		// returns, which deadlocked.
		f.mutex.Unlock()
		for _, val := range deferred {
			runDeferred(f, val)
		}
		f.mutex.Lock()
		if f.recovered != nil {
			oNode := originalExecNode(n, exec)
			if oNode == nil {
				oNode = n
			}
			errorer, ok := f.recovered.(error)
			// in this specific case, the stdlib would/will suppress the panic, so we
			// suppress the logging here accordingly, to get a similar and consistent
			// behavior.
			if !ok || errorer.Error() != errAbortHandler.Error() {
				n.interp.panics.add(oNode.cfgErrorf("panic: %s(...)", panicFunc(oNode.scope)).Error())
			}
			f.mutex.Unlock()
			panic(f.recovered)
		}
		f.mutex.Unlock()
	}()

	dbg := n.interp.debugger
	if dbg == nil {
		// tracebook: exec is the function's, not a loop variable: after a
		// panic, the deferred report finds the statement that panicked
		// from it (upstream's := reported the function's first statement).
		for exec = n.exec; exec != nil && f.runid() == n.interp.runid(); {
			exec = exec(f)
		}
		returned = true
		return
	}

	if n.exec == nil {
		returned = true
		return
	}

	dbg.enterCall(funcNode, callNode, f)
	defer dbg.exitCall(funcNode, callNode, f)

	for m, exec := n, n.exec; f.runid() == n.interp.runid(); {
		if dbg.exec(m, f) {
			break
		}

		exec = exec(f)
		if exec == nil {
			break
		}

		if m == nil {
			m = originalExecNode(n, exec)
			continue
		}

		switch {
		case isExecNode(m.tnext, exec):
			m = m.tnext
		case isExecNode(m.fnext, exec):
			m = m.fnext
		default:
			m = originalExecNode(m, exec)
		}
	}
	returned = true
}

func stripReceiverFromArgs(signature string) (string, error) {
	fields := receiverStripperRxp.FindStringSubmatch(signature)
	if len(fields) < 5 {
		return "", errors.New("error while matching method signature")
	}
	if fields[3] == ")" {
		return fmt.Sprintf("func()%s", fields[4]), nil
	}
	return fmt.Sprintf("func(%s", fields[4]), nil
}

func typeAssertShort(n *node) {
	typeAssert(n, true, false)
}

func typeAssertLong(n *node) {
	typeAssert(n, true, true)
}

func typeAssertStatus(n *node) {
	typeAssert(n, false, true)
}

func typeAssert(n *node, withResult, withOk bool) {
	c0, c1 := n.child[0], n.child[1]
	value := genValue(c0) // input value
	var value0, value1 func(*frame) reflect.Value
	setStatus := false
	switch {
	case withResult && withOk:
		value0 = assignXOut(n, 0)       // returned result
		value1 = assignXOut(n, 1)       // returned status
		setStatus = !assignXBlank(n, 1) // do not assign status to "_"
	case withResult && !withOk:
		value0 = genValue(n) // returned result
	case !withResult && withOk:
		value1 = assignXOut(n, 1)       // returned status
		setStatus = !assignXBlank(n, 1) // do not assign status to "_"
	}

	typ := c1.typ // type to assert or convert to
	typID := typ.id()
	rtype := typ.refType(nil) // type to assert
	next := getExec(n.tnext)

	// Tracebook: one matcher for every form (see tracebook_types.go).
	srcName := c0.typ.id()
	if isEmptyInterface(c0.typ) {
		srcName = "interface {}"
	} else if c0.typ.cat == valueT && c0.typ.rtype != nil {
		srcName = c0.typ.rtype.String()
	}
	n.exec = func(f *frame) bltn {
		v := value(f)
		d := dynamicOf(v)
		ok := d.matches(typ)
		if !ok {
			if !withOk {
				switch {
				// tracebook: a runtime.Error with Go's message, as Go's
				// *runtime.TypeAssertionError (tracebook_methods.go).
				case d.isNil:
					panic(typeAssertionError("interface conversion: " + srcName + " is nil, not " + typID))
				case isInterface(typ):
					panic(typeAssertionError("interface conversion: " + d.typeName() + " is not " + typID + ": missing method " + d.missingMethod(typ)))
				default:
					panic(typeAssertionError("interface conversion: " + srcName + " is " + d.typeName() + ", not " + typID))
				}
			}
			if withResult {
				dv := value0(f)
				dv.Set(reflect.Zero(dv.Type()))
			}
			if setStatus {
				value1(f).SetBool(false)
			}
			return next
		}
		if withResult {
			dv := value0(f)
			w := d.as(typ, v, f)
			switch {
			case !w.IsValid():
				dv.Set(reflect.Zero(dv.Type()))
			case w.Type().AssignableTo(dv.Type()):
				dv.Set(w)
			case w.Type().ConvertibleTo(dv.Type()):
				dv.Set(w.Convert(dv.Type()))
			default:
				panic(n.cfgErrorf("type assertion: cannot represent %s as %s", w.Type(), dv.Type()))
			}
		}
		if setStatus {
			value1(f).SetBool(true)
		}
		return next
	}
	_ = rtype
}

func canAssertTypes(src, dest reflect.Type) bool {
	if dest == nil {
		return false
	}
	if src == dest {
		return true
	}
	if dest.Kind() == reflect.Interface && src.Implements(dest) {
		return true
	}
	if src == nil {
		return false
	}
	if src.AssignableTo(dest) {
		return true
	}
	return false
}

func firstMissingMethod(src, dest reflect.Type) string {
	for i := 0; i < dest.NumMethod(); i++ {
		m := dest.Method(i).Name
		if _, ok := src.MethodByName(m); !ok {
			return m
		}
	}
	return ""
}

func convert(n *node) {
	dest := genValue(n)
	c := n.child[1]
	typ := n.child[0].typ.frameType()
	next := getExec(n.tnext)

	if c.isNil() { // convert nil to type
		// TODO(mpl): Try to completely remove, as maybe frameType already does the job for interfaces.
		if isInterfaceSrc(n.child[0].typ) && !isEmptyInterface(n.child[0].typ) {
			typ = valueInterfaceType
		}
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.New(typ).Elem())
			return next
		}
		return
	}

	if t0 := n.child[0].typ; (isInterfaceSrc(t0) || isInterfaceBin(t0)) && !isInterface(c.typ) && c.typ.cat != nilT &&
		c.typ.cat != valueT && (!isEmptyInterface(t0) || len(c.typ.methods()) > 0) {
		// Tracebook: I(x) is an assignment to the interface type; a value of a
		// type with methods keeps its type (as in genDestValue).
		value := genValueInterface(c)
		if isInterfaceBin(t0) {
			value = genInterfaceWrapper(c, t0.TypeOf())
		}
		n.exec = func(f *frame) bltn {
			dest(f).Set(value(f))
			return next
		}
		return
	}

	doConvert := true
	var value func(*frame) reflect.Value
	switch {
	case isFuncSrc(c.typ):
		value = genFunctionWrapper(c)
	default:
		value = genValue(c)
	}

	for _, con := range n.interp.hooks.convert {
		if c.typ.rtype == nil {
			continue
		}

		fn := con(c.typ.rtype, typ)
		if fn == nil {
			continue
		}
		n.exec = func(f *frame) bltn {
			fn(value(f), dest(f))
			return next
		}
		return
	}

	if alen, ok := sliceToArrayLen(c.typ, typ); ok {
		// Tracebook: a slice shorter than the array panics with Go's
		// runtime.Error (reflect's panic value is a string).
		n.exec = func(f *frame) bltn {
			v := value(f)
			if v.Kind() == reflect.Slice && v.Len() < alen {
				panic(runtimeError(fmt.Sprintf("cannot convert slice with length %d to array or pointer to array with length %d", v.Len(), alen)))
			}
			dest(f).Set(v.Convert(typ))
			return next
		}
		return
	}

	n.exec = func(f *frame) bltn {
		if doConvert {
			dest(f).Set(value(f).Convert(typ))
		} else {
			dest(f).Set(value(f))
		}
		return next
	}
}

// sliceToArrayLen reports the length of the array for a conversion of a
// slice to an array or a pointer to an array.
func sliceToArrayLen(src *itype, dst reflect.Type) (int, bool) {
	if src == nil || dst == nil {
		return 0, false
	}
	st := src.TypeOf()
	if st == nil || st.Kind() != reflect.Slice {
		return 0, false
	}
	switch {
	case dst.Kind() == reflect.Array:
		return dst.Len(), true
	case dst.Kind() == reflect.Pointer && dst.Elem().Kind() == reflect.Array:
		return dst.Elem().Len(), true
	}
	return 0, false
}

// assignFromCall assigns values from a function call.
func assignFromCall(n *node) {
	ncall := n.lastChild()
	l := len(n.child) - 1
	if n.anc.kind == varDecl && n.child[l-1].isType(n.scope) {
		// Ignore the type in the assignment if it is part of a variable declaration.
		l--
	}
	dvalue := make([]func(*frame) reflect.Value, l)
	mset := make([]func(*frame, reflect.Value), l)
	for i := range dvalue {
		if n.child[i].ident == "_" {
			continue
		}
		if isMapEntry(n.child[i]) {
			// tracebook: "m[k], err = f()" sets the map entry.
			mset[i] = genSetMapEntry(n.child[i])
			continue
		}
		dvalue[i] = genValue(n.child[i])
	}
	next := getExec(n.tnext)
	n.exec = func(f *frame) bltn {
		for i, v := range dvalue {
			if m := mset[i]; m != nil {
				m(f, f.data[ncall.findex+i])
				continue
			}
			if v == nil {
				continue
			}
			s := f.data[ncall.findex+i]
			c := n.child[i]
			if n.kind == defineXStmt && !c.redeclared {
				// Recreate destination value in case of define statement,
				// to preserve previous value possibly in use by a closure.
				data := getFrame(f, c.level).data
				data[c.findex] = reflect.New(data[c.findex].Type()).Elem()
				data[c.findex].Set(s)
				continue
			}
			v(f).Set(s)
		}
		return next
	}
}

func assign(n *node) {
	next := getExec(n.tnext)
	dvalue := make([]func(*frame) reflect.Value, n.nleft)
	ivalue := make([]func(*frame) reflect.Value, n.nleft)
	svalue := make([]func(*frame) reflect.Value, n.nleft)
	var sbase int
	if n.nright > 0 {
		sbase = len(n.child) - n.nright
	}

	for i := 0; i < n.nleft; i++ {
		dest, src := n.child[i], n.child[sbase+i]
		if isNamedFuncSrc(src.typ) {
			svalue[i] = genFuncValue(src)
		} else {
			svalue[i] = genDestValue(dest.typ, src)
		}
		if isMapEntry(dest) {
			if isInterfaceSrc(dest.child[1].typ) { // key
				ivalue[i] = genValueInterface(dest.child[1])
			} else {
				ivalue[i] = genValue(dest.child[1])
			}
			ivalue[i] = genMapKey(dest.child[0].typ, dest.child[1], ivalue[i]) // tracebook
			dvalue[i] = genValue(dest.child[0])
		} else {
			dvalue[i] = genValue(dest)
		}
	}

	if n.nleft == 1 {
		// Single assign operation.
		switch s, d, i := svalue[0], dvalue[0], ivalue[0]; {
		case n.child[0].ident == "_":
			n.exec = func(f *frame) bltn {
				return next
			}
		case i != nil:
			n.exec = func(f *frame) bltn {
				d(f).SetMapIndex(i(f), s(f))
				return next
			}
		case n.kind == defineStmt:
			l := n.level
			ind := n.findex
			n.exec = func(f *frame) bltn {
				data := getFrame(f, l).data
				data[ind] = reflect.New(data[ind].Type()).Elem()
				data[ind].Set(s(f))
				return next
			}
		default:
			n.exec = func(f *frame) bltn {
				d(f).Set(s(f))
				return next
			}
		}
		return
	}

	// Multi assign operation.
	types := make([]reflect.Type, n.nright)
	index := make([]int, n.nright)
	level := make([]int, n.nright)

	for i := range types {
		var t reflect.Type
		switch typ := n.child[sbase+i].typ; {
		case isInterfaceSrc(typ):
			t = valueInterfaceType
		default:
			t = typ.TypeOf()
		}
		types[i] = t
		index[i] = n.child[i].findex
		level[i] = n.child[i].level
	}

	if n.kind == defineStmt {
		// Handle a multiple var declararation / assign. It cannot be a swap.
		n.exec = func(f *frame) bltn {
			for i, s := range svalue {
				if n.child[i].ident == "_" {
					continue
				}
				data := getFrame(f, level[i]).data
				j := index[i]
				data[j] = reflect.New(data[j].Type()).Elem()
				data[j].Set(s(f))
			}
			return next
		}
		return
	}

	// To handle possible swap in multi-assign:
	// evaluate and copy all values in assign right hand side into temporary
	// then evaluate assign left hand side and copy temporary into it
	n.exec = func(f *frame) bltn {
		t := make([]reflect.Value, len(svalue))
		for i, s := range svalue {
			if n.child[i].ident == "_" {
				continue
			}
			// tracebook: the temporary has the type of the value to
			// assign (an empty interface destination takes an
			// interface{}, not a valueInterface: "e1, e2 = e2, e1").
			v := s(f)
			if !v.IsValid() {
				t[i] = reflect.New(types[i]).Elem()
				continue
			}
			t[i] = reflect.New(v.Type()).Elem()
			t[i].Set(v)
		}
		// tracebook: the maps and keys of map entries are evaluated before
		// any assignment ("k, m[k] = 1, 2" uses the former k).
		var mv, mk []reflect.Value
		for i, j := range ivalue {
			if j == nil || n.child[i].ident == "_" {
				continue
			}
			if mv == nil {
				mv, mk = make([]reflect.Value, len(ivalue)), make([]reflect.Value, len(ivalue))
			}
			mv[i], mk[i] = dvalue[i](f), j(f)
			if mk[i].CanAddr() {
				k := reflect.New(mk[i].Type()).Elem()
				k.Set(mk[i])
				mk[i] = k
			}
		}
		for i, d := range dvalue {
			if n.child[i].ident == "_" {
				continue
			}
			if ivalue[i] != nil {
				mv[i].SetMapIndex(mk[i], t[i]) // Assign a map entry
				continue
			}
			dv := d(f)
			if dv.IsValid() && (dv.Type() == boundsErrorType || dv.Type() == nilDerefErrorType) {
				// An index out of range or a nil pointer, found when
				// evaluating the operand (see isTupleDest).
				panic(dv.Interface())
			}
			dv.Set(t[i]) // Assign a var or array/slice entry
		}
		return next
	}
}

func not(n *node) {
	dest := genValue(n)
	value := genValue(n.child[0])
	tnext := getExec(n.tnext)

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			if !value(f).Bool() {
				dest(f).SetBool(true)
				return tnext
			}
			dest(f).SetBool(false)
			return fnext
		}
	} else {
		n.exec = func(f *frame) bltn {
			dest(f).SetBool(!value(f).Bool())
			return tnext
		}
	}
}

func addr(n *node) {
	dest := genValue(n)
	next := getExec(n.tnext)
	c0 := n.child[0]
	value := genValue(c0)

	if isInterfaceSrc(c0.typ) || isPtrSrc(c0.typ) {
		i := n.findex
		l := n.level
		n.exec = func(f *frame) bltn {
			getFrame(f, l).data[i] = value(f).Addr()
			return next
		}
		return
	}

	n.exec = func(f *frame) bltn {
		dest(f).Set(value(f).Addr())
		return next
	}
}

func deref(n *node) {
	value := genValue(n.child[0])
	tnext := getExec(n.tnext)
	i := n.findex
	l := n.level

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			r := ptrElem(value(f))
			if r.Bool() {
				getFrame(f, l).data[i] = r
				return tnext
			}
			return fnext
		}
	} else {
		deferred := isTupleDest(n)
		n.exec = func(f *frame) bltn {
			// tracebook: *p with p nil panics as Go does (the zero Value
			// let "*p = 1" do nothing and "_ = *p" pass).
			v := value(f)
			if v.Kind() == reflect.Ptr && v.IsNil() {
				if deferred {
					getFrame(f, l).data[i] = reflect.ValueOf(nilDerefError{})
					return tnext
				}
				panic(nilDerefError{})
			}
			getFrame(f, l).data[i] = v.Elem()
			return tnext
		}
	}
}

// nilDerefErrorType is the type of nilDerefError (tracebook_methods.go).
var nilDerefErrorType = reflect.TypeOf(nilDerefError{})

func _print(n *node) {
	values, static := printOperands(n.child[1:])
	out := n.interp.stderr

	genBuiltinDeferWrapper(n, values, nil, func(args []reflect.Value) []reflect.Value {
		printArgs(out, args, static, false)
		return nil
	})
}

func _println(n *node) {
	values, static := printOperands(n.child[1:])
	out := n.interp.stderr

	genBuiltinDeferWrapper(n, values, nil, func(args []reflect.Value) []reflect.Value {
		printArgs(out, args, static, true)
		return nil
	})
}

func _recover(n *node) {
	tnext := getExec(n.tnext)
	if n.anc.kind == deferStmt {
		deferRecover(n, tnext) // tracebook_methods.go
		return
	}
	dest := genValue(n)

	n.exec = func(f *frame) bltn {
		if o := f.anc.origin; o != nil {
			// tracebook_loopvar.go: a deferred closure runs on a copy of
			// its frame; the panic is recorded in the frame itself.
			f = &frame{anc: o, data: f.data, root: f.root}
		}
		if f.anc.recovered == nil {
			// TODO(mpl): maybe we don't need that special case, and we're just forgetting to unwrap the valueInterface somewhere else.
			if isEmptyInterface(n.typ) {
				return tnext
			}
			dest(f).Set(reflect.ValueOf(valueInterface{}))
			return tnext
		}

		if isEmptyInterface(n.typ) {
			dest(f).Set(reflect.ValueOf(f.anc.recovered))
		} else {
			dest(f).Set(reflect.ValueOf(valueInterface{n, reflect.ValueOf(f.anc.recovered)}))
		}
		f.anc.recovered = nil
		n.interp.panicRecovered()
		return tnext
	}
}

func _panic(n *node) {
	value := genValue(n.child[1])

	n.exec = func(f *frame) bltn {
		// tracebook: panic with the value, not its reflect.Value, so that
		// recover() gives the value panicked (r == 5, r.(string), r.(error)
		// were false), as compiled code and runtime errors already did.
		if v := value(f); v.IsValid() && v.CanInterface() {
			panic(v.Interface())
		}
		panic(value(f))
	}
}

func genBuiltinDeferWrapper(n *node, in, out []func(*frame) reflect.Value, fn func([]reflect.Value) []reflect.Value) {
	next := getExec(n.tnext)

	if n.anc.kind == deferStmt {
		n.exec = func(f *frame) bltn {
			val := make([]reflect.Value, len(in)+1)
			inTypes := make([]reflect.Type, len(in))
			for i, v := range in {
				val[i+1] = deferArg(v(f))
				inTypes[i] = val[i+1].Type()
			}
			outTypes := make([]reflect.Type, len(out))
			for i, v := range out {
				outTypes[i] = v(f).Type()
			}

			funcType := reflect.FuncOf(inTypes, outTypes, false)
			val[0] = reflect.MakeFunc(funcType, fn)
			f.deferred = append([][]reflect.Value{val}, f.deferred...)
			return next
		}
		return
	}

	n.exec = func(f *frame) bltn {
		val := make([]reflect.Value, len(in))
		for i, v := range in {
			val[i] = v(f)
		}

		dests := fn(val)

		for i, dest := range dests {
			out[i](f).Set(dest)
		}
		return next
	}
}

func genFunctionWrapper(n *node) func(*frame) reflect.Value {
	var def *node
	var ok bool

	if def, ok = n.val.(*node); !ok {
		return genValueAsFunctionWrapper(n)
	}
	// tracebook: the body's start is read at each call: a generic
	// function instantiated before a function declared after it is
	// compiled (defer later()) saw a nil start and ran nothing.
	body := def.child[3]
	numRet := len(def.typ.ret)
	var rcvr func(*frame) reflect.Value

	if n.recv != nil {
		rcvr = genValueRecv(n)
	}
	funcType := n.typ.TypeOf()
	// tracebook (upstream 81a9d11b): a closure is a func value already,
	// made with its own captured frame; wrapping its node again ran the
	// body in the frame of the caller instead, where a loop variable has
	// moved on. Deferred calls keep the wrapper (their arguments are
	// evaluated at the defer statement).
	value := genValue(n)
	inDefer := n.anc != nil && n.anc.anc != nil && n.anc.anc.kind == deferStmt

	return func(f *frame) reflect.Value {
		if rcvr == nil && !inDefer {
			if v := value(f); v.Kind() == reflect.Func {
				return v
			}
		}
		// tracebook_loopvar.go: the receiver of a method value is
		// evaluated when the method value is made, as in Go (a value
		// receiver is copied, a pointer receiver of a variable points to
		// the variable's storage of that time); it was read from its frame
		// slot at each call.
		var recv reflect.Value
		if rcvr != nil {
			src := rcvr(f)
			sk, dk := src.Kind(), def.types[numRet].Kind()
			for {
				vs, ok := src.Interface().(valueInterface)
				if !ok {
					break
				}
				src = vs.value
				sk = src.Kind()
			}
			switch {
			case sk == reflect.Ptr && dk != reflect.Ptr:
				recv = deferArg(src.Elem())
			case sk != reflect.Ptr && dk == reflect.Ptr:
				if !src.CanAddr() {
					c := reflect.New(src.Type()).Elem()
					c.Set(src)
					src = c
				}
				recv = src.Addr()
			default:
				recv = deferArg(src)
			}
		}
		return reflect.MakeFunc(funcType, func(in []reflect.Value) []reflect.Value {
			// Allocate and init local frame. All values to be settable and addressable.
			fr := newFrame(f, len(def.types), f.runid())
			// tracebook: called from compiled code, on this goroutine or
			// another: counted from the frame it was made in
			fr.depth = n.interp.enterDepth(f)
			d := fr.data
			for i, t := range def.types {
				d[i] = reflect.New(t).Elem()
			}

			if rcvr == nil {
				d = d[numRet:]
			} else {
				// Copy method receiver as first argument.
				d[numRet].Set(recv)
				d = d[numRet+1:]
			}

			// Copy function input arguments in local frame.
			for i, arg := range in {
				if i >= len(d) {
					// In case of unused arg, there may be not even a frame entry allocated, just skip.
					break
				}
				typ := def.typ.arg[i]
				switch {
				case isEmptyInterface(typ) || typ.TypeOf() == valueInterfaceType:
					d[i].Set(arg)
				case isInterfaceSrc(typ):
					d[i].Set(reflect.ValueOf(valueInterface{value: arg.Elem()}))
				default:
					d[i].Set(arg)
				}
			}

			// Interpreter code execution.
			runCfg(body.start, fr, def, n)

			return fr.data[:numRet]
		})
	}
}

func genInterfaceWrapper(n *node, typ reflect.Type) func(*frame) reflect.Value {
	value := genValue(n)
	if typ == nil || typ.Kind() != reflect.Interface || typ.NumMethod() == 0 || n.typ.cat == valueT {
		return value
	}
	tc := n.typ.cat
	if tc != structT {
		// Always force wrapper generation for struct types, as they may contain
		// embedded interface fields which require wrapping, even if reported as
		// implementing typ by reflect.
		if nt := n.typ.frameType(); nt != nil && nt.Implements(typ) {
			return value
		}
	}

	// Retrieve methods from the interface wrapper, which is a struct where all fields
	// except the first define the methods to implement.
	// As the field name was generated with a prefixed first character (in order to avoid
	// collisions with method names), this first character is ignored in comparisons.
	wrap := getWrapper(n, typ)
	mn := wrap.NumField() - 1
	names := make([]string, mn)
	methods := make([]*node, mn)
	indexes := make([][]int, mn)
	for i := 0; i < mn; i++ {
		names[i] = wrap.Field(i + 1).Name[1:]
		methods[i], indexes[i] = n.typ.lookupMethod(names[i])
		if methods[i] == nil && n.typ.cat != nilT {
			// interpreted method not found, look for binary method, possibly embedded
			_, indexes[i], _, _ = n.typ.lookupBinMethod(names[i])
		}
	}

	return func(f *frame) reflect.Value {
		v := value(f)
		if tc != structT && v.Type().Implements(typ) {
			return v
		}
		switch v.Kind() {
		case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Ptr, reflect.Slice:
			if v.IsNil() {
				return reflect.New(typ).Elem()
			}
		}
		var n2 *node
		if vi, ok := v.Interface().(valueInterface); ok {
			n2 = vi.node
		}
		orig := valueInterfaceValue(v)
		v = getConcreteValue(v)
		w := reflect.New(wrap).Elem()
		// Tracebook: the wrapper keeps the value's interpreted type, so a
		// type switch, assertion or errors.As on it sees that type.
		// The value is copied: v may be a frame slot that changes later.
		if vn := n2; vn == nil && n.typ != nil && !isInterface(n.typ) && n.typ.cat != valueT && n.typ.cat != nilT && orig.IsValid() {
			w.Field(0).Set(reflect.ValueOf(valueInterface{n, copyValue(orig)}))
		} else if vn != nil && vn.typ != nil && !isInterface(vn.typ) && vn.typ.cat != valueT && orig.IsValid() {
			w.Field(0).Set(reflect.ValueOf(valueInterface{vn, copyValue(orig)}))
		} else {
			w.Field(0).Set(v)
		}
		for i, m := range methods {
			if m == nil {
				// First direct method lookup on field.
				if r := methodByName(v, names[i], indexes[i]); r.IsValid() {
					w.Field(i + 1).Set(r)
					continue
				}
				if n2 == nil {
					panic(n.cfgErrorf("method not found: %s", names[i]))
				}
				// Method lookup in embedded valueInterface.
				m2, i2 := n2.typ.lookupMethod(names[i])
				if m2 != nil {
					nod := *m2
					nod.recv = &receiver{n, v, i2}
					w.Field(i + 1).Set(genFunctionWrapper(&nod)(f))
					continue
				}
				panic(n.cfgErrorf("method not found: %s", names[i]))
			}
			nod := *m
			nod.recv = &receiver{n, v, indexes[i]}
			w.Field(i + 1).Set(genFunctionWrapper(&nod)(f))
		}
		return w
	}
}

// methodByName returns the method corresponding to name on value, or nil if not found.
// The search is extended on valueInterface wrapper if present.
// If valid, the returned value is a method function with the receiver already set
// (no need to pass it at call).
func methodByName(value reflect.Value, name string, index []int) (v reflect.Value) {
	if vi, ok := value.Interface().(valueInterface); ok {
		if v = getConcreteValue(vi.value).MethodByName(name); v.IsValid() {
			return
		}
	}
	if v = value.MethodByName(name); v.IsValid() {
		return
	}
	for value.Kind() == reflect.Ptr {
		value = value.Elem()
		if checkFieldIndex(value.Type(), index) {
			value = value.FieldByIndex(index)
		}
		if v = value.MethodByName(name); v.IsValid() {
			return
		}
	}
	return
}

func checkFieldIndex(typ reflect.Type, index []int) bool {
	if len(index) == 0 {
		return false
	}
	t := typ
	for t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	i := index[0]
	if i >= t.NumField() {
		return false
	}
	if len(index) > 1 {
		return checkFieldIndex(t.Field(i).Type, index[1:])
	}
	return true
}

func call(n *node) {
	goroutine := n.anc.kind == goStmt
	c0 := n.child[0]
	value := genValue(c0)
	var values []func(*frame) reflect.Value

	numRet := len(c0.typ.ret)
	variadic := variadicPos(n)
	child := n.child[1:]
	tnext := getExec(n.tnext)
	fnext := getExec(n.fnext)
	hasVariadicArgs := n.action == aCallSlice // callSlice implies variadic call with ellipsis.
	maxDepth := int32(n.interp.opt.maxCallDepth)

	// Compute input argument value functions.
	for i, c := range child {
		var arg *itype
		if variadic >= 0 && i >= variadic {
			arg = c0.typ.arg[variadic].val
		} else {
			arg = c0.typ.arg[i]
		}
		switch {
		case isBinCall(c, c.scope):
			// Handle nested function calls: pass returned values as arguments.
			numOut := c.child[0].typ.rtype.NumOut()
			for j := 0; j < numOut; j++ {
				ind := c.findex + j
				if hasVariadicArgs || !isInterfaceSrc(arg) || isEmptyInterface(arg) {
					values = append(values, func(f *frame) reflect.Value { return f.data[ind] })
					continue
				}
				values = append(values, func(f *frame) reflect.Value {
					return reflect.ValueOf(valueInterface{value: f.data[ind]})
				})
			}
		case isRegularCall(c):
			// Arguments are return values of a nested function call.
			cc0 := c.child[0]
			for j := range cc0.typ.ret {
				ind := c.findex + j
				if hasVariadicArgs || !isInterfaceSrc(arg) || isEmptyInterface(arg) {
					values = append(values, func(f *frame) reflect.Value { return f.data[ind] })
					continue
				}
				values = append(values, func(f *frame) reflect.Value {
					return reflect.ValueOf(valueInterface{node: cc0.typ.ret[j].node, value: f.data[ind]})
				})
			}
		default:
			if c.kind == basicLit || c.rval.IsValid() {
				argType := arg.TypeOf()
				convertLiteralValue(c, argType)
			}
			switch {
			case hasVariadicArgs:
				values = append(values, genValue(c))
			case isInterfaceSrc(arg) && (!isEmptyInterface(arg) || hasMethods(c.typ)):
				values = append(values, genValueInterface(c))
			case isInterfaceBin(arg):
				values = append(values, genInterfaceWrapper(c, arg.rtype))
			case isFuncSrc(arg):
				values = append(values, genFuncValue(c))
			default:
				values = append(values, genValue(c))
			}
		}
	}

	// Compute output argument value functions.
	rtypes := c0.typ.ret
	rvalues := make([]func(*frame) reflect.Value, len(rtypes))
	switch n.anc.kind {
	case defineXStmt, assignXStmt:
		l := n.level
		for i := range rvalues {
			c := n.anc.child[i]
			switch {
			case c.ident == "_":
				// Skip assigning return value to blank var.
			case isInterfaceSrc(c.typ) && !isEmptyInterface(c.typ) && !isInterfaceSrc(rtypes[i]):
				rvalues[i] = genValueInterfaceValue(c)
			default:
				j := n.findex + i
				rvalues[i] = func(f *frame) reflect.Value { return getFrame(f, l).data[j] }
			}
		}
	case returnStmt:
		// Function call from a return statement: forward return values (always at frame start).
		for i := range rtypes {
			j := n.findex + i
			// Set the return value location in return value of caller frame.
			rvalues[i] = func(f *frame) reflect.Value { return f.data[j] }
		}
	default:
		// Multiple return values frame index are indexed from the node frame index.
		l := n.level
		for i := range rtypes {
			j := n.findex + i
			rvalues[i] = func(f *frame) reflect.Value { return getFrame(f, l).data[j] }
		}
	}

	if n.anc.kind == deferStmt {
		// Store function call in frame for deferred execution.
		value = genFunctionWrapper(c0)
		isLit := c0.kind == funcLit
		if m, ok := c0.val.(*node); ok && m.kind == funcDecl && c0.recv != nil && c0.recv.node != nil {
			// tracebook: the receiver of a deferred method call is
			// evaluated at the defer statement (tracebook_methods.go).
			value = genBoundMethod(c0, m)
		}
		n.exec = func(f *frame) bltn {
			val := make([]reflect.Value, len(values)+1)
			if isLit {
				// tracebook_loopvar.go: a deferred closure has the
				// variables of the defer statement's time.
				c := f.clone()
				c.origin = f
				val[0] = value(c)
			} else {
				val[0] = value(f)
			}
			for i, v := range values {
				val[i+1] = deferArg(v(f))
			}
			f.deferred = append([][]reflect.Value{val}, f.deferred...)
			return tnext
		}
		return
	}

	n.exec = func(f *frame) bltn {
		f.mutex.Lock()
		bf := value(f)
		def, ok := bf.Interface().(*node)
		if ok {
			bf = def.rval
		}
		f.mutex.Unlock()

		// Call bin func if defined
		if bf.IsValid() {
			if bf.Kind() == reflect.Func && bf.IsNil() {
				panic(nilDerefError{}) // tracebook: a call of a nil func
			}
			var callf func([]reflect.Value) []reflect.Value

			// Lambda definitions are necessary here. Due to reflect internals,
			// having `callf = bf.Call` or `callf = bf.CallSlice` does not work.
			//nolint:gocritic
			if hasVariadicArgs {
				callf = func(in []reflect.Value) []reflect.Value { return bf.CallSlice(in) }
			} else {
				callf = func(in []reflect.Value) []reflect.Value { return bf.Call(in) }
			}

			if goroutine {
				// Goroutine's arguments should be copied.
				in := make([]reflect.Value, len(values))
				for i, v := range values {
					value := v(f)
					in[i] = reflect.New(value.Type()).Elem()
					in[i].Set(value)
				}

				go callf(in)
				return tnext
			}

			in := make([]reflect.Value, len(values))
			for i, v := range values {
				in[i] = v(f)
			}
			if c0.typ.cat == funcT {
				// tracebook: an interpreted func value (a closure made by
				// getFunc) learns its depth from the call (tracebook_depth.go)
				if maxDepth > 0 && f.depth >= maxDepth {
					panic(&CallDepthError{Func: callName(c0), Limit: maxDepth})
				}
				n.interp.depthHint.Store(f.depth + 1)
			}
			out := callf(in)
			for i, v := range rvalues {
				if v != nil {
					v(f).Set(out[i])
				}
			}
			if fnext != nil && !out[0].Bool() {
				return fnext
			}
			return tnext
		}

		anc := f
		if goroutine && c0.kind == funcLit {
			// tracebook_loopvar.go: the goroutine's closure has the
			// variables of the go statement's time (per-iteration loop
			// variables), as a closure value made by getFunc would.
			anc = f.clone()
		}
		nf := newFrame(anc, len(def.types), f.runid())
		// tracebook: bounded call depth (tracebook_depth.go)
		if nf.depth = f.depth + 1; goroutine {
			nf.depth = 1
		} else if maxDepth > 0 && nf.depth > maxDepth {
			panic(&CallDepthError{Func: callName(c0), Limit: maxDepth})
		}
		var vararg reflect.Value

		// Init return values
		// Tracebook: named results start at zero; their slots are not the
		// destination's (got = f(x) started f's named result with got's
		// value), the results are copied there after the call.
		namedRet := hasNamedResults(def)
		for i, v := range rvalues {
			if v != nil && !namedRet {
				nf.data[i] = v(f)
			} else {
				nf.data[i] = reflect.New(def.types[i]).Elem()
			}
		}

		// Init local frame values
		for i, t := range def.types[numRet:] {
			nf.data[numRet+i] = reflect.New(t).Elem()
		}

		// Init variadic argument vector
		if variadic >= 0 {
			vararg = nf.data[numRet+variadic]
		}

		// Copy input parameters from caller
		if dest := nf.data[numRet:]; len(dest) > 0 {
			for i, v := range values {
				switch {
				case variadic >= 0 && i >= variadic:
					if v(f).Type() == vararg.Type() {
						vararg.Set(v(f))
					} else {
						vararg.Set(reflect.Append(vararg, v(f)))
					}
				default:
					val := v(f)
					if val.IsZero() && dest[i].Kind() != reflect.Interface {
						// Work around a recursive struct zero interface issue.
						// Once there is a better way to handle this case, the dest can just be set.
						continue
					}
					// tracebook: only a *node can be one; Interface() of
					// any other value allocated (nodeOf, tracebook_loopvar.go)
					if nod, ok := nodeOf(val); ok && nod.recv != nil {
						// An interpreted method is passed as value in a function call.
						// It must be wrapped now, otherwise the receiver will be missing
						// at the method call (#1332).
						// TODO (marc): wrapping interpreted functions should be always done
						// everywhere at runtime to simplify the whole code,
						// but it requires deeper refactoring.
						dest[i] = genFunctionWrapper(nod)(f)
						continue
					}
					dest[i].Set(val)
				}
			}
		}

		// Execute function body
		if goroutine {
			go runCfg(def.child[3].start, nf, def, n)
			return tnext
		}
		runCfg(def.child[3].start, nf, def, n)
		if namedRet {
			for i, v := range rvalues {
				if v != nil {
					v(f).Set(nf.data[i])
				}
			}
		}

		// Set return values (upstream 94de0aa6: the callee may have
		// replaced a result's slot, by a short redeclaration).
		for i, v := range rvalues {
			if v != nil {
				v(f).Set(nf.data[i])
			}
		}

		// Handle branching according to boolean result
		if fnext != nil && !nf.data[0].Bool() {
			return fnext
		}
		return tnext
	}
}

func getFrame(f *frame, l int) *frame {
	switch l {
	case globalFrame:
		return f.root
	case 0:
		return f
	case 1:
		return f.anc
	case 2:
		return f.anc.anc
	}
	for ; l > 0; l-- {
		f = f.anc
	}
	return f
}

// Callbin calls a function from a bin import, accessible through reflect.
func callBin(n *node) {
	tnext := getExec(n.tnext)
	fnext := getExec(n.fnext)
	child := n.child[1:]
	c0 := n.child[0]
	value := genValue(c0)
	if h := errorsHook(n, c0.rval); h != nil {
		// Tracebook: errors.Is, As, Unwrap see interpreted methods.
		value = h
	}
	var values []func(*frame) reflect.Value
	funcType := c0.typ.rtype
	wt := wrappedType(c0)
	variadic := -1
	if funcType.IsVariadic() {
		variadic = funcType.NumIn() - 1
	}
	// A method signature obtained from reflect.Type includes receiver as 1st arg, except for interface types.
	rcvrOffset := 0
	if recv := c0.recv; recv != nil && !isInterface(recv.node.typ) {
		if variadic > 0 || funcType.NumIn() > len(child) {
			rcvrOffset = 1
		}
	}

	// getMapType returns a reflect type suitable for interface wrapper for functions
	// with some special processing in case of interface{} argument, i.e. fmt.Printf.
	var getMapType func(*itype) reflect.Type
	isPrint := false // a function printing its interface{} arguments with fmt (mapTypes has fmt.Stringer)
	if lr, ok := n.interp.mapTypes[c0.rval]; ok {
		for _, rt := range lr {
			isPrint = isPrint || rt.String() == "fmt.Stringer"
		}
		// The first interface of the list the value implements; for a
		// print function (Tracebook), one that is not fmt's, else a wrapper
		// that formats as fmt does (tracebook_fmtwrap.go): the session's
		// display asks for MIMEBundler too.
		asked := lr
		if isPrint {
			asked = nil
			for _, rt := range lr {
				if rt.PkgPath() != "fmt" && rt != errorType {
					asked = append(asked, rt)
				}
			}
		}
		getMapType = func(typ *itype) reflect.Type {
			for _, rt := range asked {
				if typ.implements(&itype{cat: valueT, rtype: rt}) {
					return rt
				}
			}
			if isPrint {
				return fmtWrapperType(n.interp, typ)
			}
			return nil
		}
	}

	// Determine if we should use `Call` or `CallSlice` on the function Value.
	callFn := func(v reflect.Value, in []reflect.Value) []reflect.Value { return v.Call(in) }
	if n.action == aCallSlice {
		callFn = func(v reflect.Value, in []reflect.Value) []reflect.Value { return v.CallSlice(in) }
	}

	for i, c := range child {
		switch {
		case isBinCall(c, c.scope):
			// Handle nested function calls: pass returned values as arguments
			numOut := c.child[0].typ.rtype.NumOut()
			for j := 0; j < numOut; j++ {
				ind := c.findex + j
				values = append(values, func(f *frame) reflect.Value { return valueInterfaceValue(f.data[ind]) })
			}
		case isRegularCall(c):
			// Handle nested function calls: pass returned values as arguments
			for j, rt := range c.child[0].typ.ret {
				ind := c.findex + j
				v := func(f *frame) reflect.Value { return valueInterfaceValue(f.data[ind]) }
				if isPrint && wt == nil && isAnyParam(funcType, variadic, len(values)+rcvrOffset) {
					// Tracebook: fmt sees the methods of interpreted types.
					raw := func(f *frame) reflect.Value { return f.data[ind] }
					v = genPrintValue(n.interp, rt, raw, getMapType)
				}
				values = append(values, v)
			}
		default:
			if c.kind == basicLit || c.rval.IsValid() {
				// Convert literal value (untyped) to function argument type (if not an interface{})
				var argType reflect.Type
				if variadic >= 0 && i+rcvrOffset >= variadic {
					argType = funcType.In(variadic).Elem()
				} else {
					argType = funcType.In(i + rcvrOffset)
				}
				convertLiteralValue(c, argType)
				if !reflect.ValueOf(c.val).IsValid() { //  Handle "nil"
					c.val = reflect.Zero(argType)
				}
			}

			if wt != nil && isInterfaceSrc(wt.arg[i]) {
				values = append(values, genValueInterface(c))
				break
			}

			if isPrint && wt == nil && !isFuncSrc(c.typ) && isAnyParam(funcType, variadic, i+rcvrOffset) {
				// Tracebook: fmt sees the methods of interpreted types, also
				// inside composite values (tracebook_types.go).
				values = append(values, genPrintValue(n.interp, c.typ, genValue(c), getMapType))
				break
			}

			// defType is the target type for a potential interface wrapper.
			var defType reflect.Type
			if variadic >= 0 && i+rcvrOffset >= variadic {
				defType = funcType.In(variadic)
				if n.action != aCallSlice {
					// Tracebook: each variadic argument is an element
					// (errors.Join(e1, e2) wraps each cell error).
					defType = defType.Elem()
				}
			} else {
				defType = funcType.In(rcvrOffset + i)
			}
			if getMapType != nil {
				if rt := getMapType(c.typ); rt != nil {
					defType = rt
				}
			}

			switch {
			case isEmptyInterface(c.typ):
				values = append(values, genUnwrapArg(getMapType, genValue(c)))
			case isInterfaceSrc(c.typ):
				values = append(values, genValueInterfaceValue(c))
			case isFuncSrc(c.typ):
				values = append(values, genFunctionWrapper(c))
			case c.typ.cat == arrayT || c.typ.cat == variadicT:
				if isEmptyInterface(c.typ.val) {
					values = append(values, genValueArray(c))
				} else {
					values = append(values, genInterfaceWrapper(c, defType))
				}
			case isPtrSrc(c.typ):
				if c.typ.val.cat == valueT {
					values = append(values, genValue(c))
				} else {
					values = append(values, genInterfaceWrapper(c, defType))
				}
			case c.typ.cat == valueT:
				values = append(values, genValue(c))
			default:
				values = append(values, genInterfaceWrapper(c, defType))
			}
		}
	}
	l := len(values)

	switch {
	case n.anc.kind == deferStmt:
		// Store function call in frame for deferred execution.
		n.exec = func(f *frame) bltn {
			val := make([]reflect.Value, l+1)
			val[0] = value(f)
			for i, v := range values {
				val[i+1] = deferArg(getBinValue(getMapType, v, f))
			}
			f.deferred = append([][]reflect.Value{val}, f.deferred...)
			return tnext
		}
	case n.anc.kind == goStmt:
		// Execute function in a goroutine, discard results.
		n.exec = func(f *frame) bltn {
			in := make([]reflect.Value, l)
			for i, v := range values {
				in[i] = getBinValue(getMapType, v, f)
			}
			go callFn(value(f), in)
			return tnext
		}
	case fnext != nil:
		// Handle branching according to boolean result.
		index := n.findex
		level := n.level
		n.exec = func(f *frame) bltn {
			in := make([]reflect.Value, l)
			for i, v := range values {
				in[i] = getBinValue(getMapType, v, f)
			}
			res := callFn(value(f), in)
			b := res[0].Bool()
			getFrame(f, level).data[index].SetBool(b)
			if b {
				return tnext
			}
			return fnext
		}
	default:
		switch n.anc.action {
		case aAssignX:
			// The function call is part of an assign expression, store results direcly
			// to assigned location, to avoid an additional frame copy.
			// The optimization of aAssign is handled in assign(), and should not
			// be handled here.
			rvalues := make([]func(*frame) reflect.Value, funcType.NumOut())
			mset := make([]func(*frame, reflect.Value), funcType.NumOut())
			for i := range rvalues {
				c := n.anc.child[i]
				if c.ident == "_" {
					continue
				}
				if isMapEntry(c) {
					// tracebook: "m[k], err = strconv.Atoi(s)" sets the map entry.
					mset[i] = genSetMapEntry(c)
					continue
				}
				if isInterfaceSrc(c.typ) {
					rvalues[i] = genValueInterfaceValue(c)
				} else {
					rvalues[i] = genValue(c)
				}
			}
			n.exec = func(f *frame) bltn {
				in := make([]reflect.Value, l)
				for i, v := range values {
					in[i] = getBinValue(getMapType, v, f)
				}
				out := callFn(value(f), in)
				for i, v := range rvalues {
					if m := mset[i]; m != nil {
						m(f, out[i])
						continue
					}
					if v == nil {
						continue // Skip assign "_".
					}
					c := n.anc.child[i]
					if n.anc.kind == defineXStmt && !c.redeclared {
						// In case of a define statement, the destination value in the frame
						// must be recreated. This is necessary to preserve the previous value
						// which may be still used in a separate closure.
						data := getFrame(f, c.level).data
						data[c.findex] = reflect.New(data[c.findex].Type()).Elem()
						data[c.findex].Set(out[i])
						continue
					}
					v(f).Set(out[i])
				}
				return tnext
			}
		case aReturn:
			// The function call is part of a return statement, store output results
			// directly in the frame location of outputs of the current function.
			b := childPos(n)
			n.exec = func(f *frame) bltn {
				in := make([]reflect.Value, l)
				for i, v := range values {
					in[i] = getBinValue(getMapType, v, f)
				}
				out := callFn(value(f), in)
				for i, v := range out {
					dest := f.data[b+i]
					if _, ok := dest.Interface().(valueInterface); ok {
						v = reflect.ValueOf(valueInterface{value: v})
					}
					dest.Set(v)
				}
				return tnext
			}
		default:
			n.exec = func(f *frame) bltn {
				in := make([]reflect.Value, l)
				for i, v := range values {
					in[i] = getBinValue(getMapType, v, f)
				}
				out := callFn(value(f), in)
				for i := 0; i < len(out); i++ {
					r := out[i]
					if r.Kind() == reflect.Func {
						getFrame(f, n.level).data[n.findex+i] = r
						continue
					}
					dest := getFrame(f, n.level).data[n.findex+i]
					if _, ok := dest.Interface().(valueInterface); ok {
						r = reflect.ValueOf(valueInterface{value: r})
					}
					dest.Set(r)
				}
				return tnext
			}
		}
	}
}

func getIndexBinMethod(n *node) {
	// dest := genValue(n)
	i := n.findex
	l := n.level
	m := n.val.(int)
	value := genValue(n.child[0])
	next := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		// Can not use .Set() because dest type contains the receiver and source not
		// dest(f).Set(value(f).Method(m))
		getFrame(f, l).data[i] = value(f).Method(m)
		return next
	}
}

func getIndexBinElemMethod(n *node) {
	i := n.findex
	l := n.level
	m := n.val.(int)
	value := genValue(n.child[0])
	next := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		// Can not use .Set() because dest type contains the receiver and source not
		getFrame(f, l).data[i] = value(f).Elem().Method(m)
		return next
	}
}

func getIndexBinPtrMethod(n *node) {
	i := n.findex
	l := n.level
	m := n.val.(int)
	value := genValue(n.child[0])
	next := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		// Can not use .Set() because dest type contains the receiver and source not
		getFrame(f, l).data[i] = value(f).Addr().Method(m)
		return next
	}
}

// getIndexArray returns array value from index.
func getIndexArray(n *node) {
	tnext := getExec(n.tnext)
	value0 := genValueArray(n.child[0]) // array
	i := n.findex
	l := n.level

	if n.child[1].rval.IsValid() { // constant array index
		ai := int(vInt(n.child[1].rval))
		if n.fnext != nil {
			fnext := getExec(n.fnext)
			n.exec = func(f *frame) bltn {
				r := indexBounds(value0(f), ai)
				getFrame(f, l).data[i] = r
				if r.Bool() {
					return tnext
				}
				return fnext
			}
		} else {
			deferred := isTupleDest(n)
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = indexBoundsAt(value0(f), ai, deferred)
				return tnext
			}
		}
	} else {
		value1 := genValueInt(n.child[1]) // array index

		if n.fnext != nil {
			fnext := getExec(n.fnext)
			n.exec = func(f *frame) bltn {
				_, vi := value1(f)
				r := indexBounds(value0(f), int(vi))
				getFrame(f, l).data[i] = r
				if r.Bool() {
					return tnext
				}
				return fnext
			}
		} else {
			deferred := isTupleDest(n)
			n.exec = func(f *frame) bltn {
				_, vi := value1(f)
				getFrame(f, l).data[i] = indexBoundsAt(value0(f), int(vi), deferred)
				return tnext
			}
		}
	}
}

// isTupleDest tells if the index expression n is an operand on the left of
// a tuple assignment ("x[1], x[3] = 4, 5"): Go evaluates its operands
// first, and panics on an index out of range only when it assigns it, after
// the assignments on its left.
func isTupleDest(n *node) bool {
	a := n.anc
	return a != nil && a.kind == assignStmt && a.action == aAssign && a.nleft > 1 && childPos(n) < a.nleft
}

// indexBoundsAt is indexBounds, but for an operand of a tuple assignment
// (deferred) an index out of range gives the boundsError as a value, which
// the assignment panics with when it comes to it.
func indexBoundsAt(a reflect.Value, i int, deferred bool) reflect.Value {
	if n := a.Len(); deferred && (i < 0 || i >= n) {
		return reflect.ValueOf(indexError(i, n))
	}
	return indexBounds(a, i)
}

var boundsErrorType = reflect.TypeOf(boundsError{})

// getIndexMap retrieves map value from index.
func getIndexMap(n *node) {
	dest := genValue(n)
	value0 := genValue(n.child[0]) // map
	tnext := getExec(n.tnext)
	z := reflect.New(n.child[0].typ.frameType().Elem()).Elem()

	if n.child[1].rval.IsValid() { // constant map index
		mi := constMapKey(n.child[0].typ, n.child[1])

		switch {
		case n.fnext != nil:
			fnext := getExec(n.fnext)
			n.exec = func(f *frame) bltn {
				if v := value0(f).MapIndex(mi); v.IsValid() && v.Bool() {
					dest(f).SetBool(true)
					return tnext
				}
				dest(f).Set(z)
				return fnext
			}
		default:
			n.exec = func(f *frame) bltn {
				if v := value0(f).MapIndex(mi); v.IsValid() {
					dest(f).Set(v)
				} else {
					dest(f).Set(z)
				}
				return tnext
			}
		}
	} else {
		value1 := genMapKey(n.child[0].typ, n.child[1], genValue(n.child[1])) // map index (tracebook: genMapKey)

		switch {
		case n.fnext != nil:
			fnext := getExec(n.fnext)
			n.exec = func(f *frame) bltn {
				if v := value0(f).MapIndex(value1(f)); v.IsValid() && v.Bool() {
					dest(f).SetBool(true)
					return tnext
				}
				dest(f).Set(z)
				return fnext
			}
		default:
			n.exec = func(f *frame) bltn {
				if v := value0(f).MapIndex(value1(f)); v.IsValid() {
					dest(f).Set(v)
				} else {
					dest(f).Set(z)
				}
				return tnext
			}
		}
	}
}

// getIndexMap2 retrieves map value from index and set status.
func getIndexMap2(n *node) {
	dest := assignXOut(n, 0)       // result
	value0 := genValue(n.child[0]) // map
	value2 := assignXOut(n, 1)     // status
	next := getExec(n.tnext)
	doValue := !assignXBlank(n, 0)
	doStatus := !assignXBlank(n, 1)

	if !doValue && !doStatus {
		nop(n)
		return
	}
	if n.child[1].rval.IsValid() { // constant map index
		mi := constMapKey(n.child[0].typ, n.child[1])
		switch {
		case !doValue:
			n.exec = func(f *frame) bltn {
				v := value0(f).MapIndex(mi)
				value2(f).SetBool(v.IsValid())
				return next
			}
		default:
			n.exec = func(f *frame) bltn {
				v := value0(f).MapIndex(mi)
				if v.IsValid() {
					dest(f).Set(v)
				}
				if doStatus {
					value2(f).SetBool(v.IsValid())
				}
				return next
			}
		}
	} else {
		value1 := genMapKey(n.child[0].typ, n.child[1], genValue(n.child[1])) // map index (tracebook: genMapKey)
		switch {
		case !doValue:
			n.exec = func(f *frame) bltn {
				v := value0(f).MapIndex(value1(f))
				value2(f).SetBool(v.IsValid())
				return next
			}
		default:
			n.exec = func(f *frame) bltn {
				v := value0(f).MapIndex(value1(f))
				if v.IsValid() {
					dest(f).Set(v)
				}
				if doStatus {
					value2(f).SetBool(v.IsValid())
				}
				return next
			}
		}
	}
}

// getFunc compiles a closure function generator for anonymous functions.
func getFunc(n *node) {
	i := n.findex
	l := n.level
	next := getExec(n.tnext)
	numRet := len(n.typ.ret)

	n.exec = func(f *frame) bltn {
		fr := f.clone()
		f.mutex.RLock()
		o := getFrame(f, l).data[i]
		f.mutex.RUnlock()
		var id unsafe.Pointer // tracebook: the identity of fct, below

		fct := reflect.MakeFunc(n.typ.TypeOf(), func(in []reflect.Value) []reflect.Value {
			// Allocate and init local frame. All values to be settable and addressable.
			fr2 := newFrame(fr, len(n.types), fr.runid())
			fr2.depth = n.interp.enterDepth(fr) // tracebook
			d := fr2.data
			for i, t := range n.types {
				d[i] = reflect.New(t).Elem()
			}
			d = d[numRet:]

			// Copy function input arguments in local frame.
			for i, arg := range in {
				if i >= len(d) {
					// In case of unused arg, there may be not even a frame entry allocated, just skip.
					break
				}
				typ := n.typ.arg[i]
				switch {
				case isEmptyInterface(typ) || typ.TypeOf() == valueInterfaceType:
					d[i].Set(arg)
				case isInterfaceSrc(typ):
					d[i].Set(reflect.ValueOf(valueInterface{value: arg.Elem()}))
				default:
					d[i].Set(arg)
				}
			}

			// Interpreter code execution.
			runCfg(n.child[3].start, fr2, n, n)

			// tracebook: the slot gets its old value back only if it still
			// holds this closure. A goroutine started by a loop
			// (go func(n int) {...}(i)) used to put it back after the next
			// iteration had stored its own closure there, so the loop then
			// called the previous closure, or a zero value (a nil
			// dereference, TestHabits' wait group).
			f.mutex.Lock()
			if cur := getFrame(f, l).data[i]; funcIdentity(cur) == id {
				getFrame(f, l).data[i] = o
			}
			f.mutex.Unlock()

			return fr2.data[:numRet]
		})
		id = funcIdentity(fct)

		f.mutex.Lock()
		getFrame(f, l).data[i] = fct
		f.mutex.Unlock()

		return next
	}
}

func getMethod(n *node) {
	i := n.findex
	l := n.level
	next := getExec(n.tnext)

	// tracebook: the receiver is evaluated (and, for a value receiver,
	// copied) when the method value is, not when it is called
	// (tracebook_methods.go).
	m := n.val.(*node)
	ptrRecv := isPtrRecvMethod(m)
	var recv func(*frame) reflect.Value
	var index []int
	if n.recv != nil && n.recv.node != nil {
		recv = genValue(n.recv.node)
		index = n.recv.index
	}
	// A direct call x.m() (not by go or defer) uses the receiver at once:
	// its value is copied by the call, not here too.
	copyVal := true
	if a := n.anc; a != nil && a.kind == callExpr && a.child[0] == n && a.anc != nil && a.anc.kind != goStmt && a.anc.kind != deferStmt {
		copyVal = false
	}
	n.exec = func(f *frame) bltn {
		nod := *m
		nod.val = &nod
		nod.recv = n.recv
		if recv != nil {
			nod.recv = &receiver{val: bindReceiver(recv(f), index, ptrRecv, copyVal)}
		}
		getFrame(f, l).data[i] = genFuncValue(&nod)(f)
		return next
	}
}

func getMethodByName(n *node) {
	next := getExec(n.tnext)
	value0 := genValue(n.child[0])
	name := n.child[1].ident
	i := n.findex
	l := n.level
	path := embeddedInterfacePath(n.child[0].typ, name)

	n.exec = func(f *frame) bltn {
		// The interface object must be directly accessible, or embedded in a struct (exported anonymous field).
		val0 := value0(f)
		if !val0.IsValid() {
			// tracebook: a method of a nil interface value.
			panic(nilDerefError{})
		}
		val, ok := val0.Interface().(valueInterface)
		if !ok && path != nil {
			val, ok = embeddedInterfaceAt(val0, path)
		}
		if !ok {
			// Search the first embedded valueInterface.
			for val0.Kind() == reflect.Ptr {
				val0 = val0.Elem()
			}
			for i := 0; i < val0.NumField(); i++ {
				fld := val0.Type().Field(i)
				if !fld.Anonymous || !fld.IsExported() {
					continue
				}
				if val, ok = val0.Field(i).Interface().(valueInterface); ok {
					break
					// TODO: should we keep track of all the vals that are indeed valueInterface,
					// so that later on we can call MethodByName on all of them until one matches?
				}
			}
			if !ok {
				panic(n.cfgErrorf("invalid interface value %v", val0))
			}
		}
		// Traverse nested interface values to get the concrete value.
		for {
			if !val.value.IsValid() {
				panic(nilDerefError{}) // tracebook: nil interface value
			}
			v, ok := val.value.Interface().(valueInterface)
			if !ok {
				break
			}
			val = v
		}

		if met := val.value.MethodByName(name); met.IsValid() {
			getFrame(f, l).data[i] = met
			return next
		}

		typ := val.node.typ
		if typ.node == nil && typ.cat == valueT {
			// It happens with a var of empty interface type, that has value of concrete type
			// from runtime, being asserted to "user-defined" interface.
			if _, ok := typ.rtype.MethodByName(name); !ok {
				panic(n.cfgErrorf("method not found: %s", name))
			}
			return next
		}

		// Finally search method recursively in embedded valueInterfaces.
		r, m, li := lookupMethodValue(val, name)
		if r.IsValid() {
			getFrame(f, l).data[i] = r
			return next
		}
		if m == nil {
			panic(n.cfgErrorf("method not found: %s", name))
		}

		nod := *m
		nod.val = &nod
		nod.recv = &receiver{nil, val.value, li}
		getFrame(f, l).data[i] = genFuncValue(&nod)(f)
		return next
	}
}

// lookupMethodValue recursively looks within val for the method with the given
// name. If a runtime value is found, it is returned in r, otherwise it is returned
// in m, with li as the list of recursive field indexes.
func lookupMethodValue(val valueInterface, name string) (r reflect.Value, m *node, li []int) {
	if r = val.value.MethodByName(name); r.IsValid() {
		return
	}
	if m, li = val.node.typ.lookupMethod(name); m != nil {
		return
	}
	if !isStruct(val.node.typ) {
		return
	}
	v := val.value
	for v.Type().Kind() == reflect.Ptr {
		v = v.Elem()
	}
	nf := v.NumField()
	for i := 0; i < nf; i++ {
		vi, ok := v.Field(i).Interface().(valueInterface)
		if !ok {
			continue
		}
		if r, m, li = lookupMethodValue(vi, name); m != nil {
			li = append([]int{i}, li...)
			return
		}
	}
	return
}

func getIndexSeq(n *node) {
	value := genValue(n.child[0])
	index := n.val.([]int)
	tnext := getExec(n.tnext)
	i := n.findex
	l := n.level

	// Note:
	// Here we have to store the result using
	//    f.data[i] = value(...)
	// instead of normal
	//    dest(f).Set(value(...)
	// because the value returned by FieldByIndex() must be preserved
	// for possible future Set operations on the struct field (avoid a
	// dereference from Set, resulting in setting a copy of the
	// original field).

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			v := value(f)
			r := v.FieldByIndex(index)
			getFrame(f, l).data[i] = r
			if r.Bool() {
				return tnext
			}
			return fnext
		}
	} else {
		n.exec = func(f *frame) bltn {
			v := value(f)
			getFrame(f, l).data[i] = v.FieldByIndex(index)
			return tnext
		}
	}
}

func getPtrIndexSeq(n *node) {
	index := n.val.([]int)
	tnext := getExec(n.tnext)
	value := genValue(n.child[0])
	i := n.findex
	l := n.level

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			r := ptrElem(value(f)).FieldByIndex(index)
			getFrame(f, l).data[i] = r
			if r.Bool() {
				return tnext
			}
			return fnext
		}
	} else {
		deferred := isTupleDest(n)
		n.exec = func(f *frame) bltn {
			// tracebook: in a tuple assignment, p.x with p nil panics
			// when its assignment comes (see isTupleDest).
			v := value(f)
			if deferred && v.Kind() == reflect.Ptr && v.IsNil() {
				getFrame(f, l).data[i] = reflect.ValueOf(nilDerefError{})
				return tnext
			}
			getFrame(f, l).data[i] = ptrElem(v).FieldByIndex(index)
			return tnext
		}
	}
}

func getIndexSeqField(n *node) {
	value := genValue(n.child[0])
	index := n.val.([]int)
	i := n.findex
	l := n.level
	tnext := getExec(n.tnext)

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		if n.child[0].typ.TypeOf().Kind() == reflect.Ptr {
			n.exec = func(f *frame) bltn {
				r := value(f).Elem().FieldByIndex(index)
				getFrame(f, l).data[i] = r
				if r.Bool() {
					return tnext
				}
				return fnext
			}
		} else {
			n.exec = func(f *frame) bltn {
				r := value(f).FieldByIndex(index)
				getFrame(f, l).data[i] = r
				if r.Bool() {
					return tnext
				}
				return fnext
			}
		}
	} else {
		if n.child[0].typ.TypeOf().Kind() == reflect.Ptr {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Elem().FieldByIndex(index)
				return tnext
			}
		} else {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).FieldByIndex(index)
				return tnext
			}
		}
	}
}

func getIndexSeqPtrMethod(n *node) {
	value := genValue(n.child[0])
	index := n.val.([]int)
	fi := index[1:]
	mi := index[0]
	i := n.findex
	l := n.level
	next := getExec(n.tnext)

	if n.child[0].typ.TypeOf().Kind() == reflect.Ptr {
		if len(fi) == 0 {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Method(mi)
				return next
			}
		} else {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Elem().FieldByIndex(fi).Addr().Method(mi)
				return next
			}
		}
	} else {
		if len(fi) == 0 {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Addr().Method(mi)
				return next
			}
		} else {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).FieldByIndex(fi).Addr().Method(mi)
				return next
			}
		}
	}
}

func getIndexSeqMethod(n *node) {
	value := genValue(n.child[0])
	index := n.val.([]int)
	fi := index[1:]
	mi := index[0]
	i := n.findex
	l := n.level
	next := getExec(n.tnext)

	if n.child[0].typ.TypeOf().Kind() == reflect.Ptr {
		if len(fi) == 0 {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Elem().Method(mi)
				return next
			}
		} else {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Elem().FieldByIndex(fi).Method(mi)
				return next
			}
		}
	} else {
		if len(fi) == 0 {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).Method(mi)
				return next
			}
		} else {
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i] = value(f).FieldByIndex(fi).Method(mi)
				return next
			}
		}
	}
}

func neg(n *node) {
	dest := genValue(n)
	value := genValue(n.child[0])
	next := getExec(n.tnext)
	typ := n.typ.concrete().TypeOf()
	isInterface := n.typ.TypeOf().Kind() == reflect.Interface

	switch n.typ.TypeOf().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if isInterface {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(-value(f).Int()).Convert(typ))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetInt(-value(f).Int())
			return next
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if isInterface {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(-value(f).Uint()).Convert(typ))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetUint(-value(f).Uint())
			return next
		}
	case reflect.Float32, reflect.Float64:
		if isInterface {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(-value(f).Float()).Convert(typ))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetFloat(-value(f).Float())
			return next
		}
	case reflect.Complex64, reflect.Complex128:
		if isInterface {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(-value(f).Complex()).Convert(typ))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetComplex(-value(f).Complex())
			return next
		}
	}
}

func pos(n *node) {
	dest := genValue(n)
	value := genValue(n.child[0])
	next := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		dest(f).Set(value(f))
		return next
	}
}

func bitNot(n *node) {
	dest := genValue(n)
	value := genValue(n.child[0])
	next := getExec(n.tnext)
	typ := n.typ.concrete().TypeOf()
	isInterface := n.typ.TypeOf().Kind() == reflect.Interface

	switch typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if isInterface {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(^value(f).Int()).Convert(typ))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetInt(^value(f).Int())
			return next
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if isInterface {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(^value(f).Uint()).Convert(typ))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetUint(^value(f).Uint())
			return next
		}
	}
}

func land(n *node) {
	value0 := genValue(n.child[0])
	value1 := genValue(n.child[1])
	tnext := getExec(n.tnext)
	dest := genValue(n)
	typ := n.typ.concrete().TypeOf()
	isInterface := n.typ.TypeOf().Kind() == reflect.Interface

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			if value0(f).Bool() && value1(f).Bool() {
				dest(f).SetBool(true)
				return tnext
			}
			dest(f).SetBool(false)
			return fnext
		}
		return
	}
	if isInterface {
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.ValueOf(value0(f).Bool() && value1(f).Bool()).Convert(typ))
			return tnext
		}
		return
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetBool(value0(f).Bool() && value1(f).Bool())
		return tnext
	}
}

func lor(n *node) {
	value0 := genValue(n.child[0])
	value1 := genValue(n.child[1])
	tnext := getExec(n.tnext)
	dest := genValue(n)
	typ := n.typ.concrete().TypeOf()
	isInterface := n.typ.TypeOf().Kind() == reflect.Interface

	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			if value0(f).Bool() || value1(f).Bool() {
				dest(f).SetBool(true)
				return tnext
			}
			dest(f).SetBool(false)
			return fnext
		}
		return
	}
	if isInterface {
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.ValueOf(value0(f).Bool() || value1(f).Bool()).Convert(typ))
			return tnext
		}
		return
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetBool(value0(f).Bool() || value1(f).Bool())
		return tnext
	}
}

func nop(n *node) {
	next := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		return next
	}
}

func branch(n *node) {
	tnext := getExec(n.tnext)
	fnext := getExec(n.fnext)
	value := genValue(n)

	if n.typ != nil && isInterface(n.typ) {
		// Tracebook: a case of a tagless switch of interface type
		// (switch { case i: } with i any) is true == i.
		n.exec = func(f *frame) bltn {
			if ifaceEqual(nil, n.typ, true, value(f).Interface()) {
				return tnext
			}
			return fnext
		}
		return
	}
	n.exec = func(f *frame) bltn {
		if value(f).Bool() {
			return tnext
		}
		return fnext
	}
}

func _return(n *node) {
	child := n.child
	def := n.val.(*node)
	values := make([]func(*frame) reflect.Value, len(child))
	for i, c := range child {
		switch t := def.typ.ret[i]; t.cat {
		case errorT:
			values[i] = genInterfaceWrapper(c, t.TypeOf())
		case funcT:
			values[i] = genValue(c)
			if c.typ != nil && c.typ.cat == funcT && !c.isNil() {
				// tracebook: a function declaration or generic instance
				// (return f, return g[T]) is a *node: wrapped as a func
				// value for the result slot.
				values[i] = genValueAsFunctionWrapper(c)
			}
		case valueT:
			switch t.rtype.Kind() {
			case reflect.Interface:
				values[i] = genInterfaceWrapper(c, t.TypeOf())
				continue
			case reflect.Func:
				values[i] = genFunctionWrapper(c)
				continue
			}
			fallthrough
		default:
			switch {
			case isInterfaceSrc(t):
				if len(t.field) == 0 && (isInterface(c.typ) || !hasMethods(c.typ)) {
					// empty interface case.
					// we can't let genValueInterface deal with it, because we call on c,
					// not on n, which means that the interfaceT knowledge is lost.
					// (tracebook: a value of a type with methods keeps them, as
					// in an assignment, genDestValue.)
					values[i] = genValue(c)
					break
				}
				values[i] = genValueInterface(c)
			case c.typ.untyped:
				values[i] = genValueAs(c, t.TypeOf())
			default:
				values[i] = genValue(c)
			}
		}
	}

	switch len(child) {
	case 0:
		n.exec = nil
	case 1:
		switch {
		case !child[0].rval.IsValid() && child[0].kind == binaryExpr:
			// No additional runtime operation is necessary for constants (not in frame) or
			// binary expressions (stored directly at the right location in frame).
			n.exec = nil
		case isCall(child[0]) && n.child[0].typ.id() == def.typ.ret[0].id():
			// Calls are optmized as long as no type conversion is involved.
			n.exec = nil
		default:
			// Regular return: store the value to return at to start of the frame.
			v := values[0]
			n.exec = func(f *frame) bltn {
				f.data[0].Set(v(f))
				return nil
			}
		}
	case 2:
		v0, v1 := values[0], values[1]
		n.exec = func(f *frame) bltn {
			f.data[0].Set(v0(f))
			f.data[1].Set(v1(f))
			return nil
		}
	default:
		n.exec = func(f *frame) bltn {
			for i, value := range values {
				f.data[i].Set(value(f))
			}
			return nil
		}
	}
}

func arrayLit(n *node) {
	value := valueGenerator(n, n.findex)
	next := getExec(n.tnext)
	child := n.child
	if n.nleft == 1 {
		child = n.child[1:]
	}

	values := make([]func(*frame) reflect.Value, len(child))
	index := make([]int, len(child))
	var max, prev int

	ntyp := n.typ.resolveAlias()
	for i, c := range child {
		if c.kind == keyValueExpr {
			values[i] = genDestValue(ntyp.val, c.child[1])
			index[i] = int(vInt(c.child[0].rval))
		} else {
			values[i] = genDestValue(ntyp.val, c)
			index[i] = prev
		}
		prev = index[i] + 1
		if prev > max {
			max = prev
		}
	}

	typ := n.typ.frameType()
	kind := typ.Kind()
	n.exec = func(f *frame) bltn {
		var a reflect.Value
		if kind == reflect.Slice {
			a = reflect.MakeSlice(typ, max, max)
		} else {
			a, _ = n.typ.zero()
		}
		for i, v := range values {
			a.Index(index[i]).Set(v(f))
		}
		value(f).Set(a)
		return next
	}
}

func mapLit(n *node) {
	value := valueGenerator(n, n.findex)
	next := getExec(n.tnext)
	child := n.child
	if n.nleft == 1 {
		child = n.child[1:]
	}
	typ := n.typ.frameType()
	keys := make([]func(*frame) reflect.Value, len(child))
	values := make([]func(*frame) reflect.Value, len(child))
	for i, c := range child {
		keys[i] = genMapKey(n.typ, c.child[0], genDestValue(n.typ.key, c.child[0])) // tracebook
		values[i] = genDestValue(n.typ.val, c.child[1])
	}

	n.exec = func(f *frame) bltn {
		m := reflect.MakeMap(typ)
		for i, k := range keys {
			m.SetMapIndex(k(f), values[i](f))
		}
		value(f).Set(m)
		return next
	}
}

func compositeBinMap(n *node) {
	value := valueGenerator(n, n.findex)
	next := getExec(n.tnext)
	child := n.child
	if n.nleft == 1 {
		child = n.child[1:]
	}
	typ := n.typ.frameType()
	keys := make([]func(*frame) reflect.Value, len(child))
	values := make([]func(*frame) reflect.Value, len(child))
	for i, c := range child {
		convertLiteralValue(c.child[0], typ.Key())
		convertLiteralValue(c.child[1], typ.Elem())
		keys[i] = genValue(c.child[0])

		if isFuncSrc(c.child[1].typ) {
			values[i] = genFunctionWrapper(c.child[1])
		} else {
			values[i] = genValue(c.child[1])
		}
	}

	n.exec = func(f *frame) bltn {
		m := reflect.MakeMap(typ)
		for i, k := range keys {
			m.SetMapIndex(k(f), values[i](f))
		}
		value(f).Set(m)
		return next
	}
}

func compositeBinSlice(n *node) {
	value := valueGenerator(n, n.findex)
	next := getExec(n.tnext)
	child := n.child
	if n.nleft == 1 {
		child = n.child[1:]
	}

	values := make([]func(*frame) reflect.Value, len(child))
	index := make([]int, len(child))
	rtype := n.typ.rtype.Elem()
	var max, prev int

	for i, c := range child {
		if c.kind == keyValueExpr {
			convertLiteralValue(c.child[1], rtype)
			values[i] = genValue(c.child[1])
			index[i] = int(vInt(c.child[0].rval))
		} else {
			convertLiteralValue(c, rtype)
			values[i] = genValue(c)
			index[i] = prev
		}
		prev = index[i] + 1
		if prev > max {
			max = prev
		}
	}

	typ := n.typ.frameType()
	kind := typ.Kind()
	n.exec = func(f *frame) bltn {
		var a reflect.Value
		if kind == reflect.Slice {
			a = reflect.MakeSlice(typ, max, max)
		} else {
			a, _ = n.typ.zero()
		}
		for i, v := range values {
			a.Index(index[i]).Set(v(f))
		}
		value(f).Set(a)
		return next
	}
}

// doCompositeBinStruct creates and populates a struct object from a binary type.
func doCompositeBinStruct(n *node, hasType bool) {
	next := getExec(n.tnext)
	value := valueGenerator(n, n.findex)
	// tracebook (upstream f6165819): through any chain of named and
	// pointer types to the struct, as for a type defined from an alias.
	typ := baseType(n.typ).rtype
	child := n.child
	if hasType {
		child = n.child[1:]
	}
	values := make([]func(*frame) reflect.Value, len(child))
	fieldIndex := make([][]int, len(child))
	for i, c := range child {
		if c.kind == keyValueExpr {
			if sf, ok := typ.FieldByName(c.child[0].ident); ok {
				fieldIndex[i] = sf.Index
				convertLiteralValue(c.child[1], sf.Type)
				if isFuncSrc(c.child[1].typ) {
					values[i] = genFunctionWrapper(c.child[1])
				} else {
					values[i] = genValue(c.child[1])
				}
			}
		} else {
			fieldIndex[i] = []int{i}
			if isFuncSrc(c.typ) && len(c.child) > 1 {
				convertLiteralValue(c.child[1], typ.Field(i).Type)
				values[i] = genFunctionWrapper(c.child[1])
			} else {
				convertLiteralValue(c, typ.Field(i).Type)
				values[i] = genValue(c)
			}
		}
	}

	frameIndex := n.findex
	l := n.level

	n.exec = func(f *frame) bltn {
		s := reflect.New(typ).Elem()
		for i, v := range values {
			s.FieldByIndex(fieldIndex[i]).Set(v(f))
		}
		d := value(f)
		switch {
		case d.Kind() == reflect.Ptr:
			d.Set(s.Addr())
		default:
			getFrame(f, l).data[frameIndex] = s
		}
		return next
	}
}

func compositeBinStruct(n *node)       { doCompositeBinStruct(n, true) }
func compositeBinStructNotype(n *node) { doCompositeBinStruct(n, false) }

func destType(n *node) *itype {
	switch n.anc.kind {
	case assignStmt, defineStmt:
		return n.anc.child[0].typ
	default:
		return n.typ
	}
}

func doComposite(n *node, hasType bool, keyed bool) {
	value := valueGenerator(n, n.findex)
	next := getExec(n.tnext)
	typ := baseType(n.typ) // tracebook (upstream f6165819)
	child := n.child
	if hasType {
		child = n.child[1:]
	}
	destInterface := isInterfaceSrc(destType(n))

	values := make(map[int]func(*frame) reflect.Value)
	for i, c := range child {
		var val *node
		var fieldIndex int
		if keyed {
			val = c.child[1]
			fieldIndex = typ.fieldIndex(c.child[0].ident)
		} else {
			val = c
			fieldIndex = i
		}
		ft := typ.field[fieldIndex].typ
		rft := ft.TypeOf()
		convertLiteralValue(val, rft)
		switch {
		case val.typ.cat == nilT:
			values[fieldIndex] = func(*frame) reflect.Value { return reflect.New(rft).Elem() }
		case isNamedFuncSrc(val.typ):
			values[fieldIndex] = genValueAsFunctionWrapper(val)
		case isInterfaceSrc(ft) && (!isEmptyInterface(ft) || hasMethods(val.typ)):
			values[fieldIndex] = genValueInterface(val)
		case isInterface(ft):
			values[fieldIndex] = genInterfaceWrapper(val, rft)
		default:
			values[fieldIndex] = genValue(val)
		}
	}

	frameIndex := n.findex
	l := n.level
	rt := typ.TypeOf()

	n.exec = func(f *frame) bltn {
		a := reflect.New(rt).Elem()
		for i, v := range values {
			a.Field(i).Set(v(f))
		}
		d := value(f)
		switch {
		case d.Kind() == reflect.Ptr:
			d.Set(a.Addr())
		case destInterface && d.Type() != rt:
			// tracebook: only when the literal is stored in its destination
			// (an interface slot); in its own slot (s.f = T{}) the
			// assignment converts it.
			if len(destType(n).field) > 0 {
				d.Set(reflect.ValueOf(valueInterface{n, a}))
				break
			}
			d.Set(a)
		default:
			getFrame(f, l).data[frameIndex] = a
		}
		return next
	}
}

// doCompositeLit creates and populates a struct object.
func doCompositeLit(n *node, hasType bool) {
	doComposite(n, hasType, false)
}

func compositeLit(n *node)       { doCompositeLit(n, true) }
func compositeLitNotype(n *node) { doCompositeLit(n, false) }

// doCompositeLitKeyed creates a struct Object, filling fields from sparse key-values.
func doCompositeLitKeyed(n *node, hasType bool) {
	doComposite(n, hasType, true)
}

func compositeLitKeyed(n *node)       { doCompositeLitKeyed(n, true) }
func compositeLitKeyedNotype(n *node) { doCompositeLitKeyed(n, false) }

func empty(n *node) {}

var rat = reflect.ValueOf((*[]rune)(nil)).Type().Elem() // runes array type

func _range(n *node) {
	index0 := n.child[0].findex // array index location in frame
	index2 := index0 - 1        // shallow array for range, always just behind index0
	index3 := index2 - 1        // additional location to store string char position (tracebook: or hidden counter)
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)

	// tracebook_loopvar.go: per-iteration variables, and a hidden counter
	// when the body writes the index or takes its address.
	ksym := loopVarSym(n.child[0])
	renewK := needsFresh(ksym)
	hidden := renewK || (ksym != nil && ksym.written)

	var value func(*frame) reflect.Value
	var an *node
	if len(n.child) == 4 {
		an = n.child[2]
		index1 := n.child[1].findex // array value location in frame
		renewV := needsFresh(loopVarSym(n.child[1]))
		if isString(an.typ.TypeOf()) {
			rangeString(n, renewK, renewV)
			return
		} else {
			value = genValueRangeArray(an)
			if hidden || renewV {
				n.exec = func(f *frame) bltn {
					a := f.data[index2]
					c := f.data[index3]
					i := int(c.Int()) + 1
					if i >= a.Len() {
						return fnext
					}
					c.SetInt(int64(i))
					if renewK {
						freshSlot(f, index0)
					}
					f.data[index0].SetInt(int64(i))
					if renewV {
						freshSlot(f, index1)
					}
					f.data[index1].Set(a.Index(i))
					return tnext
				}
			} else {
				n.exec = func(f *frame) bltn {
					a := f.data[index2]
					v0 := f.data[index0]
					v0.SetInt(v0.Int() + 1)
					i := int(v0.Int())
					if i >= a.Len() {
						return fnext
					}
					f.data[index1].Set(a.Index(i))
					return tnext
				}
			}
		}
	} else {
		an = n.child[1]
		if isString(an.typ.TypeOf()) {
			rangeString(n, renewK, false)
			return
		}
		value = genValueRangeArray(an)
		if hidden {
			n.exec = func(f *frame) bltn {
				c := f.data[index3]
				i := c.Int() + 1
				if int(i) >= f.data[index2].Len() {
					return fnext
				}
				c.SetInt(i)
				if renewK {
					freshSlot(f, index0)
				}
				f.data[index0].SetInt(i)
				return tnext
			}
		} else {
			n.exec = func(f *frame) bltn {
				v0 := f.data[index0]
				v0.SetInt(v0.Int() + 1)
				if int(v0.Int()) >= f.data[index2].Len() {
					return fnext
				}
				return tnext
			}
		}
	}

	// Init sequence
	next := n.exec
	index := index0
	if hidden || (len(n.child) == 4 && needsFresh(loopVarSym(n.child[1]))) {
		index = index3
	}
	n.child[0].exec = func(f *frame) bltn {
		f.data[index2] = value(f) // set array shallow copy for range
		f.data[index].SetInt(-1)  // assing index value
		return next
	}
}

func rangeChan(n *node) {
	i := n.child[0].findex        // element index location in frame
	value := genValue(n.child[1]) // chan
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)
	renew := needsFresh(loopVarSym(n.child[0])) // tracebook_loopvar.go

	n.exec = func(f *frame) bltn {
		f.mutex.RLock()
		done := f.done
		f.mutex.RUnlock()

		chosen, v, ok := reflect.Select([]reflect.SelectCase{done, {Dir: reflect.SelectRecv, Chan: value(f)}})
		if chosen == 0 {
			return nil
		}
		if !ok {
			return fnext
		}
		if renew {
			freshSlot(f, i)
		}
		f.data[i].Set(v)
		return tnext
	}
}

func rangeMap(n *node) {
	index0 := n.child[0].findex // map index location in frame
	index2 := index0 - 1        // iterator for range, always just behind index0
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)

	var value func(*frame) reflect.Value
	renewK := needsFresh(loopVarSym(n.child[0])) // tracebook_loopvar.go
	if len(n.child) == 4 {
		index1 := n.child[1].findex  // map value location in frame
		value = genValue(n.child[2]) // map
		renewV := needsFresh(loopVarSym(n.child[1]))
		n.exec = func(f *frame) bltn {
			iter := f.data[index2].Interface().(*reflect.MapIter)
			if !iter.Next() {
				return fnext
			}
			if renewK {
				freshSlot(f, index0)
			}
			f.data[index0].Set(iter.Key())
			if renewV {
				freshSlot(f, index1)
			}
			f.data[index1].Set(iter.Value())
			return tnext
		}
	} else {
		value = genValue(n.child[1]) // map
		n.exec = func(f *frame) bltn {
			iter := f.data[index2].Interface().(*reflect.MapIter)
			if !iter.Next() {
				return fnext
			}
			if renewK {
				freshSlot(f, index0)
			}
			f.data[index0].Set(iter.Key())
			return tnext
		}
	}

	// Init sequence
	next := n.exec
	n.child[0].exec = func(f *frame) bltn {
		f.data[index2].Set(reflect.ValueOf(value(f).MapRange()))
		return next
	}
}

func _case(n *node) {
	tnext := getExec(n.tnext)

	// TODO(mpl): a lot of what is done in typeAssert should probably be redone/reused here.
	switch {
	case n.anc.anc.kind == typeSwitch:
		// Tracebook: one matcher for every form (see tracebook_types.go).
		fnext := getExec(n.fnext)
		sn := n.anc.anc // switch node
		types := make([]*itype, len(n.child)-1)
		for i := range types {
			types[i] = n.child[i].typ
		}
		srcValue := genValue(sn.child[1].lastChild().child[0])
		if len(sn.child[1].child) != 2 {
			// no assign in switch guard
			if len(types) == 0 {
				n.exec = func(f *frame) bltn { return tnext }
				break
			}
			n.exec = func(f *frame) bltn {
				d := dynamicOf(srcValue(f))
				for _, typ := range types {
					if d.matches(typ) {
						return tnext
					}
				}
				return fnext
			}
			break
		}

		// assign in switch guard
		dest := n.lastChild().child[0]
		destValue := genValue(dest)
		if len(types) != 1 || types[0].cat == nilT {
			// default clause, several types or nil: the variable has the
			// type of the switched expression, and its value.
			n.exec = func(f *frame) bltn {
				v := srcValue(f)
				if len(types) > 0 {
					d := dynamicOf(v)
					matched := false
					for _, typ := range types {
						if d.matches(typ) {
							matched = true
							break
						}
					}
					if !matched {
						return fnext
					}
				}
				if dv := destValue(f); v.IsValid() {
					if !v.Type().AssignableTo(dv.Type()) {
						panic(n.cfgErrorf("type switch: cannot assign %s to %s", v.Type(), dv.Type()))
					}
					dv.Set(v)
				}
				return tnext
			}
			break
		}
		// match against 1 type: the variable has that type
		typ := types[0]
		n.exec = func(f *frame) bltn {
			v := srcValue(f)
			d := dynamicOf(v)
			if !d.matches(typ) {
				return fnext
			}
			if dv := destValue(f); true {
				w := d.as(typ, v, f)
				if w.IsValid() && w.Type().AssignableTo(dv.Type()) {
					dv.Set(w)
				} else if w.IsValid() && w.Type().ConvertibleTo(dv.Type()) {
					dv.Set(w.Convert(dv.Type()))
				} else if w.IsValid() {
					panic(n.cfgErrorf("type switch: cannot represent %s as %s", w.Type(), dv.Type()))
				}
			}
			return tnext
		}
	case len(n.child) <= 1: // default clause
		n.exec = func(f *frame) bltn { return tnext }

	default:
		fnext := getExec(n.fnext)
		l := len(n.anc.anc.child)
		value := genValue(n.anc.anc.child[l-2])
		values := make([]func(*frame) reflect.Value, len(n.child)-1)
		for i := range values {
			values[i] = genValue(n.child[i])
		}
		t0 := n.anc.anc.child[l-2].typ
		types := make([]*itype, len(n.child)-1)
		anyIface := isInterface(t0)
		for i := range types {
			types[i] = n.child[i].typ
			anyIface = anyIface || isInterface(types[i])
		}
		if anyIface {
			// Tracebook: an interface operand compares dynamic types and values.
			n.exec = func(f *frame) bltn {
				i0 := value(f).Interface()
				for i, v := range values {
					if ifaceEqual(t0, types[i], i0, v(f).Interface()) {
						return tnext
					}
				}
				return fnext
			}
			break
		}
		n.exec = func(f *frame) bltn {
			v0 := value(f)
			for _, v := range values {
				// both operands are concrete here (interfaces: ifaceEqual above)
				v1 := v(f)
				if !v0.Type().AssignableTo(v1.Type()) {
					v0 = v0.Convert(v1.Type())
				}
				if v0.Interface() == v1.Interface() {
					return tnext
				}
			}
			return fnext
		}
	}
}

func implementsInterface(v reflect.Value, t *itype) bool {
	rt := v.Type()
	if t.cat == valueT {
		return rt.Implements(t.rtype)
	}
	vt := &itype{cat: valueT, rtype: rt}
	if vt.methods().contains(t.methods()) {
		return true
	}
	vi, ok := v.Interface().(valueInterface)
	if !ok {
		return false
	}
	return vi.node != nil && vi.node.typ.methods().contains(t.methods())
}

func appendSlice(n *node) {
	dest := genValueOutput(n, n.typ.rtype)
	next := getExec(n.tnext)
	value := genValue(n.child[1])
	value0 := genValue(n.child[2])

	if isString(n.child[2].typ.TypeOf()) {
		typ := reflect.TypeOf([]byte{})
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.AppendSlice(value(f), value0(f).Convert(typ)))
			return next
		}
	} else {
		n.exec = func(f *frame) bltn {
			v, w := value(f), value0(f)
			n.interp.reserveGrowth(v, w.Len()) // tracebook
			dest(f).Set(reflect.AppendSlice(v, w))
			return next
		}
	}
}

func _append(n *node) {
	if len(n.child) == 3 {
		c1, c2 := n.child[1], n.child[2]
		if (c1.typ.cat == valueT || c2.typ.cat == valueT) && c1.typ.rtype == c2.typ.rtype ||
			isArray(c2.typ) && c2.typ.elem().id() == n.typ.elem().id() ||
			isByteArray(c1.typ.TypeOf()) && isString(c2.typ.TypeOf()) {
			appendSlice(n)
			return
		}
	}

	dest := genValueOutput(n, n.typ.rtype)
	value := genValue(n.child[1])
	next := getExec(n.tnext)

	switch l := len(n.child); {
	case l == 2:
		n.exec = func(f *frame) bltn {
			dest(f).Set(value(f))
			return next
		}
	case l > 3:
		args := n.child[2:]
		l := len(args)
		values := make([]func(*frame) reflect.Value, l)
		for i, arg := range args {
			switch elem := n.typ.elem(); {
			case isInterfaceSrc(elem) && (!isEmptyInterface(elem) || hasMethods(arg.typ)):
				values[i] = genValueInterface(arg)
			case isInterfaceBin(elem):
				values[i] = genInterfaceWrapper(arg, elem.rtype)
			case arg.typ.untyped:
				values[i] = genValueAs(arg, n.child[1].typ.TypeOf().Elem())
			default:
				values[i] = genValue(arg)
			}
		}

		n.exec = func(f *frame) bltn {
			sl := make([]reflect.Value, l)
			for i, v := range values {
				sl[i] = v(f)
			}
			v := value(f)
			n.interp.reserveGrowth(v, l) // tracebook
			dest(f).Set(reflect.Append(v, sl...))
			return next
		}
	default:
		var value0 func(*frame) reflect.Value
		switch elem := n.typ.elem(); {
		case isInterfaceSrc(elem) && (!isEmptyInterface(elem) || hasMethods(n.child[2].typ)):
			value0 = genValueInterface(n.child[2])
		case isInterfaceBin(elem):
			value0 = genInterfaceWrapper(n.child[2], elem.rtype)
		case n.child[2].typ.untyped:
			value0 = genValueAs(n.child[2], n.child[1].typ.TypeOf().Elem())
		default:
			value0 = genValue(n.child[2])
		}

		n.exec = func(f *frame) bltn {
			v := value(f)
			n.interp.reserveGrowth(v, 1) // tracebook
			dest(f).Set(reflect.Append(v, value0(f)))
			return next
		}
	}
}

func _cap(n *node) {
	dest := genValueOutput(n, reflect.TypeOf(int(0)))
	value := genValue(n.child[1])
	if t := n.child[1].typ.TypeOf(); t.Kind() == reflect.Ptr && t.Elem().Kind() == reflect.Array {
		// tracebook: as len, the type's length, even for a nil pointer.
		v := reflect.ValueOf(make([]struct{}, t.Elem().Len()))
		value = func(*frame) reflect.Value { return v }
	}
	next := getExec(n.tnext)

	if wantEmptyInterface(n) {
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.ValueOf(value(f).Cap()))
			return next
		}
		return
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetInt(int64(value(f).Cap()))
		return next
	}
}

func _copy(n *node) {
	in := []func(*frame) reflect.Value{genValueArray(n.child[1]), genValue(n.child[2])}
	out := []func(*frame) reflect.Value{genValueOutput(n, reflect.TypeOf(0))}

	genBuiltinDeferWrapper(n, in, out, func(args []reflect.Value) []reflect.Value {
		cnt := reflect.Copy(args[0], args[1])
		return []reflect.Value{reflect.ValueOf(cnt)}
	})
}

func _close(n *node) {
	in := []func(*frame) reflect.Value{genValue(n.child[1])}

	genBuiltinDeferWrapper(n, in, nil, func(args []reflect.Value) []reflect.Value {
		args[0].Close()
		return nil
	})
}

func _complex(n *node) {
	dest := genValueOutput(n, reflect.TypeOf(complex(0, 0)))
	c1, c2 := n.child[1], n.child[2]
	convertLiteralValue(c1, floatType)
	convertLiteralValue(c2, floatType)
	value0 := genValue(c1)
	value1 := genValue(c2)
	next := getExec(n.tnext)

	typ := n.typ.TypeOf()
	if isComplex(typ) {
		if wantEmptyInterface(n) {
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.ValueOf(complex(value0(f).Float(), value1(f).Float())))
				return next
			}
			return
		}
		n.exec = func(f *frame) bltn {
			dest(f).SetComplex(complex(value0(f).Float(), value1(f).Float()))
			return next
		}
		return
	}
	// Not a complex type: ignore imaginary part
	n.exec = func(f *frame) bltn {
		dest(f).Set(value0(f).Convert(typ))
		return next
	}
}

func _imag(n *node) {
	dest := genValueOutput(n, reflect.TypeOf(float64(0)))
	convertLiteralValue(n.child[1], complexType)
	value := genValue(n.child[1])
	next := getExec(n.tnext)

	if wantEmptyInterface(n) {
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.ValueOf(imag(value(f).Complex())))
			return next
		}
		return
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetFloat(imag(value(f).Complex()))
		return next
	}
}

func _real(n *node) {
	dest := genValueOutput(n, reflect.TypeOf(float64(0)))
	convertLiteralValue(n.child[1], complexType)
	value := genValue(n.child[1])
	next := getExec(n.tnext)

	if wantEmptyInterface(n) {
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.ValueOf(real(value(f).Complex())))
			return next
		}
		return
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetFloat(real(value(f).Complex()))
		return next
	}
}

func _delete(n *node) {
	value0 := genValue(n.child[1])                                        // map
	value1 := genMapKey(n.child[1].typ, n.child[2], genValue(n.child[2])) // key (tracebook: genMapKey)
	in := []func(*frame) reflect.Value{value0, value1}
	var z reflect.Value

	genBuiltinDeferWrapper(n, in, nil, func(args []reflect.Value) []reflect.Value {
		args[0].SetMapIndex(args[1], z)
		return nil
	})
}

func capConst(n *node) {
	// There is no Cap() method for reflect.Type, just return Len() instead.
	lenConst(n)
}

func lenConst(n *node) {
	n.rval = reflect.New(reflect.TypeOf(int(0))).Elem()
	c1 := n.child[1]
	if c1.rval.IsValid() {
		n.rval.SetInt(int64(len(vString(c1.rval))))
		return
	}
	t := c1.typ.TypeOf()
	for t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	n.rval.SetInt(int64(t.Len()))
}

func _len(n *node) {
	dest := genValueOutput(n, reflect.TypeOf(int(0)))
	value := genValue(n.child[1])
	if rt := n.child[1].typ.TypeOf(); rt != nil && rt.Kind() == reflect.Ptr && rt.Elem().Kind() == reflect.Array {
		// tracebook: len of a pointer to an array is the array's length,
		// a nil pointer too (reflect's Len takes a pointer to an array).
	} else if isPtr(n.child[1].typ) {
		val := value
		value = func(f *frame) reflect.Value {
			v := val(f).Elem()
			for v.Kind() == reflect.Ptr {
				v = v.Elem()
			}
			return v
		}
	}
	next := getExec(n.tnext)

	if wantEmptyInterface(n) {
		n.exec = func(f *frame) bltn {
			dest(f).Set(reflect.ValueOf(value(f).Len()))
			return next
		}
		return
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetInt(int64(value(f).Len()))
		return next
	}
}

func _new(n *node) {
	next := getExec(n.tnext)
	t1 := n.child[1].typ
	if c := n.child[1]; !c.isType(n.scope) {
		// tracebook: new(expr) (Go 1.26) allocates a variable holding the
		// value of expr, of its type (the default type if untyped).
		t := newExprType(n.scope, t1)
		typ := t.TypeOf()
		dest := genValueOutput(n, reflect.PtrTo(typ))
		value := genDestValue(t, c)
		n.exec = func(f *frame) bltn {
			v := reflect.New(typ)
			v.Elem().Set(value(f))
			dest(f).Set(v)
			return next
		}
		return
	}
	typ := t1.TypeOf()
	dest := genValueOutput(n, reflect.PtrTo(typ))

	if isInterfaceSrc(t1) && (!isEmptyInterface(t1) || hasMethods(t1)) {
		typ = zeroInterfaceValue().Type()
	}

	n.exec = func(f *frame) bltn {
		v := reflect.New(typ)
		if vi, ok := v.Interface().(*valueInterface); ok {
			vi.node = n
		}
		dest(f).Set(v)
		return next
	}
}

// _make allocates and initializes a slice, a map or a chan.
func _make(n *node) {
	next := getExec(n.tnext)
	typ := n.child[1].typ.frameType()
	dest := genValueOutput(n, typ)

	switch typ.Kind() {
	case reflect.Array, reflect.Slice:
		value := genValue(n.child[2])

		switch len(n.child) {
		case 3:
			n.exec = func(f *frame) bltn {
				length := int(vInt(value(f)))
				n.interp.reserveElems(typ, length) // tracebook
				dest(f).Set(reflect.MakeSlice(typ, length, length))
				return next
			}
		case 4:
			value1 := genValue(n.child[3])
			n.exec = func(f *frame) bltn {
				n.interp.reserveElems(typ, int(vInt(value1(f)))) // tracebook
				dest(f).Set(reflect.MakeSlice(typ, int(vInt(value(f))), int(vInt(value1(f)))))
				return next
			}
		}

	case reflect.Chan:
		// tracebook: make of a send- or receive-only channel type (legal
		// in Go) makes a bidirectional channel converted to it;
		// reflect.MakeChan panicked "unidirectional channel type".
		ctyp := typ
		if typ.ChanDir() != reflect.BothDir {
			ctyp = reflect.ChanOf(reflect.BothDir, typ.Elem())
		}
		makeChan := func(size int) reflect.Value {
			c := reflect.MakeChan(ctyp, size)
			if ctyp != typ {
				c = c.Convert(typ)
			}
			return c
		}
		switch len(n.child) {
		case 2:
			n.exec = func(f *frame) bltn {
				dest(f).Set(makeChan(0))
				return next
			}
		case 3:
			value := genValue(n.child[2])
			n.exec = func(f *frame) bltn {
				n.interp.reserveElems(typ, int(vInt(value(f)))) // tracebook
				dest(f).Set(makeChan(int(vInt(value(f)))))
				return next
			}
		}

	case reflect.Map:
		switch len(n.child) {
		case 2:
			n.exec = func(f *frame) bltn {
				dest(f).Set(reflect.MakeMap(typ))
				return next
			}
		case 3:
			value := genValue(n.child[2])
			n.exec = func(f *frame) bltn {
				n.interp.reserveElems(typ, int(vInt(value(f)))) // tracebook
				dest(f).Set(reflect.MakeMapWithSize(typ, int(vInt(value(f)))))
				return next
			}
		}
	}
}

func reset(n *node) {
	next := getExec(n.tnext)

	switch l := len(n.child) - 1; l {
	case 1:
		typ := n.child[0].typ.frameType()
		i := n.child[0].findex
		n.exec = func(f *frame) bltn {
			f.data[i] = reflect.New(typ).Elem()
			return next
		}
	case 2:
		c0, c1 := n.child[0], n.child[1]
		i0, i1 := c0.findex, c1.findex
		t0, t1 := c0.typ.frameType(), c1.typ.frameType()
		n.exec = func(f *frame) bltn {
			f.data[i0] = reflect.New(t0).Elem()
			f.data[i1] = reflect.New(t1).Elem()
			return next
		}
	default:
		types := make([]reflect.Type, l)
		index := make([]int, l)
		for i, c := range n.child[:l] {
			index[i] = c.findex
			types[i] = c.typ.frameType()
		}
		n.exec = func(f *frame) bltn {
			for i, ind := range index {
				f.data[ind] = reflect.New(types[i]).Elem()
			}
			return next
		}
	}
}

// recv reads from a channel.
func recv(n *node) {
	value := genValue(n.child[0])
	tnext := getExec(n.tnext)
	i := n.findex
	l := n.level

	if n.interp.cancelChan {
		// Cancellable channel read
		if n.fnext != nil {
			fnext := getExec(n.fnext)
			n.exec = func(f *frame) bltn {
				// Fast: channel read doesn't block
				ch := value(f)
				if r, ok := ch.TryRecv(); ok {
					getFrame(f, l).data[i] = r
					if r.Bool() {
						return tnext
					}
					return fnext
				}
				// Slow: channel read blocks, allow cancel
				f.mutex.RLock()
				done := f.done
				f.mutex.RUnlock()

				chosen, v, _ := reflect.Select([]reflect.SelectCase{done, {Dir: reflect.SelectRecv, Chan: ch}})
				if chosen == 0 {
					return nil
				}
				if v.Bool() {
					return tnext
				}
				return fnext
			}
		} else {
			n.exec = func(f *frame) bltn {
				// Fast: channel read doesn't block
				ch := value(f)
				if r, ok := ch.TryRecv(); ok {
					getFrame(f, l).data[i] = r
					return tnext
				}
				// Slow: channel is blocked, allow cancel
				f.mutex.RLock()
				done := f.done
				f.mutex.RUnlock()

				var chosen int
				chosen, getFrame(f, l).data[i], _ = reflect.Select([]reflect.SelectCase{done, {Dir: reflect.SelectRecv, Chan: ch}})
				if chosen == 0 {
					return nil
				}
				return tnext
			}
		}
	} else {
		// Blocking channel read (less overhead)
		if n.fnext != nil {
			fnext := getExec(n.fnext)
			n.exec = func(f *frame) bltn {
				if r, _ := value(f).Recv(); r.Bool() {
					getFrame(f, l).data[i] = r
					return tnext
				}
				return fnext
			}
		} else {
			i := n.findex
			n.exec = func(f *frame) bltn {
				getFrame(f, l).data[i], _ = value(f).Recv()
				return tnext
			}
		}
	}
}

func recv2(n *node) {
	vchan := genValue(n.child[0]) // chan
	vres := assignXOut(n, 0)      // result
	vok := assignXOut(n, 1)       // status
	tnext := getExec(n.tnext)

	if n.interp.cancelChan {
		// Cancellable channel read
		n.exec = func(f *frame) bltn {
			ch, result, status := vchan(f), vres(f), vok(f)
			//  Fast: channel read doesn't block
			if v, ok := ch.TryRecv(); ok {
				result.Set(v)
				status.SetBool(true)
				return tnext
			}
			// Slow: channel is blocked, allow cancel
			f.mutex.RLock()
			done := f.done
			f.mutex.RUnlock()

			chosen, v, ok := reflect.Select([]reflect.SelectCase{done, {Dir: reflect.SelectRecv, Chan: ch}})
			if chosen == 0 {
				return nil
			}
			result.Set(v)
			status.SetBool(ok)
			return tnext
		}
	} else {
		// Blocking channel read (less overhead)
		n.exec = func(f *frame) bltn {
			v, ok := vchan(f).Recv()
			vres(f).Set(v)
			vok(f).SetBool(ok)
			return tnext
		}
	}
}

func convertLiteralValue(n *node, t reflect.Type) {
	switch {
	case n.typ.cat == nilT:
		// Create a zero value of target type.
		n.rval = reflect.New(t).Elem()
	case !(n.kind == basicLit || n.rval.IsValid()) || t == nil || t.Kind() == reflect.Interface || t == valueInterfaceType || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Interface:
		// Skip non-constant values, undefined target type or interface target type.
	case n.rval.IsValid():
		// Convert constant value to target type.
		convertConstantValue(n)
		n.rval = n.rval.Convert(t)
	default:
		// Create a zero value of target type.
		n.rval = reflect.New(t).Elem()
	}
}

func convertConstantValue(n *node) {
	if !n.rval.IsValid() {
		return
	}
	c, ok := n.rval.Interface().(constant.Value)
	if !ok {
		return
	}
	// tracebook: the value is converted to the kind of the node's type,
	// exactly (a typed float64 constant may hold an integer constant value
	// beyond int64: fhuge float64 = 1<<100), see constantToValue.
	v, err := constantToValue(c, n.typ.TypeOf())
	if err != nil {
		panic(n.cfgErrorf("%v", err))
	}
	n.rval = v
}

// Write to a channel.
func send(n *node) {
	next := getExec(n.tnext)
	c0, c1 := n.child[0], n.child[1]
	value0 := genValue(c0) // Send channel.
	value1 := genDestValue(c0.typ.val, c1)

	if !n.interp.cancelChan {
		// Send is non-cancellable, has the least overhead.
		n.exec = func(f *frame) bltn {
			value0(f).Send(value1(f))
			return next
		}
		return
	}

	// Send is cancellable, may have some overhead.
	n.exec = func(f *frame) bltn {
		ch, data := value0(f), value1(f)
		// Fast: send on channel doesn't block.
		if ok := ch.TrySend(data); ok {
			return next
		}
		// Slow: send on channel blocks, allow cancel.
		f.mutex.RLock()
		done := f.done
		f.mutex.RUnlock()

		chosen, _, _ := reflect.Select([]reflect.SelectCase{done, {Dir: reflect.SelectSend, Chan: ch, Send: data}})
		if chosen == 0 {
			return nil
		}
		return next
	}
}

func clauseChanDir(n *node) (*node, *node, *node, *node, reflect.SelectDir) {
	dir := reflect.SelectDefault
	var nod, assigned, ok, rn *node
	var stop bool

	n.Walk(func(m *node) bool {
		switch m.action {
		case aRecv:
			dir = reflect.SelectRecv
			nod = m.child[0]
			rn = m
			switch m.anc.action {
			case aAssign:
				assigned = m.anc.child[0]
			case aAssignX:
				assigned = m.anc.child[0]
				ok = m.anc.child[1]
			}
			stop = true
		case aSend:
			dir = reflect.SelectSend
			nod = m.child[0]
			assigned = m.child[1]
			stop = true
		}
		return !stop
	}, nil)
	return nod, assigned, ok, rn, dir
}

// recvSelected2 assigns the value and status received by a select statement
// (stored in the frame by _select) in "case v, ok = <-c:".
func recvSelected2(n *node) {
	vres := assignXOut(n, 0)
	vok := assignXOut(n, 1)
	blankRes, blankOK := assignXBlank(n, 0), assignXBlank(n, 1)
	i, iok := n.findex, int(n.val.(selectOK))
	next := getExec(n.tnext)
	n.exec = func(f *frame) bltn {
		if !blankRes {
			vres(f).Set(f.data[i])
		}
		if !blankOK {
			vok(f).SetBool(f.data[iok].Bool())
		}
		return next
	}
}

func _select(n *node) {
	nbClause := len(n.child)
	chans := make([]*node, nbClause)
	assigned := make([]*node, nbClause)
	ok := make([]*node, nbClause)
	clause := make([]bltn, nbClause)
	chanValues := make([]func(*frame) reflect.Value, nbClause)
	assignedValues := make([]func(*frame) reflect.Value, nbClause)
	okValues := make([]func(*frame) reflect.Value, nbClause)
	// tracebook: the frame slots of the value and status of a receive whose
	// clause assigns them (see selectRecvAssign), or -1.
	recvSlot := make([]int, nbClause)
	okSlot := make([]int, nbClause)
	cases0 := make([]reflect.SelectCase, nbClause+1)
	next := getExec(n.tnext)
	fresh := make([]int, nbClause)   // tracebook: slot renewed for each execution of the clause, or -1
	freshOk := make([]int, nbClause) // likewise for the ok variable
	for i := range fresh {
		fresh[i], freshOk[i] = -1, -1
	}

	for i := 0; i < nbClause; i++ {
		cl := n.child[i]
		recvSlot[i], okSlot[i] = -1, -1
		if cl.kind == commClauseDefault {
			cases0[i].Dir = reflect.SelectDefault
			if len(cl.child) == 0 {
				clause[i] = func(*frame) bltn { return next }
			} else {
				clause[i] = getExec(cl.child[0].start)
			}
			continue
		}
		// The comm clause is in send or recv direction.
		c0 := cl.child[0]
		if (c0.action == aAssign || c0.action == aAssignX) && c0.lastChild().action == aRecv {
			rn := c0.lastChild()
			chanValues[i] = genValue(rn.child[0])
			cases0[i].Dir = reflect.SelectRecv
			recvSlot[i] = rn.findex
			if k, ok := rn.val.(selectOK); ok {
				okSlot[i] = int(k)
			}
			// tracebook_loopvar.go: a variable the clause defines gets
			// fresh storage for each execution when a closure keeps it
			if c0.kind == defineStmt || c0.kind == defineXStmt {
				if d := c0.child[0]; needsFresh(clauseVarSym(d)) {
					fresh[i] = d.findex
				}
				if len(c0.child) > 2 {
					if d := c0.child[1]; needsFresh(clauseVarSym(d)) {
						freshOk[i] = d.findex
					}
				}
			}
			clause[i] = getExec(cl.start)
			continue
		}
		switch {
		case len(cl.child) > 1:
			// The comm clause contains a channel operation and a clause body.
			clause[i] = getExec(cl.child[1].start)
			chans[i], assigned[i], ok[i], _, cases0[i].Dir = clauseChanDir(c0)
			chanValues[i] = genValue(chans[i])
			if assigned[i] != nil {
				assignedValues[i] = genValue(assigned[i])
				if needsFresh(clauseVarSym(assigned[i])) {
					fresh[i] = assigned[i].findex // tracebook_loopvar.go
				}
			}
			if ok[i] != nil {
				okValues[i] = genValue(ok[i])
				if needsFresh(clauseVarSym(ok[i])) {
					freshOk[i] = ok[i].findex // tracebook_loopvar.go
				}
			}
		case c0.kind == exprStmt && len(c0.child) == 1 && c0.child[0].action == aRecv:
			// The comm clause has an empty body clause after channel receive.
			chanValues[i] = genValue(c0.child[0].child[0])
			cases0[i].Dir = reflect.SelectRecv
			clause[i] = func(*frame) bltn { return next }
		case c0.kind == sendStmt:
			// The comm clause as an empty body clause after channel send.
			chanValues[i] = genValue(c0.child[0])
			cases0[i].Dir = reflect.SelectSend
			assignedValues[i] = genValue(c0.child[1])
			clause[i] = func(*frame) bltn { return next }
		}
	}

	n.exec = func(f *frame) bltn {
		// tracebook: cases of this execution; they were shared by all
		// goroutines running this select statement (a data race).
		cases := make([]reflect.SelectCase, len(cases0))
		copy(cases, cases0)
		f.mutex.RLock()
		cases[nbClause] = f.done
		f.mutex.RUnlock()

		for i := range cases[:nbClause] {
			switch cases[i].Dir {
			case reflect.SelectRecv:
				cases[i].Chan = chanValues[i](f)
			case reflect.SelectSend:
				cases[i].Chan = chanValues[i](f)
				cases[i].Send = assignedValues[i](f)
			case reflect.SelectDefault:
				// Keep zero values for comm clause
			}
		}
		j, v, s := reflect.Select(cases)
		if j == nbClause {
			return nil
		}
		if k := recvSlot[j]; k >= 0 {
			if fresh[j] >= 0 {
				freshSlot(f, fresh[j])
			}
			if freshOk[j] >= 0 {
				freshSlot(f, freshOk[j])
			}
			f.data[k] = v
			if ok := okSlot[j]; ok >= 0 {
				f.data[ok] = reflect.ValueOf(s)
			}
			return clause[j]
		}
		if cases[j].Dir == reflect.SelectRecv && assignedValues[j] != nil {
			if fresh[j] >= 0 {
				freshSlot(f, fresh[j])
			}
			assignedValues[j](f).Set(v)
			if freshOk[j] >= 0 {
				freshSlot(f, freshOk[j])
			}
			if ok[j] != nil {
				okValues[j](f).SetBool(s)
			}
		}
		return clause[j]
	}
}

// boundsError is the runtime error of an index or slice expression out of
// range, worded as Go's (runtime/error.go); recover() sees a runtime.Error.
type boundsError struct{ msg string }

func (e boundsError) Error() string { return "runtime error: " + e.msg }

// RuntimeError marks boundsError as a runtime.Error.
func (boundsError) RuntimeError() {}

// indexBounds returns a.Index(i), or panics as Go does when i is out of range.
func indexBounds(a reflect.Value, i int) reflect.Value {
	if n := a.Len(); i < 0 || i >= n {
		panic(indexError(i, n))
	}
	return a.Index(i)
}

// indexError is Go's runtime error for index i out of range of length n.
func indexError(i, n int) boundsError {
	if i < 0 {
		return boundsError{fmt.Sprintf("index out of range [%d]", i)}
	}
	return boundsError{fmt.Sprintf("index out of range [%d] with length %d", i, n)}
}

// capOf returns the bound of a slice expression's high index on a: the
// capacity of a slice, the length of a string or an array, with its word.
func capOf(a reflect.Value) (int, string) {
	if a.Kind() == reflect.Slice {
		return a.Cap(), "capacity"
	}
	return a.Len(), "length"
}

// sliceBounds returns a[lo:hi] (hi < 0: a[lo:]), or panics as Go does when the
// bounds are out of range.
func sliceBounds(a reflect.Value, lo, hi int) reflect.Value {
	if hi < 0 {
		if n := a.Len(); lo < 0 || lo > n {
			panic(boundsError{fmt.Sprintf("slice bounds out of range [%d:%d]", lo, n)})
		}
		return a.Slice(lo, a.Len())
	}
	if c, word := capOf(a); hi > c {
		panic(boundsError{fmt.Sprintf("slice bounds out of range [:%d] with %s %d", hi, word, c)})
	}
	if lo < 0 || lo > hi {
		panic(boundsError{fmt.Sprintf("slice bounds out of range [%d:%d]", lo, hi)})
	}
	return a.Slice(lo, hi)
}

// slice3Bounds returns a[lo:hi:max], or panics as Go does when the bounds are
// out of range.
func slice3Bounds(a reflect.Value, lo, hi, max int) reflect.Value {
	if c, word := capOf(a); max > c {
		panic(boundsError{fmt.Sprintf("slice bounds out of range [::%d] with %s %d", max, word, c)})
	}
	if hi < 0 || hi > max {
		panic(boundsError{fmt.Sprintf("slice bounds out of range [:%d:%d]", hi, max)})
	}
	if lo < 0 || lo > hi {
		panic(boundsError{fmt.Sprintf("slice bounds out of range [%d:%d:]", lo, hi)})
	}
	return a.Slice3(lo, hi, max)
}

// slice expression: array[low:high:max].
func slice(n *node) {
	i := n.findex
	l := n.level
	next := getExec(n.tnext)
	value0 := genValueArray(n.child[0]) // array
	value1 := genValue(n.child[1])      // low (if 2 or 3 args) or high (if 1 arg)

	switch len(n.child) {
	case 2:
		n.exec = func(f *frame) bltn {
			a := value0(f)
			getFrame(f, l).data[i] = sliceBounds(a, int(vInt(value1(f))), -1)
			return next
		}
	case 3:
		value2 := genValue(n.child[2]) // max

		n.exec = func(f *frame) bltn {
			a := value0(f)
			getFrame(f, l).data[i] = sliceBounds(a, int(vInt(value1(f))), int(vInt(value2(f))))
			return next
		}
	case 4:
		value2 := genValue(n.child[2])
		value3 := genValue(n.child[3])

		n.exec = func(f *frame) bltn {
			a := value0(f)
			getFrame(f, l).data[i] = slice3Bounds(a, int(vInt(value1(f))), int(vInt(value2(f))), int(vInt(value3(f))))
			return next
		}
	}
}

// slice expression, no low value: array[:high:max].
func slice0(n *node) {
	i := n.findex
	l := n.level
	next := getExec(n.tnext)
	value0 := genValueArray(n.child[0])

	switch len(n.child) {
	case 1:
		n.exec = func(f *frame) bltn {
			a := value0(f)
			getFrame(f, l).data[i] = a.Slice(0, a.Len())
			return next
		}
	case 2:
		value1 := genValue(n.child[1])
		n.exec = func(f *frame) bltn {
			a := value0(f)
			getFrame(f, l).data[i] = sliceBounds(a, 0, int(vInt(value1(f))))
			return next
		}
	case 3:
		value1 := genValue(n.child[1])
		value2 := genValue(n.child[2])
		n.exec = func(f *frame) bltn {
			a := value0(f)
			getFrame(f, l).data[i] = slice3Bounds(a, 0, int(vInt(value1(f))), int(vInt(value2(f))))
			return next
		}
	}
}

func isNilChild(child int) func(n *node) {
	return func(n *node) {
		var value func(*frame) reflect.Value
		child := n.child[child]
		value = genValue(child)
		typ := n.typ.concrete().TypeOf()
		isInterface := n.typ.TypeOf().Kind() == reflect.Interface
		tnext := getExec(n.tnext)
		dest := genValue(n)
		if n.fnext == nil {
			if !isInterfaceSrc(child.typ) {
				if isInterface {
					n.exec = func(f *frame) bltn {
						dest(f).Set(reflect.ValueOf(value(f).IsNil()).Convert(typ))
						return tnext
					}
					return
				}
				n.exec = func(f *frame) bltn {
					dest(f).SetBool(value(f).IsNil())
					return tnext
				}
				return
			}
			if isInterface {
				n.exec = func(f *frame) bltn {
					v := value(f)
					var r bool
					if vi, ok := v.Interface().(valueInterface); ok {
						r = (vi == valueInterface{} || vi.node.kind == basicLit && vi.node.typ.cat == nilT)
					} else {
						r = v.IsNil()
					}
					dest(f).Set(reflect.ValueOf(r).Convert(typ))
					return tnext
				}
				return
			}
			n.exec = func(f *frame) bltn {
				v := value(f)
				var r bool
				if vi, ok := v.Interface().(valueInterface); ok {
					r = (vi == valueInterface{} || vi.node.kind == basicLit && vi.node.typ.cat == nilT)
				} else {
					r = v.IsNil()
				}
				dest(f).SetBool(r)
				return tnext
			}
			return
		}

		fnext := getExec(n.fnext)

		if !isInterfaceSrc(child.typ) {
			n.exec = func(f *frame) bltn {
				if value(f).IsNil() {
					dest(f).SetBool(true)
					return tnext
				}
				dest(f).SetBool(false)
				return fnext
			}
			return
		}

		n.exec = func(f *frame) bltn {
			v := value(f)
			if vi, ok := v.Interface().(valueInterface); ok {
				if (vi == valueInterface{} || vi.node.kind == basicLit && vi.node.typ.cat == nilT) {
					dest(f).SetBool(true)
					return tnext
				}
				dest(f).SetBool(false)
				return fnext
			}
			if v.IsNil() {
				dest(f).SetBool(true)
				return tnext
			}
			dest(f).SetBool(false)
			return fnext
		}
	}
}

func isNotNil(n *node) {
	var value func(*frame) reflect.Value
	c0 := n.child[0]
	value = genValue(c0)
	typ := n.typ.concrete().TypeOf()
	isInterface := n.typ.TypeOf().Kind() == reflect.Interface
	tnext := getExec(n.tnext)
	dest := genValue(n)

	if n.fnext == nil {
		if isInterfaceSrc(c0.typ) && c0.typ.TypeOf() != valueInterfaceType {
			if isInterface {
				n.exec = func(f *frame) bltn {
					dest(f).Set(reflect.ValueOf(!value(f).IsNil()).Convert(typ))
					return tnext
				}
				return
			}
			n.exec = func(f *frame) bltn {
				dest(f).SetBool(!value(f).IsNil())
				return tnext
			}
			return
		}

		if isInterface {
			n.exec = func(f *frame) bltn {
				v := value(f)
				var r bool
				if vi, ok := v.Interface().(valueInterface); ok {
					r = (vi == valueInterface{} || vi.node.kind == basicLit && vi.node.typ.cat == nilT)
				} else {
					r = v.IsNil()
				}
				dest(f).Set(reflect.ValueOf(!r).Convert(typ))
				return tnext
			}
			return
		}
		n.exec = func(f *frame) bltn {
			v := value(f)
			var r bool
			if vi, ok := v.Interface().(valueInterface); ok {
				r = (vi == valueInterface{} || vi.node.kind == basicLit && vi.node.typ.cat == nilT)
			} else {
				r = v.IsNil()
			}
			dest(f).SetBool(!r)
			return tnext
		}
		return
	}

	fnext := getExec(n.fnext)

	if isInterfaceSrc(c0.typ) && c0.typ.TypeOf() != valueInterfaceType {
		n.exec = func(f *frame) bltn {
			if value(f).IsNil() {
				dest(f).SetBool(false)
				return fnext
			}
			dest(f).SetBool(true)
			return tnext
		}
		return
	}

	n.exec = func(f *frame) bltn {
		v := value(f)
		if vi, ok := v.Interface().(valueInterface); ok {
			if (vi == valueInterface{} || vi.node.kind == basicLit && vi.node.typ.cat == nilT) {
				dest(f).SetBool(false)
				return fnext
			}
			dest(f).SetBool(true)
			return tnext
		}
		if v.IsNil() {
			dest(f).SetBool(false)
			return fnext
		}
		dest(f).SetBool(true)
		return tnext
	}
}

func complexConst(n *node) {
	if v0, v1 := n.child[1].rval, n.child[2].rval; v0.IsValid() && v1.IsValid() {
		if c0, c1 := vConstantValue(v0), vConstantValue(v1); c0 != nil && c1 != nil {
			// tracebook: exact, as an untyped complex constant.
			n.rval = reflect.ValueOf(complexOfConsts(c0, c1))
			n.gen = nop
			return
		}
		n.rval = reflect.ValueOf(complex(vFloat(v0), vFloat(v1)))
		n.gen = nop
	}
}

func imagConst(n *node) {
	if v := n.child[1].rval; v.IsValid() {
		n.rval = partConst(n, v, constant.Imag, func(c complex128) float64 { return imag(c) })
		n.gen = nop
	}
}

func realConst(n *node) {
	if v := n.child[1].rval; v.IsValid() {
		n.rval = partConst(n, v, constant.Real, func(c complex128) float64 { return real(c) })
		n.gen = nop
	}
}

// partConst is the real or imaginary part of constant v: exact for an
// untyped constant (tracebook: v.Complex() panicked on a constant.Value),
// of the node's float type otherwise.
func partConst(n *node, v reflect.Value, cpart func(constant.Value) constant.Value, part func(complex128) float64) reflect.Value {
	if c := vConstantValue(v); c != nil {
		return reflect.ValueOf(constant.ToFloat(cpart(constant.ToComplex(c))))
	}
	r := reflect.ValueOf(part(vComplex(v)))
	if n.typ != nil {
		if t := n.typ.rtype; t != nil && (t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64) {
			r = r.Convert(t)
		}
	}
	return r
}

// assignXTemps are the temporary destinations of a two-value expression
// (m[k], x.(T), <-c) in an assignment "v, ok = ...": the expression stores
// its value and status there, then assignX2 assigns them to the left-hand side
// (which may be "_", a map entry, an element, a field or an interface), the
// value being the zero value when the status is false.
type assignXTemps struct{ v, ok *node }

// assignXOut returns the k-th destination of the two-value expression n.
func assignXOut(n *node, k int) func(*frame) reflect.Value {
	if t, ok := n.anc.val.(*assignXTemps); ok && n.anc.kind == assignXStmt {
		if k == 0 {
			return genValue(t.v)
		}
		return genValue(t.ok)
	}
	return genValue(n.anc.child[k])
}

// assignXBlank tells if the k-th destination of n is not assigned.
func assignXBlank(n *node, k int) bool {
	if _, ok := n.anc.val.(*assignXTemps); ok && n.anc.kind == assignXStmt {
		return false
	}
	return n.anc.child[k].ident == "_"
}

// genAssignTo returns a function assigning the value of src to the
// destination d: nil for "_", a map entry, or any addressable destination.
func genAssignTo(d, src *node) func(*frame) {
	if d.ident == "_" {
		return nil
	}
	value := genDestValue(d.typ, src)
	if isMapEntry(d) {
		m := genValue(d.child[0])
		var key func(*frame) reflect.Value
		if isInterfaceSrc(d.child[1].typ) {
			key = genValueInterface(d.child[1])
		} else {
			key = genValue(d.child[1])
		}
		key = genMapKey(d.child[0].typ, d.child[1], key) // tracebook
		return func(f *frame) { m(f).SetMapIndex(key(f), value(f)) }
	}
	dest := genValue(d)
	return func(f *frame) { dest(f).Set(value(f)) }
}

// assignX2 assigns the value and status of a two-value expression from their
// temporary destinations (see assignXTemps), then resets the value's.
func assignX2(n *node) {
	t := n.val.(*assignXTemps)
	setV := genAssignTo(n.child[0], t.v)
	setOK := genAssignTo(n.child[1], t.ok)
	i, typ := t.v.findex, t.v.typ.frameType()
	next := getExec(n.tnext)
	n.exec = func(f *frame) bltn {
		if setV != nil {
			setV(f)
		}
		if setOK != nil {
			setOK(f)
		}
		f.data[i] = reflect.New(typ).Elem()
		return next
	}
}

// genSetMapEntry returns a function setting the map entry d (an index
// expression on a map) to a value.
func genSetMapEntry(d *node) func(*frame, reflect.Value) {
	m := genValue(d.child[0])
	var key func(*frame) reflect.Value
	if isInterfaceSrc(d.child[1].typ) {
		key = genValueInterface(d.child[1])
	} else {
		key = genValue(d.child[1])
	}
	key = genMapKey(d.child[0].typ, d.child[1], key) // tracebook
	vt := d.typ.frameType()
	return func(f *frame, v reflect.Value) {
		if v.Type() != vt && v.Type().ConvertibleTo(vt) && vt.Kind() != reflect.Interface {
			v = v.Convert(vt)
		}
		m(f).SetMapIndex(key(f), v)
	}
}
