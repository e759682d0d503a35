// Vega-Lite test: the interactive figures (application/vnd.vegalite.v5+json) that JupyterLab and
// Notebook 7 show instead of a figure's PNG, checked with the real Vega-Lite and Vega.
//
// Specs: every *.vl.json in --specs (written by `TRACEBOOK_VEGA_OUT=dir go test -run
// VegaWriteExamples ./plotting`) and every Vega-Lite output of the executed notebooks in
// --executed (what `make test-notebooks` writes to build/notebooks). For each spec:
//   schema  valid against the vendored Vega-Lite v5 JSON schema (--schema; ajv, draft-07);
//   render  compiled by vega-lite and rendered to SVG by a vega View in headless Debian Chromium
//           (the browser builds from node_modules): no warning or error from either; the scene
//           holds one mark item per data row (timeline bars, heatmap cells, line points) -- what
//           the figure drew is what its data holds; the screenshot is not blank;
//   zoom    a mouse wheel over the middle of the data area changes the x scale domain (the
//           interval selection bound to the scales);
//   tooltip the mouse moved over a mark (a bar, a cell, a line's point) calls the View's tooltip
//           handler with the fields of that figure kind (lane, function, start, end, duration;
//           row, column or from/to, value; series, x, y).
// Exit status 1 on any problem. Screenshots go to --out (build/vega-render).
//
// Usage: node test/render/vega.mjs --specs build/vega --executed build/notebooks \
//          --schema plotting/testdata/vega-lite-v5.schema.json [--out build/vega-render]
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { createRequire } from "node:module";
import Ajv from "ajv";
import { chromium } from "playwright-core";
import { PNG } from "pngjs";

const require = createRequire(import.meta.url);
const MIME = "application/vnd.vegalite.v5+json";
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

const args = { specs: "", executed: "", schema: "plotting/testdata/vega-lite-v5.schema.json", out: "build/vega-render" };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, ""), v = process.argv[i + 1];
  if (!(k in args) || v === undefined) die(`unknown or incomplete option ${process.argv[i]}`);
  args[k] = v;
}

function die(msg) {
  console.error(`vega: ${msg}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// The specs.

function collectSpecs() {
  const specs = [];
  if (args.specs) {
    if (!fs.existsSync(args.specs)) die(`${args.specs} not found (TRACEBOOK_VEGA_OUT=${args.specs} go test -run VegaWriteExamples ./plotting)`);
    for (const f of fs.readdirSync(args.specs).filter((f) => f.endsWith(".vl.json")).sort()) {
      specs.push({ name: f, spec: JSON.parse(fs.readFileSync(path.join(args.specs, f), "utf8")) });
    }
    if (specs.length === 0) die(`no *.vl.json in ${args.specs}`);
  }
  if (args.executed) {
    if (!fs.existsSync(args.executed)) die(`${args.executed} not found (make test-notebooks)`);
    for (const f of fs.readdirSync(args.executed).filter((f) => f.endsWith(".ipynb")).sort()) {
      const nb = JSON.parse(fs.readFileSync(path.join(args.executed, f), "utf8"));
      nb.cells.forEach((cell, ci) => {
        (cell.outputs || []).forEach((o, oi) => {
          if (o.data && MIME in o.data) specs.push({ name: `${f} cell ${ci} output ${oi}`, spec: o.data[MIME], bytes: JSON.stringify(o.data[MIME]).length });
        });
      });
    }
  }
  return specs;
}

// The number of mark items a spec must render and the tooltip fields it must show, from its data
// (not from what the spec says about itself).
function expectations(spec) {
  const kind = spec.usermeta?.tracebook?.kind;
  const values = spec.data?.values || [];
  switch (kind) {
    case "timeline":
      return { kind, marks: { rect: values.length }, tooltip: ["lane", "function", "start", "end", "duration"] };
    case "heatmap": {
      const cells = values.reduce((n, r) => n + r.v.length, 0);
      const enc = spec.encoding || spec.layer[0].encoding; // a Matrix layers the values over the cells
      const cols = enc.tooltip.some((t) => t.field === "column") ? ["column"] : ["from", "to"];
      return { kind, marks: { rect: cells }, tooltip: ["row", ...cols, "value"] };
    }
    case "lines": {
      const points = values.reduce((n, s) => n + s.x.length, 0);
      const tt = spec.layer[1].encoding.tooltip.map((t) => t.title);
      return { kind, marks: { line: points, symbol: points }, series: values.length, tooltip: tt };
    }
  }
  return { kind: "unknown" };
}

// ---------------------------------------------------------------------------------------------
// Blank screenshots: as render.mjs (imageStats there says why): ink >= 1% of pixels differ from
// the most frequent colour by more than 48, and the luminance has a standard deviation >= 10.

function imageStats(buf) {
  const { width, height, data } = PNG.sync.read(buf);
  const freq = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    freq.set(key, (freq.get(key) || 0) + 1);
  }
  let bg = 0, best = -1;
  for (const [k, c] of freq) if (c > best) { best = c; bg = k; }
  const n = width * height;
  let ink = 0, sum = 0, sum2 = 0;
  for (let i = 0; i < data.length; i += 4) {
    const r = data[i], g = data[i + 1], b = data[i + 2];
    if (Math.max(Math.abs(r - (bg >> 16)), Math.abs(g - ((bg >> 8) & 255)), Math.abs(b - (bg & 255))) > 48) ink++;
    const lum = 0.299 * r + 0.587 * g + 0.114 * b;
    sum += lum;
    sum2 += lum * lum;
  }
  const mean = sum / n;
  return { width, height, ink: ink / n, sd: Math.sqrt(Math.max(0, sum2 / n - mean * mean)) };
}

// ---------------------------------------------------------------------------------------------
// In the page.

// Runs in the browser: compiles and renders the spec, exposes the view as window.view, returns
// the log, the mark item counts and the data area's position.
async function renderInPage(spec) {
  const log = [];
  const logger = {
    _level: 0,
    level(l) { if (l === undefined) return this._level; this._level = l; return this; },
    error(...a) { log.push("error: " + a.join(" ")); return this; },
    warn(...a) { log.push("warning: " + a.join(" ")); return this; },
    info() { return this; },
    debug() { return this; },
  };
  window.tooltipCalls = [];
  const vgSpec = vegaLite.compile(spec, { logger }).spec;
  const view = new vega.View(vega.parse(vgSpec), { renderer: "svg", container: "#vis", hover: true, logger, logLevel: vega.Warn });
  view.tooltip((handler, event, item, value) => { if (value != null) window.tooltipCalls.push(value); });
  window.addEventListener("error", (e) => log.push("error: " + e.message));
  await view.runAsync();
  window.view = view;
  // Mark items by type (role "mark": the figure's marks, not axes or legends); line marks
  // count their points, one item each.
  const counts = {}, groups = {};
  const walk = (node) => {
    if (!node) return;
    if (node.marktype && node.role === "mark") {
      counts[node.marktype] = (counts[node.marktype] || 0) + node.items.length;
      groups[node.marktype] = (groups[node.marktype] || 0) + 1;
    }
    for (const it of node.items || []) walk(it);
  };
  walk(view.scenegraph().root);
  const svg = document.querySelector("#vis svg").getBoundingClientRect();
  const [ox, oy] = view.origin();
  return { log, counts, groups, area: { x: svg.left + ox, y: svg.top + oy, w: view.width(), h: view.height() } };
}

// ---------------------------------------------------------------------------------------------

async function checkRender(page, name, spec, exp) {
  const problems = [];
  await page.setContent('<!doctype html><html><body style="margin:0;background:#fff"><div id="vis"></div></body></html>');
  await page.addScriptTag({ path: require.resolve("vega/build/vega.min.js") });
  await page.addScriptTag({ path: require.resolve("vega-lite/build/vega-lite.min.js") });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  let r;
  try {
    r = await page.evaluate(renderInPage, spec);
  } catch (e) {
    return [`rendering failed: ${e.message.split("\n")[0]}`];
  }
  for (const l of [...r.log, ...pageErrors]) problems.push(`vega ${l}`);

  for (const [type, n] of Object.entries(exp.marks || {})) {
    if ((r.counts[type] || 0) !== n) problems.push(`${n} ${type} items expected (data rows), the scene has ${r.counts[type] || 0}`);
  }
  if (exp.series !== undefined && (r.groups.line || 0) !== exp.series) {
    problems.push(`${exp.series} lines expected (series), the scene has ${r.groups.line || 0}`);
  }

  const shot = await page.locator("#vis svg").screenshot();
  fs.writeFileSync(path.join(args.out, name.replace(/[^A-Za-z0-9._-]+/g, "_") + ".png"), shot);
  const st = imageStats(shot);
  if (!(st.ink >= 0.01 && st.sd >= 10)) problems.push(`blank rendering: ink ${(100 * st.ink).toFixed(2)}%, sd ${st.sd.toFixed(1)}`);

  // Tooltip: hover the centre of a mark (the largest one, clipped to the data area, so that it
  // is not under another).
  const target = await page.evaluate((type) => {
    const a = window.view.origin(), svg = document.querySelector("#vis svg").getBoundingClientRect();
    const x0 = svg.left + a[0], y0 = svg.top + a[1], x1 = x0 + window.view.width(), y1 = y0 + window.view.height();
    let best = null, area = -1;
    for (const el of document.querySelectorAll(`#vis g.mark-${type}.role-mark path`)) {
      const b = el.getBoundingClientRect();
      const l = Math.max(b.left, x0), t = Math.max(b.top, y0), r = Math.min(b.right, x1), btm = Math.min(b.bottom, y1);
      const s = (r - l) * (btm - t);
      if (r > l && btm > t && s > area) { area = s; best = { x: (l + r) / 2, y: (t + btm) / 2 }; }
    }
    return best;
  }, exp.kind === "lines" ? "symbol" : "rect");
  if (!target) {
    problems.push("no mark to hover");
  } else {
    await page.mouse.move(target.x, target.y);
    await page.mouse.move(target.x + 0.5, target.y + 0.5);
    const calls = await page.evaluate(() => window.tooltipCalls.map((v) => (v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : String(v))));
    const value = calls.find((v) => v && typeof v === "object");
    if (!value) {
      problems.push(`hovering a mark at (${target.x.toFixed(0)}, ${target.y.toFixed(0)}) called no tooltip`);
    } else {
      const missing = (exp.tooltip || []).filter((k) => !(k in value));
      if (missing.length) problems.push(`tooltip ${JSON.stringify(value)} lacks ${missing.join(", ")}`);
    }
  }

  // Zoom: a wheel over the middle of the data area changes the x domain.
  const xDomain = () => page.evaluate(() => window.view.scale("x")?.domain().map(Number) ?? null);
  const before = await xDomain();
  if (!before) return [...problems, "no x scale"];
  await page.mouse.move(r.area.x + r.area.w / 2, r.area.y + r.area.h / 2);
  await page.mouse.wheel(0, -400);
  await page.waitForTimeout(100); // the wheel event is delivered asynchronously
  await page.evaluate(async () => { await window.view.runAsync(); });
  const after = await xDomain();
  if (!(after[1] - after[0] < before[1] - before[0])) {
    problems.push(`wheel over the data area did not zoom: x domain ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  }
  return problems;
}

async function main() {
  if (!args.specs && !args.executed) die("give --specs and/or --executed");
  fs.mkdirSync(args.out, { recursive: true });
  const specs = collectSpecs();
  const schema = JSON.parse(fs.readFileSync(args.schema, "utf8"));
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  const validate = ajv.compile(schema);
  if (!fs.existsSync(CHROMIUM)) die(`${CHROMIUM} not found (Debian package chromium; make test-deps installs it)`);

  // Self-test: an invalid spec must fail the schema, a spec with a wrong field must log a
  // warning, and a broken expectation must fail (so that the checks can fail).
  const selfProblems = [];
  if (validate({ mark: "rect", encoding: { x: { field: "a", type: "quantitatve" } } })) selfProblems.push("schema accepted a misspelled type");

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"] });
  let failed = false;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1 });
    await context.route("**/*", (route) => {
      const u = new URL(route.request().url());
      return u.protocol === "file:" || u.protocol === "data:" || u.protocol === "about:" ? route.continue() : route.abort();
    });
    {
      const page = await context.newPage();
      // One data row, a channel that rect marks drop (a Vega-Lite warning), two rows expected,
      // a tooltip field that is not there.
      const bad = { data: { values: [{ a: 1, b: 2 }] }, mark: { type: "rect", tooltip: true },
        encoding: { x: { field: "a", type: "quantitative" }, y: { field: "b", type: "quantitative" }, shape: { field: "a", type: "nominal" } },
        params: [{ name: "zoom", select: { type: "interval", encodings: ["x"] }, bind: "scales" }] };
      const p = await checkRender(page, "selftest", bad, { kind: "timeline", marks: { rect: 2 }, tooltip: ["lane"] });
      for (const want of ["vega warning", "2 rect items expected", "lacks lane"]) {
        if (!p.some((x) => x.includes(want))) selfProblems.push(`self-test: a broken spec did not report "${want}" (got ${JSON.stringify(p)})`);
      }
      await page.close();
    }
    if (selfProblems.length) {
      failed = true;
      console.log("self-test FAILED");
      for (const p of selfProblems) console.log(`    ${p}`);
    } else {
      console.log("self-test (a broken spec fails each check)            ok");
    }

    const kinds = {};
    for (const { name, spec, bytes } of specs) {
      const problems = [];
      if (!validate(spec)) {
        for (const e of validate.errors.slice(0, 5)) problems.push(`schema: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
      }
      if (bytes !== undefined && bytes > 512 * 1024) problems.push(`spec is ${bytes} bytes, over 512 KiB`);
      const exp = expectations(spec);
      kinds[exp.kind] = (kinds[exp.kind] || 0) + 1;
      if (exp.kind === "unknown") problems.push("not a tracebook figure (usermeta.tracebook.kind)");
      else {
        const page = await context.newPage();
        problems.push(...await checkRender(page, name, spec, exp));
        await page.close();
      }
      const marks = Object.entries(exp.marks || {}).map(([t, n]) => `${n} ${t}`).join(", ");
      console.log(`${name.padEnd(52)} ${marks.padEnd(26)} ${problems.length ? "FAILED" : "ok"}`);
      for (const p of problems) console.log(`    ${p}`);
      failed ||= problems.length > 0;
    }
    console.log(`${specs.length} Vega-Lite specs (${Object.entries(kinds).map(([k, n]) => `${n} ${k}`).join(", ")})`);
    if (args.executed && !specs.some((s) => s.bytes !== undefined)) {
      console.log(`no Vega-Lite output in ${args.executed}: the notebooks' figures lost their interactive spec`);
      failed = true;
    }
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
