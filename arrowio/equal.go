package arrowio

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Equal compares t and o cell by cell: the same column names and types in
// the same order, the same number of rows, and every cell equal (nulls in
// the same places; floats exactly, NaN equal to NaN). It returns nil
// when they are equal, else an error naming the first difference: the
// column and row, and both cells.
func (t *Table) Equal(o *Table) error {
	a, b := t.record(), o.record()
	as, bs := a.Schema(), b.Schema()
	if as.NumFields() != bs.NumFields() {
		return fmt.Errorf("%d columns and %d columns (%v and %v)", as.NumFields(), bs.NumFields(), t.ColumnNames(), o.ColumnNames())
	}
	for i := range as.NumFields() {
		fa, fb := as.Field(i), bs.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return fmt.Errorf("column %d is %q (%s) and %q (%s)", i, fa.Name, fa.Type, fb.Name, fb.Type)
		}
	}
	if a.NumRows() != b.NumRows() {
		return fmt.Errorf("%d rows and %d rows", a.NumRows(), b.NumRows())
	}
	for c := range int(a.NumCols()) {
		ca, cb := a.Column(c), b.Column(c)
		if array.Equal(ca, cb) || array.ApproxEqual(ca, cb, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			continue
		}
		_, dict := ca.(*array.Dictionary) // equal values, maybe other codes
		for r := range int(a.NumRows()) {
			if dict && ca.IsNull(r) == cb.IsNull(r) && ca.ValueStr(r) == cb.ValueStr(r) {
				continue
			}
			if dict || !array.SliceApproxEqual(ca, int64(r), int64(r+1), cb, int64(r), int64(r+1), array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				return fmt.Errorf("column %q, row %d: %s and %s", as.Field(c).Name, r, ca.ValueStr(r), cb.ValueStr(r))
			}
		}
		if !dict {
			return fmt.Errorf("column %q differs", as.Field(c).Name)
		}
	}
	return nil
}
