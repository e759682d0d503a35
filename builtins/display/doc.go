// Package display renders values in the notebook: Show(v) now, mid-cell;
// HTML, Markdown, PNG, SVG, JSON and Text wrap raw content so that it
// renders with its MIME type; Updatable displays can be replaced in place
// (update_display_data), and Progress draws a progress bar that long
// builtins drive.
//
// Any value with a method
//
//	MIMEBundle() map[string]any
//
// renders through its bundle: keys are MIME types, values are strings for
// text types, []byte for binary types (image/png; the kernel base64-encodes
// them) and JSON-encodable values for application/json. This is the only
// contract between the kernel and result types (Arrow tables, plots,
// trace summaries), so a new builtin never touches the kernel. A value may
// also have a method
//
//	MIMEMetadata() map[string]any
//
// that supplies the display metadata, such as the width and height at
// which a high-resolution image/png is shown.
//
// Results of every method show alike through Compose (or a Composition):
// the headline, the table and the figure, with the figure's interactive
// Vega-Lite view where it has one (docs/surface.md).
//
// The package lives under builtins so that builtins may report progress
// without importing the kernel; the kernel installs a Sink at start. With
// no sink installed (tests, the command line) every call is a no-op.
package display
