// Package session is the interpreter seam of the kernel: a live yaegi
// interpreter whose state persists from cell to cell.
//
// yaegi evaluates either a file (declarations only) or a run of statements,
// never both, and its functions are bound once (yaegi #1673: callers keep
// calling the first definition). A cell therefore goes through Split, which
// cuts it at top-level boundaries with go/scanner and go/parser and emits
// chunks that yaegi accepts: imports; hoisted types, constants and function
// variables; function bodies assigned to those variables (so a redefinition
// reaches every caller); then the remaining declarations and statements in
// their original order. Every chunk is padded with newlines so that yaegi's
// line numbers are the cell's own line numbers plus one, which the session
// subtracts in error messages. `go` statements are rewritten so that a panic
// in a goroutine started by a cell is recovered in interpreted code and
// reported instead of killing the kernel. Common standard-library packages
// used without an import are imported on demand.
package session
