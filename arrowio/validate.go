package arrowio

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// validate checks what the readers of arrow-go take on trust in a file:
// buffer sizes, string offsets and dictionary indices. A corrupt file could
// otherwise make a later cell access (Value, String, HTML) panic or read
// out of bounds.
func validate(t *Table) error {
	rec := t.record()
	for i, col := range rec.Columns() {
		if err := validateArray(col); err != nil {
			return fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
	}
	return nil
}

func validateArray(a arrow.Array) error {
	d := a.Data()
	n := d.Offset() + d.Len()
	bufs := d.Buffers()
	if len(bufs) > 0 && bufs[0] != nil && bufs[0].Len() < (n+7)/8 && d.NullN() != 0 {
		return fmt.Errorf("validity bitmap of %d bytes for %d values", bufs[0].Len(), n)
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && a.DataType().ID() != arrow.DICTIONARY {
		bits := fw.BitWidth()
		if len(bufs) < 2 || (n > 0 && (bufs[1] == nil || bufs[1].Len()*8 < n*bits)) {
			return fmt.Errorf("data buffer too short for %d values of %s", n, a.DataType())
		}
	}
	switch x := a.(type) {
	case *array.Dictionary:
		if err := validateArray(x.Indices()); err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
		if err := validateArray(x.Dictionary()); err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		size := x.Dictionary().Len()
		for i := 0; i < x.Len(); i++ {
			if x.IsValid(i) {
				if k := x.GetValueIndex(i); k < 0 || k >= size {
					return fmt.Errorf("row %d: dictionary index %d outside the %d values", i, k, size)
				}
			}
		}
	case interface{ ValidateFull() error }:
		if err := x.ValidateFull(); err != nil {
			return err
		}
	}
	return nil
}
