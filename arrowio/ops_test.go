package arrowio

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// The table operations against a brute-force evaluation: tables as rows of Go values (nil for
// null), expressions evaluated row by row, sorting by comparison, grouping through a map,
// joining by nested loops.

// opsCols are the columns of random tables: every type the builtins produce.
var opsCols = []struct {
	name string
	k    kind
}{{"i64", kInt}, {"i32", kInt}, {"f64", kFloat}, {"b", kBool}, {"s", kStr}, {"d", kStr}}

var opsStrings = []string{"", "MPI_Send", "MPI_Recv", "MPI", "compute", "compute_flux", "é", "main"}

func randFloat(r *rand.Rand) float64 {
	switch r.IntN(12) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Inf(1 - 2*r.IntN(2))
	case 3:
		return float64(r.IntN(7) - 3)
	}
	return math.Round((r.Float64()*10-5)*4) / 4
}

// randTable returns a random table of n rows with nulls (share pNull) and its rows.
func randTable(r *rand.Rand, n int, pNull float64) (*Table, [][]any) {
	rows := make([][]any, n)
	i64, i32, f64, b := make([]int64, n), make([]int32, n), make([]float64, n), make([]bool, n)
	s, d := make([]string, n), make([]string, n)
	valid := make([][]bool, len(opsCols))
	for c := range valid {
		valid[c] = make([]bool, n)
	}
	for i := range rows {
		rows[i] = make([]any, len(opsCols))
		i64[i] = int64(r.IntN(11) - 5)
		if r.IntN(20) == 0 {
			i64[i] = int64(r.IntN(1<<20)) << 30
		}
		i32[i] = int32(r.IntN(7) - 3)
		f64[i] = randFloat(r)
		b[i] = r.IntN(2) == 0
		s[i] = opsStrings[r.IntN(len(opsStrings))]
		d[i] = opsStrings[r.IntN(len(opsStrings))]
		vals := []any{i64[i], int64(i32[i]), f64[i], b[i], s[i], d[i]}
		for c := range opsCols {
			valid[c][i] = r.Float64() >= pNull
			if valid[c][i] {
				rows[i][c] = vals[c]
			}
		}
	}
	t := MustTable(NullableInt64("i64", i64, valid[0]).WithUnit("ns"), NullableInt32("i32", i32, valid[1]),
		NullableFloat64("f64", f64, valid[2]), NullableBool("b", b, valid[3]),
		NullableString("s", s, valid[4]), NullableDict("d", d, valid[5]))
	return t, rows
}

// rowsOf reads a table back into rows through the accessors of table.go.
func rowsOf(t testing.TB, tb *Table) [][]any {
	t.Helper()
	n := tb.NumRows()
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, tb.NumCols())
	}
	for c, f := range tb.Schema().Fields() {
		valid, err := tb.Valid(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		var vals []any
		switch kindOf(f.Type) {
		case kInt:
			var v []int64
			if f.Type.ID() == arrow.INT32 {
				v32, err := tb.Int32s(f.Name)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range v32 {
					v = append(v, int64(x))
				}
			} else if v, err = tb.Int64s(f.Name); err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				vals = append(vals, x)
			}
		case kFloat:
			v, err := tb.Float64s(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				vals = append(vals, x)
			}
		case kBool:
			v, err := tb.Bools(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				vals = append(vals, x)
			}
		case kStr:
			v, err := tb.Strings(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				vals = append(vals, x)
			}
		default:
			t.Fatalf("column %q has type %s", f.Name, f.Type)
		}
		for i := range rows {
			if valid[i] {
				rows[i][c] = vals[i]
			}
		}
	}
	return rows
}

// sameValue compares two cell values: NaN equals NaN, -0 equals 0, floats within rel (for
// means).
func sameValue(a, b any, rel float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	fa, oka := a.(float64)
	fb, okb := b.(float64)
	if oka && okb {
		switch {
		case fa != fa || fb != fb:
			return fa != fa && fb != fb
		case fa == fb:
			return true
		}
		return math.Abs(fa-fb) <= rel*math.Max(math.Abs(fa), math.Abs(fb))
	}
	return a == b
}

func compareRows(t *testing.T, what string, got, want [][]any, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s: row %d has %d values, want %d", what, i, len(got[i]), len(want[i]))
		}
		for c := range got[i] {
			if !sameValue(got[i][c], want[i][c], rel) {
				t.Fatalf("%s: row %d column %d: got %v (%T), want %v (%T)\ngot row  %v\nwant row %v", what, i, c,
					got[i][c], got[i][c], want[i][c], want[i][c], got[i], want[i])
			}
		}
	}
}

// --- the brute-force expression evaluator ---

func colIndex(name string) int {
	for i, c := range opsCols {
		if c.name == name {
			return i
		}
	}
	panic("no column " + name)
}

// exactCmp compares two numbers (int64 or float64, not NaN) exactly with big.Float.
func exactCmp(a, b any) int {
	toBig := func(v any) *big.Float {
		switch v := v.(type) {
		case int64:
			return new(big.Float).SetInt64(v)
		case float64:
			return big.NewFloat(v)
		}
		panic(v)
	}
	return toBig(a).Cmp(toBig(b))
}

func isNaN(v any) bool {
	f, ok := v.(float64)
	return ok && f != f
}

// bruteCmp returns -1/0/1, or 2 if unordered (NaN).
func bruteCmp(a, b any) int {
	if isNaN(a) || isNaN(b) {
		return 2
	}
	switch a := a.(type) {
	case string:
		return strings.Compare(a, b.(string))
	case bool:
		bb := b.(bool)
		switch {
		case a == bb:
			return 0
		case !a:
			return -1
		}
		return 1
	}
	return exactCmp(a, b)
}

func bruteEval(e Expr, row []any) any {
	arg := func(i int) any { return bruteEval(e.args[i], row) }
	switch e.op {
	case "col":
		return row[colIndex(e.name)]
	case "lit":
		return e.lit
	case "==", "!=", "<", "<=", ">", ">=":
		x, y := arg(0), arg(1)
		if x == nil || y == nil {
			return nil
		}
		c := bruteCmp(x, y)
		if c == 2 {
			return e.op == "!="
		}
		return map[string]bool{"==": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[e.op]
	case "+", "-", "*", "/":
		x, y := arg(0), arg(1)
		if x == nil || y == nil {
			return nil
		}
		xi, xok := x.(int64)
		yi, yok := y.(int64)
		if xok && yok && e.op != "/" {
			switch e.op {
			case "+":
				return xi + yi
			case "-":
				return xi - yi
			}
			return xi * yi
		}
		f := func(v any) float64 {
			if i, ok := v.(int64); ok {
				return float64(i)
			}
			return v.(float64)
		}
		switch e.op {
		case "+":
			return f(x) + f(y)
		case "-":
			return f(x) - f(y)
		case "*":
			return f(x) * f(y)
		}
		return f(x) / f(y)
	case "neg":
		switch x := arg(0).(type) {
		case int64:
			return -x
		case float64:
			return -x
		}
		return nil
	case "and", "or":
		x, y := arg(0), arg(1)
		dom := e.op == "or"
		if x == dom || y == dom {
			return dom
		}
		if x == nil || y == nil {
			return nil
		}
		return !dom
	case "not":
		if x := arg(0); x != nil {
			return !x.(bool)
		}
		return nil
	case "isnull":
		return arg(0) == nil
	case "notnull":
		return arg(0) != nil
	case "in":
		x := arg(0)
		if x == nil {
			return nil
		}
		for _, v := range e.set {
			if bruteCmp(x, v) == 0 {
				return true
			}
		}
		return false
	case "startswith":
		if x := arg(0); x != nil {
			return strings.HasPrefix(x.(string), e.lit.(string))
		}
		return nil
	case "endswith":
		if x := arg(0); x != nil {
			return strings.HasSuffix(x.(string), e.lit.(string))
		}
		return nil
	case "contains":
		if x := arg(0); x != nil {
			return strings.Contains(x.(string), e.lit.(string))
		}
		return nil
	}
	panic("brute: " + e.op)
}

// randValue returns a literal of kind k.
func randValue(r *rand.Rand, k kind) any {
	switch k {
	case kInt:
		return int64(r.IntN(9) - 4)
	case kFloat:
		return randFloat(r)
	case kBool:
		return r.IntN(2) == 0
	}
	return opsStrings[r.IntN(len(opsStrings))]
}

// randNumeric returns a random numeric expression.
func randNumeric(r *rand.Rand, depth int) Expr {
	nums := []string{"i64", "i32", "f64"}
	switch {
	case depth <= 0 || r.IntN(3) == 0:
		if r.IntN(4) == 0 {
			if r.IntN(2) == 0 {
				return Lit(randValue(r, kInt))
			}
			return Lit(randValue(r, kFloat))
		}
		return Col(nums[r.IntN(len(nums))])
	case r.IntN(6) == 0:
		return randNumeric(r, depth-1).Neg()
	}
	x, y := randNumeric(r, depth-1), randNumeric(r, depth-1)
	return [](func(any) Expr){x.Add, x.Sub, x.Mul, x.Div}[r.IntN(4)](y)
}

// randPred returns a random bool expression.
func randPred(r *rand.Rand, depth int) Expr {
	if depth > 0 && r.IntN(3) == 0 {
		switch r.IntN(3) {
		case 0:
			return randPred(r, depth-1).And(randPred(r, depth-1))
		case 1:
			return randPred(r, depth-1).Or(randPred(r, depth-1))
		}
		return randPred(r, depth-1).Not()
	}
	c := opsCols[r.IntN(len(opsCols))]
	col := Col(c.name)
	switch r.IntN(7) {
	case 0:
		return col.IsNull()
	case 1:
		return col.NotNull()
	case 2:
		vals := make([]any, r.IntN(4))
		for i := range vals {
			vals[i] = randValue(r, c.k)
			if c.k == kInt && r.IntN(3) == 0 {
				vals[i] = float64(vals[i].(int64)) + 0.5*float64(r.IntN(2))
			}
		}
		return col.In(vals...)
	case 3:
		if c.k == kStr {
			p := opsStrings[r.IntN(len(opsStrings))]
			p = p[:r.IntN(len(p)+1)]
			return [](func(string) Expr){col.StartsWith, col.EndsWith, col.Contains}[r.IntN(3)](p)
		}
	case 4:
		if c.k == kInt || c.k == kFloat {
			x, y := randNumeric(r, 2), randNumeric(r, 1)
			return [](func(any) Expr){x.Eq, x.Ne, x.Lt, x.Le, x.Gt, x.Ge}[r.IntN(6)](y)
		}
	}
	var v any = randValue(r, c.k)
	if r.IntN(3) == 0 { // against another column of the same kind
		for _, o := range opsCols {
			if o.k == c.k && o.name != c.name {
				v = Col(o.name)
			}
		}
	}
	return [](func(any) Expr){col.Eq, col.Ne, col.Lt, col.Le, col.Gt, col.Ge}[r.IntN(6)](v)
}

func TestFilterBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 3000; it++ {
		n := []int{0, 1, 5, 40, 200}[r.IntN(5)]
		tb, rows := randTable(r, n, []float64{0, 0.2, 0.6}[r.IntN(3)])
		pred := randPred(r, 3)
		var want [][]any
		for _, row := range rows {
			if bruteEval(pred, row) == true {
				want = append(want, row)
			}
		}
		got := tb.Filter(pred)
		if !got.Schema().Equal(tb.Schema()) {
			t.Fatalf("Filter %s: schema %s, want %s", pred, got.Schema(), tb.Schema())
		}
		compareRows(t, "Filter "+pred.String(), rowsOf(t, got), want, 0)
	}
}

func TestWithColumnBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 2000; it++ {
		n := []int{0, 1, 7, 100}[r.IntN(4)]
		tb, rows := randTable(r, n, 0.25)
		var e Expr
		switch r.IntN(3) {
		case 0:
			e = randNumeric(r, 3)
		case 1:
			e = randPred(r, 2)
		default:
			e = Col(opsCols[r.IntN(len(opsCols))].name)
		}
		name := []string{"new", "f64", "s"}[r.IntN(3)]
		got := tb.WithColumn(name, e)
		at := colIndex("f64")
		if name == "s" {
			at = colIndex("s")
		}
		want := make([][]any, len(rows))
		for i, row := range rows {
			v := bruteEval(e, row)
			want[i] = slices.Clone(row)
			if name == "new" {
				want[i] = append(want[i], v)
			} else {
				want[i][at] = v
			}
		}
		gr := rowsOf(t, got)
		// The brute force yields int64 where the column is int32: compare values, not types.
		compareRows(t, fmt.Sprintf("WithColumn(%q, %s)", name, e), gr, want, 0)
	}
}

func TestWithColumnUnits(t *testing.T) {
	tb := MustTable(Int64("Start", []int64{1, 5}).WithUnit("ns"), Int64("End", []int64{4, 9}).WithUnit("ns"),
		Int64("Count", []int64{2, 3}))
	cases := []struct {
		e    Expr
		unit string
	}{
		{Col("End").Sub(Col("Start")), "ns"},
		{Col("End").Mul(2), "ns"},
		{Col("End").Div(Col("Count")), ""},
		{Col("End").Add(Col("Count")), ""},
		{Lit(3).Add(Col("End")), "ns"},
		{Col("End").Gt(2), ""},
	}
	for _, c := range cases {
		got := tb.WithColumn("x", c.e)
		if u := got.unit("x"); u != c.unit {
			t.Errorf("WithColumn(%s): unit %q, want %q", c.e, u, c.unit)
		}
	}
	d := tb.WithColumn("Duration", Col("End").Sub(Col("Start")))
	v, _ := d.Int64s("Duration")
	if !slices.Equal(v, []int64{3, 4}) {
		t.Errorf("End - Start = %v, want [3 4]", v)
	}
}

// sortKey is one key of the brute-force sort.
type sortKey struct {
	col  int
	desc bool
}

// bruteLess orders rows a and b by keys: values (reversed for desc), then NaN, then null.
func bruteOrder(a, b []any, keys []sortKey) int {
	for _, k := range keys {
		x, y := a[k.col], b[k.col]
		class := func(v any) int {
			switch {
			case v == nil:
				return 2
			case isNaN(v):
				return 1
			}
			return 0
		}
		cx, cy := class(x), class(y)
		if cx != cy {
			return cx - cy
		}
		if cx != 0 {
			continue
		}
		c := bruteCmp(x, y)
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func TestSortBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 2000; it++ {
		n := []int{0, 1, 2, 30, 300}[r.IntN(5)]
		tb, rows := randTable(r, n, []float64{0, 0.3}[r.IntN(2)])
		var keys []sortKey
		var by []string
		for k := 0; k < 1+r.IntN(3); k++ {
			c := r.IntN(len(opsCols))
			desc := r.IntN(2) == 0
			keys = append(keys, sortKey{c, desc})
			s := opsCols[c].name
			switch {
			case desc:
				s += []string{" desc", " DESC"}[r.IntN(2)]
			case r.IntN(2) == 0:
				s += " asc"
			}
			by = append(by, s)
		}
		want := slices.Clone(rows)
		sort.SliceStable(want, func(i, j int) bool { return bruteOrder(want[i], want[j], keys) < 0 })
		got := tb.Sort(by...)
		compareRows(t, fmt.Sprintf("Sort(%q)", by), rowsOf(t, got), want, 0)
		if !got.Schema().Equal(tb.Schema()) {
			t.Fatalf("Sort changed the schema")
		}
	}
}

// TestSortStable checks stability on a table whose sort keys tie everywhere.
func TestSortStable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 5000
	k, v := make([]int64, n), make([]int64, n)
	for i := range k {
		k[i], v[i] = int64(r.IntN(3)), int64(i)
	}
	tb := MustTable(Int64("k", k), Int64("pos", v)).Sort("k desc")
	ks, _ := tb.Int64s("k")
	ps, _ := tb.Int64s("pos")
	for i := 1; i < n; i++ {
		if ks[i] > ks[i-1] || ks[i] == ks[i-1] && ps[i] < ps[i-1] {
			t.Fatalf("row %d: (k %d, pos %d) after (k %d, pos %d)", i, ks[i], ps[i], ks[i-1], ps[i-1])
		}
	}
}

// bruteAgg computes one aggregation over the rows of a group.
func bruteAgg(t *testing.T, a Agg, rows [][]any) any {
	if a.fn == "count" {
		return int64(len(rows))
	}
	c := colIndex(a.col)
	var vals []any
	for _, row := range rows {
		if v := row[c]; v != nil {
			if b, ok := v.(bool); ok {
				v = map[bool]int64{false: 0, true: 1}[b]
				if a.fn == "min" || a.fn == "max" {
					v = b
				}
			}
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	switch a.fn {
	case "sum", "mean":
		if _, ok := vals[0].(int64); ok {
			s := new(big.Int)
			for _, v := range vals {
				s.Add(s, big.NewInt(v.(int64)))
			}
			if a.fn == "sum" {
				if !s.IsInt64() {
					return "overflow"
				}
				return s.Int64()
			}
			f, _ := new(big.Rat).SetFrac(s, big.NewInt(int64(len(vals)))).Float64()
			return f
		}
		s := 0.0
		for _, v := range vals {
			s += v.(float64)
		}
		if a.fn == "mean" {
			s /= float64(len(vals))
		}
		return s
	case "min", "max":
		best := vals[0]
		for _, v := range vals[1:] {
			o := bruteOrder([]any{v}, []any{best}, []sortKey{{0, false}})
			if a.fn == "min" && o < 0 || a.fn == "max" && o > 0 {
				best = v
			}
		}
		return best
	case "quantile":
		fs := make([]float64, len(vals))
		for i, v := range vals {
			if x, ok := v.(int64); ok {
				fs[i] = float64(x)
			} else {
				fs[i] = v.(float64)
			}
		}
		sort.SliceStable(fs, func(i, j int) bool {
			return bruteOrder([]any{fs[i]}, []any{fs[j]}, []sortKey{{0, false}}) < 0
		})
		p := a.q * float64(len(fs)-1)
		lo := int(p)
		if lo == len(fs)-1 || p == float64(lo) {
			return fs[lo]
		}
		if fs[lo] == fs[lo+1] {
			return fs[lo]
		}
		return fs[lo] + (fs[lo+1]-fs[lo])*(p-float64(lo))
	}
	t.Fatalf("brute agg %s", a.fn)
	return nil
}

// groupKey is the brute-force identity of a key value: -0 is 0, all NaNs are one.
func groupKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		if x != x {
			return "f:NaN"
		}
		if x == 0 {
			x = 0
		}
		return fmt.Sprintf("f:%v", x)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func TestGroupByBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for it := 0; it < 1500; it++ {
		n := []int{0, 1, 6, 50, 400}[r.IntN(5)]
		tb, rows := randTable(r, n, []float64{0, 0.25}[r.IntN(2)])
		var keyCols []int
		var keys []string
		for _, c := range r.Perm(len(opsCols))[:r.IntN(3)] {
			keyCols = append(keyCols, c)
			keys = append(keys, opsCols[c].name)
		}
		aggs := []Agg{Count()}
		for k := 0; k < 1+r.IntN(4); k++ {
			c := opsCols[r.IntN(len(opsCols))]
			switch {
			case c.k == kStr:
				aggs = append(aggs, []func(string) Agg{Min, Max}[r.IntN(2)](c.name))
			case r.IntN(5) == 0:
				aggs = append(aggs, Quantile(c.name, []float64{0, 0.1, 0.25, 0.9, 1}[r.IntN(5)]))
			default:
				aggs = append(aggs, []func(string) Agg{Sum, Mean, Min, Max, Median}[r.IntN(5)](c.name))
			}
		}
		for i := range aggs {
			aggs[i] = aggs[i].As(fmt.Sprintf("a%d", i))
		}
		// Brute force: groups in a map, ordered by the keys.
		groups := map[string][][]any{}
		var order []string
		for _, row := range rows {
			var ks []string
			for _, c := range keyCols {
				ks = append(ks, groupKey(row[c]))
			}
			k := strings.Join(ks, "|")
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], row)
		}
		if len(keys) == 0 && len(order) == 0 {
			order, groups[""] = []string{""}, nil
		}
		var want [][]any
		overflow := false
		for _, k := range order {
			g := groups[k]
			var out []any
			for _, c := range keyCols {
				out = append(out, g[0][c])
			}
			for _, a := range aggs {
				v := bruteAgg(t, a, g)
				if v == "overflow" {
					overflow = true
				}
				out = append(out, v)
			}
			want = append(want, out)
		}
		var sk []sortKey
		for i := range keyCols {
			sk = append(sk, sortKey{i, false})
		}
		sort.SliceStable(want, func(i, j int) bool { return bruteOrder(want[i], want[j], sk) < 0 })
		what := fmt.Sprintf("GroupBy(%q).Agg(%v)", keys, aggs)
		var got *Table
		err := catch(func() { got = tb.GroupBy(keys...).Agg(aggs...) })
		if overflow {
			if err == nil || !strings.Contains(err.Error(), "overflows") {
				t.Fatalf("%s: want an overflow error, got %v", what, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		compareRows(t, what, rowsOf(t, got), want, 1e-12)
	}
}

// catch runs f and returns the TableError it panicked with, if any.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			te, ok := r.(*TableError)
			if !ok {
				panic(r)
			}
			err = te
		}
	}()
	f()
	return nil
}

// keysMatch is the brute-force join condition: all keys non-null and equal (NaN matches NaN,
// -0 matches 0).
func keysMatch(a, b []any, cols []int) bool {
	for _, c := range cols {
		if a[c] == nil || b[c] == nil || groupKey(a[c]) != groupKey(b[c]) {
			return false
		}
	}
	return true
}

func TestJoinBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for it := 0; it < 1500; it++ {
		left, lrows := randTable(r, []int{0, 1, 8, 60}[r.IntN(4)], 0.2)
		right, rrows := randTable(r, []int{0, 1, 8, 60}[r.IntN(4)], 0.2)
		var on []string
		var cols []int
		for _, c := range r.Perm(len(opsCols))[:1+r.IntN(2)] {
			on, cols = append(on, opsCols[c].name), append(cols, c)
		}
		// Right keeps its key columns and two others (to exercise the suffixes).
		keepR := slices.Clone(on)
		for _, c := range []string{"f64", "s"} {
			if !slices.Contains(keepR, c) {
				keepR = append(keepR, c)
			}
		}
		right = right.Select(keepR...)
		leftJoin := r.IntN(2) == 0
		var want [][]any
		for _, lr := range lrows {
			matched := false
			for _, rr := range rrows {
				if keysMatch(lr, rr, cols) {
					matched = true
					row := slices.Clone(lr)
					for _, nm := range keepR {
						if !slices.Contains(on, nm) {
							row = append(row, rr[colIndex(nm)])
						}
					}
					want = append(want, row)
				}
			}
			if !matched && leftJoin {
				row := slices.Clone(lr)
				for _, nm := range keepR {
					if !slices.Contains(on, nm) {
						row = append(row, nil)
					}
				}
				want = append(want, row)
			}
		}
		var got *Table
		if leftJoin {
			got = left.LeftJoin(right, on...)
		} else {
			got = left.Join(right, on...)
		}
		compareRows(t, fmt.Sprintf("join on %q (left %v)", on, leftJoin), rowsOf(t, got), want, 0)
		for _, nm := range got.ColumnNames() {
			if strings.HasSuffix(nm, "_x") {
				base := strings.TrimSuffix(nm, "_x")
				if !slices.Contains(got.ColumnNames(), base+"_y") || slices.Contains(on, base) {
					t.Fatalf("join on %q: columns %q", on, got.ColumnNames())
				}
			}
		}
	}
}

func TestConcatBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for it := 0; it < 300; it++ {
		var tables []*Table
		var want [][]any
		for k := 0; k < r.IntN(4); k++ {
			tb, rows := randTable(r, []int{0, 1, 20}[r.IntN(3)], 0.2)
			if r.IntN(2) == 0 { // same columns, another order
				tb = tb.Select("d", "s", "b", "f64", "i32", "i64").Select("i64", "i32", "f64", "b", "s", "d")
			}
			tables, want = append(tables, tb), append(want, rows...)
		}
		got := Concat(tables...)
		if len(tables) == 0 {
			if got.NumRows() != 0 || got.NumCols() != 0 {
				t.Fatalf("Concat(): %d rows, %d columns", got.NumRows(), got.NumCols())
			}
			continue
		}
		compareRows(t, "Concat", rowsOf(t, got), want, 0)
		if !got.Schema().Equal(tables[0].Schema()) {
			t.Fatalf("Concat schema %s, want %s", got.Schema(), tables[0].Schema())
		}
	}
	// Columns in another order are matched by name.
	a := MustTable(Int64("x", []int64{1}), String("y", []string{"a"}))
	b := MustTable(String("y", []string{"b"}), Int64("x", []int64{2}))
	c := Concat(a, b)
	xs, _ := c.Int64s("x")
	ys, _ := c.Strings("y")
	if !slices.Equal(xs, []int64{1, 2}) || !slices.Equal(ys, []string{"a", "b"}) {
		t.Errorf("Concat by name: x %v y %v", xs, ys)
	}
}

func TestSelectDropRename(t *testing.T) {
	tb, rows := randTable(rand.New(rand.NewPCG(15, 16)), 30, 0.2)
	s := tb.Select("d", "i64")
	if !slices.Equal(s.ColumnNames(), []string{"d", "i64"}) || s.unit("i64") != "ns" {
		t.Fatalf("Select: %q, unit %q", s.ColumnNames(), s.unit("i64"))
	}
	var want [][]any
	for _, row := range rows {
		want = append(want, []any{row[5], row[0]})
	}
	compareRows(t, "Select", rowsOf(t, s), want, 0)
	if d := tb.Drop("s", "b"); !slices.Equal(d.ColumnNames(), []string{"i64", "i32", "f64", "d"}) {
		t.Fatalf("Drop: %q", d.ColumnNames())
	}
	if rn := tb.Rename("i64", "Time"); !slices.Equal(rn.ColumnNames()[:2], []string{"Time", "i32"}) || rn.unit("Time") != "ns" {
		t.Fatalf("Rename: %q", rn.ColumnNames())
	}
}

// TestOpsErrors checks that misuse panics with a TableError naming the column or type.
func TestOpsErrors(t *testing.T) {
	tb, _ := randTable(rand.New(rand.NewPCG(17, 18)), 10, 0.1)
	other := MustTable(String("i64", []string{"x"}))
	cases := []struct {
		f    func()
		want []string
	}{
		{func() { tb.Select("nope") }, []string{`"nope"`, "no such column", `"i64"`}},
		{func() { tb.Filter(Col("s").Gt(3)) }, []string{`"s"`, "cannot compare string with integer"}},
		{func() { tb.Filter(Col("i64").Add(1)) }, []string{"not bool"}},
		{func() { tb.Filter(Col("i64").StartsWith("x")) }, []string{`"i64"`, "needs a string"}},
		{func() { tb.Filter(Col("d").In("a", 3)) }, []string{`"d"`, "value 1"}},
		{func() { tb.Filter(Col("b").And(Col("i32"))) }, []string{"AND needs bool"}},
		{func() { tb.Filter(Col("i64").Eq(nil)) }, []string{"IsNull"}},
		{func() { tb.Filter(Col("i64").Eq([]int{1})) }, []string{"not a number, string or bool"}},
		{func() { tb.Filter(Expr{}) }, []string{"empty expression"}},
		{func() { tb.Sort() }, []string{"no sort key"}},
		{func() { tb.Sort("i64 sideways") }, []string{`"i64 sideways"`, "no such column"}},
		{func() { tb.WithColumn("x", Col("s").Mul(2)) }, []string{`"s"`, "arithmetic needs numbers"}},
		{func() { tb.GroupBy("zzz") }, []string{`"zzz"`}},
		{func() { tb.GroupBy("i64").Agg(Sum("s")) }, []string{`"s"`, "sum needs numbers"}},
		{func() { tb.GroupBy("i64").Agg(Quantile("f64", 1.5)) }, []string{"quantile 1.5"}},
		{func() { tb.GroupBy("i64").Agg(Count(), Count()) }, []string{`"count"`, "two result columns"}},
		{func() { tb.GroupBy("i64").Agg(Agg{}) }, []string{"zero Agg"}},
		{func() { tb.Join(other, "i64") }, []string{`"i64"`, "int64 on the left but utf8 on the right"}},
		{func() { tb.Join(tb) }, []string{"no key column"}},
		{func() { tb.Join(nil, "i64") }, []string{"nil"}},
		{func() { Concat(tb, other) }, []string{"table 1 has columns"}},
		{func() { Concat(tb, tb.Rename("s", "t")) }, []string{`"s"`, "missing in table 1"}},
		{func() { Concat(tb, tb.WithColumn("i64", Col("i64").Mul(1.0))) }, []string{`"i64"`, "int64 in table 0 but float64 in table 1"}},
		{func() { tb.Rename("i64", "s") }, []string{`"s"`, "already exists"}},
	}
	for i, c := range cases {
		err := catch(c.f)
		if err == nil {
			t.Errorf("case %d: no error, want one with %q", i, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("case %d: error %q does not say %q", i, err, w)
			}
		}
	}
	var te *TableError
	if !errors.As(catch(func() { tb.Select("nope") }), &te) || te.Column != "nope" || te.Op != "Select" {
		t.Errorf("TableError fields: %+v", te)
	}
}

// TestCmpIntFloat checks the exact integer-float comparison against big.Float.
func TestCmpIntFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1, -(1 << 53) - 1}
	floats := []float64{0, 0.5, -0.5, 9223372036854775807, -9223372036854775808, 1 << 53, 1<<53 + 2, math.Inf(1), math.Inf(-1), 1e300, -1e300}
	for k := 0; k < 2000; k++ {
		ints = append(ints, r.Int64()>>uint(r.IntN(64)))
		floats = append(floats, float64(r.Int64()>>uint(r.IntN(64)))+[]float64{0, 0.5, -0.25}[r.IntN(3)])
	}
	for _, x := range ints {
		for _, f := range floats[:40] {
			if got, want := cmpIntFloat(x, f), exactCmp(x, f); got != want {
				t.Fatalf("cmpIntFloat(%d, %g) = %d, want %d", x, f, got, want)
			}
		}
	}
	for k := range ints {
		x, f := ints[k], floats[k%len(floats)]
		if got, want := cmpIntFloat(x, f), exactCmp(x, f); got != want {
			t.Fatalf("cmpIntFloat(%d, %g) = %d, want %d", x, f, got, want)
		}
	}
	if cmpIntFloat(3, math.NaN()) != 2 {
		t.Fatal("NaN is unordered")
	}
}
