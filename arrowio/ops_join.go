package arrowio

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Join returns the rows of t and right whose key columns on are equal, t's columns then
// right's other columns (pandas merge(how="inner"), SQL INNER JOIN). Rows come in t's order,
// each t row's matches in right's order. Null keys match nothing. Keys must have the same kind
// on both sides (integers of any width, floats, bools, strings plain or dictionary-encoded);
// other columns present on both sides get pandas' suffixes "_x" (t's) and "_y" (right's).
func (t *Table) Join(right *Table, on ...string) *Table { return t.join("Join", right, on, false) }

// LeftJoin is [Table.Join] that also keeps the rows of t without a match, with nulls in right's
// columns (pandas merge(how="left"), SQL LEFT JOIN).
func (t *Table) LeftJoin(right *Table, on ...string) *Table {
	return t.join("LeftJoin", right, on, true)
}

func (t *Table) join(op string, right *Table, on []string, left bool) *Table {
	if right == nil {
		opFail(op, "", "the right table is nil")
	}
	if len(on) == 0 {
		opFail(op, "", "no key column given")
	}
	lk, rk := make([]arrow.Array, len(on)), make([]arrow.Array, len(on))
	for i, k := range on {
		lk[i], rk[i] = t.column(op, k), right.column(op, k)
		a, b := kindOf(lk[i].DataType()), kindOf(rk[i].DataType())
		switch {
		case a == kNone:
			opFail(op, k, "has type %s, which cannot be a join key", lk[i].DataType())
		case a != b:
			opFail(op, k, "is %s on the left but %s on the right: convert one first (WithColumn)", lk[i].DataType(), rk[i].DataType())
		}
	}
	nl, nr := t.checkRows(op), right.checkRows(op)
	reserve(op, 24*int64(nl+nr))
	j := startOp(op, int64(nl+nr)*int64(1+len(on)))
	defer j.done()

	// Shared codes of the key tuples: right's rows define them, t's rows look them up. A row
	// with a null key, or (on the left) a key that right lacks, matches nothing: lnull, rnull.
	rcode, lcode := make([]uint64, nr), make([]uint64, nl)
	rnull, lnull := make([]bool, nr), make([]bool, nl)
	tuples := map[[2]uint64]uint64{}
	for i := range on {
		enc := &keyEncoder{strs: map[string]uint64{}}
		rc := enc.codes(j, rk[i], true, rnull)
		lc := enc.codes(j, lk[i], false, lnull)
		if i == 0 {
			rcode, lcode = rc, lc
			continue
		}
		for r, c := range rc {
			j.tick(r)
			if rnull[r] {
				continue
			}
			k := [2]uint64{rcode[r], c}
			id, ok := tuples[k]
			if !ok {
				id = uint64(len(tuples))
				tuples[k] = id
			}
			rcode[r] = id
		}
		for r, c := range lc {
			j.tick(r)
			if !lnull[r] {
				id, ok := tuples[[2]uint64{lcode[r], c}]
				lcode[r], lnull[r] = id, !ok
			}
		}
		clear(tuples)
	}

	// Build on right: chains of rows per code, in right's order.
	head := make(map[uint64]int32, nr)
	next := make([]int32, nr)
	for r := nr - 1; r >= 0; r-- {
		j.tick(r)
		if rnull[r] {
			continue
		}
		h, ok := head[rcode[r]]
		if !ok {
			h = -1
		}
		next[r] = h
		head[rcode[r]] = int32(r)
	}
	var li, ri []int32
	for r := 0; r < nl; r++ {
		j.tick(r)
		m := int32(-1)
		if !lnull[r] {
			if h, ok := head[lcode[r]]; ok {
				m = h
			}
		}
		if m < 0 {
			if left {
				li, ri = append(li, int32(r)), append(ri, -1)
			}
			continue
		}
		for ; m >= 0; m = next[m] {
			li, ri = append(li, int32(r)), append(ri, m)
		}
	}
	if len(li) > math.MaxInt32 {
		opFail(op, "", "%d result rows: table operations handle up to %d", len(li), math.MaxInt32)
	}
	reserve(op, (rowBytes(t)+rowBytes(right))*int64(len(li)))

	var fields []arrow.Field
	var cols []arrow.Array
	rnames := right.ColumnNames()
	for c, f := range t.Schema().Fields() {
		if !slices.Contains(on, f.Name) && slices.Contains(rnames, f.Name) {
			f.Name += "_x"
		}
		fields = append(fields, f)
		cols = append(cols, gather(j, t.record().Column(c), li))
	}
	lnames := t.ColumnNames()
	for c, f := range right.Schema().Fields() {
		if slices.Contains(on, f.Name) {
			continue
		}
		if slices.Contains(lnames, f.Name) {
			f.Name += "_y"
		}
		fields = append(fields, f)
		cols = append(cols, gather(j, right.record().Column(c), ri))
	}
	for _, c := range cols {
		defer c.Release()
	}
	for i, f := range fields {
		for _, g := range fields[:i] {
			if f.Name == g.Name {
				opFail(op, f.Name, "two result columns have this name after the _x/_y suffixes: rename one first")
			}
		}
	}
	return t.withColumns(fields, cols, len(li))
}

// keyEncoder codes key values so that equal values on both sides of a join get equal codes:
// integers and floats by value, strings through a shared map.
type keyEncoder struct {
	strs map[string]uint64
}

// codes returns the code of every row of a and marks in miss the rows that cannot match: null
// rows, and strings not seen before unless add is set (which adds them).
func (e *keyEncoder) codes(j *opJob, a arrow.Array, add bool, miss []bool) []uint64 {
	n := a.Len()
	out := make([]uint64, n)
	for r := range out {
		if a.IsNull(r) {
			miss[r] = true
		}
	}
	str := func(s string) (uint64, bool) {
		c, ok := e.strs[s]
		if !ok && add {
			c, ok = uint64(len(e.strs)), true
			e.strs[s] = c
		}
		return c, ok
	}
	switch kindOf(a.DataType()) {
	case kInt:
		v := (&evalCtx{}).load(a, 0, n)
		for r, x := range v.i {
			out[r] = uint64(x)
		}
	case kFloat:
		v := (&evalCtx{}).load(a, 0, n)
		for r, x := range v.f {
			out[r] = floatKey(x)
		}
	case kBool:
		b := a.(*array.Boolean)
		for r := range out {
			if b.Value(r) {
				out[r] = 1
			}
		}
	default:
		if d, ok := a.(*array.Dictionary); ok {
			// One lookup per dictionary entry, not per row.
			dict := (&evalCtx{}).stringsOf(d.Dictionary())
			dc, dok := make([]uint64, len(dict)), make([]bool, len(dict))
			for k, s := range dict {
				dc[k], dok[k] = str(s)
			}
			for r := range out {
				if !miss[r] {
					k := d.GetValueIndex(r)
					out[r], miss[r] = dc[k], !dok[k]
				}
			}
			break
		}
		for r := range out {
			j.tick(r)
			if !miss[r] {
				var ok bool
				out[r], ok = str(stringAt(a, r))
				miss[r] = !ok
			}
		}
	}
	return out
}
