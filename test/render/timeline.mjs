// Browser test of plotting.LiveTimeline's interactive view (headless Debian Chromium).
//
// For every .tb-timeline element on a page: the view replaced the fallback image; the legend's
// colours are drawn on the canvas; messages draw lines (canvas differs with them off); the mouse
// wheel zooms (data-t0/data-t1 change, the span shrinks); dragging zooms to the dragged range;
// hovering a drawn bar shows the tooltip (.tb-tip) with its function; clicking it shows its call
// path (.tb-path); and, with --expect, the exclusive-time summary of a given range equals the
// expected one exactly (at full detail) and the .tb-summary table shows it.
//
// Usage: node test/render/timeline.mjs page.html [--expect expect.json]
// expect.json: [{title, range: [t0, t1], summary: [{label, ns}], messages: bool}], one per
// timeline in page order (or cases: [{range, summary}] for several ranges); or a bare
// [{label, ns}] for a page with one timeline (initial range).
// checkTimelines(page, expect) is exported for render.mjs.
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { PNG } from "pngjs";

function hexRGB(h) { const n = parseInt(h.slice(1), 16); return [n >> 16 & 255, n >> 8 & 255, n & 255]; }

async function canvasPNG(handle) {
  return PNG.sync.read(await handle.screenshot());
}

// checkTimelines runs the checks on every .tb-timeline of an open page; it returns a list of
// problems (empty when all pass). expect: as the --expect file, or undefined.
export async function checkTimelines(page, expect) {
  const problems = [];
  if (Array.isArray(expect) && expect.length && "label" in expect[0]) expect = [{ summary: expect }];
  // Outputs may be inserted after the page loads (Notebook 6, JupyterLab).
  await page.waitForFunction((n) => document.querySelectorAll(".tb-timeline").length >= n, expect ? expect.length : 1, { timeout: 10000 }).catch(() => {});
  const roots = await page.$$(".tb-timeline");
  if (expect && expect.length !== roots.length) problems.push(`${roots.length} timelines on the page, ${expect.length} expected`);
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i], exp = expect ? expect[i] : undefined;
    const name = `timeline ${i}` + (exp && exp.title ? ` (${exp.title})` : "");
    const bad = (msg) => problems.push(`${name}: ${msg}`);
    try {
      await page.waitForFunction((el) => !!el.tbTimeline, root, { timeout: 10000 });
    } catch (e) {
      bad("the view did not mount (no el.tbTimeline)"); continue;
    }
    await root.scrollIntoViewIfNeeded();
    const info = await root.evaluate((el) => {
      const d = JSON.parse(el.querySelector("script.tb-data").textContent);
      const img = el.querySelector("img.tb-fallback");
      return { legend: d.legend.map((id) => d.colors[id]), nmsgs: d.nmsgs, t0: d.t0, t1: d.t1, fallbackShown: img && img.style.display !== "none", full: d.levels.length === 1 && d.levels[0].res === 0 };
    });
    if (info.fallbackShown) bad("fallback image still shown");
    const canvas = await root.$("canvas.tb-canvas");
    // Where the canvas is: read again before every gesture, since a front end may scroll the
    // page in between (Notebook 6 scrolls to the cell a click selects).
    let box = await canvas.boundingBox(), plotLeft = box.x + 150;
    const locate = async () => { await root.scrollIntoViewIfNeeded(); box = await canvas.boundingBox(); plotLeft = box.x + 150; };
    const tb = (expr, ...a) => root.evaluate(expr, ...a);
    const range = async () => tb((el) => [+el.getAttribute("data-t0"), +el.getAttribute("data-t1")]);
    await tb((el) => el.tbTimeline.setRange(...el.tbTimeline.range())); // settle

    // Legend colours on the canvas (the three with the most time).
    const png = await canvasPNG(canvas);
    for (const hex of info.legend.slice(0, 3)) {
      const [r, g, b] = hexRGB(hex);
      let n = 0;
      for (let p = 0; p < png.data.length; p += 4) if (png.data[p] === r && png.data[p + 1] === g && png.data[p + 2] === b) n++;
      if (n < 4) bad(`legend colour ${hex} drawn on ${n} pixels`);
    }
    // Messages: turning them off changes the canvas.
    if (exp && exp.messages && !info.nmsgs) bad("the data has no messages");
    if (info.nmsgs) {
      const cb = await root.$("input.tb-msgs");
      await cb.click();
      await page.waitForTimeout(100);
      const off = await canvasPNG(canvas);
      await cb.click();
      await page.waitForTimeout(100);
      const on = await canvasPNG(canvas);
      let diff = 0;
      for (let p = 0; p < on.data.length; p += 4) if (on.data[p] !== off.data[p] || on.data[p + 1] !== off.data[p + 1]) diff++;
      if (diff < 20) bad(`message lines: ${diff} pixels differ with messages on and off`);
    }
    // Hover on a message line.
    await locate();
    if (info.nmsgs) {
      const ms = await tb((el) => el.tbTimeline.messages());
      // A message whose midpoint no other message's line passes near (lines of messages
      // sent and received at almost the same times, and messages to self, cross there);
      // else the tooltip may name any message whose line is within a few pixels.
      const inPlot = ms.filter((q) => q.x > plotLeft + 2 && q.x < box.x + box.width - 10);
      const segDist = (o, x, y) => {
        const dx = o.x1 - o.x0, dy = o.y1 - o.y0, l2 = dx * dx + dy * dy;
        const t = l2 > 0 ? Math.max(0, Math.min(1, ((x - o.x0) * dx + (y - o.y0) * dy) / l2)) : 0;
        return Math.hypot(o.x0 + t * dx - x, o.y0 + t * dy - y);
      };
      const near = (q, d) => ms.filter((o) => segDist(o, q.x, q.y) <= d);
      const m = inPlot.find((q) => near(q, 8).length === 1) || inPlot[0];
      if (!m) bad("no message line drawn in the plot");
      else {
        await page.mouse.move(m.x, m.y);
        await page.waitForTimeout(100);
        const tip = await tb((el) => { const t = el.querySelector(".tb-tip"); return t.style.display !== "none" ? t.textContent : ""; });
        const sizes = near(m, 4).map((q) => q.bytes);
        if (!sizes.some((b) => tip.startsWith(`message ${b} B\n`))) bad(`hover on a message of ${m.bytes} B: tooltip ${JSON.stringify(tip)}`);
        await page.mouse.move(box.x + 2, box.y + box.height - 2);
      }
    }
    // Wheel zoom around the middle of the plot.
    await locate();
    const [a0, a1] = await range();
    const midY = box.y + 8;
    await page.mouse.move(plotLeft + (box.width - 158) / 2, midY);
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(150);
    const [b0, b1] = await range();
    if (!(b1 - b0 < a1 - a0 && b0 > a0 && b1 < a1)) bad(`wheel zoom: range [${a0}, ${a1}] became [${b0}, ${b1}]`);
    // Drag-range zoom: from 25% to 50% of the plot width.
    await locate();
    await root.evaluate((el) => { el.querySelector(".tb-btn").click(); });
    await page.waitForTimeout(100);
    const [c0, c1] = await range();
    const pw = box.width - 158, xa = plotLeft + pw * 0.25, xb = plotLeft + pw * 0.5;
    await page.mouse.move(xa, midY);
    await page.mouse.down();
    await page.mouse.move((xa + xb) / 2, midY, { steps: 3 });
    await page.mouse.move(xb, midY, { steps: 3 });
    await page.mouse.up();
    await page.waitForTimeout(150);
    const [d0, d1] = await range();
    const px = (c1 - c0) / pw, w0 = c0 + (c1 - c0) * 0.25, w1 = c0 + (c1 - c0) * 0.5;
    if (!(Math.abs(d0 - w0) <= 2 * px + 1 && Math.abs(d1 - w1) <= 2 * px + 1)) bad(`drag zoom to [${w0}, ${w1}] gave [${d0}, ${d1}]`);
    // Pan with shift+drag: the span stays, the range moves.
    await locate();
    {
      const midY = box.y + 8, pw = box.width - 158, xa = plotLeft + pw * 0.25, xb = plotLeft + pw * 0.5;
      await page.keyboard.down("Shift");
      await page.mouse.move(xb, midY);
      await page.mouse.down();
      await page.mouse.move(xa, midY, { steps: 4 });
      await page.mouse.up();
      await page.keyboard.up("Shift");
      await page.waitForTimeout(100);
      const [e0, e1] = await range();
      if (!(Math.abs((e1 - e0) - (d1 - d0)) <= 2 && e0 > d0)) bad(`shift+drag pan: [${d0}, ${d1}] became [${e0}, ${e1}]`);
    }
    // Hover and click on a drawn bar, with the message lines hidden: a line over the bar
    // takes the hover (dense exchanges cross most bars; the lines' hover is checked above).
    await locate();
    await root.evaluate((el) => { el.querySelector(".tb-btn").click(); });
    await page.waitForTimeout(100);
    const msgBox = info.nmsgs ? await root.$("input.tb-msgs") : null;
    if (msgBox) {
      await msgBox.click();
      await page.waitForTimeout(100);
    }
    let probe = await tb((el) => el.tbTimeline.probe());
    for (let k = 0; !probe && k < 8; k++) { // zoom in until a bar or group is wide enough
      probe = await tb((el) => { const [a, b] = el.tbTimeline.range(), c = (a + b) / 2, s = (b - a) / 16; el.tbTimeline.setRange(c - s, c + s); return el.tbTimeline.probe(); });
    }
    if (!probe) bad("no drawn bar wide enough to hover");
    else {
      const p = await tb((el, q) => el.tbTimeline.pixelOf(q.lane, q.level, q.t), probe);
      await page.mouse.move(p.x, p.y);
      await page.waitForTimeout(100);
      const tip = await tb((el) => { const t = el.querySelector(".tb-tip"); return t.style.display !== "none" ? t.textContent : ""; });
      const head = probe.n > 1 ? `${probe.n} calls merged, dominant ${probe.label}\n` : probe.label + "\n";
      if (!tip.startsWith(head)) bad(`hover on ${probe.label} (lane ${probe.lane}, level ${probe.level}): tooltip ${JSON.stringify(tip)}`);
      await page.mouse.click(p.x, p.y);
      await page.waitForTimeout(100);
      const pathText = await tb((el) => { const t = el.querySelector(".tb-path"); return t.style.display !== "none" ? t.textContent : ""; });
      const lines = pathText.split("\n").slice(1);
      if (lines.length !== probe.level + 1 || !lines[lines.length - 1].trim().startsWith(probe.label + " (")) bad(`click on ${probe.label} at level ${probe.level}: call path ${JSON.stringify(pathText)}`);
    }
    if (msgBox) {
      await msgBox.click();
      await page.waitForTimeout(100);
    }
    // The summary says when it is approximate.
    const caption = await tb((el) => { const c = el.querySelector("table.tb-summary caption"); return c ? c.textContent : null; });
    if (caption === null) bad("no table.tb-summary");
    else if (info.full === caption.includes("approximate (merged at")) bad(`summary caption ${JSON.stringify(caption)} with ${info.full ? "exact bars" : "merged levels"}`);
    // Summary of ranges.
    const cases = exp ? exp.cases || (exp.summary ? [{ range: exp.range, summary: exp.summary }] : []) : [];
    for (const cs of cases) {
      const r = cs.range || [info.t0, info.t1];
      const got = await tb((el, r) => { el.tbTimeline.setRange(r[0], r[1]); return el.tbTimeline.summary(); }, r);
      const want = cs.summary;
      const same = got.length === want.length && got.every((g, k) => g.label === want[k].label && (info.full ? g.ns === want[k].ns : Math.abs(g.ns - want[k].ns) <= 0.05 * want[k].ns));
      if (!same) bad(`summary of [${r}]: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      const rows = await tb((el) => [...el.querySelectorAll("table.tb-summary tbody tr")].map((tr) => [tr.cells[0].textContent, +tr.cells[1].getAttribute("data-ns")]));
      if (rows.length !== got.length || rows.some((row, k) => row[0] !== got[k].label || row[1] !== got[k].ns)) bad(`table.tb-summary ${JSON.stringify(rows)} differs from summary()`);
    }
  }
  return problems;
}

async function main() {
  const argv = process.argv.slice(2);
  let file, expect;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--expect") expect = JSON.parse(fs.readFileSync(argv[++i], "utf8"));
    else file = argv[i];
  }
  if (!file) { console.error("usage: node timeline.mjs page.html [--expect expect.json]"); process.exit(2); }
  const args = process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : [];
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args });
  let problems = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.goto(pathToFileURL(path.resolve(file)).href);
    problems = await checkTimelines(page, expect);
    problems.push(...errors.map((e) => `page error: ${e}`));
  } finally {
    await browser.close();
  }
  for (const p of problems) console.log("FAIL " + p);
  console.log(problems.length ? `${problems.length} problems` : `ok: ${file}`);
  process.exit(problems.length ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
