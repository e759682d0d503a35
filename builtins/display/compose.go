package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"reflect"
	"strings"
)

// VegaLiteMIME is the MIME type under which a figure's bundle holds its interactive Vega-Lite
// v5 spec (plotting.VegaLiteMIME).
const VegaLiteMIME = "application/vnd.vegalite.v5+json"

// Composition is how a result shows in a notebook, the same for every method: the headline,
// an optional preformatted text, the table (usually the first rows of Table()), an optional
// note on the table and the figures. Its MIMEBundle is what a result's MIMEBundle returns;
// Compose builds the common case.
type Composition struct {
	// Headline is the result's summary: its first line in bold, the others under it.
	Headline string
	// Text is shown preformatted under the headline (not wrapped: it scrolls sideways), for
	// text whose columns matter, such as aligned sequences; "" for none.
	Text string
	// Table is shown under the headline (and Text); nil for none.
	Table MIMEBundler
	// Note is a line under the table, such as "first 20 of 1,234 rows; Table() has them all".
	Note string
	// Figures are shown under the table, in order; nil entries are skipped.
	Figures []MIMEBundler
}

// Compose returns the MIME bundle of a result: headline, table and figures, as
// Composition{Headline: headline, Table: table, Figures: figures}.MIMEBundle() does. A
// result type implements MIMEBundle with it:
//
//	func (r *Result) MIMEBundle() map[string]any {
//		return display.Compose(r.Headline(), r.Table().Head(20), r.Plot())
//	}
func Compose(headline string, table MIMEBundler, figures ...MIMEBundler) map[string]any {
	return Composition{Headline: headline, Table: table, Figures: figures}.MIMEBundle()
}

// MIMEBundle renders the composition as one HTML block, with its text form under
// "text/plain". A figure shows as the image of its own bundle (a PNG at the size its
// MIMEMetadata gives, or its SVG); a figure whose bundle also holds a Vega-Lite spec
// (VegaLiteMIME: plotting's timelines, heatmaps, matrices and line charts) shows it as its
// interactive view in place of the image, as the figure alone does: a script beside the image
// draws the spec with vega-embed (the page's, or loaded from cdn.jsdelivr.net as Altair's HTML
// output does) and removes the image once the view is drawn. Where scripts do not run
// (GitHub, an untrusted notebook) or the library cannot load (offline), the image stays. One
// bundle cannot carry the spec beside the HTML: a front end shows one MIME type of a bundle,
// and JupyterLab prefers HTML to Vega-Lite.
func (c Composition) MIMEBundle() map[string]any {
	var h, p strings.Builder
	h.WriteString(`<div class="tracebook-result">`)
	if c.Headline != "" {
		h.WriteString("<p>")
		for i, l := range strings.Split(strings.TrimRight(c.Headline, "\n"), "\n") {
			if i == 0 {
				fmt.Fprintf(&h, "<b>%s</b>", html.EscapeString(l))
			} else {
				fmt.Fprintf(&h, "<br>%s", html.EscapeString(l))
			}
		}
		h.WriteString("</p>")
		p.WriteString(strings.TrimRight(c.Headline, "\n"))
	}
	if c.Text != "" {
		fmt.Fprintf(&h, `<pre style="white-space:pre;overflow-x:auto">%s</pre>`, html.EscapeString(strings.TrimRight(c.Text, "\n")))
		line(&p, c.Text)
	}
	if !isNil(c.Table) {
		b := c.Table.MIMEBundle()
		h.WriteString(htmlOf(b))
		line(&p, plainOf(b))
	}
	if c.Note != "" {
		fmt.Fprintf(&h, "<p>%s</p>", html.EscapeString(c.Note))
		line(&p, c.Note)
	}
	for _, f := range c.Figures {
		if isNil(f) {
			continue
		}
		b := f.MIMEBundle()
		var md map[string]any
		if m, ok := f.(MIMEMetadataer); ok {
			md = m.MIMEMetadata()
		}
		h.WriteString(figureHTML(b, md))
		line(&p, plainOf(b))
	}
	h.WriteString("</div>")
	return map[string]any{"text/html": h.String(), "text/plain": p.String()}
}

// line appends s to the text form, on a line of its own.
func line(p *strings.Builder, s string) {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return
	}
	if p.Len() > 0 {
		p.WriteString("\n")
	}
	p.WriteString(s)
}

// isNil reports whether b is nil or a nil pointer, map or slice in an interface.
func isNil(b MIMEBundler) bool {
	if b == nil {
		return true
	}
	v := reflect.ValueOf(b)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func:
		return v.IsNil()
	}
	return false
}

// text returns a text-type value of a bundle as a string.
func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

// plainOf is a bundle's text/plain.
func plainOf(b map[string]any) string {
	s, _ := text(b["text/plain"])
	return s
}

// htmlOf is a bundle's HTML: its text/html, else its text/plain preformatted.
func htmlOf(b map[string]any) string {
	if s, ok := text(b["text/html"]); ok {
		return s
	}
	if s := plainOf(b); s != "" {
		return "<pre>" + html.EscapeString(s) + "</pre>"
	}
	return ""
}

// figureHTML is a figure's image (its PNG at its metadata's size, else its HTML, else its SVG
// as an <img>), with its interactive view when its bundle holds a Vega-Lite spec.
func figureHTML(b, md map[string]any) string {
	var img string
	alt := html.EscapeString(plainOf(b))
	switch png, svg := b["image/png"], b["image/svg+xml"]; {
	case png != nil:
		data, ok := png.([]byte)
		if !ok {
			s, _ := png.(string) // already base64, as a kernel sends it
			data, _ = base64.StdEncoding.DecodeString(s)
		}
		img = fmt.Sprintf(`<img src="data:image/png;base64,%s"%s alt="%s">`, base64.StdEncoding.EncodeToString(data), size(md, "image/png"), alt)
	case b["text/html"] != nil:
		img = htmlOf(b)
	case svg != nil:
		s, _ := text(svg)
		img = fmt.Sprintf(`<img src="data:image/svg+xml;base64,%s"%s alt="%s">`, base64.StdEncoding.EncodeToString([]byte(s)), size(md, "image/svg+xml"), alt)
	default:
		img = htmlOf(b)
	}
	spec := specJSON(b[VegaLiteMIME])
	if spec == nil {
		return "<div>" + img + "</div>"
	}
	id := fmt.Sprintf("tracebook-vega-%d-%d", nextPid, nextID.Add(1))
	return fmt.Sprintf(`<div id="%s">%s</div><script type="text/javascript">%s</script>`, id, img,
		strings.NewReplacer("__ID__", id, "__SPEC__", string(spec)).Replace(embedScript))
}

// size is the width and height attributes of an image from the display metadata of its MIME
// type ({"width": W, "height": H}), "" if it has none.
func size(md map[string]any, mime string) string {
	m, _ := md[mime].(map[string]any)
	w, h := m["width"], m["height"]
	if w == nil || h == nil {
		return ""
	}
	return fmt.Sprintf(` width="%v" height="%v"`, w, h)
}

// specJSON is the JSON of a Vega-Lite spec as a bundle holds it (json.RawMessage, []byte,
// string or a value encoding/json encodes), escaped for a <script> element (no "<", ">", "&",
// U+2028 or U+2029 left); nil if there is none or it is not JSON.
func specJSON(v any) []byte {
	var raw []byte
	switch x := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	case string:
		raw = []byte(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		raw = b
	}
	if !json.Valid(raw) {
		return nil
	}
	var out bytes.Buffer
	json.HTMLEscape(&out, raw)
	return out.Bytes()
}

// embedScript draws the spec __SPEC__ into the element with the id __ID__, the one just before
// the script, in front of the image it holds, and removes the image once the view is drawn. It
// uses the page's vegaEmbed if there is one, RequireJS where the page has it (Notebook 6), else
// loads vega, vega-lite and vega-embed with script elements, once per page; any failure leaves
// the image.
const embedScript = `(function () {
  var s = document.currentScript, el = s && s.previousElementSibling;
  if (!el || el.id !== "__ID__") { el = document.getElementById("__ID__"); }
  if (!el || typeof Promise !== "function") { return; }
  var spec = __SPEC__;
  var cdn = "https://cdn.jsdelivr.net/npm/", w = window;
  function lib() {
    if (typeof w.vegaEmbed === "function") { return Promise.resolve(w.vegaEmbed); }
    if (typeof w.define === "function" && w.define.amd && typeof w.requirejs === "function") {
      return new Promise(function (ok, fail) {
        w.requirejs.config({paths: {"vega": cdn + "vega@5?noext", "vega-lite": cdn + "vega-lite@5?noext", "vega-embed": cdn + "vega-embed@6?noext"}});
        w.requirejs(["vega-embed"], ok, fail);
      });
    }
    if (!w.tracebookVegaEmbed) {
      w.tracebookVegaEmbed = ["vega@5", "vega-lite@5", "vega-embed@6"].reduce(function (p, name) {
        return p.then(function () {
          return new Promise(function (ok, fail) {
            var t = document.createElement("script");
            t.src = cdn + name;
            t.onload = ok;
            t.onerror = fail;
            document.head.appendChild(t);
          });
        });
      }, Promise.resolve()).then(function () { return w.vegaEmbed; }, function (e) { w.tracebookVegaEmbed = null; throw e; });
    }
    return w.tracebookVegaEmbed;
  }
  lib().then(function (vegaEmbed) {
    var img = el.firstElementChild, view = document.createElement("div");
    el.insertBefore(view, img);
    return vegaEmbed(view, spec, {actions: false}).then(function () {
      if (img && img.parentNode === el) { el.removeChild(img); }
    }, function () { el.removeChild(view); });
  }, function () {});
})();`
