// check.mjs — independent readers for files written by tracebook/arrowio.
//
//   node test/interop/check.mjs manifest.json
//
// The manifest (written by arrowio/interop_test.go) lists files and what an independent reader
// must see in them:
//   { "files": [ { "path", "format": "parquet"|"arrow", "rows",
//                  "columns": [ { "name", "type" } ],        // DuckDB type or apache-arrow type
//                  "sums":   { column: "decimal string" },    // sum of non-null values
//                  "nulls":  { column: count },
//                  "rows_at": [ { "index", "values": { column: string|null } } ] } ],
//     "duckdb_write": "path" }                                // optional: DuckDB writes Parquet here
// Parquet is read with DuckDB (read_parquet), Arrow IPC with apache-arrow (tableFromIPC).
// Prints one JSON object {"errors": [...], "observed": [...]} and exits 1 if there are errors.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const errors = [];
const observed = [];
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';
const str = (v) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v.toString() : String(v));

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
async function rows(sql) {
  const r = await conn.runAndReadAll(sql);
  return r.getRowObjectsJS();
}

async function readParquet(f) {
  const src = `read_parquet(${q(f.path)}, file_row_number = true)`;
  const desc = await rows(`DESCRIBE SELECT * EXCLUDE (file_row_number) FROM ${src}`);
  const obs = { path: f.path, reader: 'duckdb', columns: desc.map((d) => ({ name: d.column_name, type: d.column_type })) };
  obs.rows = Number((await rows(`SELECT count(*) AS n FROM ${src}`))[0].n);
  obs.sums = {};
  obs.nulls = {};
  for (const c of f.columns) {
    const r = (await rows(`SELECT count(*) - count(${id(c.name)}) AS nulls FROM ${src}`))[0];
    obs.nulls[c.name] = Number(r.nulls);
  }
  for (const name of Object.keys(f.sums ?? {})) {
    const r = (await rows(`SELECT CAST(sum(${id(name)}) AS VARCHAR) AS s FROM ${src}`))[0];
    obs.sums[name] = r.s;
  }
  obs.rows_at = [];
  for (const ra of f.rows_at ?? []) {
    const cols = Object.keys(ra.values).map((c) => `CAST(${id(c)} AS VARCHAR) AS ${id(c)}`).join(', ');
    const r = await rows(`SELECT ${cols} FROM ${src} WHERE file_row_number = ${ra.index}`);
    obs.rows_at.push({ index: ra.index, values: r[0] ?? null });
  }
  return obs;
}

function readArrow(f) {
  const table = tableFromIPC(readFileSync(f.path));
  const obs = { path: f.path, reader: 'apache-arrow', rows: table.numRows, sums: {}, nulls: {}, rows_at: [] };
  obs.columns = table.schema.fields.map((fd) => ({ name: fd.name, type: String(fd.type) }));
  for (const c of f.columns) {
    const col = table.getChild(c.name);
    if (!col) continue;
    let nulls = 0;
    for (let i = 0; i < col.length; i++) if (col.get(i) === null) nulls++;
    obs.nulls[c.name] = nulls;
  }
  for (const name of Object.keys(f.sums ?? {})) {
    const col = table.getChild(name);
    let s = 0n;
    let fs = 0;
    let isFloat = false;
    for (let i = 0; i < col.length; i++) {
      const v = col.get(i);
      if (v === null) continue;
      if (typeof v === 'bigint') s += v;
      else if (Number.isInteger(v) && !isFloat && !String(col.type).startsWith('Float')) s += BigInt(v);
      else { isFloat = true; fs += v; }
    }
    obs.sums[name] = isFloat || String(col.type).startsWith('Float') ? String(fs) : s.toString();
  }
  for (const ra of f.rows_at ?? []) {
    const values = {};
    for (const c of Object.keys(ra.values)) values[c] = str(table.getChild(c)?.get(ra.index));
    obs.rows_at.push({ index: ra.index, values });
  }
  return obs;
}

function compare(f, obs) {
  const where = `${f.format} ${f.path}`;
  if (obs.rows !== f.rows) errors.push(`${where}: ${obs.rows} rows, want ${f.rows}`);
  const got = JSON.stringify(obs.columns);
  const want = JSON.stringify(f.columns.map((c) => ({ name: c.name, type: c.type })));
  if (got !== want) errors.push(`${where}: columns ${got}, want ${want}`);
  for (const [c, n] of Object.entries(f.nulls ?? {}))
    if (obs.nulls[c] !== n) errors.push(`${where}: column ${c}: ${obs.nulls[c]} nulls, want ${n}`);
  for (const [c, s] of Object.entries(f.sums ?? {})) {
    const a = obs.sums[c];
    const isInt = (x) => typeof x === 'string' && /^-?\d+$/.test(x);
    // integer sums compare exactly; float sums within rounding
    const close = a === s || (!(isInt(a) && isInt(s)) && a !== null && Math.abs(Number(a) - Number(s)) <= 1e-9 * Math.max(1, Math.abs(Number(s))));
    if (!close) errors.push(`${where}: column ${c}: sum ${a}, want ${s}`);
  }
  for (const [i, ra] of (f.rows_at ?? []).entries()) {
    const o = obs.rows_at[i]?.values;
    for (const [c, v] of Object.entries(ra.values)) {
      const g = o ? o[c] : undefined;
      const eq = g === v || (g !== null && v !== null && g !== undefined && Number(g) === Number(v) && !Number.isNaN(Number(v)));
      if (!eq) errors.push(`${where}: row ${ra.index} column ${c}: ${JSON.stringify(g)}, want ${JSON.stringify(v)}`);
    }
  }
}

for (const f of manifest.files) {
  try {
    const obs = f.format === 'parquet' ? await readParquet(f) : readArrow(f);
    observed.push(obs);
    compare(f, obs);
  } catch (e) {
    errors.push(`${f.format} ${f.path}: ${e.message}`);
  }
}

if (manifest.duckdb_write) {
  try {
    await conn.run(`COPY (
      SELECT i::BIGINT AS "Timestamp (ns)",
             (i % 16)::INTEGER AS "Process",
             CASE WHEN i % 2 = 0 THEN 'Enter' ELSE 'Leave' END AS "Event Type",
             CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 0.5)::DOUBLE END AS "Metric",
             CASE WHEN i % 7 = 0 THEN NULL ELSE 'f' || (i % 5)::VARCHAR END AS "Name",
             i % 4 = 0 AS "Flag"
      FROM range(1000) t(i) ORDER BY i
    ) TO ${q(manifest.duckdb_write)} (FORMAT parquet)`);
  } catch (e) {
    errors.push(`duckdb write ${manifest.duckdb_write}: ${e.message}`);
  }
}

conn.closeSync?.();
console.log(JSON.stringify({ errors, observed }, null, 1));
process.exit(errors.length ? 1 : 0);
