// Package intern numbers strings in order of first appearance: the symbol
// tables that turn function names (or runes) into the small integers the
// alignment methods compare.
package intern

// Table maps each string to its number; Names[i] is the string numbered i.
type Table struct {
	ids   map[string]int32
	Names []string
}

// New returns an empty table.
func New() *Table { return &Table{ids: map[string]int32{}} }

// ID returns the number of name, numbering it if it is new.
func (t *Table) ID(name string) int32 {
	if id, ok := t.ids[name]; ok {
		return id
	}
	id := int32(len(t.Names))
	t.ids[name] = id
	t.Names = append(t.Names, name)
	return id
}
