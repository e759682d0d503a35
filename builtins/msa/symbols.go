package msa

import "github.com/tracebook/tracebook/builtins/internal/intern"

// symbols numbers names (or runes) in order of first appearance.
type symbols struct{ *intern.Table }

func newSymbols() *symbols { return &symbols{intern.New()} }

// encode returns the symbols of str, one per rune.
func (s *symbols) encode(str string) []int32 {
	var out []int32
	for _, r := range str {
		out = append(out, s.ID(string(r)))
	}
	return out
}
