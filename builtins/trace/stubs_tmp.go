package trace

import (
	"errors"

	"github.com/tracebook/tracebook/arrowio"
)

func loadOTF2(path string) (*Trace, error)  { return nil, &Error{Path: path, Offset: -1, Err: errors.New("TODO")} }
func loadTable(path string) (*Trace, error) { return nil, &Error{Path: path, Offset: -1, Err: errors.New("TODO")} }
func (t *Trace) Events() *arrowio.Table      { return nil }
func (t *Trace) Profile() *arrowio.Table     { return nil }
func (t *Trace) MIMEBundle() map[string]any  { return map[string]any{"text/plain": t.String()} }
