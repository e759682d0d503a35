package arrowio

import (
	"math"
	"strings"
	"testing"
)

func TestTableEqual(t *testing.T) {
	base := func() *Table {
		return MustTable(Int64("a", []int64{1, 2, 3}), Float64("x", []float64{0.5, math.NaN(), 2}), Dict("d", []string{"p", "q", "p"}),
			NullableInt64("n", []int64{1, 0, 3}, []bool{true, false, true}))
	}
	if err := base().Equal(base()); err != nil {
		t.Fatalf("a table differs from its copy: %v", err)
	}
	for _, c := range []struct {
		other *Table
		want  string
	}{
		{MustTable(Int64("a", []int64{1, 2, 3})), "columns"},
		{MustTable(Int64("a", []int64{1, 2, 4}), Float64("x", []float64{0.5, math.NaN(), 2}), Dict("d", []string{"p", "q", "p"}), NullableInt64("n", []int64{1, 0, 3}, []bool{true, false, true})), `column "a", row 2: 3 and 4`},
		{MustTable(Int64("a", []int64{1, 2, 3}), Float64("x", []float64{0.5, math.NaN(), 2.0000001}), Dict("d", []string{"p", "q", "p"}), NullableInt64("n", []int64{1, 0, 3}, []bool{true, false, true})), `column "x", row 2`},
		{MustTable(Int64("a", []int64{1, 2, 3}), Float64("x", []float64{0.5, math.NaN(), 2}), Dict("d", []string{"p", "q", "q"}), NullableInt64("n", []int64{1, 0, 3}, []bool{true, false, true})), `column "d", row 2: p and q`},
		{MustTable(Int64("a", []int64{1, 2, 3}), Float64("x", []float64{0.5, math.NaN(), 2}), Dict("d", []string{"p", "q", "p"}), NullableInt64("n", []int64{1, 0, 3}, []bool{true, true, true})), `column "n", row 1`},
		{MustTable(Int64("a", []int64{1, 2}), Float64("x", []float64{0.5, 1}), Dict("d", []string{"p", "q"}), NullableInt64("n", []int64{1, 0}, nil)), "3 rows and 2 rows"},
		{MustTable(Int64("b", []int64{1, 2, 3}), Float64("x", []float64{0.5, math.NaN(), 2}), Dict("d", []string{"p", "q", "p"}), NullableInt64("n", []int64{1, 0, 3}, []bool{true, false, true})), `"a" (int64) and "b"`},
	} {
		err := base().Equal(c.other)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Equal: %v, want an error with %q", err, c.want)
		}
	}
	// the same values under other dictionary codes are equal
	a := MustTable(Dict("d", []string{"p", "q"}))
	b := MustTable(DictCodes("d", []int32{1, 0}, nil, []string{"q", "p"}))
	if err := a.Equal(b); err != nil {
		t.Errorf("equal values with other codes: %v", err)
	}
}
