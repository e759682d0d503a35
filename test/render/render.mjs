// Rendering test: what an analyst sees, in a real browser (headless Debian Chromium).
//
// For every executed notebook (what `make test-notebooks` writes to build/notebooks):
//   report    the HTML report of `jupyter nbconvert --to html` (build/render/<nb>.html);
//   live      the notebook opened in a Jupyter Notebook 6 server that this script starts on
//             loopback (token, free port) and stops, with the tracebook kernel of this tree;
//   live-run  for notebooks with no cell tagged raises-exception: every cell executed again from
//             the browser (Jupyter.notebook.execute_all_cells()), through the live kernel.
// Optionally (--report X.ipynb) also a ready-made report X.html next to X.ipynb (`make demo`).
//
// On every page: each output that the front end shows as an image (by its MIME priority) must show
// a visible element whose screenshot is not blank, each HTML table in an output area must have a
// body row with cells and must not stick out of its output area (a table wider than the area, such
// as profile.Compare's 23 columns, scrolls in a box of its own inside the area, so that the
// headline and figure beside it stay in place), and the numbers of figures and tables on the page
// must equal what the notebook's outputs contain. Full-page screenshots go to build/render/screens/, element
// screenshots of failures to build/render/screens/failures/. Exit status 1 on any problem.
//
// Usage: node test/render/render.mjs --executed build/notebooks --source notebooks \
//          --out build/render --kernel-binary build/tracebook [--report build/demo/alignment.ipynb]
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { PNG } from "pngjs";
import { checkTimelines } from "./timeline.mjs";

// ---------------------------------------------------------------------------------------------
// Options.

const args = { executed: "build/notebooks", source: "notebooks", out: "build/render",
  "kernel-binary": "build/tracebook", report: [] };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, ""), v = process.argv[i + 1];
  if (!(k in args) || v === undefined) die(`unknown or incomplete option ${process.argv[i]}`);
  if (Array.isArray(args[k])) args[k].push(v); else args[k] = v;
}
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const OUT = path.resolve(args.out);
const SCREENS = path.join(OUT, "screens");
const FAILURES = path.join(SCREENS, "failures");

// Timeouts only keep a broken run from hanging; nothing is asserted about durations.
const SERVER_START_MS = 90_000;
const PAGE_LOAD_MS = 90_000;
const RUN_ALL_MS = 600_000;

function die(msg) {
  console.error(`test-render: ${msg}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// What a notebook's outputs should show. Each front end shows one MIME type per output: the first
// of its priority list that the output has.

// nbconvert 6.5 HTMLExporter.default_config display_data_priority.
const NBCONVERT_PRIORITY = ["application/vnd.jupyter.widget-view+json", "application/javascript",
  "text/html", "text/markdown", "image/svg+xml", "text/latex", "image/png", "image/jpeg", "text/plain"];
// Notebook 6 OutputArea.display_order (the notebooks are trusted, see trustNotebooks).
const NOTEBOOK6_PRIORITY = ["application/javascript", "text/html", "text/markdown", "text/latex",
  "image/svg+xml", "image/png", "image/jpeg", "image/gif", "application/pdf", "text/plain"];
const IMAGE_TYPES = new Set(["image/png", "image/svg+xml", "image/jpeg", "image/gif"]);

const joinText = (v) => (Array.isArray(v) ? v.join("") : String(v));

function expectedCounts(nb, priority) {
  let figures = 0, tables = 0;
  for (const cell of nb.cells) {
    if (cell.cell_type !== "code") continue;
    for (const o of cell.outputs || []) {
      if (o.output_type !== "execute_result" && o.output_type !== "display_data") continue;
      const shown = priority.find((t) => o.data && t in o.data);
      if (!shown) continue;
      if (IMAGE_TYPES.has(shown)) figures++;
      // Scripts are code, not content: a timeline's viewer mentions <img and <table.
      const h = joinText(o.data[shown]).replace(/<script\b[\s\S]*?<\/script>/gi, "");
      // Figures embedded in an HTML output (a summary line or table above a plot) are figures
      // too, checked like the others. An interactive timeline (plotting.LiveTimeline) is one
      // figure: its view, counted by the one fallback image inside it that its script hides.
      if (shown === "text/html") figures += (h.match(/<img\b/gi) || []).length;
      // Raw HTML tables; a Markdown pipe table would render as a table too and show up below as
      // a count mismatch (counted, never skipped).
      if (shown === "text/html" || shown === "text/markdown") tables += (h.match(/<table\b/gi) || []).length;
    }
  }
  return { figures, tables };
}

// Cells (indices) showing a timeline whose window summary must equal the first table of the
// next cell's output (cell metadata tracebook["timeline-summary-table"], set by nbgen's
// summary_table).
const summaryChecks = (nb) => nb.cells.flatMap((c, i) =>
  c.cell_type === "code" && c.metadata?.tracebook?.["timeline-summary-table"] ? [i] : []);

const raisesExceptions = (nb) =>
  nb.cells.some((c) => c.cell_type === "code" && (c.metadata?.tags || []).includes("raises-exception"));

// ---------------------------------------------------------------------------------------------
// Is a screenshot blank?
//
// Measured inside the element, inset by min(8 px, 10% of the side), so that a frame or a CSS
// border around an empty box does not count as content. The background is the most frequent
// colour there (white for every figure we make).
//   ink = fraction of pixels differing from the background by more than 48 in some channel
//         (anti-aliasing fringes stay below that);
//   sd  = standard deviation of luminance (0..255).
// A figure passes with ink >= 1% AND sd >= 10. Why these numbers (each figure's values are in
// build/render/render.json; the self-test below checks both sides of the line on every run, and
// RENDER_DEBUG=1 prints its values):
//   - an empty or white box, framed or not: ink 0, sd 0;
//   - a box with one line of text only (a title left over when a sanitiser stripped the drawing,
//     an alt text): 25 glyphs of 12 px text in a 400x300 box give ink 0.39%, sd 10.1 -- it fails
//     on ink, and the same text in a plot-sized box (850x500) is five times fainter;
//   - faint content (a 4 px light grey #ccc outline) gives ink 2.8% but sd 8.4 -- it fails on sd;
//   - a sparse line plot (axes, ticks, one polyline, a title) in 400x300: ink 3.1%, sd 22.6; our
//     gonum figures: ink 10-49%, sd 35-86; display.SVG's 120x20 colour bar: ink 21%, sd 58.
const INK_DELTA = 48;
const MIN_INK = 0.01;
const MIN_SD = 10;
const MIN_SIDE = 8; // CSS pixels; a figure smaller than this is not something one can see

function imageStats(buf) {
  const png = PNG.sync.read(buf);
  const { width, height, data } = png;
  const ix = Math.min(8, Math.floor(width / 10)), iy = Math.min(8, Math.floor(height / 10));
  const x0 = ix, x1 = width - ix, y0 = iy, y1 = height - iy;
  const n = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  if (n === 0) return { width, height, ink: 0, sd: 0 };
  const freq = new Map();
  for (let y = y0; y < y1; y++) {
    for (let i = (y * width + x0) * 4, e = (y * width + x1) * 4; i < e; i += 4) {
      const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      freq.set(key, (freq.get(key) || 0) + 1);
    }
  }
  let bg = 0, best = -1;
  for (const [k, c] of freq) if (c > best) { best = c; bg = k; }
  const br = (bg >> 16) & 255, bgG = (bg >> 8) & 255, bb = bg & 255;
  let inkCount = 0, sum = 0, sum2 = 0;
  for (let y = y0; y < y1; y++) {
    for (let i = (y * width + x0) * 4, e = (y * width + x1) * 4; i < e; i += 4) {
      const r = data[i], g = data[i + 1], b = data[i + 2];
      if (Math.max(Math.abs(r - br), Math.abs(g - bgG), Math.abs(b - bb)) > INK_DELTA) inkCount++;
      const lum = 0.299 * r + 0.587 * g + 0.114 * b;
      sum += lum;
      sum2 += lum * lum;
    }
  }
  const mean = sum / n;
  return { width, height, ink: inkCount / n, sd: Math.sqrt(Math.max(0, sum2 / n - mean * mean)) };
}

// ---------------------------------------------------------------------------------------------
// Checking one page.

// Output areas in nbconvert's lab template and in Notebook 6.
const OUTPUT_SEL = ".jp-OutputArea-output, .output_subarea";
const FIGURE_SEL = [
  '.jp-OutputArea-output[data-mime-type^="image/"]',
  ".jp-OutputArea-output.jp-RenderedImage", ".jp-OutputArea-output.jp-RenderedSVG",
  ".output_subarea.output_png", ".output_subarea.output_svg",
  ".output_subarea.output_jpeg", ".output_subarea.output_gif",
  '.jp-OutputArea-output[data-mime-type="text/html"] img:not(.tb-fallback)', ".output_subarea.output_html img:not(.tb-fallback)",
  // The interactive timeline of plotting.LiveTimeline: its canvas, once its script has run.
  ".tb-timeline",
].join(", ");

// What a figure output shows: an image, an SVG, or a timeline's canvas.
const INNER_SEL = "canvas.tb-canvas, img:not(.tb-fallback), svg";

const safeName = (s) => s.replace(/[^A-Za-z0-9._-]+/g, "_");

async function checkPage(page, name, expected) {
  const problems = [];
  const stats = [];
  await page.evaluate(() => document.fonts.ready);
  // Notebook 6 scrolls the notebook inside #site; let the document hold it instead, so that the
  // full-page screenshot shows every cell.
  await page.addStyleTag({ content: "html, body, #site { height: auto !important; overflow: visible !important; }" });

  const figs = page.locator(FIGURE_SEL);
  const nFig = await figs.count();
  if (nFig !== expected.figures) {
    problems.push(`page shows ${nFig} figure outputs, the notebook has ${expected.figures}`);
  }
  for (let i = 0; i < nFig; i++) {
    const container = figs.nth(i);
    const label = `figure ${i + 1}`;
    // The selector finds output areas holding an image, and <img> elements inside HTML outputs.
    const isImage = await container.evaluate((e) => ["img", "svg"].includes(e.tagName.toLowerCase()));
    const inner = container.locator(INNER_SEL).first();
    const hasInner = isImage || (await inner.count()) > 0;
    const el = isImage ? container : hasInner ? inner : container;
    const kind = hasInner ? await el.evaluate((e) => e.tagName.toLowerCase()) : "nothing";
    const info = await el.evaluate((e) => {
      const r = e.getBoundingClientRect();
      const img = e.tagName === "IMG" ? { complete: e.complete, natural: e.naturalWidth } : null;
      return { w: r.width, h: r.height, img };
    });
    const fail = async (why, shot) => {
      problems.push(`${label} (${kind}, ${Math.round(info.w)}x${Math.round(info.h)}): ${why}`);
      const file = path.join(FAILURES, `${safeName(name)}-figure${i + 1}.png`);
      try {
        if (shot) fs.writeFileSync(file, shot);
        else await container.screenshot({ path: file, timeout: 10_000 });
      } catch { /* nothing visible to capture */ }
    };
    if (!hasInner) { await fail("no <img>, <svg> or timeline canvas in the output area"); continue; }
    if (info.img && !(info.img.complete && info.img.natural > 0)) { await fail("image did not load"); continue; }
    if (info.w < MIN_SIDE || info.h < MIN_SIDE || !(await el.isVisible())) {
      await fail("not visible");
      continue;
    }
    const shot = await el.screenshot({ animations: "disabled", timeout: 30_000 });
    const s = imageStats(shot);
    stats.push({ figure: i + 1, kind, ...s });
    if (s.ink < MIN_INK || s.sd < MIN_SD) {
      await fail(`blank: ${(100 * s.ink).toFixed(2)}% ink (need ${100 * MIN_INK}%), ` +
        `luminance sd ${s.sd.toFixed(1)} (need ${MIN_SD})`, shot);
    }
  }

  const tableInfo = await page.evaluate((sel) => {
    // A timeline's own window summary (table.tb-summary, made by its script) is part of the figure.
    const tables = [...new Set([...document.querySelectorAll(sel)].flatMap((a) => [...a.querySelectorAll("table:not(.tb-summary)")]))];
    return tables.map((t) => {
      const rows = [...t.querySelectorAll(":scope > tbody > tr, :scope > tr")];
      const bodyRows = rows.filter((r) => r.querySelector(":scope > td"));
      const r = t.getBoundingClientRect();
      // What the table may use horizontally: its output area, or a box inside the area that
      // scrolls horizontally (the area itself scrolling would move the whole output).
      const area = t.closest(sel);
      let box = area, clipped = false;
      for (let e = t.parentElement; e && e !== area; e = e.parentElement) {
        const ox = getComputedStyle(e).overflowX;
        if (ox === "auto" || ox === "scroll" || ox === "hidden") { box = e; clipped = true; break; }
      }
      const a = area.getBoundingClientRect(), b = box.getBoundingClientRect();
      const sticksOut = r.right > a.right + 1 && !(clipped && b.right <= a.right + 1);
      return { bodyRows: bodyRows.length, w: r.width, h: r.height, sticksOut, areaW: a.width };
    });
  }, OUTPUT_SEL);
  if (tableInfo.length !== expected.tables) {
    problems.push(`page shows ${tableInfo.length} tables in outputs, the notebook has ${expected.tables}`);
  }
  for (const [i, t] of tableInfo.entries()) {
    const why = t.bodyRows === 0 ? "no body row with cells" : (t.w < 1 || t.h < 1) ? "not visible" :
      t.sticksOut ? `${Math.round(t.w)} px wide, out of its ${Math.round(t.areaW)} px output area (no scrolling box of its own)` : "";
    if (!why) continue;
    problems.push(`table ${i + 1}: ${why}`);
    const loc = page.locator(`:is(${OUTPUT_SEL}) table:not(.tb-summary)`).nth(i);
    try {
      await loc.screenshot({ path: path.join(FAILURES, `${safeName(name)}-table${i + 1}.png`), timeout: 10_000 });
    } catch { /* nothing visible to capture */ }
  }

  // Interactive timelines: drawn, zoom, pan, hover, click (test/render/timeline.mjs), and the
  // window summaries the notebook compares with a table.
  if ((await page.locator(".tb-timeline").count()) > 0) {
    problems.push(...await checkTimelines(page));
    for (const cell of expected.summaryCells || []) problems.push(...await checkSummaryTable(page, cell));
  }

  if (page.url() !== "about:blank") {
    await page.screenshot({ path: path.join(SCREENS, `${safeName(name)}.png`), fullPage: true, timeout: 60_000 });
  }
  return { name, figures: nFig, tables: tableInfo.length, problems, stats };
}

// Durations as tables show them (arrowio.FormatDuration: "2.546 ms", "1,235 s", "512 ns") back
// to ns, with the half-unit of their last digit: the precision the table shows.
function parseDuration(text) {
  const m = text.trim().match(/^(-?[\d,]+(?:\.\d+)?)\s*(ns|µs|ms|s)$/);
  if (!m) return null;
  const digits = m[1].replace(/,/g, "");
  const unit = { ns: 1, "µs": 1e3, ms: 1e6, s: 1e9 }[m[2]];
  const decimals = (digits.split(".")[1] || "").length;
  return { ns: Number(digits) * unit, tol: 0.5 * unit * 10 ** -decimals };
}

// The summary of the timeline in notebook cell `cell` (at its initial range: the trace or window
// it was made of) must equal the first table of the next cell's output: rows of a function name
// and a duration (the window's profile summed per function), within the table's precision.
async function checkSummaryTable(page, cell) {
  const got = await page.evaluate((i) => {
    const cells = [...document.querySelectorAll(".jp-Notebook > .jp-Cell, #notebook-container > .cell")];
    const tl = cells[i]?.querySelector(".tb-timeline");
    const table = cells[i + 1]?.querySelector(":is(.jp-OutputArea-output, .output_subarea) table:not(.tb-summary)");
    if (!tl || !tl.tbTimeline || !table) return { error: `cell ${i}: ${!tl ? "no timeline" : !tl.tbTimeline ? "timeline not mounted" : "no table in the next cell"}` };
    const rows = [...table.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent.trim()));
    return { summary: tl.tbTimeline.summary(), rows };
  }, cell);
  if (got.error) return [`timeline summary: ${got.error}`];
  const want = new Map();
  for (const r of got.rows) {
    const d = r.map(parseDuration).findLast((x) => x !== null);
    const name = r.find((x) => x && parseDuration(x) === null && !/^\d+$/.test(x));
    if (d && name) want.set(name, d);
  }
  const problems = [];
  if (want.size === 0) return [`timeline summary of cell ${cell}: no function and duration rows in the next cell's table`];
  const seen = new Set();
  for (const { label, ns } of got.summary) {
    seen.add(label);
    const w = want.get(label);
    if (!w) { if (ns > 0) problems.push(`timeline summary of cell ${cell}: ${label} ${ns} ns, not in the table`); continue; }
    if (Math.abs(ns - w.ns) > w.tol + 1e-9 * w.ns) problems.push(`timeline summary of cell ${cell}: ${label} ${ns} ns, the table says ${w.ns} ns (±${w.tol})`);
  }
  for (const [label, w] of want) if (!seen.has(label) && w.ns > w.tol) problems.push(`timeline summary of cell ${cell}: ${label} (${w.ns} ns in the table) missing`);
  return problems;
}

// Every run first checks the checker on a page of known good and known bad outputs, so a check
// that can no longer fail is caught.
async function selfTest(browser) {
  const page = await browser.newPage();
  const good = [], bad = [];
  // A plot-like drawing: axes, ticks, labels and a polyline.
  let plot = '<line x1="40" y1="260" x2="380" y2="260" stroke="black"/><line x1="40" y1="20" x2="40" y2="260" stroke="black"/>';
  let pts = "";
  for (let x = 0; x <= 34; x++) {
    plot += `<line x1="${40 + 10 * x}" y1="260" x2="${40 + 10 * x}" y2="266" stroke="black"/>`;
    pts += `${40 + 10 * x},${140 + 90 * Math.sin(x / 4)} `;
  }
  plot += `<polyline points="${pts}" fill="none" stroke="#4e79a7" stroke-width="2"/>`;
  plot += '<text x="150" y="14" font-size="12">runs compared per process</text>';
  const fig = (mime, body) => `<div class="jp-OutputArea-output" data-mime-type="${mime}">${body}</div>`;
  good.push(fig("image/svg+xml", `<svg width="400" height="300">${plot}</svg>`));
  good.push(fig("image/svg+xml", '<svg width="120" height="20"><rect width="90" height="20" fill="#4e79a7"/></svg>'));
  bad.push(fig("image/svg+xml", '<svg width="400" height="300"></svg>'));                      // stripped SVG
  bad.push(fig("image/svg+xml", '<svg width="400" height="300"><rect width="400" height="300" fill="white"/></svg>'));
  bad.push(fig("image/svg+xml", '<svg width="400" height="300"><text x="20" y="40" font-size="12">runs compared per process</text></svg>'));
  bad.push(fig("image/svg+xml", '<svg width="400" height="300"><rect x="1" y="1" width="398" height="298" fill="white" stroke="black" stroke-width="2"/></svg>'));
  bad.push(fig("image/svg+xml", '<svg width="400" height="300"><rect x="100" y="60" width="200" height="180" fill="none" stroke="#ccc" stroke-width="4"/></svg>'));
  bad.push(fig("image/png", '<img width="400" height="300" alt="figure" src="data:image/png;base64,iVBORw0KGgo=">'));
  bad.push(fig("image/png", ""));
  const goodTable = '<div class="jp-OutputArea-output" data-mime-type="text/html"><table><tr><th>run</th><th>s</th></tr><tr><td>a</td><td>1</td></tr></table></div>';
  const badTable = '<div class="jp-OutputArea-output" data-mime-type="text/html"><table><thead><tr><th>run</th></tr></thead><tbody></tbody></table></div>';
  // A wide table (40 columns of long names) in a 600 px output area: sticking out fails, in a
  // box of its own that scrolls passes.
  const wideRow = (c) => "<tr>" + Array.from({ length: 40 }, (_, j) => `<${c}>column_number_${j}</${c}>`).join("") + "</tr>";
  const wide = `<table>${wideRow("th")}${wideRow("td")}</table>`;
  const wideBad = `<div class="jp-OutputArea-output" data-mime-type="text/html" style="width:600px;overflow-x:auto">${wide}</div>`;
  const wideGood = `<div class="jp-OutputArea-output" data-mime-type="text/html" style="width:600px;overflow-x:auto"><div style="overflow-x:auto;max-width:100%">${wide}</div></div>`;
  await page.setContent(`<html><body style="background:white">${good.join("")}${bad.join("")}${goodTable}${badTable}${wideBad}${wideGood}</body></html>`);
  const r = await checkPage(page, "selftest", { figures: good.length + bad.length, tables: 4 });
  await page.close();
  const failedFigures = new Set(r.problems.map((p) => p.match(/^figure (\d+)/)?.[1]).filter(Boolean).map(Number));
  const failedTables = new Set(r.problems.map((p) => p.match(/^table (\d+)/)?.[1]).filter(Boolean).map(Number));
  const want = new Set(bad.map((_, i) => good.length + i + 1));
  const ok = failedFigures.size === want.size && [...want].every((i) => failedFigures.has(i)) &&
    failedTables.size === 2 && failedTables.has(2) && failedTables.has(3) &&
    r.problems.every((p) => /^(figure|table) \d+/.test(p));
  // The self-test's own failure screenshots are expected; keep them out of the way.
  for (const f of fs.readdirSync(FAILURES)) if (f.startsWith("selftest-")) fs.rmSync(path.join(FAILURES, f));
  if (process.env.RENDER_DEBUG) for (const s of r.stats) console.log("    selftest stats", JSON.stringify(s));
  if (!ok) {
    console.log("self-test of the checker FAILED: expected figures", [...want].join(","), "and tables 2, 3 to fail; got:");
    for (const p of r.problems) console.log("    " + p);
    for (const s of r.stats) console.log("    stats", JSON.stringify(s));
  } else {
    console.log(`${"checker self-test".padEnd(44)} ${bad.length} blank/broken figures, 1 empty and 1 sticking-out table caught, ` +
      `${good.length} good figures and 2 tables passed   ok`);
  }
  return ok;
}

// ---------------------------------------------------------------------------------------------
// Jupyter: nbconvert, trust, the Notebook server.

function run(cmd, argv, env) {
  const r = spawnSync(cmd, argv, { env, encoding: "utf8" });
  if (r.error) die(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) die(`${cmd} ${argv.join(" ")} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer(root, env) {
  const log = path.join(OUT, "notebook-server.log");
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const token = crypto.randomBytes(24).toString("hex");
    const argv = ["--no-browser", "--ip=127.0.0.1", `--port=${port}`, "--port-retries=0",
      `--NotebookApp.token=${token}`, `--notebook-dir=${root}`];
    if (process.getuid && process.getuid() === 0) argv.push("--allow-root");
    const fd = fs.openSync(log, "w");
    // Its own process group, so that stopping it also stops the kernels it started.
    const child = spawn("jupyter-notebook", argv, { env, stdio: ["ignore", fd, fd], detached: true });
    fs.closeSync(fd);
    let exited = null;
    child.on("exit", (code, sig) => { exited = sig || code; });
    child.on("error", (e) => { exited = e.message; });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + SERVER_START_MS;
    while (exited === null && Date.now() < deadline) {
      try {
        const r = await fetch(`${base}/api/status?token=${token}`);
        if (r.ok) return { child, base, token, log };
      } catch { /* not listening yet */ }
      await sleep(250);
    }
    if (exited === null) {
      await stopServer({ child });
      throw new Error(`the Notebook server did not answer on ${base} within ${SERVER_START_MS / 1000} s; see ${log}`);
    }
    const text = fs.readFileSync(log, "utf8");
    if (!/already in use|Address already/i.test(text)) {
      throw new Error(`the Notebook server exited (${exited}) before answering; ${log}:\n${text.slice(-2000)}`);
    }
  }
  throw new Error(`could not start the Notebook server on a free port; see ${log}`);
}

async function stopServer(srv) {
  if (!srv || !srv.child || srv.child.exitCode !== null) return;
  const pgid = srv.child.pid;
  if (srv.base) {
    try { await fetch(`${srv.base}/api/shutdown?token=${srv.token}`, { method: "POST" }); } catch { /* gone */ }
  }
  for (let i = 0; i < 40 && srv.child.exitCode === null && srv.child.signalCode === null; i++) await sleep(250);
  for (const sig of ["SIGTERM", "SIGKILL"]) {
    try { process.kill(-pgid, sig); } catch { return; } // no such group: all gone
    await sleep(1000);
  }
}

// ---------------------------------------------------------------------------------------------
// Live pages.

async function openLive(page, srv, rel) {
  await page.goto(`${srv.base}/notebooks/${rel}?token=${srv.token}`, { timeout: PAGE_LOAD_MS });
  try {
    await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded &&
      Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() &&
      document.querySelector("#kernel_indicator_icon.kernel_idle_icon"), null, { timeout: PAGE_LOAD_MS, polling: 250 });
  } catch {
    const why = await page.evaluate(() => {
      const d = document.querySelector(".modal-dialog");
      const k = document.querySelector("#kernel_indicator_icon");
      return `kernel indicator: ${k ? k.className : "none"}${d ? `; dialog: ${d.innerText.slice(0, 300)}` : ""}`;
    }).catch(() => "page gone");
    throw new Error(`notebook ${rel} did not load with a connected, idle kernel within ${PAGE_LOAD_MS / 1000} s (${why})`);
  }
  await waitImages(page);
}

async function waitImages(page) {
  await page.waitForFunction(() => [...document.images].every((i) => i.complete), null, { timeout: PAGE_LOAD_MS });
}

async function runAllCells(page, rel) {
  await page.evaluate(() => {
    Jupyter.notebook.clear_all_output();
    Jupyter.notebook.execute_all_cells();
  });
  try {
    await page.waitForFunction(() => {
      const code = Jupyter.notebook.get_cells().filter((c) => c.cell_type === "code" && c.get_text().trim() !== "");
      const prompts = [...document.querySelectorAll(".input_prompt")].map((p) => p.innerText);
      return code.every((c) => typeof c.input_prompt_number === "number") &&
        !prompts.some((p) => p.includes("[*]")) &&
        document.querySelector("#kernel_indicator_icon.kernel_idle_icon");
    }, null, { timeout: RUN_ALL_MS, polling: 250 });
  } catch {
    const pending = await page.evaluate(() => Jupyter.notebook.get_cells()
      .map((c, i) => [i, c]).filter(([, c]) => c.cell_type === "code" && typeof c.input_prompt_number !== "number")
      .map(([i, c]) => `cell ${i} [${c.input_prompt_number}]`).join(", ")).catch(() => "page gone");
    throw new Error(`running all cells of ${rel} from the browser did not finish within ${RUN_ALL_MS / 1000} s; ` +
      `not done: ${pending || "none (kernel still busy)"}`);
  }
  await waitImages(page);
  // The cells must have run without unexpected errors.
  return page.evaluate(() => Jupyter.notebook.get_cells().flatMap((c, i) => {
    if (c.cell_type !== "code") return [];
    const allowed = (c.metadata.tags || []).includes("raises-exception");
    return c.output_area.outputs.filter((o) => o.output_type === "error" && !allowed)
      .map((o) => `cell ${i}: ${o.ename}: ${o.evalue}`);
  }));
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now();
  const executedDir = path.resolve(args.executed);
  const sourceDir = path.resolve(args.source);
  if (!fs.existsSync(CHROMIUM)) die(`${CHROMIUM} not found (Debian package chromium; make test-deps installs it)`);

  // The executed notebooks must be there and newer than their sources.
  const names = fs.readdirSync(sourceDir).filter((f) => f.endsWith(".ipynb")).sort();
  if (names.length === 0) die(`no notebooks in ${sourceDir}`);
  for (const n of names) {
    const ex = path.join(executedDir, n);
    if (!fs.existsSync(ex) || fs.statSync(ex).mtimeMs < fs.statSync(path.join(sourceDir, n)).mtimeMs) {
      die(`${ex} is missing or older than ${path.join(sourceDir, n)}; run make test-notebooks first`);
    }
  }

  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(FAILURES, { recursive: true });

  // A private Jupyter configuration and data directory: the user's settings and notebook
  // signatures stay out of it. JUPYTER_PATH (from the Makefile) selects this tree's kernel.
  const jhome = path.join(OUT, "jupyter");
  const env = { ...process.env, JUPYTER_CONFIG_DIR: path.join(jhome, "config"),
    JUPYTER_DATA_DIR: path.join(jhome, "data"), JUPYTER_RUNTIME_DIR: path.join(jhome, "runtime") };
  if (!env.JUPYTER_PATH) die("JUPYTER_PATH is not set; run through make test-render");

  // Pages and what each must show.
  const notebooks = names.map((n) => ({ name: n, stem: n.replace(/\.ipynb$/, ""),
    nb: JSON.parse(fs.readFileSync(path.join(executedDir, n), "utf8")) }));
  run("jupyter-nbconvert", ["--to", "html", "--output-dir", OUT, ...names.map((n) => path.join(executedDir, n))], env);
  const pages = [];
  for (const x of notebooks) {
    pages.push({ kind: "report", label: `${x.stem}.html`, url: pathToFileURL(path.join(OUT, `${x.stem}.html`)).href,
      expected: { ...expectedCounts(x.nb, NBCONVERT_PRIORITY), summaryCells: summaryChecks(x.nb) } });
  }
  for (const r of args.report) {
    const html = r.replace(/\.ipynb$/, ".html");
    if (!fs.existsSync(html)) die(`${html} not found`);
    const nb = JSON.parse(fs.readFileSync(r, "utf8"));
    pages.push({ kind: "report", label: path.relative(process.cwd(), html), url: pathToFileURL(path.resolve(html)).href,
      expected: expectedCounts(nb, NBCONVERT_PRIORITY) });
  }

  // Live copies in a mirror of the repository's layout (live/notebooks next to live/test), so
  // relative paths such as ../test/data/traces/... resolve as they do from notebooks/. They are
  // trusted, as a user's own notebooks are (Notebook 6 shows SVG and unsanitised HTML only then).
  const liveRoot = path.join(OUT, "live");
  const liveDir = path.join(liveRoot, "notebooks");
  fs.mkdirSync(liveDir, { recursive: true });
  fs.symlinkSync(path.resolve(sourceDir, "..", "test"), path.join(liveRoot, "test"));
  for (const x of notebooks) fs.copyFileSync(path.join(executedDir, x.name), path.join(liveDir, x.name));
  run(process.env.PYTHON || "/usr/bin/python3", ["-m", "nbformat.sign", ...names.map((n) => path.join(liveDir, n))], env);

  const results = [];
  let srv = null, browser = null, ok = true;
  const cleanup = async () => {
    if (browser) await browser.close().catch(() => {});
    await stopServer(srv);
  };
  process.on("SIGINT", () => { cleanup().finally(() => process.exit(130)); });
  process.on("SIGTERM", () => { cleanup().finally(() => process.exit(143)); });
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"] });
    ok = (await selfTest(browser)) && ok;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    // Nothing leaves the machine: the reports' CDN scripts (require.js, MathJax) are refused at once.
    await context.route("**/*", (route) => {
      const u = new URL(route.request().url());
      return u.protocol === "file:" || u.protocol === "data:" || u.hostname === "127.0.0.1" ? route.continue() : route.abort();
    });

    const report = (r) => {
      results.push(r);
      const status = r.problems.length ? "FAILED" : "ok";
      console.log(`${r.name.padEnd(44)} figures ${String(r.figures).padStart(2)}  tables ${String(r.tables).padStart(2)}   ${status}`);
      for (const p of r.problems) console.log(`    ${p}`);
    };

    for (const p of pages) {
      const page = await context.newPage();
      await page.goto(p.url, { waitUntil: "load", timeout: PAGE_LOAD_MS });
      await waitImages(page);
      report(await checkPage(page, `report ${p.label}`, p.expected));
      await page.close();
    }

    srv = await startServer(liveRoot, env);
    const specs = await (await fetch(`${srv.base}/api/kernelspecs?token=${srv.token}`)).json();
    const argv0 = specs.kernelspecs?.tracebook?.spec?.argv?.[0];
    if (path.resolve(argv0 || "") !== path.resolve(args["kernel-binary"])) {
      throw new Error(`the Notebook server's tracebook kernel runs ${argv0}, not ${path.resolve(args["kernel-binary"])}`);
    }
    for (const x of notebooks) {
      const rel = `notebooks/${x.name}`;
      const expected = { ...expectedCounts(x.nb, NOTEBOOK6_PRIORITY), summaryCells: summaryChecks(x.nb) };
      const page = await context.newPage();
      const consoleErrors = [];
      page.on("pageerror", (e) => consoleErrors.push(e.message));
      try {
        await openLive(page, srv, rel);
        report(await checkPage(page, `live ${x.stem}`, expected));
        if (!raisesExceptions(x.nb)) {
          const errors = await runAllCells(page, rel);
          const r = await checkPage(page, `live-run ${x.stem}`, expected);
          r.problems.unshift(...errors.map((e) => `unexpected error output: ${e}`));
          report(r);
        }
      } catch (e) {
        report({ name: `live ${x.stem}`, figures: 0, tables: 0, problems: [e.message], stats: [] });
      }
      for (const e of consoleErrors) console.log(`    (page error on ${rel}: ${e})`);
      await page.evaluate(() => Jupyter.notebook.session.delete()).catch(() => {});
      await page.close();
    }
  } catch (e) {
    ok = false;
    console.log(`test-render: ${e.message}`);
    if (srv) console.log(`    Notebook server log: ${srv.log}`);
  } finally {
    await cleanup();
  }

  fs.writeFileSync(path.join(OUT, "render.json"), JSON.stringify(results, null, 1));
  const failed = results.filter((r) => r.problems.length);
  ok = ok && failed.length === 0;
  console.log(`test-render: ${results.length} pages, ${failed.length} failed, ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s; screenshots in ${path.relative(process.cwd(), SCREENS)}/`);
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error(e); process.exit(1); });
