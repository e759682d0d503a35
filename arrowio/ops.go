package arrowio

import (
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// column returns the named column, panicking with a TableError for op that lists the columns
// there are.
func (t *Table) column(op, name string) arrow.Array {
	idx := t.Schema().FieldIndices(name)
	if len(idx) == 0 {
		opFail(op, name, "no such column (the table has %s)", quoteList(t.ColumnNames()))
	}
	return t.record().Column(idx[0])
}

// field returns the named field (the column must exist).
func (t *Table) field(name string) arrow.Field {
	return t.Schema().Field(t.Schema().FieldIndices(name)[0])
}

// unit returns the unit of a column (see [Column.WithUnit]), "" if none.
func (t *Table) unit(name string) string { return unitOf(t.field(name)) }

func quoteList(names []string) string {
	if len(names) == 0 {
		return "no columns"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, ", ")
}

// withColumns returns a table of the given fields and arrays (which it retains) and n rows,
// keeping t's schema metadata.
func (t *Table) withColumns(fields []arrow.Field, cols []arrow.Array, n int) *Table {
	md := t.Schema().Metadata()
	return &Table{rec: array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, int64(n))}
}

// checkRows panics if t has more rows than the operations index (2^31-1).
func (t *Table) checkRows(op string) int {
	n := t.NumRows()
	if n > math.MaxInt32 {
		opFail(op, "", "%d rows: table operations handle up to %d", n, math.MaxInt32)
	}
	return n
}

// Select returns the named columns, in that order (pandas df[cols]).
func (t *Table) Select(cols ...string) *Table {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = t.column("Select", c)
		fields[i] = t.field(c)
	}
	return t.withColumns(fields, arrs, t.NumRows())
}

// Drop returns the table without the named columns (pandas drop(columns=...)).
func (t *Table) Drop(cols ...string) *Table {
	for _, c := range cols {
		t.column("Drop", c)
	}
	var keep []string
	for _, n := range t.ColumnNames() {
		if !slices.Contains(cols, n) {
			keep = append(keep, n)
		}
	}
	return t.Select(keep...)
}

// Rename returns the table with column from renamed to, keeping its data and unit (pandas
// rename(columns={from: to})).
func (t *Table) Rename(from, to string) *Table {
	t.column("Rename", from)
	if from != to && len(t.Schema().FieldIndices(to)) > 0 {
		opFail("Rename", to, "already exists")
	}
	rec := t.record()
	fields := slices.Clone(rec.Schema().Fields())
	for i := range fields {
		if fields[i].Name == from {
			fields[i].Name = to
		}
	}
	return t.withColumns(fields, rec.Columns(), t.NumRows())
}

// Filter returns the rows where pred is true, in their order (pandas df[mask] and query, pipit
// filter; SQL WHERE): rows where it is false or null are dropped. pred must be a bool
// expression such as Col("Name").StartsWith("MPI_").And(Col("Process").Lt(4)).
func (t *Table) Filter(pred Expr) *Table {
	if k := pred.check("Filter", t).k; k != kBool {
		opFail("Filter", pred.column(), "the predicate %s is %s, not bool", pred, k)
	}
	n := t.checkRows("Filter")
	j := startOp("Filter", 2*int64(n))
	defer j.done()
	c := &evalCtx{t: t}
	var idx []int32
	for lo := 0; lo < n; lo += opChunk {
		hi := min(lo+opChunk, n)
		v := pred.eval(c, lo, hi)
		for k := lo; k < hi; k++ {
			r := k - lo
			if v.scalar {
				r = 0
			}
			if v.b[r] && (v.null == nil || !v.null[r]) {
				idx = append(idx, int32(k))
			}
		}
		j.step(hi - lo)
	}
	reserve("Filter", rowBytes(t)*int64(len(idx)))
	return gatherTable(j, t, idx)
}

// rowBytes estimates the bytes of one row of t (8 per column, plus string data).
func rowBytes(t *Table) int64 {
	b := int64(8 * t.NumCols())
	rec := t.record()
	for _, a := range rec.Columns() {
		switch a := a.(type) {
		case *array.String:
			if n := a.Len(); n > 0 {
				b += int64(len(a.ValueBytes())) / int64(n)
			}
		}
	}
	return b
}

// WithColumn returns the table with a column name computed from e, in place of the column of
// that name if there is one, else at the end (pandas assign, polars with_columns). The column
// is int64, float64, bool or string by e's kind; it keeps a unit (see [Column.WithUnit]) where
// e does not change it, such as End - Start of two "ns" columns or a column times a literal.
func (t *Table) WithColumn(name string, e Expr) *Table {
	ty := e.check("WithColumn", t)
	n := t.checkRows("WithColumn")
	var out arrow.Array
	if e.op == "col" {
		out = t.column("WithColumn", e.name)
		out.Retain()
	} else {
		out = evalColumn(e, ty.k, t, n)
	}
	defer out.Release()
	f := arrow.Field{Name: name, Type: out.DataType(), Nullable: true}
	if ty.unit != "" {
		f.Metadata = arrow.NewMetadata([]string{UnitKey}, []string{ty.unit})
	}
	rec := t.record()
	fields, cols := slices.Clone(rec.Schema().Fields()), slices.Clone(rec.Columns())
	if i := t.Schema().FieldIndices(name); len(i) > 0 {
		fields[i[0]], cols[i[0]] = f, out
	} else {
		fields, cols = append(fields, f), append(cols, out)
	}
	return t.withColumns(fields, cols, n)
}

// evalColumn evaluates e over all n rows of t into an array of kind k. Numbers are written into
// Go slices that become the array's buffers without a copy.
func evalColumn(e Expr, k kind, t *Table, n int) arrow.Array {
	reserve("WithColumn", 16*int64(n))
	j := startOp("WithColumn", int64(n))
	defer j.done()
	c := &evalCtx{t: t}
	valid := make([]bool, n)
	var (
		ints   []int64
		floats []float64
		bools  []bool
		strs   []string
	)
	switch k {
	case kInt:
		ints = make([]int64, n)
	case kFloat:
		floats = make([]float64, n)
	case kBool:
		bools = make([]bool, n)
	case kStr:
		strs = make([]string, n)
	}
	for lo := 0; lo < n; lo += opChunk {
		hi := min(lo+opChunk, n)
		v := e.eval(c, lo, hi)
		if k == kStr {
			v.strs()
		}
		for r := lo; r < hi; r++ {
			s := r - lo
			if v.scalar {
				s = 0
			}
			if v.isNull(s) {
				continue
			}
			valid[r] = true
			switch k {
			case kInt:
				ints[r] = v.i[s]
			case kFloat:
				floats[r] = v.f[s]
			case kBool:
				bools[r] = v.b[s]
			case kStr:
				strs[r] = v.s[s]
			}
		}
		j.step(hi - lo)
	}
	bm, nulls := bitmap(valid)
	switch k {
	case kInt:
		return wrap(arrow.PrimitiveTypes.Int64, n, bm, nulls, arrow.GetBytes(ints))
	case kFloat:
		return wrap(arrow.PrimitiveTypes.Float64, n, bm, nulls, arrow.GetBytes(floats))
	case kBool:
		return NullableBool("", bools, valid).build(mem)
	}
	return NullableString("", strs, valid).build(mem)
}

// Sort returns the rows ordered by the columns by, the first one first (pandas sort_values,
// SQL ORDER BY). A key is a column name, ascending, or the name followed by " desc" (or
// " asc"): t.Sort("Process", "Timestamp (ns) desc"). The sort is stable: rows with equal keys
// keep their order. Nulls come last in either direction, as in pandas; so do NaNs, just before
// the nulls. Integers, floats, bools and strings (plain or dictionary-encoded, in byte order)
// can be keys.
func (t *Table) Sort(by ...string) *Table {
	if len(by) == 0 {
		opFail("Sort", "", "no sort key given")
	}
	type key struct {
		a    arrow.Array
		name string
		desc bool
	}
	keys := make([]key, len(by))
	for i, b := range by {
		name, desc := b, false
		if len(t.Schema().FieldIndices(b)) == 0 {
			low := strings.ToLower(b)
			switch {
			case strings.HasSuffix(low, " desc"):
				name, desc = b[:len(b)-5], true
			case strings.HasSuffix(low, " asc"):
				name = b[:len(b)-4]
			}
		}
		a := t.column("Sort", name)
		if kindOf(a.DataType()) == kNone {
			opFail("Sort", name, "has type %s, which cannot be a sort key (integers, floats, bools and strings can)", a.DataType())
		}
		keys[i] = key{a, name, desc}
	}
	n := t.checkRows("Sort")
	reserve("Sort", 40*int64(n))
	j := startOp("Sort", int64(n)*int64(2+len(keys))+int64(n)*int64(t.NumCols()))
	defer j.done()
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	s := newSorter(n)
	for k := len(keys) - 1; k >= 0; k-- {
		perm = s.sortBy(j, perm, keys[k].a, keys[k].desc)
	}
	return gatherTable(j, t, perm)
}

// sorter sorts permutations by one key at a time, stably (so that sorting by the last key
// first sorts by all keys), with an LSD radix sort on order-preserving 64-bit codes.
type sorter struct {
	codes, codes2 []uint64
	ids, ids2     []int32
	nan, null     []int32
}

func newSorter(n int) *sorter {
	return &sorter{codes: make([]uint64, n), codes2: make([]uint64, n), ids: make([]int32, n), ids2: make([]int32, n)}
}

// sortBy returns perm stably sorted by the values of a at perm's rows: values in order, then
// NaNs, then nulls, each in perm's order.
func (s *sorter) sortBy(j *opJob, perm []int32, a arrow.Array, desc bool) []int32 {
	codes, ids := s.codes[:0], s.ids[:0]
	nan, null := s.nan[:0], s.null[:0]
	code := sortCodes(j, a)
	hasNulls := a.NullN() > 0
	for k, r := range perm {
		j.tick(k)
		switch {
		case hasNulls && a.IsNull(int(r)):
			null = append(null, r)
		default:
			c, ok := code(int(r))
			if !ok {
				nan = append(nan, r)
				continue
			}
			if desc {
				c = ^c
			}
			codes, ids = append(codes, c), append(ids, r)
		}
	}
	_, ids = s.radix(j, codes, ids)
	s.nan, s.null = nan, null
	out := make([]int32, 0, len(perm))
	out = append(append(append(out, ids...), nan...), null...)
	return out
}

// radix sorts ids by codes, stably, skipping the bytes in which all codes agree.
func (s *sorter) radix(j *opJob, codes []uint64, ids []int32) ([]uint64, []int32) {
	if len(codes) < 2 {
		return codes, ids
	}
	var diff uint64
	for _, c := range codes {
		diff |= c ^ codes[0]
	}
	tmpC, tmpI := s.codes2[:len(codes)], s.ids2[:len(ids)]
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		var count [257]int
		for _, c := range codes {
			count[(c>>shift)&0xff+1]++
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for k, c := range codes {
			d := (c >> shift) & 0xff
			p := count[d]
			count[d]++
			tmpC[p], tmpI[p] = c, ids[k]
		}
		codes, tmpC = tmpC, codes
		ids, tmpI = tmpI, ids
		j.step(len(codes))
	}
	return codes, ids
}

// sortCodes returns a function giving the order-preserving code of row r of a, ok false for
// NaN (the caller handles nulls).
func sortCodes(j *opJob, a arrow.Array) func(r int) (uint64, bool) {
	const sign = 1 << 63
	switch kindOf(a.DataType()) {
	case kInt:
		c := &evalCtx{}
		v := c.load(a, 0, a.Len())
		return func(r int) (uint64, bool) { return uint64(v.i[r]) ^ sign, true }
	case kFloat:
		c := &evalCtx{}
		v := c.load(a, 0, a.Len())
		return func(r int) (uint64, bool) {
			f := v.f[r]
			if f != f {
				return 0, false
			}
			return floatCode(f), true
		}
	case kBool:
		b := a.(*array.Boolean)
		return func(r int) (uint64, bool) {
			if b.Value(r) {
				return 1, true
			}
			return 0, true
		}
	}
	rank := stringRanks(j, a)
	return func(r int) (uint64, bool) { return uint64(rank[r]), true }
}

// floatCode is the order-preserving code of a float that is not NaN (-0 and +0 equal).
func floatCode(f float64) uint64 {
	const sign = 1 << 63
	if f == 0 {
		f = 0 // -0 == +0
	}
	b := math.Float64bits(f)
	if b&sign != 0 {
		return ^b
	}
	return b | sign
}

// stringRanks returns, for each row of a string column, the rank of its value among the
// column's distinct values in byte order (null rows: 0).
func stringRanks(j *opJob, a arrow.Array) []int32 {
	if d, ok := a.(*array.Dictionary); ok {
		c := &evalCtx{}
		dict := c.stringsOf(d.Dictionary())
		dr := ranksOf(j, dict)
		out := make([]int32, d.Len())
		for r := range out {
			if d.IsValid(r) {
				out[r] = dr[d.GetValueIndex(r)]
			}
		}
		return out
	}
	vals := make([]string, a.Len())
	for r := range vals {
		vals[r] = stringAt(a, r)
	}
	return ranksOf(j, vals)
}

// ranksOf returns the rank of each value among the distinct values, in byte order.
func ranksOf(j *opJob, vals []string) []int32 {
	ids := make(map[string]int32)
	for r, v := range vals {
		j.tick(r)
		if _, ok := ids[v]; !ok {
			ids[v] = 0
		}
	}
	distinct := make([]string, 0, len(ids))
	for v := range ids {
		distinct = append(distinct, v)
	}
	calls := 0
	slices.SortFunc(distinct, func(a, b string) int {
		calls++
		if calls&0xffff == 0 {
			j.step(0) // millions of distinct strings take seconds to sort
		}
		return strings.Compare(a, b)
	})
	for i, v := range distinct {
		ids[v] = int32(i)
	}
	out := make([]int32, len(vals))
	for i, v := range vals {
		out[i] = ids[v]
	}
	return out
}

// Concat returns the rows of tables one after the other (pandas concat, SQL UNION ALL). The
// tables must have the same column names (in any order; the result has the first table's) with
// the same types and units; dictionary-encoded columns get one merged dictionary. No tables
// give an empty table.
func Concat(tables ...*Table) *Table {
	if len(tables) == 0 {
		return &Table{}
	}
	first := tables[0]
	names := first.ColumnNames()
	total := 0
	for ti, t := range tables {
		if t == nil {
			opFail("Concat", "", "table %d is nil", ti)
		}
		if got := t.ColumnNames(); len(got) != len(names) {
			opFail("Concat", "", "table %d has columns %s, table 0 has %s", ti, quoteList(got), quoteList(names))
		}
		for _, nm := range names {
			if len(t.Schema().FieldIndices(nm)) == 0 {
				opFail("Concat", nm, "missing in table %d (it has %s)", ti, quoteList(t.ColumnNames()))
			}
			f0, f := first.field(nm), t.field(nm)
			if !arrow.TypeEqual(f0.Type, f.Type) {
				opFail("Concat", nm, "is %s in table 0 but %s in table %d", f0.Type, f.Type, ti)
			}
			if unitOf(f0) != unitOf(f) {
				opFail("Concat", nm, "has unit %q in table 0 but %q in table %d", unitOf(f0), unitOf(f), ti)
			}
		}
		total += t.NumRows()
	}
	if total > math.MaxInt32 {
		opFail("Concat", "", "%d rows: table operations handle up to %d", total, math.MaxInt32)
	}
	j := startOp("Concat", int64(total)*int64(len(names)))
	defer j.done()
	fields := first.Schema().Fields()
	cols := make([]arrow.Array, len(names))
	for c, nm := range names {
		parts := make([]arrow.Array, len(tables))
		for ti, t := range tables {
			parts[ti] = t.column("Concat", nm)
		}
		cols[c] = concatColumn(nm, parts)
		defer cols[c].Release()
		j.step(total)
	}
	return first.withColumns(fields, cols, total)
}

// concatColumn concatenates the parts of one column.
func concatColumn(name string, parts []arrow.Array) arrow.Array {
	if arrow.TypeEqual(parts[0].DataType(), dictType) {
		return concatDict(parts)
	}
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		opFail("Concat", name, "%v", err)
	}
	return out
}

// concatDict concatenates string dictionary arrays into one with a merged dictionary (in order
// of first appearance) and int32 indices.
func concatDict(parts []arrow.Array) arrow.Array {
	ids := map[string]int32{}
	var dict []string
	n := 0
	for _, p := range parts {
		n += p.Len()
	}
	idx := make([]int32, n)
	valid := make([]bool, n)
	c := &evalCtx{}
	r := 0
	for _, p := range parts {
		d := p.(*array.Dictionary)
		vals := c.stringsOf(d.Dictionary())
		remap := make([]int32, len(vals))
		for i, v := range vals {
			if remap[i] = idOf(ids, v); int(remap[i]) == len(dict) {
				dict = append(dict, v)
			}
		}
		for i := 0; i < d.Len(); i++ {
			if d.IsValid(i) {
				idx[r], valid[r] = remap[d.GetValueIndex(i)], true
			}
			r++
		}
	}
	return dictArray(mem, idx, valid, dict)
}
