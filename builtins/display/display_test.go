package display

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

type rec struct {
	mu     sync.Mutex
	events []string
	last   map[string]any
	lastMD map[string]any
}

func (r *rec) Display(data, md map[string]any, id string, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kind := "display"
	if update {
		kind = "update"
	}
	r.events = append(r.events, kind+":"+id)
	r.last = data
	r.lastMD = md
}
func (r *rec) Clear(wait bool) { r.events = append(r.events, "clear") }

type custom struct{}

func (custom) MIMEBundle() map[string]any {
	return map[string]any{"image/png": []byte{1, 2}, "text/html": []byte("<b>x</b>")}
}

func TestBundleRules(t *testing.T) {
	cases := []struct {
		v    any
		mime string
		want any
	}{
		{"hi", "text/plain", `"hi"`},
		{42, "text/plain", "42"},
		{errors.New("boom"), "text/plain", "error: boom"},
		{HTML("<b>"), "text/html", "<b>"},
		{Markdown("# t"), "text/markdown", "# t"},
		{Text("plain"), "text/plain", "plain"},
		{SVG("<svg/>"), "image/svg+xml", "<svg/>"},
		{custom{}, "text/html", "<b>x</b>"},
	}
	for _, c := range cases {
		d, _ := Bundle(c.v)
		if got := d[c.mime]; got != c.want {
			t.Errorf("Bundle(%#v)[%s] = %#v, want %#v", c.v, c.mime, got, c.want)
		}
		if _, ok := d["text/plain"]; !ok {
			t.Errorf("Bundle(%#v) has no text/plain", c.v)
		}
	}
	d, _ := Bundle(custom{})
	if b, ok := d["image/png"].([]byte); !ok || len(b) != 2 {
		t.Errorf("png not kept as bytes: %#v", d["image/png"])
	}
	if d, _ := Bundle(nil); d != nil {
		t.Errorf("nil rendered: %v", d)
	}
	var np *Progress
	if d, _ := Bundle(np); d == nil || d["text/plain"] == nil {
		t.Errorf("nil pointer bundler: %v", d)
	}
	j := JSON(map[string]int{"a": 1})
	if j.Plain != `{"a":1}` {
		t.Errorf("JSON plain %q", j.Plain)
	}
	if bad := JSON(func() {}); !strings.Contains(bad.Content.(string), "unsupported type") {
		t.Errorf("JSON of func: %#v", bad)
	}
}

func TestSinkAndUpdates(t *testing.T) {
	Show(1) // no sink: no-op, no panic
	r := &rec{}
	SetSink(r)
	defer SetSink(nil)
	Show("x")
	h := Updatable(Text("a"))
	h.Update(Text("b"))
	Clear()
	if len(r.events) != 4 || r.events[0] != "display:" || r.events[1] != "display:"+h.ID() || r.events[2] != "update:"+h.ID() || r.events[3] != "clear" {
		t.Fatalf("events %v", r.events)
	}
	if r.last == nil || r.last["text/plain"] != "b" {
		t.Fatalf("update content %v", r.last)
	}
}

func TestProgress(t *testing.T) {
	r := &rec{}
	SetSink(r)
	defer SetSink(nil)
	p := NewProgress("load", 10)
	for i := 0; i < 10; i++ {
		p.Set(i) // rate-limited: at most one update per 100 ms
	}
	p.Done()
	if len(r.events) < 2 || r.events[0][:8] != "display:" || r.events[len(r.events)-1][:7] != "update:" {
		t.Fatalf("events %v", r.events)
	}
	if len(r.events) > 3 {
		t.Errorf("progress not rate-limited: %d events", len(r.events))
	}
	if s := p.String(); !strings.Contains(s, "100%") || !strings.Contains(s, "10/10") {
		t.Errorf("final bar %q", s)
	}
	var nilp *Progress
	nilp.Set(3)
	nilp.Done()
}

// PNG and JSON bundles, encoded as the kernel sends them (encoding/json),
// carry base64 image bytes and the JSON value itself, as Jupyter expects.
func TestPNGAndJSONOnTheWire(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nrest")
	data, _ := Bundle(PNG(png))
	wire, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatal(err)
	}
	if got["image/png"] != base64.StdEncoding.EncodeToString(png) || got["text/plain"] != "<PNG image, 12 bytes>" {
		t.Fatalf("PNG bundle on the wire: %v", got)
	}
	data, _ = Bundle(JSON(map[string]any{"a": []int{1, 2}}))
	wire, _ = json.Marshal(data)
	got = nil
	json.Unmarshal(wire, &got)
	if v, ok := got["application/json"].(map[string]any); !ok || fmt.Sprint(v["a"]) != "[1 2]" {
		t.Fatalf("JSON bundle on the wire: %v", got)
	}
	if d := JSON(func() {}); d.MIME != "text/plain" || !strings.Contains(d.Content.(string), "display.JSON") {
		t.Fatalf("unencodable JSON: %+v", d)
	}
}

type sized struct{ custom }

func (sized) MIMEMetadata() map[string]any {
	return map[string]any{"image/png": map[string]any{"width": 320, "height": 160}}
}

func TestBundleMetadata(t *testing.T) {
	_, md := Bundle(sized{})
	png, ok := md["image/png"].(map[string]any)
	if !ok || png["width"] != 320 || png["height"] != 160 {
		t.Errorf("metadata %#v, want the image/png size from MIMEMetadata", md)
	}
	if _, md := Bundle(custom{}); md == nil || len(md) != 0 {
		t.Errorf("metadata of a plain bundler %#v, want empty", md)
	}
	r := &rec{}
	SetSink(r)
	defer SetSink(nil)
	Show(sized{})
	if _, ok := r.lastMD["image/png"]; !ok {
		t.Errorf("Show passed metadata %#v to the sink", r.lastMD)
	}
}

// SVG also goes out as an <img> data URI in text/html, which nbconvert's
// sanitiser keeps (it strips inline SVG to a blank box).
func TestSVGAlsoAsImgDataURI(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`
	data, _ := Bundle(SVG(svg))
	h, _ := data["text/html"].(string)
	const pre = `<img src="data:image/svg+xml;base64,`
	if !strings.HasPrefix(h, pre) || data["image/svg+xml"] != svg {
		t.Fatalf("SVG bundle %v", data)
	}
	enc := strings.TrimPrefix(h, pre)
	enc = enc[:strings.IndexByte(enc, '"')]
	if dec, err := base64.StdEncoding.DecodeString(enc); err != nil || string(dec) != svg {
		t.Fatalf("data URI holds %q (%v)", dec, err)
	}
}
