package cluster

import "testing"

// Serialised pairs read back into the pairs they were written from,
// whatever the names hold.
func TestParsePairInvertsName(t *testing.T) {
	names := []string{"main", "", "ε", `a\b`, "a b", "x→y", `\s`, `\0`, "ε→ ε", "MPI_Send"}
	for _, c := range names {
		for _, e := range names {
			for _, root := range []bool{false, true} {
				q := namedPair{caller: c, callee: e, root: root}
				if root {
					q.caller = ""
				}
				got, ok := parsePair(q.name())
				if !ok || got != q {
					t.Errorf("parsePair(%q) = %+v, %v; want %+v", q.name(), got, ok, q)
				}
			}
		}
	}
	for _, bad := range []string{"main", `a\ → b`, `a → \q`, "a → ε", "a → "} {
		if q, ok := parsePair(bad); ok {
			t.Errorf("parsePair(%q) = %+v, want not ok", bad, q)
		}
	}
}
