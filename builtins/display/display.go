package display

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
)

// MIMEBundler is implemented by values that know how to render themselves.
type MIMEBundler interface {
	MIMEBundle() map[string]any
}

// MIMEMetadataer is implemented by MIMEBundlers that also supply the
// bundle's display metadata, keyed by MIME type like the bundle, for
// example {"image/png": {"width": 640, "height": 320}} to show a PNG
// rendered at twice the resolution at its CSS pixel size.
type MIMEMetadataer interface {
	MIMEMetadata() map[string]any
}

// Sink receives rendered displays; the kernel installs one per session.
type Sink interface {
	// Display publishes a bundle; id names an updatable display ("" for
	// none) and update replaces the display with that id.
	Display(data, metadata map[string]any, id string, update bool)
	// Clear clears the cell's output (wait: at the next output).
	Clear(wait bool)
}

var (
	sinkMu sync.RWMutex
	sink   Sink
)

// SetSink installs the sink that receives displays (nil: discard).
func SetSink(s Sink) {
	sinkMu.Lock()
	sink = s
	sinkMu.Unlock()
}

func currentSink() Sink {
	sinkMu.RLock()
	defer sinkMu.RUnlock()
	return sink
}

// Bundle renders v to a MIME bundle and metadata, following the display
// rules: MIMEBundlers render themselves (and supply the metadata if they
// are MIMEMetadataers too), strings are shown quoted, byte slices as their
// length, everything else with fmt's %v. A nil value gives a nil bundle
// (nothing to show). The metadata is never nil.
func Bundle(v any) (data, metadata map[string]any) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.(MIMEBundler); ok {
		rv := reflect.ValueOf(v)
		if (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Map || rv.Kind() == reflect.Interface) && rv.IsNil() {
			return map[string]any{"text/plain": fmt.Sprintf("%v", v)}, map[string]any{}
		}
		data = Normalize(b.MIMEBundle())
		if data == nil {
			return nil, nil
		}
		metadata = map[string]any{}
		if m, ok := v.(MIMEMetadataer); ok {
			for k, x := range m.MIMEMetadata() {
				metadata[k] = x
			}
		}
		return data, metadata
	}
	switch x := v.(type) {
	case string:
		return map[string]any{"text/plain": strconv.Quote(x)}, map[string]any{}
	case error:
		return map[string]any{"text/plain": "error: " + x.Error()}, map[string]any{}
	case []byte:
		return map[string]any{"text/plain": fmt.Sprintf("[]byte (%d bytes)", len(x))}, map[string]any{}
	}
	return map[string]any{"text/plain": fmt.Sprintf("%v", v)}, map[string]any{}
}

// Normalize makes a bundle JSON-ready: []byte values of text types become
// strings, binary ones stay []byte (encoding/json base64-encodes them, which
// is what Jupyter expects for image/png), and a text/plain entry is added
// when missing.
func Normalize(in map[string]any) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		switch x := v.(type) {
		case []byte:
			if isText(k) {
				out[k] = string(x)
			} else {
				out[k] = x
			}
		case json.RawMessage:
			out[k] = x
		default:
			out[k] = v
		}
	}
	if _, ok := out["text/plain"]; !ok {
		out["text/plain"] = "<display>"
	}
	return out
}

func isText(mime string) bool {
	switch mime {
	case "image/svg+xml", "application/json", "application/javascript":
		return true
	}
	return len(mime) >= 5 && mime[:5] == "text/"
}

// Show renders v in the notebook now, mid-cell.
func Show(v any) {
	s := currentSink()
	if s == nil {
		return
	}
	data, md := Bundle(v)
	if data == nil {
		return
	}
	s.Display(data, md, "", false)
}

// Clear clears the output of the current cell immediately.
func Clear() {
	if s := currentSink(); s != nil {
		s.Clear(false)
	}
}

// ClearWait clears the output of the current cell when the next output arrives
// (no flicker for animations).
func ClearWait() {
	if s := currentSink(); s != nil {
		s.Clear(true)
	}
}

// Data is raw content with a MIME type, made by HTML, Markdown, PNG, SVG, JSON
// and Text. As a cell's value, or passed to Show, it renders as that type.
type Data struct {
	MIME    string
	Content any
	Plain   string
}

// MIMEBundle implements MIMEBundler.
func (d Data) MIMEBundle() map[string]any {
	m := map[string]any{d.MIME: d.Content}
	if d.MIME != "text/plain" {
		m["text/plain"] = d.Plain
	}
	if d.MIME == "image/svg+xml" {
		// nbconvert's HTML exporter strips inline SVG to a blank box; an
		// <img> with a data URI survives it and every front end prefers
		// text/html, so the SVG renders in reports too.
		if svg, ok := d.Content.(string); ok {
			m["text/html"] = `<img src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString([]byte(svg)) + `" alt="SVG image">`
		}
	}
	return m
}

// HTML marks s as HTML.
func HTML(s string) Data { return Data{MIME: "text/html", Content: s, Plain: "<HTML>"} }

// Markdown marks s as Markdown.
func Markdown(s string) Data { return Data{MIME: "text/markdown", Content: s, Plain: s} }

// Text shows s as plain text, unquoted.
func Text(s string) Data { return Data{MIME: "text/plain", Content: s} }

// PNG marks b as a PNG image.
func PNG(b []byte) Data {
	return Data{MIME: "image/png", Content: b, Plain: fmt.Sprintf("<PNG image, %d bytes>", len(b))}
}

// SVG marks s as an SVG image.
func SVG(s string) Data { return Data{MIME: "image/svg+xml", Content: s, Plain: "<SVG image>"} }

// JSON shows v (anything encoding/json accepts) as application/json. A value
// that cannot be encoded is shown as the encoding error.
func JSON(v any) Data {
	b, err := json.Marshal(v)
	if err != nil {
		return Text("display.JSON: " + err.Error())
	}
	return Data{MIME: "application/json", Content: json.RawMessage(b), Plain: string(b)}
}

var nextID atomic.Int64

// newID returns a display id unique in this kernel's process and across
// kernels: "tracebook-PID-N".
func newID() string { return fmt.Sprintf("tracebook-%d-%d", nextPid, nextID.Add(1)) }

// Handle is an updatable display.
type Handle struct {
	id string
}

// Updatable shows v and returns a handle to replace it later in place.
func Updatable(v any) *Handle {
	h := &Handle{id: newID()}
	if s := currentSink(); s != nil {
		data, md := Bundle(v)
		if data == nil {
			data, md = map[string]any{"text/plain": ""}, map[string]any{}
		}
		s.Display(data, md, h.id, false)
	}
	return h
}

// ID returns the display id (the Jupyter display_id).
func (h *Handle) ID() string { return h.id }

// Update replaces the display's content with v.
func (h *Handle) Update(v any) {
	s := currentSink()
	if s == nil {
		return
	}
	data, md := Bundle(v)
	if data == nil {
		data, md = map[string]any{"text/plain": ""}, map[string]any{}
	}
	s.Display(data, md, h.id, true)
}

// String describes the handle (shown if a handle is a cell's value).
func (h *Handle) String() string { return "display " + h.id }
