package arrowio

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Grouped is a table grouped by key columns, made by [Table.GroupBy]; [Grouped.Agg] computes
// one row per group.
type Grouped struct {
	t    *Table
	keys []string
}

// GroupBy groups the rows by the values of the key columns (pandas groupby, SQL GROUP BY).
// Keys are integer, float, bool or string columns (plain or dictionary-encoded). Rows whose key
// is null form their own group, unlike pandas' default, which drops them silently. With no
// keys, Agg aggregates the whole table into one row.
func (t *Table) GroupBy(keys ...string) *Grouped {
	for _, k := range keys {
		a := t.column("GroupBy", k)
		if kindOf(a.DataType()) == kNone {
			opFail("GroupBy", k, "has type %s, which cannot be a group key (integers, floats, bools and strings can)", a.DataType())
		}
	}
	return &Grouped{t: t, keys: slices.Clone(keys)}
}

// Agg is one aggregation of [Grouped.Agg]: [Count], [Sum], [Mean], [Min], [Max], [Median] or
// [Quantile], renamed with As.
type Agg struct {
	fn   string
	col  string
	q    float64
	name string
}

// Count counts the rows of each group (pandas size); its column is "count".
func Count() Agg { return Agg{fn: "count", name: "count"} }

// Sum sums the non-null values of col in each group: int64 for integer and bool columns (an
// overflow is an error), float64 for floats (NaN if a value is NaN). A group without values
// gets null. Its column is "sum(col)".
func Sum(col string) Agg { return Agg{fn: "sum", col: col} }

// Mean is the mean of the non-null values of col (float64; null for a group without values).
func Mean(col string) Agg { return Agg{fn: "mean", col: col} }

// Min is the smallest non-null value of col, of col's type (strings in byte order; NaN is the
// largest float, as in Sort).
func Min(col string) Agg { return Agg{fn: "min", col: col} }

// Max is the largest non-null value of col, of col's type.
func Max(col string) Agg { return Agg{fn: "max", col: col} }

// Median is Quantile(col, 0.5), in a column "median(col)".
func Median(col string) Agg {
	return Agg{fn: "quantile", col: col, q: 0.5, name: "median(" + col + ")"}
}

// Quantile is the q-quantile (0 <= q <= 1) of the non-null values of col with linear
// interpolation between the two nearest values (pandas' and numpy's default, DuckDB's
// quantile_cont), as float64.
func Quantile(col string, q float64) Agg {
	return Agg{fn: "quantile", col: col, q: q}
}

// As returns a with its result column named name.
func (a Agg) As(name string) Agg {
	a.name = name
	return a
}

// Name returns the name of a's result column.
func (a Agg) Name() string {
	switch {
	case a.name != "":
		return a.name
	case a.fn == "quantile":
		return "quantile(" + a.col + ", " + strconv.FormatFloat(a.q, 'g', -1, 64) + ")"
	}
	return a.fn + "(" + a.col + ")"
}

// Agg returns one row per group, ordered by the keys (ascending, nulls last, as pandas
// sort=True), with the key columns and then one column per aggregation.
func (g *Grouped) Agg(aggs ...Agg) *Table {
	const op = "GroupBy.Agg"
	t := g.t
	names := slices.Clone(g.keys)
	for _, a := range aggs {
		if a.fn == "" {
			opFail(op, "", "zero Agg (use arrowio.Count, Sum, Mean, ...)")
		}
		if a.fn != "count" {
			k := kindOf(t.column(op, a.col).DataType())
			switch {
			case (a.fn == "sum" || a.fn == "mean" || a.fn == "quantile") && k != kInt && k != kFloat && k != kBool:
				opFail(op, a.col, "%s needs numbers, the column is %s", a.fn, t.column(op, a.col).DataType())
			case k == kNone:
				opFail(op, a.col, "%s cannot read type %s", a.fn, t.column(op, a.col).DataType())
			}
		}
		if a.fn == "quantile" && !(a.q >= 0 && a.q <= 1) {
			opFail(op, a.col, "quantile %g is not in [0, 1]", a.q)
		}
		if slices.Contains(names, a.Name()) {
			opFail(op, a.Name(), "two result columns have this name (rename one with As)")
		}
		names = append(names, a.Name())
	}
	n := t.checkRows(op)
	reserve(op, 16*int64(n))
	j := startOp(op, int64(n)*int64(1+len(g.keys)+len(aggs)))
	defer j.done()

	keyCols := make([]arrow.Array, len(g.keys))
	for i, k := range g.keys {
		keyCols[i] = t.column(op, k)
	}
	gid, first := groupIDs(j, keyCols, n)
	if len(g.keys) == 0 {
		first = []int32{-1}
		if n > 0 {
			first[0] = 0
		}
	}
	ng := len(first)

	var fields []arrow.Field
	var cols []arrow.Array
	for i, k := range g.keys {
		fields = append(fields, t.field(k))
		cols = append(cols, gather(j, keyCols[i], first))
	}
	loaded := map[string]*vec{} // columns read by several aggregations are read once
	for _, a := range aggs {
		f, c := aggregate(j, t, a, gid, ng, loaded)
		f.Name = a.Name()
		fields, cols = append(fields, f), append(cols, c)
	}
	for _, c := range cols {
		defer c.Release()
	}
	out := t.withColumns(fields, cols, ng)
	if len(g.keys) == 0 || ng < 2 {
		return out
	}
	return out.Sort(g.keys...)
}

// groupIDs numbers the groups of rows by the key columns in order of first appearance: gid[r]
// is row r's group, first[g] the first row of group g. Without keys every row is in group 0.
func groupIDs(j *opJob, keys []arrow.Array, n int) (gid []int32, first []int32) {
	gid = make([]int32, n)
	card := 1
	for _, a := range keys {
		codes, c := keyCodes(j, a)
		gid, card = combineCodes(j, gid, card, codes, c)
	}
	// Renumber in order of first appearance.
	ren := make([]int32, card)
	for i := range ren {
		ren[i] = -1
	}
	for r, g := range gid {
		j.tick(r)
		if ren[g] < 0 {
			ren[g] = int32(len(first))
			first = append(first, int32(r))
		}
		gid[r] = ren[g]
	}
	return gid, first
}

// keyCodes codes the values of a key column: equal values (and nulls) get equal codes in [0,
// card).
func keyCodes(j *opJob, a arrow.Array) (codes []int32, card int) {
	n := a.Len()
	codes = make([]int32, n)
	switch kindOf(a.DataType()) {
	case kBool:
		b := a.(*array.Boolean)
		for r := range codes {
			if b.Value(r) {
				codes[r] = 1
			}
		}
		card = 2
	case kInt:
		v := (&evalCtx{}).load(a, 0, n)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for r, x := range v.i {
			if !v.isNull(r) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		if lo <= hi && uint64(hi-lo) < uint64(max(1<<16, 2*n)) {
			for r, x := range v.i {
				j.tick(r)
				codes[r] = int32(x - lo)
			}
			card = int(hi-lo) + 1
			break
		}
		ids := map[int64]int32{}
		for r, x := range v.i {
			j.tick(r)
			if v.isNull(r) {
				continue
			}
			codes[r] = idOf(ids, x)
		}
		card = len(ids)
	case kFloat:
		v := (&evalCtx{}).load(a, 0, n)
		ids := map[uint64]int32{}
		for r, x := range v.f {
			j.tick(r)
			if v.isNull(r) {
				continue
			}
			codes[r] = idOf(ids, floatKey(x))
		}
		card = len(ids)
	case kStr:
		if d, ok := a.(*array.Dictionary); ok {
			dict := (&evalCtx{}).stringsOf(d.Dictionary())
			canon := make([]int32, len(dict))
			ids := map[string]int32{}
			for i, s := range dict {
				canon[i] = idOf(ids, s)
			}
			for r := range codes {
				j.tick(r)
				if d.IsValid(r) {
					codes[r] = canon[d.GetValueIndex(r)]
				}
			}
			card = len(ids)
			break
		}
		ids := map[string]int32{}
		for r := range codes {
			j.tick(r)
			if a.IsNull(r) {
				continue
			}
			codes[r] = idOf(ids, stringAt(a, r))
		}
		card = len(ids)
	}
	if a.NullN() > 0 {
		for r := range codes {
			if a.IsNull(r) {
				codes[r] = int32(card)
			}
		}
	}
	return codes, card + 1
}

// idOf returns the number of k in ids, numbering new keys in order of appearance.
func idOf[K comparable](ids map[K]int32, k K) int32 {
	id, ok := ids[k]
	if !ok {
		id = int32(len(ids))
		ids[k] = id
	}
	return id
}

// floatKey is the bits of f with all zeros and all NaNs made equal.
func floatKey(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

// combineCodes numbers the pairs (gid[r], codes[r]) densely: a dense table when the product of
// cardinalities is small, a map otherwise.
func combineCodes(j *opJob, gid []int32, card int, codes []int32, c int) ([]int32, int) {
	if card == 1 {
		return codes, c
	}
	if card*c <= 1<<22 {
		table := make([]int32, card*c)
		for i := range table {
			table[i] = -1
		}
		next := int32(0)
		for r, g := range gid {
			j.tick(r)
			k := int(g)*c + int(codes[r])
			if table[k] < 0 {
				table[k] = next
				next++
			}
			gid[r] = table[k]
		}
		return gid, int(next)
	}
	ids := map[uint64]int32{}
	for r, g := range gid {
		j.tick(r)
		gid[r] = idOf(ids, uint64(g)<<32|uint64(codes[r]))
	}
	return gid, len(ids)
}

// aggregate computes one aggregation over the groups gid (ng of them).
func aggregate(j *opJob, t *Table, a Agg, gid []int32, ng int, loaded map[string]*vec) (arrow.Field, arrow.Array) {
	const op = "GroupBy.Agg"
	n := len(gid)
	if a.fn == "count" {
		cnt := make([]int64, ng)
		for _, g := range gid {
			cnt[g]++
		}
		j.step(n)
		return arrow.Field{Type: arrow.PrimitiveTypes.Int64, Nullable: true}, Int64("", cnt).build(mem)
	}
	col := t.column(op, a.col)
	f := t.field(a.col)
	unit := unitOf(f)
	withUnit := func(typ arrow.DataType) arrow.Field {
		out := arrow.Field{Type: typ, Nullable: true}
		if unit != "" {
			out.Metadata = arrow.NewMetadata([]string{UnitKey}, []string{unit})
		}
		return out
	}
	defer j.step(n)
	switch a.fn {
	case "min", "max":
		return withUnit(col.DataType()), gather(j, col, extremes(j, col, a.col, loaded, gid, ng, a.fn == "max"))
	case "quantile":
		v := numbers(col, a.col, loaded)
		return withUnit(arrow.PrimitiveTypes.Float64), quantiles(j, v, gid, ng, a.q)
	}
	v := numbers(col, a.col, loaded)
	cnt := make([]int64, ng)
	for r, g := range gid {
		if !v.isNull(r) {
			cnt[g]++
		}
	}
	valid := make([]bool, ng)
	for g := range valid {
		valid[g] = cnt[g] > 0
	}
	if v.k == kInt {
		sums := make([]int64, ng)
		over := false
		for r, g := range gid {
			j.tick(r)
			if v.isNull(r) {
				continue
			}
			s, x := sums[g], v.i[r]
			sum := s + x
			// Overflow: both operands of one sign and the sum of the other.
			if (s >= 0) == (x >= 0) && (sum >= 0) != (s >= 0) {
				over = true
			}
			sums[g] = sum
		}
		if a.fn == "sum" {
			if over {
				opFail(op, a.col, "the sum of a group overflows int64")
			}
			return withUnit(arrow.PrimitiveTypes.Int64), NullableInt64("", sums, valid).build(mem)
		}
		means := make([]float64, ng)
		if over {
			fs := make([]float64, ng)
			for r, g := range gid {
				if !v.isNull(r) {
					fs[g] += float64(v.i[r])
				}
			}
			for g := range means {
				means[g] = fs[g] / float64(cnt[g])
			}
		} else {
			for g := range means {
				means[g] = exactMean(sums[g], cnt[g])
			}
		}
		return withUnit(arrow.PrimitiveTypes.Float64), NullableFloat64("", means, valid).build(mem)
	}
	sums := make([]float64, ng)
	for r, g := range gid {
		if !v.isNull(r) {
			sums[g] += v.f[r]
		}
	}
	if a.fn == "mean" {
		for g := range sums {
			sums[g] /= float64(cnt[g])
		}
	}
	return withUnit(arrow.PrimitiveTypes.Float64), NullableFloat64("", sums, valid).build(mem)
}

// exactMean is s/c rounded once (s and c exact integers).
func exactMean(s, c int64) float64 {
	if c == 0 {
		return 0
	}
	q, r := s/c, s%c
	return float64(q) + float64(r)/float64(c)
}

// numbers reads a numeric or bool column as a vec of int64 (integers and bools) or float64,
// once per name in loaded.
func numbers(a arrow.Array, name string, loaded map[string]*vec) *vec {
	if v, ok := loaded[name]; ok {
		return v
	}
	v := (&evalCtx{}).load(a, 0, a.Len())
	loaded[name] = v
	if v.k == kBool {
		v.k, v.i = kInt, make([]int64, len(v.b))
		for r, b := range v.b {
			if b {
				v.i[r] = 1
			}
		}
	}
	return v
}

// extremes returns the row of the smallest (or largest) non-null value of each group, -1 for a
// group without values; ties go to the first row.
func extremes(j *opJob, a arrow.Array, name string, loaded map[string]*vec, gid []int32, ng int, largest bool) []int32 {
	best := make([]int32, ng)
	for g := range best {
		best[g] = -1
	}
	var less func(r, s int) bool // value at r orders before value at s
	switch kindOf(a.DataType()) {
	case kInt:
		v := numbers(a, name, loaded)
		less = func(r, s int) bool { return v.i[r] < v.i[s] }
	case kFloat:
		v := numbers(a, name, loaded)
		less = func(r, s int) bool { return floatLess(v.f[r], v.f[s]) }
	case kBool:
		b := a.(*array.Boolean)
		less = func(r, s int) bool { return !b.Value(r) && b.Value(s) }
	default:
		rank := stringRanks(j, a)
		less = func(r, s int) bool { return rank[r] < rank[s] }
	}
	for r, g := range gid {
		j.tick(r)
		if a.IsNull(r) {
			continue
		}
		b := best[g]
		if b < 0 || largest && less(int(b), r) || !largest && less(r, int(b)) {
			best[g] = int32(r)
		}
	}
	return best
}

// floatLess orders floats with NaN after everything.
func floatLess(x, y float64) bool {
	if x != x {
		return false
	}
	return y != y || x < y
}

// quantiles computes the q-quantile of each group's non-null values: all values sorted at
// once by the radix sort of Sort (NaN last), then dealt out to their groups in that order.
func quantiles(j *opJob, v *vec, gid []int32, ng int, q float64) arrow.Array {
	n := len(gid)
	codes, ids := make([]uint64, 0, n), make([]int32, 0, n)
	fs := v.f
	if v.k == kInt {
		fs = make([]float64, n)
		for r, x := range v.i {
			fs[r] = float64(x)
		}
	}
	for r, x := range fs {
		j.tick(r)
		if v.isNull(r) {
			continue
		}
		c := uint64(math.MaxUint64) // NaN
		if x == x {
			c = floatCode(x)
		}
		codes, ids = append(codes, c), append(ids, int32(r))
	}
	s := &sorter{codes2: make([]uint64, len(codes)), ids2: make([]int32, len(ids))}
	_, ids = s.radix(j, codes, ids)
	start := make([]int, ng+1)
	for _, r := range ids {
		start[gid[r]+1]++
	}
	for g := 1; g <= ng; g++ {
		start[g] += start[g-1]
	}
	vals := make([]float64, len(ids))
	pos := slices.Clone(start[:ng])
	for k, r := range ids {
		j.tick(k)
		g := gid[r]
		vals[pos[g]] = fs[r]
		pos[g]++
	}
	out := make([]float64, ng)
	valid := make([]bool, ng)
	for g := range out {
		if x := vals[start[g]:start[g+1]]; len(x) > 0 {
			out[g], valid[g] = interpolate(x, q), true
		}
	}
	return NullableFloat64("", out, valid).build(mem)
}

// interpolate is the q-quantile of sorted x by linear interpolation at q*(len(x)-1).
func interpolate(x []float64, q float64) float64 {
	p := q * float64(len(x)-1)
	lo := int(math.Floor(p))
	hi := min(lo+1, len(x)-1)
	f := p - float64(lo)
	if f == 0 || x[lo] == x[hi] {
		return x[lo]
	}
	return x[lo] + (x[hi]-x[lo])*f
}

// String describes the grouping.
func (g *Grouped) String() string {
	return fmt.Sprintf("<Grouped by %s: %d rows; call Agg>", quoteList(g.keys), g.t.NumRows())
}
