package trace_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// nsightExport writes, with Python's sqlite3, a database shaped like an
// `nsys export --type sqlite` file (the tables and columns of NVIDIA's
// "SQLite Export Schema Reference": StringIds, ThreadNames, NVTX_EVENTS,
// CUPTI_ACTIVITY_KIND_RUNTIME, _KERNEL, _MEMCPY, _MEMSET,
// ENUM_CUDA_MEMCPY_OPER); no real nsys export was available. The same
// script computes, by SQL queries over those tables, the intervals the
// trace must hold: [location, name, start, end] with times from the
// earliest start.
const nsightExport = `
import sqlite3, json, sys
con = sqlite3.connect(sys.argv[1])
con.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL REFERENCES StringIds(id), priority INTEGER, globalTid INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
  textId INTEGER REFERENCES StringIds(id), domainId INTEGER, uint64Value INTEGER, int64Value INTEGER,
  doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL REFERENCES StringIds(id),
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL REFERENCES StringIds(id), shortName INTEGER NOT NULL REFERENCES StringIds(id),
  mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
""")
A = (1 << 48) | (4100 << 24) | 4100
B = (1 << 48) | (4100 << 24) | 4107
P = (1 << 48) | (4100 << 24)
con.executemany("INSERT INTO StringIds VALUES (?,?)", [(1, "setup"), (2, "cudaMalloc_v3020"), (3, "cudaLaunchKernel_v7000"),
  (4, "cudaStreamCreate_v5000"), (5, "void saxpy<float>(int, float *)"), (6, "saxpy"), (7, "init_kernel()"), (8, "init"),
  (9, "app")])
con.execute("INSERT INTO ThreadNames VALUES (9, 20, ?)", (A,))
con.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?,?,?)", [(0, "CUDA_MEMCPY_OPER_UNKNOWN", "unknown"),
  (1, "CUDA_MEMCPY_OPER_HTOD", "Host-to-Device"), (2, "CUDA_MEMCPY_OPER_DTOH", "Device-to-Host")])
nv = "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (?,?,?,?,?,?)"
con.executemany(nv, [
  (1000, 9000, 59, "main", A, None),
  (1500, 4000, 59, None, A, 1),
  (5000, 8500, 59, "step", A, None),
  (1200, 1400, 60, "async", A, None),
  (3500, 6000, 60, "overlap", A, None),   # overlaps setup without being inside it: skipped
  (7000, None, 59, "never popped", A, None),
  (4500, 4500, 34, "a mark", A, None),
])
rt = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,?,0,NULL)"
con.executemany(rt, [(2000, 2500, A, 1, 2), (5500, 5600, A, 2, 3), (1100, 1300, B, 3, 4)])
con.execute("""INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,
  globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,
  staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (5700, 6700, 0, 1, 7, 2, ?, 5, 6, 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, 1),
         (900, 1500, 1, 2, 21, 9, ?, 7, 8, 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, 2)""", (P, P))
con.execute("""INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind)
  VALUES (2600, 2900, 0, 1, 7, 1, ?, 4096, 1)""", (P,))
con.execute("""INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, globalPid, value, bytes)
  VALUES (3000, 3100, 0, 1, 13, 5, ?, 0, 64)""", (P,))
con.commit()
rows = con.execute("""
WITH spans AS (
  SELECT 'PID ' || ((globalTid >> 24) & 0xFFFFFF) || ' / TID ' || (globalTid & 0xFFFFFF) AS loc,
         coalesce(text, s.value) AS name, start, end
  FROM NVTX_EVENTS LEFT JOIN StringIds AS s ON s.id = textId
  WHERE eventType IN (59, 60, 70, 71) AND end IS NOT NULL
  UNION ALL
  SELECT 'PID ' || ((globalTid >> 24) & 0xFFFFFF) || ' / TID ' || (globalTid & 0xFFFFFF),
         CASE substr(s.value, -6, 2) WHEN '_v' THEN substr(s.value, 1, length(s.value) - 6) ELSE s.value END, start, end
  FROM CUPTI_ACTIVITY_KIND_RUNTIME JOIN StringIds AS s ON s.id = nameId
  UNION ALL
  SELECT 'GPU ' || deviceId || ' / stream ' || streamId, s.value, start, end
  FROM CUPTI_ACTIVITY_KIND_KERNEL JOIN StringIds AS s ON s.id = demangledName
  UNION ALL
  SELECT 'GPU ' || deviceId || ' / stream ' || streamId, '[CUDA memcpy ' || e.label || ']', start, end
  FROM CUPTI_ACTIVITY_KIND_MEMCPY JOIN ENUM_CUDA_MEMCPY_OPER AS e ON e.id = copyKind
  UNION ALL
  SELECT 'GPU ' || deviceId || ' / stream ' || streamId, '[CUDA memset]', start, end FROM CUPTI_ACTIVITY_KIND_MEMSET
)
SELECT loc, name, start - (SELECT min(start) FROM spans), end - (SELECT min(start) FROM spans)
FROM spans WHERE name != 'overlap' ORDER BY 1, 3, 4 DESC
""").fetchall()
json.dump(rows, open(sys.argv[2], "w"))
`

// nsightSpans pairs the Enter and Leave events of p into
// [location, name, start, end] rows.
func nsightSpans(t *testing.T, tr *trace.Trace) []string {
	var out []string
	for _, p := range tr.Processes() {
		nsightNested(t, p)
		var stack []int
		for i, k := range p.Kind {
			switch k {
			case trace.Enter:
				stack = append(stack, i)
			case trace.Leave:
				j := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				out = append(out, fmt.Sprintf("[%q,%q,%d,%d]", p.Name, p.EventName(j), p.Time[j], p.Time[i]))
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestNsightSQLite(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	dir := t.TempDir()
	db, js := filepath.Join(dir, "report.sqlite"), filepath.Join(dir, "want.json")
	if out, err := exec.Command(py, "-c", nsightExport, db, js).CombinedOutput(); err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rows {
		want = append(want, fmt.Sprintf("[%q,%q,%v,%v]", r[0], r[1], r[2], r[3]))
	}
	slices.Sort(want)
	if len(want) != 11 {
		t.Fatalf("the script expects %d intervals, want 11: %q", len(want), want)
	}
	tr, err := trace.Load(db)
	if err != nil {
		t.Fatal(err)
	}
	if got := nsightSpans(t, tr); !slices.Equal(got, want) {
		t.Errorf("intervals:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	var names []string
	for _, p := range tr.Processes() {
		names = append(names, p.Name+" "+tr.Defs.Locations[p.Location].Type)
	}
	wantNames := []string{"PID 4100 / TID 4100 cpu_thread", "PID 4100 / TID 4107 cpu_thread",
		"GPU 0 / stream 7 accelerator_stream", "GPU 0 / stream 13 accelerator_stream", "GPU 1 / stream 21 accelerator_stream"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("locations %q, want %q", names, wantNames)
	}
	s := tr.Defs.Properties["nsight:skipped"]
	if !strings.Contains(s, "no start or end time ×1") || !strings.Contains(s, "overlapping another interval of their location without being inside it ×1") {
		t.Errorf("nsight:skipped = %q", s)
	}
}

// TestNsightSQLiteDamaged: a database cut short fails with an error naming
// the file.
func TestNsightSQLiteDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.sqlite")
	if err := os.WriteFile(path, []byte("SQLite format 3\x00 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := trace.Load(path)
	if err == nil || !strings.Contains(err.Error(), "bad.sqlite") {
		t.Errorf("error %v: want one naming the file", err)
	}
}
