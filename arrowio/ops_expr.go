package arrowio

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Expr is an expression over the columns of a table, for [Table.Filter] and
// [Table.WithColumn]: a column ([Col]) or a literal ([Lit]), combined by comparisons (Eq, Ne,
// Lt, Le, Gt, Ge), set membership (In), string tests (StartsWith, EndsWith, Contains), null
// tests (IsNull, NotNull), logic (And, Or, Not) and arithmetic (Add, Sub, Mul, Div, Neg).
// Methods that take a value accept an Expr or a Go number, string or bool (a time.Duration is
// a number of nanoseconds):
//
//	arrowio.Col("Name").StartsWith("MPI_").And(arrowio.Col("Bytes").Ge(1 << 20))
//	arrowio.Col("End").Sub(arrowio.Col("Start"))
//
// Semantics are SQL's (and DuckDB's), which differ from pandas only around nulls: an operation
// on a null gives null, And and Or follow three-valued logic (null And false is false, null Or
// true is true), and Filter keeps the rows where the predicate is true (not null). Integer and
// float columns compare exactly with each other (an int64 nanosecond timestamp against a float
// too); float comparisons follow IEEE 754 (NaN equals nothing). Integer arithmetic is int64 and
// wraps on overflow like Go's; Div is true division and gives float64, as in pandas.
type Expr struct {
	op   string
	name string // column name (op "col")
	lit  any    // int64, float64, string or bool (op "lit")
	args []Expr
	set  []any // In's values
}

// Col refers to the column name.
func Col(name string) Expr { return Expr{op: "col", name: name} }

// Lit is a literal value: an integer, float, string or bool (see [Expr]).
func Lit(v any) Expr { return toExpr("Lit", v) }

// toExpr turns a method's argument into an Expr, panicking with a TableError naming op if it is
// not a supported value.
func toExpr(op string, v any) Expr {
	if e, ok := v.(Expr); ok {
		return e
	}
	if e, ok := v.(*Expr); ok && e != nil {
		return *e
	}
	x, err := literal(v)
	if err != nil {
		opFail(op, "", "%v", err)
	}
	return Expr{op: "lit", lit: x}
}

// literal converts a Go value to int64, float64, string or bool.
func literal(v any) (any, error) {
	if v == nil {
		return nil, fmt.Errorf("nil is not a value (test for nulls with IsNull or NotNull)")
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return r.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := r.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("%d does not fit in int64", u)
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return r.Float(), nil
	case reflect.String:
		return r.String(), nil
	case reflect.Bool:
		return r.Bool(), nil
	}
	return nil, fmt.Errorf("%v (%T) is not a number, string or bool", v, v)
}

func (e Expr) bin(op string, v any) Expr {
	return Expr{op: op, args: []Expr{e, toExpr(op, v)}}
}

// Eq is e == v.
func (e Expr) Eq(v any) Expr { return e.bin("==", v) }

// Ne is e != v.
func (e Expr) Ne(v any) Expr { return e.bin("!=", v) }

// Lt is e < v.
func (e Expr) Lt(v any) Expr { return e.bin("<", v) }

// Le is e <= v.
func (e Expr) Le(v any) Expr { return e.bin("<=", v) }

// Gt is e > v.
func (e Expr) Gt(v any) Expr { return e.bin(">", v) }

// Ge is e >= v.
func (e Expr) Ge(v any) Expr { return e.bin(">=", v) }

// Add is e + v.
func (e Expr) Add(v any) Expr { return e.bin("+", v) }

// Sub is e - v.
func (e Expr) Sub(v any) Expr { return e.bin("-", v) }

// Mul is e * v.
func (e Expr) Mul(v any) Expr { return e.bin("*", v) }

// Div is e / v, always float64 (true division, as in pandas).
func (e Expr) Div(v any) Expr { return e.bin("/", v) }

// Neg is -e.
func (e Expr) Neg() Expr { return Expr{op: "neg", args: []Expr{e}} }

// And is e and o (three-valued: null and false is false).
func (e Expr) And(o Expr) Expr { return Expr{op: "and", args: []Expr{e, o}} }

// Or is e or o (three-valued: null or true is true).
func (e Expr) Or(o Expr) Expr { return Expr{op: "or", args: []Expr{e, o}} }

// Not is not e (null stays null).
func (e Expr) Not() Expr { return Expr{op: "not", args: []Expr{e}} }

// IsNull is true where e is null (pandas isna).
func (e Expr) IsNull() Expr { return Expr{op: "isnull", args: []Expr{e}} }

// NotNull is true where e is not null (pandas notna).
func (e Expr) NotNull() Expr { return Expr{op: "notnull", args: []Expr{e}} }

// In is true where e equals one of values (pandas isin, SQL IN); null where e is null.
func (e Expr) In(values ...any) Expr {
	set := make([]any, len(values))
	for i, v := range values {
		x, err := literal(v)
		if err != nil {
			opFail("In", e.column(), "value %d: %v", i, err)
		}
		set[i] = x
	}
	return Expr{op: "in", args: []Expr{e}, set: set}
}

// StartsWith is true where the string e starts with prefix.
func (e Expr) StartsWith(prefix string) Expr {
	return Expr{op: "startswith", args: []Expr{e}, lit: prefix}
}

// EndsWith is true where the string e ends with suffix.
func (e Expr) EndsWith(suffix string) Expr {
	return Expr{op: "endswith", args: []Expr{e}, lit: suffix}
}

// Contains is true where the string e contains sub.
func (e Expr) Contains(sub string) Expr { return Expr{op: "contains", args: []Expr{e}, lit: sub} }

// And is the conjunction of es (true for none).
func And(es ...Expr) Expr {
	if len(es) == 0 {
		return Lit(true)
	}
	e := es[0]
	for _, o := range es[1:] {
		e = e.And(o)
	}
	return e
}

// Or is the disjunction of es (false for none).
func Or(es ...Expr) Expr {
	if len(es) == 0 {
		return Lit(false)
	}
	e := es[0]
	for _, o := range es[1:] {
		e = e.Or(o)
	}
	return e
}

// Not is not e.
func Not(e Expr) Expr { return e.Not() }

// String shows the expression in SQL-like notation: Name LIKE 'MPI_%' AND Bytes >= 1048576.
func (e Expr) String() string {
	switch e.op {
	case "":
		return "<empty Expr>"
	case "col":
		return e.name
	case "lit":
		return showLit(e.lit)
	case "neg":
		return "-(" + e.args[0].String() + ")"
	case "not":
		return "NOT (" + e.args[0].String() + ")"
	case "isnull":
		return e.args[0].String() + " IS NULL"
	case "notnull":
		return e.args[0].String() + " IS NOT NULL"
	case "in":
		s := make([]string, len(e.set))
		for i, v := range e.set {
			s[i] = showLit(v)
		}
		return e.args[0].String() + " IN (" + strings.Join(s, ", ") + ")"
	case "startswith", "endswith", "contains":
		return fmt.Sprintf("%s.%s(%s)", e.args[0], map[string]string{"startswith": "StartsWith", "endswith": "EndsWith", "contains": "Contains"}[e.op], strconv.Quote(e.lit.(string)))
	case "and", "or":
		return "(" + e.args[0].String() + " " + strings.ToUpper(e.op) + " " + e.args[1].String() + ")"
	}
	return "(" + e.args[0].String() + " " + e.op + " " + e.args[1].String() + ")"
}

func showLit(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// column returns the first column e refers to, for error messages.
func (e Expr) column() string {
	if e.op == "col" {
		return e.name
	}
	for _, a := range e.args {
		if c := a.column(); c != "" {
			return c
		}
	}
	return ""
}

// kind is the value kind of a column or expression.
type kind uint8

const (
	kNone kind = iota
	kInt
	kFloat
	kBool
	kStr
)

func (k kind) String() string {
	return [...]string{"unsupported", "integer", "float", "bool", "string"}[k]
}

// kindOf returns the kind of an Arrow type, kNone if operations cannot read it.
func kindOf(dt arrow.DataType) kind {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return kInt
	case arrow.FLOAT32, arrow.FLOAT64:
		return kFloat
	case arrow.BOOL:
		return kBool
	case arrow.STRING, arrow.LARGE_STRING:
		return kStr
	case arrow.DICTIONARY:
		switch dt.(*arrow.DictionaryType).ValueType.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			return kStr
		}
	}
	return kNone
}

func kindOfLit(v any) kind {
	switch v.(type) {
	case int64:
		return kInt
	case float64:
		return kFloat
	case bool:
		return kBool
	case string:
		return kStr
	}
	return kNone
}

// exprType is an expression checked against a schema: its kind and unit.
type exprType struct {
	k    kind
	unit string
}

// check validates e against t's schema for op, returning its kind and unit.
func (e Expr) check(op string, t *Table) exprType {
	numeric := func(k kind) bool { return k == kInt || k == kFloat }
	sub := func(i int) exprType { return e.args[i].check(op, t) }
	switch e.op {
	case "":
		opFail(op, "", "empty expression (build one with arrowio.Col)")
	case "col":
		a := t.column(op, e.name)
		k := kindOf(a.DataType())
		if k == kNone {
			opFail(op, e.name, "has type %s, which expressions cannot read (integers, floats, bools and strings can)", a.DataType())
		}
		return exprType{k, t.unit(e.name)}
	case "lit":
		return exprType{k: kindOfLit(e.lit)}
	case "==", "!=", "<", "<=", ">", ">=":
		x, y := sub(0), sub(1)
		if !(x.k == y.k || numeric(x.k) && numeric(y.k)) {
			opFail(op, e.column(), "cannot compare %s with %s in %s", x.k, y.k, e)
		}
		return exprType{k: kBool}
	case "+", "-", "*", "/":
		x, y := sub(0), sub(1)
		if !numeric(x.k) || !numeric(y.k) {
			opFail(op, e.column(), "arithmetic needs numbers, got %s and %s in %s", x.k, y.k, e)
		}
		k := kInt
		if x.k == kFloat || y.k == kFloat || e.op == "/" {
			k = kFloat
		}
		unit := ""
		xl, yl := e.args[0].op == "lit", e.args[1].op == "lit"
		switch {
		case (e.op == "+" || e.op == "-") && (x.unit == y.unit || yl):
			unit = x.unit
		case e.op == "+" && xl:
			unit = y.unit
		case (e.op == "*" || e.op == "/") && yl:
			unit = x.unit
		case e.op == "*" && xl:
			unit = y.unit
		}
		return exprType{k, unit}
	case "neg":
		x := sub(0)
		if !numeric(x.k) {
			opFail(op, e.column(), "cannot negate %s in %s", x.k, e)
		}
		return x
	case "and", "or":
		x, y := sub(0), sub(1)
		if x.k != kBool || y.k != kBool {
			opFail(op, e.column(), "%s needs bool operands, got %s and %s in %s", strings.ToUpper(e.op), x.k, y.k, e)
		}
		return exprType{k: kBool}
	case "not":
		if x := sub(0); x.k != kBool {
			opFail(op, e.column(), "NOT needs a bool operand, got %s in %s", x.k, e)
		}
		return exprType{k: kBool}
	case "isnull", "notnull":
		sub(0)
		return exprType{k: kBool}
	case "in":
		x := sub(0)
		for i, v := range e.set {
			if k := kindOfLit(v); !(k == x.k || numeric(k) && numeric(x.k)) {
				opFail(op, e.column(), "In: value %d (%s) is a %s, the column is %s", i, showLit(v), k, x.k)
			}
		}
		return exprType{k: kBool}
	case "startswith", "endswith", "contains":
		if x := sub(0); x.k != kStr {
			opFail(op, e.column(), "%s needs a string, got %s", e.op, x.k)
		}
		return exprType{k: kBool}
	}
	opFail(op, "", "unknown expression %q", e.op)
	return exprType{}
}

// vec is the value of an expression over a chunk of rows: one of i, f, b, s by kind, and
// null[j] true where row j is null (nil: no nulls). A scalar (a literal) has n == 1 and
// applies to every row.
type vec struct {
	k      kind
	n      int
	scalar bool
	i      []int64
	f      []float64
	b      []bool
	s      []string
	null   []bool
	// A dictionary-encoded string column keeps its codes until strs() needs the strings:
	// string tests against literals run once per dictionary entry instead of once per row.
	codes []int32
	dict  []string
}

// strs returns the strings of a string vec, decoding a dictionary column's codes.
func (v *vec) strs() []string {
	if v.s == nil && v.dict != nil {
		v.s = make([]string, len(v.codes))
		for j, c := range v.codes {
			if !v.isNull(j) {
				v.s[j] = v.dict[c]
			}
		}
	}
	return v.s
}

// byDict evaluates a test of the strings of a dictionary vec once per dictionary entry and
// returns its result per row (false on null rows, whose codes may be anything).
func (v *vec) byDict(test func(s string) bool) []bool {
	res := make([]bool, len(v.dict))
	for k, s := range v.dict {
		res[k] = test(s)
	}
	out := make([]bool, len(v.codes))
	for j, c := range v.codes {
		if c >= 0 && int(c) < len(res) {
			out[j] = res[c]
		}
	}
	return out
}

func (v *vec) isNull(j int) bool {
	if v.null == nil {
		return false
	}
	if v.scalar {
		return v.null[0]
	}
	return v.null[j]
}

// evalCtx caches per-array state (string dictionaries) across the chunks of one evaluation.
type evalCtx struct {
	t     *Table
	dicts map[arrow.Array][]string
}

// stringsOf returns the values of a string dictionary array as Go strings (cached).
func (c *evalCtx) stringsOf(d arrow.Array) []string {
	if s, ok := c.dicts[d]; ok {
		return s
	}
	s := make([]string, d.Len())
	for i := range s {
		if d.IsValid(i) {
			s[i] = stringAt(d, i)
		}
	}
	if c.dicts == nil {
		c.dicts = map[arrow.Array][]string{}
	}
	c.dicts[d] = s
	return s
}

func stringAt(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	}
	return ""
}

// load reads rows [lo, hi) of column a (of a kind other than kNone) into a vec.
func (c *evalCtx) load(a arrow.Array, lo, hi int) *vec {
	n := hi - lo
	v := &vec{n: n, k: kindOf(a.DataType())}
	switch a := a.(type) {
	case *array.Int64:
		v.i = a.Int64Values()[lo:hi]
	case *array.Int32:
		v.i = widen(a.Int32Values()[lo:hi])
	case *array.Int16:
		v.i = widen(a.Int16Values()[lo:hi])
	case *array.Int8:
		v.i = widen(a.Int8Values()[lo:hi])
	case *array.Uint32:
		v.i = widen(a.Uint32Values()[lo:hi])
	case *array.Uint16:
		v.i = widen(a.Uint16Values()[lo:hi])
	case *array.Uint8:
		v.i = widen(a.Uint8Values()[lo:hi])
	case *array.Float64:
		v.f = a.Float64Values()[lo:hi]
	case *array.Float32:
		v.f = make([]float64, n)
		for j, x := range a.Float32Values()[lo:hi] {
			v.f[j] = float64(x)
		}
	case *array.Boolean:
		v.b = make([]bool, n)
		for j := range v.b {
			v.b[j] = a.Value(lo + j)
		}
	case *array.String, *array.LargeString:
		v.s = make([]string, n)
		for j := range v.s {
			v.s[j] = stringAt(a, lo+j)
		}
	case *array.Dictionary:
		v.dict = c.stringsOf(a.Dictionary())
		if ind, ok := a.Indices().(*array.Int32); ok {
			v.codes = ind.Int32Values()[lo:hi]
		} else {
			v.codes = make([]int32, n)
			for j := range v.codes {
				if a.IsValid(lo + j) {
					v.codes[j] = int32(a.GetValueIndex(lo + j))
				}
			}
		}
	}
	if a.NullN() > 0 {
		v.null = make([]bool, n)
		for j := range v.null {
			v.null[j] = a.IsNull(lo + j)
		}
	}
	return v
}

func widen[T int8 | int16 | int32 | uint8 | uint16 | uint32](x []T) []int64 {
	out := make([]int64, len(x))
	for j, v := range x {
		out[j] = int64(v)
	}
	return out
}

func litVec(x any) *vec {
	v := &vec{n: 1, scalar: true, k: kindOfLit(x)}
	switch x := x.(type) {
	case int64:
		v.i = []int64{x}
	case float64:
		v.f = []float64{x}
	case bool:
		v.b = []bool{x}
	case string:
		v.s = []string{x}
	}
	return v
}

// nullsOf merges the null masks of operands into a mask for n rows (nil: none).
func nullsOf(n int, vs ...*vec) []bool {
	var out []bool
	for _, v := range vs {
		if v.null == nil {
			continue
		}
		if out == nil {
			out = make([]bool, n)
		}
		for j := range out {
			out[j] = out[j] || v.isNull(j)
		}
	}
	return out
}

// stride is 0 for a scalar, 1 for a column.
func (v *vec) stride() int {
	if v.scalar {
		return 0
	}
	return 1
}

// eval evaluates a checked expression over rows [lo, hi).
func (e Expr) eval(c *evalCtx, lo, hi int) *vec {
	n := hi - lo
	switch e.op {
	case "col":
		return c.load(c.t.column("", e.name), lo, hi)
	case "lit":
		return litVec(e.lit)
	case "neg":
		x := e.args[0].eval(c, lo, hi)
		out := &vec{k: x.k, n: x.n, scalar: x.scalar, null: x.null}
		if x.k == kInt {
			out.i = make([]int64, x.n)
			for j, v := range x.i {
				out.i[j] = -v
			}
		} else {
			out.f = make([]float64, x.n)
			for j, v := range x.f {
				out.f[j] = -v
			}
		}
		return out
	case "+", "-", "*", "/":
		return arith(e.op, e.args[0].eval(c, lo, hi), e.args[1].eval(c, lo, hi), n)
	case "==", "!=", "<", "<=", ">", ">=":
		return compare(e.op, e.args[0].eval(c, lo, hi), e.args[1].eval(c, lo, hi), n)
	case "and", "or":
		return logic(e.op == "and", e.args[0].eval(c, lo, hi), e.args[1].eval(c, lo, hi), n)
	case "not":
		x := e.args[0].eval(c, lo, hi)
		out := &vec{k: kBool, n: x.n, scalar: x.scalar, null: x.null, b: make([]bool, x.n)}
		for j, v := range x.b {
			out.b[j] = !v
		}
		return out
	case "isnull", "notnull":
		x := e.args[0].eval(c, lo, hi)
		out := &vec{k: kBool, n: x.n, scalar: x.scalar, b: make([]bool, x.n)}
		for j := range out.b {
			out.b[j] = x.isNull(j) == (e.op == "isnull")
		}
		return out
	case "in":
		return in(e.args[0].eval(c, lo, hi), e.set)
	case "startswith", "endswith", "contains":
		x := e.args[0].eval(c, lo, hi)
		out := &vec{k: kBool, n: x.n, scalar: x.scalar, null: x.null, b: make([]bool, x.n)}
		p := e.lit.(string)
		var f func(s, p string) bool
		switch e.op {
		case "startswith":
			f = strings.HasPrefix
		case "endswith":
			f = strings.HasSuffix
		default:
			f = strings.Contains
		}
		if x.dict != nil {
			out.b = x.byDict(func(s string) bool { return f(s, p) })
			return out
		}
		for j, s := range x.s {
			out.b[j] = f(s, p)
		}
		return out
	}
	panic("arrowio: eval of unchecked expression " + e.op)
}

// resultShape is the length and scalar flag of an operation on x and y.
func resultShape(x, y *vec, n int) (int, bool) {
	if x.scalar && y.scalar {
		return 1, true
	}
	return n, false
}

func arith(op string, x, y *vec, n int) *vec {
	m, sc := resultShape(x, y, n)
	out := &vec{n: m, scalar: sc, null: nullsOf(m, x, y)}
	xs, ys := x.stride(), y.stride()
	if x.k == kInt && y.k == kInt && op != "/" {
		out.k, out.i = kInt, make([]int64, m)
		for j := range out.i {
			a, b := x.i[j*xs], y.i[j*ys]
			switch op {
			case "+":
				out.i[j] = a + b
			case "-":
				out.i[j] = a - b
			default:
				out.i[j] = a * b
			}
		}
		return out
	}
	fx, fy := x.floats(), y.floats()
	out.k, out.f = kFloat, make([]float64, m)
	for j := range out.f {
		a, b := fx[j*xs], fy[j*ys]
		switch op {
		case "+":
			out.f[j] = a + b
		case "-":
			out.f[j] = a - b
		case "*":
			out.f[j] = a * b
		default:
			out.f[j] = a / b
		}
	}
	return out
}

// floats returns the values of a numeric vec as float64.
func (v *vec) floats() []float64 {
	if v.k == kFloat {
		return v.f
	}
	f := make([]float64, len(v.i))
	for j, x := range v.i {
		f[j] = float64(x)
	}
	return f
}

// cmpIntFloat compares an integer with a float exactly: -1, 0 or 1, or 2 if f is NaN.
func cmpIntFloat(x int64, f float64) int {
	switch {
	case f != f:
		return 2
	case f >= 9223372036854775808.0:
		return -1
	case f < -9223372036854775808.0:
		return 1
	}
	t := math.Trunc(f)
	ti := int64(t)
	switch {
	case x < ti:
		return -1
	case x > ti:
		return 1
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}

// cmpFloat compares IEEE floats: 2 if either is NaN.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return 2
}

// holds reports whether a comparison with result c (-1, 0, 1, or 2 for unordered) is true.
func holds(op string, c int) bool {
	if c == 2 {
		return op == "!="
	}
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func compare(op string, x, y *vec, n int) *vec {
	m, sc := resultShape(x, y, n)
	out := &vec{k: kBool, n: m, scalar: sc, null: nullsOf(m, x, y), b: make([]bool, m)}
	xs, ys := x.stride(), y.stride()
	switch {
	case x.k == kInt && y.k == kInt:
		// The common case, a column against a literal, without the generic dispatch.
		for j := range out.b {
			a, b := x.i[j*xs], y.i[j*ys]
			switch op {
			case "==":
				out.b[j] = a == b
			case "!=":
				out.b[j] = a != b
			case "<":
				out.b[j] = a < b
			case "<=":
				out.b[j] = a <= b
			case ">":
				out.b[j] = a > b
			default:
				out.b[j] = a >= b
			}
		}
	case x.k == kInt && y.k == kFloat:
		for j := range out.b {
			out.b[j] = holds(op, cmpIntFloat(x.i[j*xs], y.f[j*ys]))
		}
	case x.k == kFloat && y.k == kInt:
		for j := range out.b {
			c := cmpIntFloat(y.i[j*ys], x.f[j*xs])
			if c != 2 {
				c = -c
			}
			out.b[j] = holds(op, c)
		}
	case x.k == kFloat:
		for j := range out.b {
			out.b[j] = holds(op, cmpFloat(x.f[j*xs], y.f[j*ys]))
		}
	case x.k == kStr && x.dict != nil && y.scalar && !x.scalar:
		lit := y.s[0]
		out.b = x.byDict(func(s string) bool { return holds(op, strings.Compare(s, lit)) })
	case x.k == kStr:
		xv, yv := x.strs(), y.strs()
		for j := range out.b {
			out.b[j] = holds(op, strings.Compare(xv[j*xs], yv[j*ys]))
		}
	case x.k == kBool:
		for j := range out.b {
			out.b[j] = holds(op, cmpBool(x.b[j*xs], y.b[j*ys]))
		}
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// logic is three-valued AND (and) or OR.
func logic(and bool, x, y *vec, n int) *vec {
	m, sc := resultShape(x, y, n)
	out := &vec{k: kBool, n: m, scalar: sc, b: make([]bool, m)}
	xs, ys := x.stride(), y.stride()
	anyNull := x.null != nil || y.null != nil
	if anyNull {
		out.null = make([]bool, m)
	}
	for j := range out.b {
		a, b := x.b[j*xs], y.b[j*ys]
		if !anyNull {
			if and {
				out.b[j] = a && b
			} else {
				out.b[j] = a || b
			}
			continue
		}
		an, bn := x.isNull(j), y.isNull(j)
		// The dominant value: false for AND, true for OR.
		dom := !and
		switch {
		case !an && a == dom || !bn && b == dom:
			out.b[j] = dom
		case an || bn:
			out.null[j] = true
		default:
			out.b[j] = !dom
		}
	}
	return out
}

func in(x *vec, set []any) *vec {
	out := &vec{k: kBool, n: x.n, scalar: x.scalar, null: x.null, b: make([]bool, x.n)}
	switch x.k {
	case kInt:
		ints := map[int64]bool{}
		var floats []float64
		for _, v := range set {
			switch v := v.(type) {
			case int64:
				ints[v] = true
			case float64:
				floats = append(floats, v)
			}
		}
		for j, v := range x.i {
			out.b[j] = ints[v]
			for _, f := range floats {
				out.b[j] = out.b[j] || cmpIntFloat(v, f) == 0
			}
		}
	case kFloat:
		for j, v := range x.f {
			for _, s := range set {
				var c int
				switch s := s.(type) {
				case int64:
					c = cmpIntFloat(s, v)
				case float64:
					c = cmpFloat(v, s)
				}
				if c == 0 {
					out.b[j] = true
					break
				}
			}
		}
	case kStr:
		strs := map[string]bool{}
		for _, v := range set {
			strs[v.(string)] = true
		}
		if x.dict != nil {
			out.b = x.byDict(func(s string) bool { return strs[s] })
			break
		}
		for j, v := range x.s {
			out.b[j] = strs[v]
		}
	case kBool:
		var t, f bool
		for _, v := range set {
			if v.(bool) {
				t = true
			} else {
				f = true
			}
		}
		for j, v := range x.b {
			out.b[j] = v && t || !v && f
		}
	}
	return out
}
