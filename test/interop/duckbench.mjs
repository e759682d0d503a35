// duckbench.mjs — DuckDB's side of arrowio's TestOpsVsDuckDB (see arrowio/ops_duck_test.go):
//
//   node test/interop/duckbench.mjs events.parquet
//
// Loads the Parquet file into an in-memory table, then runs the filter, the sort, the group-by
// and the pipeline that the Go side runs with the table operations, each materialised as a
// table (CREATE TABLE ... AS), and prints one line "RESULT {seconds, peak_rss, checks}". The
// pipeline materialises each step (filter, then sort, then group-by) as the Go side does;
// DuckDB would otherwise drop a sort that a group-by follows.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const path = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const run = (sql) => conn.run(sql);
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();

const seconds = {};
async function timed(step, sqls) {
  const t0 = process.hrtime.bigint();
  for (const s of sqls) await run(s);
  seconds[step] = Number(process.hrtime.bigint() - t0) / 1e9;
}

const where = `starts_with("Name", 'MPI_') AND "Event Type" = 'Enter' AND "Bytes" >= 4096`;
await timed('load', [`CREATE TABLE ev AS SELECT * FROM read_parquet(${q(path)})`]);
await timed('filter', [`CREATE TABLE f AS SELECT * FROM ev WHERE ${where}`]);
await timed('sort', [`CREATE TABLE s AS SELECT * FROM ev ORDER BY "Name", "Timestamp (ns)" DESC`]);
await timed('groupby', [`CREATE TABLE g AS SELECT "Name", "Process", count(*) AS "count",
    sum("Bytes") AS "sum(Bytes)", avg("Bytes") AS "mean(Bytes)", max("Timestamp (ns)") AS "max(Timestamp (ns))",
    quantile_cont("Bytes", 0.5) AS "median(Bytes)"
  FROM ev GROUP BY "Name", "Process" ORDER BY "Name", "Process"`]);
await timed('pipeline', [
  `CREATE TABLE pf AS SELECT * FROM ev WHERE ${where}`,
  `CREATE TABLE ps AS SELECT * FROM pf ORDER BY "Bytes" DESC, "Timestamp (ns)"`,
  `CREATE TABLE p AS SELECT "Name", count(*) AS "count", sum("Bytes") AS "sum(Bytes)",
     quantile_cont("Bytes", 0.9) AS "p90" FROM ps GROUP BY "Name" ORDER BY "Name"`,
]);

const status = readFileSync('/proc/self/status', 'utf8');
const peak = Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) * 1024;

const one = async (sql) => Object.values((await rows(sql))[0])[0];
const str = (v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'number' && !Number.isInteger(v) ? v.toExponential(9) : String(v));
const fl = (v) => Number(v).toExponential(9);
const at = async (k) => {
  const r = (await rows(`SELECT "Name", "Timestamp (ns)" AS t FROM s LIMIT 1 OFFSET ${k}`))[0];
  return `${r.Name} ${str(r.t)}`;
};
const n = Number(await one('SELECT count(*) FROM s'));
const checks = {
  'filter rows': str(await one('SELECT count(*) FROM f')),
  'filter sum(Bytes)': str(await one('SELECT sum("Bytes") FROM f')),
  'sort first': await at(0),
  'sort last': await at(n - 1),
  'sort row 1000000': await at(Math.min(1000000, n - 1)),
  'groupby groups': str(await one('SELECT count(*) FROM g')),
  'groupby sum(count)': str(await one('SELECT sum("count") FROM g')),
  'groupby sum(sum)': str(await one('SELECT sum("sum(Bytes)") FROM g')),
  'groupby sum(max)': str(await one('SELECT sum("max(Timestamp (ns))") FROM g')),
  'groupby sum(median)': fl(await one('SELECT sum("median(Bytes)") FROM g')),
  'groupby sum(mean)': fl(await one('SELECT sum("mean(Bytes)") FROM g')),
  'pipeline groups': str(await one('SELECT count(*) FROM p')),
  'pipeline sum(p90)': fl(await one('SELECT sum("p90") FROM p')),
  'pipeline sum(sum)': str(await one('SELECT sum("sum(Bytes)") FROM p')),
  'pipeline sum(count)': str(await one('SELECT sum("count") FROM p')),
  'pipeline first': String((await rows('SELECT "Name" FROM p LIMIT 1'))[0].Name),
  'groupby first process': str(await one('SELECT "Process" FROM g LIMIT 1')),
};
console.log('RESULT ' + JSON.stringify({ seconds, peak_rss: peak, checks }));
