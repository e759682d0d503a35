//go:build !linux

package main

import (
	"reflect"
	"syscall"

	"github.com/peterh/liner"
)

// noSignals makes the terminal's interrupt and suspend keys plain input
// (termios ISIG off). liner's terminal mode is its copy of the system's
// termios structure, whose local flags (Lflag) are changed by reflection:
// liner has no call for it, and the ioctl requests differ between systems.
// If the field is not there nothing changes.
func noSignals() {
	m, err := liner.TerminalMode()
	if err != nil {
		return
	}
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	f := v.Elem().FieldByName("Lflag")
	if !f.IsValid() || !f.CanSet() || !f.CanUint() {
		return
	}
	f.SetUint(f.Uint() &^ uint64(syscall.ISIG))
	m.ApplyMode()
}

// ttyPath is a path that opens the terminal of the standard input anew
// (a file description of its own): the controlling terminal (/dev/fd/0
// would share the standard input's).
const ttyPath = "/dev/tty"
