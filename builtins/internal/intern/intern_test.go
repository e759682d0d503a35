package intern

import (
	"slices"
	"testing"
)

func TestTable(t *testing.T) {
	tb := New()
	var got []int32
	for _, s := range []string{"b", "a", "b", "c", "a"} {
		got = append(got, tb.ID(s))
	}
	if !slices.Equal(got, []int32{0, 1, 0, 2, 1}) || !slices.Equal(tb.Names, []string{"b", "a", "c"}) {
		t.Fatalf("ids %v, names %v", got, tb.Names)
	}
}
