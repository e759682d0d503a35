package interp

// Range over integers (Go 1.22) and over functions (Go 1.23), added by
// tracebook (see PATCHES.md, "range over func").
//
// A range-over-func loop runs its body as the yield callback: the body is
// executed in the frame of the enclosing function by a nested exec loop, and
// ends on one of three sentinels. The rangeStmt node itself is the continue
// sentinel (yield returns true); each jump out of the body (break, labelled
// break or continue to an outer loop) ends on an exit sentinel, after which
// yield returns false and, once the iterator has returned, execution resumes
// at the jump's original target; a body that stops on anything else has
// executed a return statement, so the loop statement stops its function too.

import (
	"fmt"
	"reflect"
)

// rangeFuncInfo is stored in the val of a range-over-func rangeStmt node.
type rangeFuncInfo struct {
	state     int     // frame index of the loop state, one of the codes below
	exits     []*node // original targets of jumps out of the loop body
	sentinels []*node // exit sentinels, one per exit
}

// Loop state codes; code rangeExit+j means the body jumped to exits[j].
const (
	rangeRunning  = 0 // body running, or stopped by a return statement
	rangeContinue = 1 // body completed, or continued: yield returns true
	rangeExit     = 2
)

// errRangeDone is the panic of an iterator which calls yield after the loop
// ended, as in Go.
var errRangeDone = fmt.Errorf("range function continued iteration after function for loop body returned false")

// rangeFuncYield returns the parameter types of the yield function of a
// range-over-func iterator type, and whether t is such a type:
// func(yield func(...) bool) with at most 2 yield parameters.
func rangeFuncYield(t *itype) ([]*itype, bool) {
	if t == nil {
		return nil, false
	}
	t = t.underlying()
	if (t.cat != funcT && (t.cat != valueT || t.rtype.Kind() != reflect.Func)) || t.numIn() != 1 || t.numOut() != 0 {
		return nil, false
	}
	y := t.in(0).underlying()
	if (y.cat != funcT && (y.cat != valueT || y.rtype.Kind() != reflect.Func)) || y.numIn() > 2 || y.numOut() != 1 || y.isVariadic() {
		return nil, false
	}
	if r := y.out(0); r.TypeOf() == nil || r.TypeOf().Kind() != reflect.Bool {
		return nil, false
	}
	args := make([]*itype, y.numIn())
	for i := range args {
		args[i] = y.in(i)
	}
	return args, true
}

// rangeFuncOrInt declares the iteration variables of range statement n if it
// ranges over an integer or a function, at the pre-order of its body. It
// reports false if n ranges over something else.
func (s *scope) rangeFuncOrInt(n *node) (bool, error) {
	var k, v, o *node
	if len(n.child) == 4 {
		k, v, o = n.child[0], n.child[1], n.child[2]
	} else {
		k, o = n.child[0], n.child[1]
	}
	if o.typ == nil {
		return false, nil
	}
	declare := func(c *node, t *itype) {
		index := s.add(t)
		s.sym[c.ident] = &symbol{index: index, kind: varSym, typ: t}
		c.loopVars = []*symbol{s.sym[c.ident]} // tracebook_loopvar.go
		c.typ = t
		c.findex = index
	}

	if isInt(o.typ.TypeOf()) && !isString(o.typ.TypeOf()) {
		if v != nil {
			return true, v.cfgErrorf("range over %s permits only one iteration variable", o.typ.id())
		}
		t := o.typ
		if t.untyped {
			// the default type of the constant ("range 'a'" counts runes)
			if t = newExprType(s, o.typ); t.untyped || !isInt(t.TypeOf()) {
				t = s.builtinType("int")
			}
			// tracebook: "for i = range 10" (rewritten by
			// rangeAssignToDefine) counts in the type of i.
			if lt := rangeAssignTargetType(s, n); lt != nil && isInt(lt.TypeOf()) {
				t = lt
			}
		}
		s.add(s.builtinType("int64")) // limit
		s.add(s.builtinType("int64")) // hidden counter
		declare(k, t)
		n.gen = rangeInt
		return true, nil
	}

	args, ok := rangeFuncYield(o.typ)
	if !ok {
		return false, nil
	}
	nvar := 1
	if v != nil {
		nvar = 2
	}
	if nvar > len(args) && (v != nil || k.ident != "_" || k.pos != n.pos) {
		return true, k.cfgErrorf("range over %s permits only %d iteration variables", o.typ.id(), len(args))
	}
	info := &rangeFuncInfo{state: s.add(s.builtinType("int"))}
	if len(args) > 0 {
		declare(k, args[0])
	} else {
		declare(k, s.builtinType("int"))
	}
	if v != nil {
		declare(v, args[1])
	}
	n.val = info
	return true, nil
}

// wireRangeFunc builds the control flow of range-over-func statement n at
// its post-order: the iterator is called by the key node, the body runs
// inside yield, and jumps out of the body are routed to exit sentinels.
func wireRangeFunc(n *node, info *rangeFuncInfo) error {
	k, o, body := n.child[0], n.child[len(n.child)-2], n.lastChild()
	n.start = o.start
	o.tnext = k
	k.tnext = body.start // so that setExec reaches the body
	k.fnext = n.anc      // loop exit
	body.tnext = n       // continue sentinel
	k.gen = rangeFuncCall
	n.gen = rangeFuncContinue

	inBody := func(t *node) bool { return t == body || t.hasAnc(body) }
	exit := func(t *node) *node {
		for j, e := range info.exits {
			if e == t {
				return info.sentinels[j]
			}
		}
		code := rangeExit + len(info.exits)
		state := info.state
		s := &node{anc: n, interp: n.interp, pos: n.pos, kind: breakStmt, action: aNop, scope: n.scope}
		s.index = n.index
		s.start = s
		s.gen = func(s *node) {
			s.exec = func(f *frame) bltn {
				f.data[state].SetInt(int64(code))
				return nil
			}
		}
		info.exits = append(info.exits, t)
		info.sentinels = append(info.sentinels, s)
		return s
	}

	var err error
	var walk func(m *node)
	walk = func(m *node) {
		if err != nil {
			return
		}
		switch m.kind {
		case funcLit:
			return
		case breakStmt, continueStmt:
			if t := m.tnext; t != nil && t != n && !inBody(t) {
				m.tnext = exit(t)
			}
			return
		case gotoStmt:
			if m.sym == nil || m.sym.node == nil || !inBody(m.sym.node) {
				err = m.cfgErrorf("goto out of a range-over-func loop body is not supported by tracebook's interpreter")
			}
			return
		case rangeStmt:
			if inner, ok := m.val.(*rangeFuncInfo); ok {
				// Jumps out of an inner range-over-func loop which also leave
				// this body go through this loop's exits.
				for j, t := range inner.exits {
					if t != n && !inBody(t) {
						inner.exits[j] = exit(t)
					}
				}
				return
			}
		}
		for _, c := range m.child {
			walk(c)
		}
	}
	walk(body)
	return err
}

// rangeFuncContinue generates the continue sentinel of a range-over-func loop.
func rangeFuncContinue(n *node) {
	state := n.val.(*rangeFuncInfo).state
	n.exec = func(f *frame) bltn {
		f.data[state].SetInt(rangeContinue)
		return nil
	}
}

// rangeFuncCall generates the exec of the key node of a range-over-func loop,
// which calls the iterator with the loop body as yield.
func rangeFuncCall(k *node) {
	n := k.anc
	info := n.val.(*rangeFuncInfo)
	o, body := n.child[len(n.child)-2], n.lastChild()
	iterator := genValueAsFunctionWrapper(o)
	yieldType := o.typ.TypeOf().In(0)
	bodyStart := getExec(body.start)
	fnext := getExec(n.fnext)
	state := info.state

	// Frame indexes of the iteration variables set from the yield arguments,
	// and whether each argument must be converted to the frame type.
	var vars []int
	var conv []reflect.Type
	var renew []bool // tracebook_loopvar.go
	for i, c := range n.child[:len(n.child)-2] {
		if i >= yieldType.NumIn() {
			break
		}
		vars = append(vars, c.findex)
		renew = append(renew, needsFresh(loopVarSym(c)))
		var t reflect.Type
		if ft := c.typ.frameType(); !yieldType.In(i).AssignableTo(ft) {
			t = ft
		}
		conv = append(conv, t)
	}
	yes := []reflect.Value{reflect.ValueOf(true).Convert(yieldType.Out(0))}
	no := []reflect.Value{reflect.ValueOf(false).Convert(yieldType.Out(0))}

	k.exec = func(f *frame) bltn {
		iter := iterator(f)
		st := f.data[state]
		done := false
		yield := reflect.MakeFunc(yieldType, func(in []reflect.Value) []reflect.Value {
			if done {
				panic(errRangeDone)
			}
			for i, index := range vars {
				if renew[i] {
					freshSlot(f, index)
				}
				if conv[i] != nil {
					f.data[index].Set(in[i].Convert(conv[i]))
				} else {
					f.data[index].Set(in[i])
				}
			}
			st.SetInt(rangeRunning)
			for exec := bodyStart; exec != nil && f.runid() == k.interp.runid(); {
				exec = exec(f)
			}
			if st.Int() == rangeContinue {
				return yes
			}
			done = true
			return no
		})
		st.SetInt(rangeContinue)
		iter.Call([]reflect.Value{yield})
		done = true
		switch c := st.Int(); {
		case c == rangeContinue:
			return fnext
		case c >= rangeExit:
			return getExec(info.exits[c-rangeExit])
		}
		return nil // the body executed a return statement
	}
}

// rangeInt generates the exec of a range over an integer.
func rangeInt(n *node) {
	k := n.child[0]
	index0 := k.findex    // iteration variable
	limit := index0 - 2   // int64 limit
	counter := index0 - 1 // int64 hidden counter
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)
	value := genValue(n.child[1])
	unsigned := isUint(k.typ.TypeOf())
	renew := needsFresh(loopVarSym(k)) // tracebook_loopvar.go
	n.exec = func(f *frame) bltn {
		c := f.data[counter]
		i := c.Int() + 1
		if i >= f.data[limit].Int() {
			return fnext
		}
		c.SetInt(i)
		if renew {
			freshSlot(f, index0)
		}
		if unsigned {
			f.data[index0].SetUint(uint64(i))
		} else {
			f.data[index0].SetInt(i)
		}
		return tnext
	}
	next := n.exec
	k.exec = func(f *frame) bltn {
		v := value(f)
		if isUint(v.Type()) {
			f.data[limit].SetInt(int64(v.Uint()))
		} else {
			f.data[limit].SetInt(v.Int())
		}
		f.data[counter].SetInt(-1)
		return next
	}
}

// rangeAssignTargetType returns the type of the operand the key of range
// statement n is assigned to, if n was "for k = range x" (see
// rangeAssignToDefine in ast.go), or nil.
func rangeAssignTargetType(s *scope, n *node) *itype {
	k, body := n.child[0], n.lastChild()
	if k.ident != rangeKeyName || len(body.child) == 0 {
		return nil
	}
	as := body.child[0]
	if as.kind != assignStmt || len(as.child) < 2 || as.child[len(as.child)/2].ident != rangeKeyName {
		return nil
	}
	t, err := nodeType(n.interp, s, as.child[0])
	if err != nil {
		return nil
	}
	return t
}
