package msa

// symbols numbers names (or runes) in order of first appearance.
type symbols struct {
	ids   map[string]int32
	names []string
}

func newSymbols() *symbols { return &symbols{ids: map[string]int32{}} }

func (s *symbols) id(name string) int32 {
	if id, ok := s.ids[name]; ok {
		return id
	}
	id := int32(len(s.names))
	s.ids[name] = id
	s.names = append(s.names, name)
	return id
}

// encode returns the symbols of str, one per rune.
func (s *symbols) encode(str string) []int32 {
	var out []int32
	for _, r := range str {
		out = append(out, s.id(string(r)))
	}
	return out
}
