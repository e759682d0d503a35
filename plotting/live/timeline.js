// The interactive view of plotting.LiveTimeline: plain JS and canvas 2D, no network. Defined once
// per page (window.tracebookTimeline, replaced only by a newer version); each .tb-timeline
// element is mounted by the inline script that follows it.
(function () {
  "use strict";
  var VERSION = 1;
  var old = window.tracebookTimeline;
  if (old && old.version >= VERSION) return;
  var NS = window.tracebookTimeline = { version: VERSION };

  // ---- decoding -------------------------------------------------------------------------------
  function bytes(s) {
    var bin = atob(s), n = bin.length, u = new Uint8Array(n);
    for (var i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
    return u;
  }
  function Reader(u) { this.u = u; this.p = 0; }
  Reader.prototype.uv = function () {
    var x = 0, m = 1, b;
    do { b = this.u[this.p++]; x += (b & 127) * m; m *= 128; } while (b & 128);
    return x;
  };
  Reader.prototype.zz = function () { var v = this.uv(); return v % 2 ? -(v + 1) / 2 : v / 2; };
  Reader.prototype.more = function () { return this.p < this.u.length; };

  function decodeBars(str, merged) {
    var r = new Reader(bytes(str)), S = [], E = [], L = [], N = [], prev = 0;
    while (r.more()) {
      var s = prev + r.zz(), e = s + r.uv();
      S.push(s); E.push(e); L.push(r.uv()); N.push(merged ? r.uv() : 1);
      prev = e;
    }
    return { s: S, e: E, l: L, n: N };
  }
  function decodeMsgs(str, n) {
    var r = new Reader(bytes(str || "")), out = [], prev = 0;
    while (r.more()) {
      var m = { from: r.uv(), to: r.uv() };
      m.send = prev + r.zz(); m.recv = m.send + r.zz(); m.bytes = r.zz(); m.tag = r.zz(); m.comm = r.uv();
      prev = m.send;
      out.push(m);
    }
    return out;
  }
  // first index i with e[i] > t (bars of one level do not overlap: ends are sorted too)
  function firstEndAfter(b, t) {
    var lo = 0, hi = b.e.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (b.e[m] > t) hi = m; else lo = m + 1; }
    return lo;
  }
  // index of the bar containing [s, e], or -1
  function containing(b, s, e) {
    var lo = 0, hi = b.s.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (b.s[m] <= s) lo = m + 1; else hi = m; }
    var i = lo - 1;
    return i >= 0 && b.e[i] >= e ? i : -1;
  }

  // ---- formatting -----------------------------------------------------------------------------
  function unitFor(span) {
    if (span < 1e4) return ["ns", 1];
    if (span < 1e7) return ["µs", 1e3];
    if (span < 1e10) return ["ms", 1e6];
    return ["s", 1e9];
  }
  function fmtDur(ns) {
    var u = unitFor(Math.abs(ns) * 10);
    return +(ns / u[1]).toPrecision(4) + " " + u[0];
  }
  function fmtTime(ns, span) {
    var u = unitFor(span), digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(span / u[1] / 1000))));
    return (ns / u[1]).toFixed(digits) + " " + u[0];
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function el(tag, cls, parent, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // ---- the view -------------------------------------------------------------------------------
  var NAME_W = 150, AXIS_H = 28, CALLS = 0, ACCEL = 1, COUNTER = 2, FOLDED = 3, STATES = 4;

  function View(root, d) {
    var v = this;
    ["notes", "comms", "markers", "shades", "legend", "levels", "lanes"].forEach(function (k) { if (!d[k]) d[k] = []; });
    v.root = root; v.d = d;
    v.cache = {};
    v.msgs = decodeMsgs(d.msgs, d.nmsgs);
    v.t0 = d.t0; v.t1 = d.t1;
    v.showMsgs = true;
    root.style.position = "relative";
    root.style.outline = "none";
    root.setAttribute("tabindex", "0");
    var fb = root.querySelector("img.tb-fallback");
    if (fb) fb.style.display = "none";

    var bar = el("div", "tb-toolbar", root);
    bar.style.cssText = "display:flex;gap:4px;align-items:center;margin:2px 0;font:12px sans-serif";
    function button(label, title, f) {
      var b = el("button", "tb-btn", bar, label);
      b.title = title; b.type = "button";
      b.style.cssText = "font:12px sans-serif;padding:1px 6px";
      b.addEventListener("click", function (ev) { ev.preventDefault(); f(); });
      return b;
    }
    if (d.title) { var t = el("b", "tb-title", bar, d.title); t.style.marginRight = "8px"; }
    v.resetBtn = button("reset", "show the initial range (key 0)", function () { v.setRange(d.t0, d.t1); });
    button("−", "zoom out (key -)", function () { v.zoom(2, 0.5); });
    button("+", "zoom in (key +)", function () { v.zoom(0.5, 0.5); });
    button("◀", "pan left (←)", function () { v.pan(-0.25); });
    button("▶", "pan right (→)", function () { v.pan(0.25); });
    if (v.msgs.length) {
      var lab = el("label", "", bar), cb = el("input", "tb-msgs", lab);
      cb.type = "checkbox"; cb.checked = true;
      lab.appendChild(document.createTextNode(" messages"));
      cb.addEventListener("change", function () { v.showMsgs = cb.checked; v.draw(); });
    }
    v.rangeText = el("span", "tb-range", bar);
    v.rangeText.style.cssText = "margin-left:8px;color:#555";

    v.canvas = el("canvas", "tb-canvas", root);
    v.canvas.style.cssText = "display:block;cursor:crosshair;touch-action:none";
    v.tip = el("div", "tb-tip", root);
    v.tip.style.cssText = "display:none;position:absolute;z-index:10;pointer-events:none;background:#fffff0;border:1px solid #888;padding:3px 6px;font:12px sans-serif;white-space:pre;box-shadow:1px 1px 3px #aaa";
    v.path = el("div", "tb-path", root);
    v.path.style.cssText = "display:none;margin:4px 0;padding:4px 6px;border:1px solid #bbb;background:#f6f8fa;font:12px sans-serif;white-space:pre-wrap";
    v.legend = el("div", "tb-legend", root);
    v.legend.style.cssText = "font:12px sans-serif;margin:4px 0;display:flex;flex-wrap:wrap;gap:2px 12px";
    var shown = d.legend.slice(0, 24);
    shown.forEach(function (id) {
      var it = el("span", "tb-legend-item", v.legend);
      var sw = el("span", "", it); sw.style.cssText = "display:inline-block;width:10px;height:10px;margin-right:4px;background:" + d.colors[id];
      it.appendChild(document.createTextNode(d.labels[id]));
    });
    if (d.legend.length > shown.length) el("span", "", v.legend, "+" + (d.legend.length - shown.length) + " more");
    v.summaryBox = el("div", "tb-summary-box", root);
    v.summaryBox.style.cssText = "max-height:260px;overflow:auto;font:12px sans-serif;margin:4px 0";
    var notes = el("div", "tb-notes", root);
    notes.style.cssText = "font:11px sans-serif;color:#8a4b00";
    d.notes.forEach(function (n) { el("div", "", notes, n); });
    el("div", "", notes, "wheel: zoom · drag: zoom to range · shift+drag or drag on the axis: pan · click a bar: call path").style.color = "#777";

    v.layout();
    v.bind();
    root.tbTimeline = {
      setRange: function (a, b) { v.setRange(a, b); v.flush(); },
      range: function () { return [v.t0, v.t1]; },
      summary: function () { v.flush(); v.updateSummary(); return v.summary.map(function (r) { return { label: r.label, ns: r.ns }; }); },
      pixelOf: function (lane, level, t) { return v.pixelOf(lane, level, t); },
      probe: function () { v.flush(); return v.probe(); },
      level: function () { return v.lv.res; },
      // midpoints and ends of the drawn message lines, in client coordinates
      messages: function () {
        v.flush();
        var r = v.canvas.getBoundingClientRect();
        return v.drawnMsgs.map(function (q) {
          return { x: r.left + (q[0] + q[2]) / 2, y: r.top + (q[1] + q[3]) / 2, bytes: q[4].bytes,
            x0: r.left + q[0], y0: r.top + q[1], x1: r.left + q[2], y1: r.top + q[3] };
        });
      }
    };
    root.setAttribute("data-tb-mounted", "1");
    v.setRange(v.t0, v.t1);
    v.flush();
    if (window.ResizeObserver) {
      new ResizeObserver(function () { if (v.width() !== v.W) { v.layout(); v.draw(); } }).observe(root);
    }
  }

  View.prototype.width = function () { return Math.max(400, this.root.clientWidth || 900); };

  View.prototype.layout = function () {
    var v = this, d = v.d;
    v.W = v.width();
    var depthSum = 0;
    d.lanes.forEach(function (l) { if (l.kind === CALLS || l.kind === ACCEL) depthSum += Math.max(1, l.depth); });
    v.sub = Math.max(2, Math.min(12, Math.floor(560 / Math.max(1, depthSum))));
    v.laneTop = []; v.laneH = [];
    var y = 4;
    d.lanes.forEach(function (l) {
      var h;
      if (l.kind === CALLS || l.kind === ACCEL) h = Math.max(1, l.depth) * v.sub + 4;
      else if (l.kind === COUNTER) h = 30;
      else h = 14;
      h = Math.max(h, d.lanes.length > 40 ? 6 : 14);
      v.laneTop.push(y); v.laneH.push(h); y += h;
    });
    v.plotH = y + 2;
    v.H = v.plotH + AXIS_H;
    v.plotW = v.W - NAME_W - 8;
    var dpr = window.devicePixelRatio || 1;
    v.canvas.width = Math.round(v.W * dpr); v.canvas.height = Math.round(v.H * dpr);
    v.canvas.style.width = v.W + "px"; v.canvas.style.height = v.H + "px";
    v.ctx = v.canvas.getContext("2d");
    v.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  };

  View.prototype.x = function (t) { return NAME_W + (t - this.t0) / (this.t1 - this.t0) * this.plotW; };
  View.prototype.tAt = function (x) { return this.t0 + (x - NAME_W) / this.plotW * (this.t1 - this.t0); };

  View.prototype.bars = function (lvi, lane, depth) {
    var key = lvi + "/" + lane + "/" + depth, c = this.cache[key];
    if (!c) {
      var lv = this.d.levels[lvi];
      c = this.cache[key] = decodeBars(lv.bars[lane][depth], lv.res > 0);
    }
    return c;
  };

  // The level drawn: the coarsest whose resolution is at most a pixel, else the finest.
  View.prototype.pickLevel = function () {
    var ls = this.d.levels, px = (this.t1 - this.t0) / this.plotW;
    for (var i = 0; i < ls.length; i++) if (ls[i].res <= px) return i;
    return ls.length - 1;
  };

  View.prototype.setRange = function (a, b) {
    var v = this, d = v.d;
    if (!(b > a)) return;
    if (b - a < 10) { var c = (a + b) / 2; a = c - 5; b = c + 5; }
    var maxSpan = (d.hi - d.lo) * 4 + 10;
    if (b - a > maxSpan) { var m = (a + b) / 2; a = m - maxSpan / 2; b = m + maxSpan / 2; }
    v.t0 = a; v.t1 = b;
    v.root.setAttribute("data-t0", String(Math.round(a)));
    v.root.setAttribute("data-t1", String(Math.round(b)));
    var span = b - a;
    v.rangeText.textContent = fmtTime(a, span) + " – " + fmtTime(b, span) + "  (" + fmtDur(span) + ")";
    v.draw();
  };
  View.prototype.zoom = function (f, at) {
    var c = this.t0 + at * (this.t1 - this.t0), s = (this.t1 - this.t0) * f;
    this.setRange(c - at * s, c - at * s + s);
  };
  View.prototype.pan = function (f) {
    var s = (this.t1 - this.t0) * f;
    this.setRange(this.t0 + s, this.t1 + s);
  };
  View.prototype.draw = function () {
    var v = this;
    if (v.pending) return;
    v.pending = true;
    (window.requestAnimationFrame || setTimeout)(function () { v.flush(); });
  };
  // flush draws now if a draw is pending; the summary follows 150 ms after the last change
  // (it walks all bars in view), or at once when asked for (summary()).
  View.prototype.flush = function () {
    var v = this;
    if (!v.pending && v.drawn) return;
    v.pending = false;
    v.render();
    v.drawn = true;
    v.summaryDirty = true;
    clearTimeout(v.summaryTimer);
    v.summaryTimer = setTimeout(function () { v.updateSummary(); }, 150);
  };
  View.prototype.updateSummary = function () {
    if (this.summaryDirty) { this.summaryDirty = false; this.computeSummary(); }
  };

  View.prototype.render = function () {
    var v = this, d = v.d, ctx = v.ctx, t0 = v.t0, t1 = v.t1, px = (t1 - t0) / v.plotW;
    var lvi = v.pickLevel(), lv = d.levels[lvi];
    v.lvi = lvi; v.lv = lv || { res: 0 };
    v.hits = [];
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, v.W, v.H);
    ctx.save();
    ctx.beginPath(); ctx.rect(NAME_W, 0, v.plotW, v.plotH); ctx.clip();
    // shades
    d.shades.forEach(function (s) {
      var x0 = v.x(s[1]), x1 = v.x(s[2]);
      if (x1 < NAME_W || x0 > NAME_W + v.plotW) return;
      ctx.fillStyle = "rgba(120,120,120,0.18)";
      if (s[0] < 0) ctx.fillRect(x0, 0, Math.max(1, x1 - x0), v.plotH);
      else ctx.fillRect(x0, v.laneTop[s[0]], Math.max(1, x1 - x0), v.laneH[s[0]]);
    });
    ctx.font = "10px sans-serif"; ctx.textBaseline = "middle";
    d.lanes.forEach(function (l, li) {
      var top = v.laneTop[li], h = v.laneH[li];
      var rows = [];
      v.hits.push(rows);
      if (li > 0) { ctx.fillStyle = "#e6e6e6"; ctx.fillRect(NAME_W, top - 0.5, v.plotW, 0.5); }
      if (l.kind === COUNTER) { v.drawCounter(l, top, h); return; }
      if (!lv) return;
      var full = l.kind === FOLDED || l.kind === STATES;
      for (var dd = 0; dd < l.depth; dd++) {
        var y0 = full ? top + 2 : top + 2 + dd * v.sub, bh = full ? h - 4 : v.sub - (v.sub > 4 ? 1 : 0);
        var b = v.bars(lvi, li, dd), out = { x0: [], x1: [], l: [], n: [], s: [], e: [], y0: y0, h: bh };
        rows.push(out);
        var i = firstEndAfter(b, t0), n = b.s.length;
        var g = null;
        var flushG = function () {
          if (!g) return;
          var x0 = v.x(g.s), x1 = Math.max(v.x(g.e), x0 + 1);
          ctx.fillStyle = d.colors[g.l] || "#999";
          ctx.fillRect(x0, y0, x1 - x0, bh);
          out.x0.push(x0); out.x1.push(x1); out.l.push(g.l); out.n.push(g.n); out.s.push(g.s); out.e.push(g.e);
          if (g.n === 1 && bh >= 9 && x1 - x0 > 30) {
            var text = d.labels[g.l], w = ctx.measureText(text).width;
            if (w + 6 < x1 - x0) {
              ctx.fillStyle = lum(d.colors[g.l]) < 0.45 ? "#fff" : "#000";
              ctx.fillText(text, (Math.max(x0, NAME_W) + Math.min(x1, NAME_W + v.plotW)) / 2 - w / 2, y0 + bh / 2);
            }
          }
          g = null;
        };
        for (; i < n && b.s[i] < t1; i++) {
          var s = b.s[i], e = b.e[i], dur = e - s;
          if (g && dur < px && g.e - g.s < px && s - g.e < px && Math.max(g.e, e) - g.s <= px) {
            g.e = Math.max(g.e, e); g.n += b.n[i];
            if (dur > g.w) { g.w = dur; g.l = b.l[i]; }
            continue;
          }
          flushG();
          g = { s: s, e: e, l: b.l[i], n: b.n[i], w: dur };
        }
        flushG();
      }
      if (l.kind === FOLDED) { ctx.strokeStyle = "#666"; ctx.setLineDash([3, 2]); ctx.strokeRect(NAME_W + 0.5, top + 1.5, v.plotW - 1, h - 3); ctx.setLineDash([]); }
    });
    // markers
    ctx.fillStyle = "#222";
    d.markers.forEach(function (m) {
      if (m[2] < t0 || m[1] > t1) return;
      var x0 = v.x(m[1]), x1 = Math.max(v.x(m[2]), x0 + 2), top = v.laneTop[m[0]];
      ctx.fillRect(x0, top, x1 - x0, 3);
      ctx.beginPath(); ctx.moveTo(x0 - 3, top); ctx.lineTo(x0 + 3, top); ctx.lineTo(x0, top + 5); ctx.fill();
    });
    // messages
    v.drawnMsgs = [];
    if (v.showMsgs) {
      ctx.strokeStyle = "#000"; ctx.lineWidth = 1.2;
      ctx.beginPath();
      for (var k = 0; k < v.msgs.length && v.drawnMsgs.length < 30000; k++) {
        var m = v.msgs[k];
        if (Math.max(m.send, m.recv) < t0 || Math.min(m.send, m.recv) > t1) continue;
        var xa = v.x(m.send), ya = v.laneTop[m.from] + v.laneH[m.from] / 2, xb = v.x(m.recv), yb = v.laneTop[m.to] + v.laneH[m.to] / 2;
        ctx.moveTo(xa, ya); ctx.lineTo(xb, yb);
        v.drawnMsgs.push([xa, ya, xb, yb, m]);
      }
      ctx.stroke();
    }
    ctx.restore();
    // lane names
    ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
    d.lanes.forEach(function (l, li) {
      var y = v.laneTop[li] + Math.min(v.laneH[li], 14) / 2 + (v.laneH[li] > 14 ? 2 : 0);
      ctx.fillStyle = l.kind === COUNTER ? "#2a6f2a" : l.kind === ACCEL ? "#7a3b8f" : "#222";
      ctx.font = (l.kind === FOLDED ? "italic " : "") + (v.laneH[li] < 11 ? "9px" : "11px") + " sans-serif";
      var name = (l.kind === FOLDED ? "▸ " : "") + l.name;
      while (name.length > 3 && ctx.measureText(name).width > NAME_W - 8) name = name.slice(0, -2) + "…";
      if (v.laneH[li] >= 6) ctx.fillText(name, 4, y);
    });
    // axis
    var ay = v.plotH;
    ctx.fillStyle = "#f4f4f4"; ctx.fillRect(NAME_W, ay, v.plotW, AXIS_H);
    ctx.strokeStyle = "#888"; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(NAME_W, ay + 0.5); ctx.lineTo(NAME_W + v.plotW, ay + 0.5); ctx.stroke();
    var span = t1 - t0, raw = span / Math.max(1, v.plotW / 100), p10 = Math.pow(10, Math.floor(Math.log10(raw))), step = p10;
    [1, 2, 5, 10].some(function (m) { step = m * p10; return m * p10 >= raw; });
    var u = unitFor(span), base = 0;
    // Deep in a long trace, ticks count from a round base time (named under the axis title), so
    // that they stay short.
    if (Math.abs(t0) > span * 100) { var p10b = Math.pow(10, Math.ceil(Math.log10(span))); base = Math.floor(t0 / p10b) * p10b; }
    ctx.fillStyle = "#333"; ctx.font = "10px sans-serif"; ctx.textBaseline = "top";
    for (var tt = Math.ceil(t0 / step) * step; tt <= t1; tt += step) {
      var xx = v.x(tt);
      ctx.fillRect(xx, ay, 1, 4);
      var txt = (base ? "+" : "") + +((tt - base) / u[1]).toPrecision(12);
      ctx.fillText(txt, xx - ctx.measureText(txt).width / 2, ay + 6);
    }
    ctx.fillText("time [" + u[0] + "]", 4, ay + 3);
    if (base) { var ub = unitFor(Math.abs(base)); ctx.fillText("from " + +(base / ub[1]).toPrecision(12) + " " + ub[0], 4, ay + 15); }
    if (v.sel) {
      ctx.fillStyle = "rgba(30,100,200,0.2)";
      ctx.fillRect(Math.min(v.sel[0], v.sel[1]), 0, Math.abs(v.sel[1] - v.sel[0]), v.plotH);
    }
  };

  function lum(hex) {
    var n = parseInt(hex.slice(1), 16);
    return (0.2126 * (n >> 16 & 255) + 0.7152 * (n >> 8 & 255) + 0.0722 * (n & 255)) / 255;
  }

  View.prototype.drawCounter = function (l, top, h) {
    var v = this, s = l.samples || [], ctx = v.ctx;
    if (!s.length) return;
    if (l.min == null) {
      l.min = Infinity; l.max = -Infinity;
      for (var i = 1; i < s.length; i += 2) { l.min = Math.min(l.min, s[i]); l.max = Math.max(l.max, s[i]); }
    }
    var lo = Math.min(0, l.min), range = l.max - lo || 1;
    ctx.strokeStyle = "#2a6f2a"; ctx.lineWidth = 1; ctx.beginPath();
    var started = false, lastY = 0;
    for (var j = 0; j < s.length; j += 2) {
      var x = v.x(s[j]), y = top + h - 2 - (s[j + 1] - lo) / range * (h - 4);
      if (!started) { ctx.moveTo(x, y); started = true; } else { ctx.lineTo(x, lastY); ctx.lineTo(x, y); }
      lastY = y;
    }
    ctx.lineTo(NAME_W + v.plotW, lastY);
    ctx.stroke();
    ctx.fillStyle = "#2a6f2a"; ctx.font = "9px sans-serif";
    ctx.fillText(+l.max.toPrecision(4) + (l.unit ? " " + l.unit : ""), NAME_W + v.plotW - 60, top + 6);
  };

  // Exclusive time per label over the call and accelerator lanes in [t0, t1]: each bar's clipped
  // time, minus the clipped time of the bars directly inside it (found at the nearest lower level
  // that contains them), so that the time goes to the innermost bar.
  View.prototype.computeSummary = function () {
    var v = this, d = v.d, t0 = v.t0, t1 = v.t1, lvi = v.lvi, tot = {};
    if (d.levels.length) {
      d.lanes.forEach(function (l, li) {
        if (l.kind !== CALLS && l.kind !== ACCEL) return;
        var ups = [];
        for (var dd = 0; dd < l.depth; dd++) {
          var b = v.bars(lvi, li, dd), ptr = [];
          for (var up = 0; up < dd; up++) ptr.push(Math.max(0, firstEndAfter(ups[up], t0) - 1));
          for (var i = firstEndAfter(b, t0); i < b.s.length && b.s[i] < t1; i++) {
            var s = b.s[i], e = b.e[i], c = Math.min(e, t1) - Math.max(s, t0);
            if (c <= 0) continue;
            tot[b.l[i]] = (tot[b.l[i]] || 0) + c;
            // the nearest lower level with a bar containing this one (children come in order
            // of start, so each level's pointer only moves forward)
            for (up = dd - 1; up >= 0; up--) {
              var pb = ups[up], p = ptr[up];
              while (p + 1 < pb.s.length && pb.s[p + 1] <= s) p++;
              ptr[up] = p;
              if (p < pb.s.length && pb.s[p] <= s && pb.e[p] >= e) { tot[pb.l[p]] = (tot[pb.l[p]] || 0) - c; break; }
            }
          }
          ups.push(b);
        }
      });
    }
    var rows = [];
    Object.keys(tot).forEach(function (id) { if (tot[id] > 0) rows.push({ label: d.labels[id], ns: tot[id], id: +id }); });
    rows.sort(function (a, b) { return b.ns - a.ns || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0); });
    v.summary = rows;
    var all = 0;
    rows.forEach(function (r) { all += r.ns; });
    var res = v.lv.res, h = "<table class=\"tb-summary\" style=\"border-collapse:collapse\"><caption style=\"text-align:left;font-weight:bold;white-space:nowrap\">Exclusive time in view, all call lanes" +
      (res > 0 ? " — approximate (merged at " + esc(fmtDur(res)) + ")" : "") + "</caption><thead><tr><th style=\"text-align:left;padding:0 8px\">function</th><th style=\"text-align:right;padding:0 8px\">time</th><th style=\"text-align:right;padding:0 8px\">%</th></tr></thead><tbody>";
    rows.forEach(function (r) {
      h += "<tr><td style=\"padding:0 8px\"><span style=\"display:inline-block;width:9px;height:9px;margin-right:4px;background:" + d.colors[r.id] + "\"></span>" + esc(r.label) +
        "</td><td style=\"text-align:right;padding:0 8px\" data-ns=\"" + r.ns + "\">" + esc(fmtDur(r.ns)) + "</td><td style=\"text-align:right;padding:0 8px\">" + (100 * r.ns / all).toFixed(1) + "</td></tr>";
    });
    v.summaryBox.innerHTML = h + "</tbody></table>";
  };

  // ---- hit testing ----------------------------------------------------------------------------
  View.prototype.laneAt = function (y) {
    for (var i = 0; i < this.laneTop.length; i++) if (y >= this.laneTop[i] && y < this.laneTop[i] + this.laneH[i]) return i;
    return -1;
  };
  View.prototype.barAt = function (x, y) {
    var li = this.laneAt(y);
    if (li < 0 || !this.hits[li]) return null;
    var rows = this.hits[li];
    for (var dd = 0; dd < rows.length; dd++) {
      var r = rows[dd];
      if (y < r.y0 - 0.5 || y > r.y0 + r.h + 0.5) continue;
      var lo = 0, hi = r.x0.length;
      while (lo < hi) { var m = (lo + hi) >> 1; if (r.x1[m] > x) hi = m; else lo = m + 1; }
      if (lo < r.x0.length && r.x0[lo] <= x + 0.5) return { lane: li, depth: dd, l: r.l[lo], n: r.n[lo], s: r.s[lo], e: r.e[lo] };
    }
    return null;
  };
  View.prototype.msgAt = function (x, y) {
    var best = null, bd = 4;
    (this.drawnMsgs || []).forEach(function (q) {
      var dx = q[2] - q[0], dy = q[3] - q[1], L = dx * dx + dy * dy, u = L ? ((x - q[0]) * dx + (y - q[1]) * dy) / L : 0;
      u = Math.max(0, Math.min(1, u));
      var ex = q[0] + u * dx - x, ey = q[1] + u * dy - y, dist = Math.sqrt(ex * ex + ey * ey);
      if (dist < bd) { bd = dist; best = q[4]; }
    });
    return best;
  };
  View.prototype.pixelOf = function (lane, depth, t) {
    var r = this.canvas.getBoundingClientRect(), top = this.laneTop[lane], l = this.d.lanes[lane];
    var full = l.kind === FOLDED || l.kind === STATES;
    var y = full ? top + this.laneH[lane] / 2 : top + 2 + depth * this.sub + this.sub / 2 - 0.5;
    return { x: r.left + this.x(t), y: r.top + y };
  };
  // A drawn bar for tests: the widest unmerged one at least 6 px wide at the deepest level, else
  // the widest merged group at least 3 px wide.
  View.prototype.probe = function () {
    var v = this, best = null, group = null;
    v.hits.forEach(function (rows, li) {
      rows.forEach(function (r, dd) {
        for (var i = 0; i < r.x0.length; i++) {
          var x0 = Math.max(r.x0[i], NAME_W), x1 = Math.min(r.x1[i], NAME_W + v.plotW), w = x1 - x0;
          var c = { lane: li, level: dd, t: v.tAt((x0 + x1) / 2), label: v.d.labels[r.l[i]], n: r.n[i], w: w };
          if (r.n[i] === 1 && w >= 6 && (!best || dd > best.level || dd === best.level && w > best.w)) best = c;
          if (r.n[i] > 1 && w >= 3 && (!group || w > group.w)) group = c;
        }
      });
    });
    return best || group;
  };

  View.prototype.showTip = function (ev, text) {
    var r = this.root.getBoundingClientRect();
    this.tip.textContent = text;
    this.tip.style.display = "block";
    var x = ev.clientX - r.left + 14, y = ev.clientY - r.top + 14;
    if (x + this.tip.offsetWidth > this.W) x = Math.max(0, ev.clientX - r.left - this.tip.offsetWidth - 8);
    this.tip.style.left = x + "px"; this.tip.style.top = y + "px";
  };

  View.prototype.describe = function (b) {
    var d = this.d, lane = d.lanes[b.lane].name, span = this.t1 - this.t0;
    if (b.n > 1) {
      return b.n + " calls merged, dominant " + d.labels[b.l] + "\nlane: " + lane + "\n" + fmtTime(b.s, span) + " – " + fmtTime(b.e, span) + " (" + fmtDur(b.e - b.s) + ")";
    }
    return d.labels[b.l] + "\nlane: " + lane + "\nenter: " + fmtTime(b.s, span) + "\nleave: " + fmtTime(b.e, span) + "\nduration: " + fmtDur(b.e - b.s);
  };

  View.prototype.callPath = function (b) {
    var v = this, d = v.d, parts = [], t = (b.s + b.e) / 2;
    for (var dd = 0; dd < b.depth; dd++) {
      var pb = v.bars(v.lvi, b.lane, dd), j = containing(pb, t, t);
      if (j >= 0) parts.push(d.labels[pb.l[j]] + " (" + fmtDur(pb.e[j] - pb.s[j]) + (pb.n[j] > 1 ? ", " + pb.n[j] + " merged" : "") + ")");
    }
    parts.push(d.labels[b.l] + " (" + fmtDur(b.e - b.s) + (b.n > 1 ? ", " + b.n + " merged" : "") + ")");
    v.path.style.display = "block";
    v.path.textContent = "Call path on " + d.lanes[b.lane].name + ":\n" + parts.map(function (p, i) { return new Array(i + 1).join("  ") + p; }).join("\n");
  };

  View.prototype.bind = function () {
    var v = this, c = v.canvas, drag = null;
    function pos(ev) { var r = c.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }
    c.addEventListener("wheel", function (ev) {
      var p = pos(ev);
      if (p[0] < NAME_W) return;
      ev.preventDefault();
      var dy = ev.deltaMode === 1 ? ev.deltaY * 30 : ev.deltaY;
      v.zoom(Math.exp(Math.max(-3, Math.min(3, dy * 0.002))), (p[0] - NAME_W) / v.plotW);
    }, { passive: false });
    c.addEventListener("mousedown", function (ev) {
      var p = pos(ev);
      if (p[0] < NAME_W || ev.button !== 0) return;
      ev.preventDefault();
      v.root.focus({ preventScroll: true });
      drag = { x: p[0], y: p[1], pan: ev.shiftKey || p[1] >= v.plotH, t0: v.t0, t1: v.t1, moved: false };
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      var p = pos(ev);
      if (Math.abs(p[0] - drag.x) > 3) drag.moved = true;
      if (!drag.moved) return;
      if (drag.pan) {
        var dt = (p[0] - drag.x) / v.plotW * (drag.t1 - drag.t0);
        v.setRange(drag.t0 - dt, drag.t1 - dt);
      } else {
        v.sel = [drag.x, Math.max(NAME_W, Math.min(NAME_W + v.plotW, p[0]))];
        v.pending = true; v.flush();
      }
    });
    window.addEventListener("mouseup", function (ev) {
      if (!drag) return;
      var p = pos(ev), dr = drag;
      drag = null;
      if (dr.moved && !dr.pan) {
        var a = v.tAt(Math.min(v.sel[0], v.sel[1])), b = v.tAt(Math.max(v.sel[0], v.sel[1]));
        v.sel = null;
        v.setRange(a, b);
      } else if (!dr.moved) {
        var b = v.barAt(p[0], p[1]);
        if (b) v.callPath(b); else v.path.style.display = "none";
      }
    });
    c.addEventListener("mousemove", function (ev) {
      if (drag) return;
      var p = pos(ev), d = v.d, span = v.t1 - v.t0;
      if (p[0] < NAME_W) {
        var li = v.laneAt(p[1]);
        if (li >= 0) { var l = d.lanes[li]; v.showTip(ev, l.name + (l.info ? "\n" + l.info : "")); return; }
      }
      if (v.showMsgs) {
        var m = v.msgAt(p[0], p[1]);
        if (m) {
          v.showTip(ev, "message " + m.bytes + " B\n" + d.lanes[m.from].name + " → " + d.lanes[m.to].name +
            "\nsend: " + fmtTime(m.send, span) + "\nrecv: " + fmtTime(m.recv, span) + " (" + fmtDur(m.recv - m.send) + ")\ntag " + m.tag + (d.comms[m.comm] ? ", comm " + d.comms[m.comm] : ""));
          return;
        }
      }
      var b = v.barAt(p[0], p[1]);
      if (b) { v.showTip(ev, v.describe(b)); return; }
      var li2 = v.laneAt(p[1]), t = v.tAt(p[0]), hit = null;
      if (li2 >= 0) d.markers.forEach(function (mk) { if (mk[0] === li2 && Math.abs(v.x(mk[1]) - p[0]) < 4 && p[1] < v.laneTop[li2] + 6) hit = mk; });
      if (hit) { v.showTip(ev, hit[3] + "\n" + fmtTime(hit[1], span) + " – " + fmtTime(hit[2], span)); return; }
      d.shades.forEach(function (s) { if ((s[0] < 0 || s[0] === li2) && s[1] <= t && t < s[2]) hit = s; });
      if (hit) { v.showTip(ev, hit[3] || "shaded"); return; }
      v.tip.style.display = "none";
    });
    c.addEventListener("mouseleave", function () { v.tip.style.display = "none"; });
    v.root.addEventListener("keydown", function (ev) {
      var k = ev.key;
      if (k === "+" || k === "=") v.zoom(0.5, 0.5);
      else if (k === "-") v.zoom(2, 0.5);
      else if (k === "ArrowLeft") v.pan(-0.2);
      else if (k === "ArrowRight") v.pan(0.2);
      else if (k === "0" || k === "Home") v.setRange(v.d.t0, v.d.t1);
      else return;
      ev.preventDefault();
    });
  };

  // mount shows the view in the element with this id; the element may not be in the document
  // yet (Notebook 6 runs the script before attaching the output), so it retries for 10 s.
  NS.mount = function (id, tries) {
    var root = document.getElementById(id);
    if (!root) {
      if ((tries || 0) < 200) setTimeout(function () { NS.mount(id, (tries || 0) + 1); }, 50);
      return;
    }
    if (root.tbTimeline) return;
    var data = root.querySelector("script.tb-data");
    try {
      new View(root, JSON.parse(data.textContent));
    } catch (e) {
      var fb = root.querySelector("img.tb-fallback");
      if (fb) fb.style.display = "";
      var p = document.createElement("pre");
      p.textContent = "tracebook timeline: " + e;
      root.appendChild(p);
    }
  };
})();
