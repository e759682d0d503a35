package trace

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// TestEventsReadByDuckDB writes the events table of a real Score-P trace to
// Parquet and Arrow IPC and has independent readers (DuckDB, apache-arrow,
// from npm; test/interop/check.mjs) check the schema and values, which are
// computed here from the model, not from the table.
func TestEventsReadByDuckDB(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	interop := filepath.Join(filepath.Dir(file), "..", "..", "test", "interop")
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@duckdb")); err != nil {
		if os.Getenv("TRACEBOOK_REQUIRE_INTEROP") == "1" {
			t.Fatalf("npm packages missing: run npm install --prefix test/interop")
		}
		t.Skip("npm packages missing (npm install --prefix test/interop)")
	}
	tr, err := Load(filepath.Join(tooltest.Traces(), "ping-pong-otf2", "traces.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	ev := tr.Events()
	dir := t.TempDir()
	duck := map[arrow.Type]string{arrow.INT64: "BIGINT", arrow.INT32: "INTEGER", arrow.DICTIONARY: "VARCHAR",
		arrow.STRING: "VARCHAR", arrow.FLOAT64: "DOUBLE", arrow.BOOL: "BOOLEAN"}
	js := map[arrow.Type]string{arrow.INT64: "Int64", arrow.INT32: "Int32", arrow.DICTIONARY: "Dictionary<Int32, Utf8>",
		arrow.STRING: "Utf8", arrow.FLOAT64: "Float64", arrow.BOOL: "Bool"}

	// expectations from the model
	var sumTime, sumProc int64
	for i, p := range tr.Processes() {
		for _, ts := range p.Time {
			sumTime += ts
			sumProc += int64(i)
		}
	}
	// pipit's leading columns, fixed here rather than taken from the table
	pipit := []struct {
		name string
		typ  arrow.Type
	}{{"Timestamp (ns)", arrow.INT64}, {"Event Type", arrow.DICTIONARY}, {"Name", arrow.DICTIONARY},
		{"Process", arrow.INT32}, {"Thread", arrow.INT32}}
	fields := ev.Schema().Fields()
	for i, want := range pipit {
		if i >= len(fields) || fields[i].Name != want.name || fields[i].Type.ID() != want.typ {
			t.Fatalf("column %d: %v, want %s %s (pipit's schema)", i, fields[min(i, len(fields)-1)], want.name, want.typ)
		}
	}
	typeAndName := func(tr *Trace, p *Process, i int) (string, string) {
		switch p.Kind[i] {
		case Enter, Leave:
			return p.Kind[i].String(), tr.RegionName(p.Ref[i])
		}
		return "Instant", p.Kind[i].String()
	}
	p0, last := tr.Process(0), tr.Process(tr.NumProcesses()-1)
	t0, n0 := typeAndName(tr, p0, 0)
	t1, n1 := typeAndName(tr, last, last.Len()-1)
	first := map[string]*string{"Timestamp (ns)": str(strconv.FormatInt(p0.Time[0], 10)), "Process": str("0"),
		"Event Type": str(t0), "Name": str(n0)}
	lastRow := map[string]*string{"Timestamp (ns)": str(strconv.FormatInt(last.Time[len(last.Time)-1], 10)),
		"Process": str(strconv.Itoa(tr.NumProcesses() - 1)), "Event Type": str(t1), "Name": str(n1)}
	type col struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	entry := func(path, format string, types map[arrow.Type]string) map[string]any {
		var cols []col
		for _, f := range ev.Schema().Fields() {
			cols = append(cols, col{f.Name, types[f.Type.ID()]})
		}
		return map[string]any{"path": path, "format": format, "rows": int(tr.NumEvents()), "columns": cols,
			"sums":    map[string]string{"Timestamp (ns)": strconv.FormatInt(sumTime, 10), "Process": strconv.FormatInt(sumProc, 10)},
			"rows_at": []map[string]any{{"index": 0, "values": first}, {"index": int(tr.NumEvents()) - 1, "values": lastRow}}}
	}
	pq, ipc := filepath.Join(dir, "events.parquet"), filepath.Join(dir, "events.arrow")
	arrowio.WriteParquet(pq, ev)
	arrowio.WriteIPC(ipc, ev)
	m, _ := json.Marshal(map[string]any{"files": []any{entry(pq, "parquet", duck), entry(ipc, "arrow", js)}})
	mpath := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(mpath, m, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", filepath.Join(interop, "check.mjs"), mpath).CombinedOutput()
	if err != nil {
		t.Fatalf("independent readers disagree: %v\n%s", err, out)
	}
	var res struct {
		Errors []string `json:"errors"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Errors) > 0 {
		t.Fatalf("check.mjs: %v %s", err, out)
	}
}

func str(s string) *string { return &s }

// TestGlobalPartnerReadByDuckDB: DuckDB reading the Parquet export of the
// split-communicator trace sees the partner's global rank in Partner (the
// sums and rows are computed here from the model through the communicators'
// groups), and the recorded rank in the communicator beside it (issue 32,
// point 4).
func TestGlobalPartnerReadByDuckDB(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	interop := filepath.Join(filepath.Dir(file), "..", "..", "test", "interop")
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@duckdb")); err != nil {
		if os.Getenv("TRACEBOOK_REQUIRE_INTEROP") == "1" {
			t.Fatalf("npm packages missing: run npm install --prefix test/interop")
		}
		t.Skip("npm packages missing (npm install --prefix test/interop)")
	}
	tr, err := Load(filepath.Join(filepath.Dir(tooltest.Traces()), "split-comm", "traces.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	ev := tr.Events()
	ranks := NewRankResolver(tr.Defs)
	var sumGlobal, sumLocal, rows, differ int64
	var at []map[string]any
	row := 0
	for _, p := range tr.Processes() {
		for i, k := range p.Kind {
			if k == MpiSend || k == MpiRecv {
				r := p.Ref[i]
				g, ok := ranks.Global(p.Msgs.Comm[r], p.Msgs.Peer[r], p.Rank)
				if !ok {
					t.Fatalf("%s: partner %d of comm %d does not resolve", p.Label(), p.Msgs.Peer[r], p.Msgs.Comm[r])
				}
				sumGlobal += int64(g)
				sumLocal += int64(p.Msgs.Peer[r])
				if g != p.Msgs.Peer[r] && len(at) < 6 {
					at = append(at, map[string]any{"index": row, "values": map[string]*string{
						ColProcess: str(strconv.Itoa(int(p.Rank))), ColPartner: str(strconv.Itoa(int(g))),
						ColPartnerLocal: str(strconv.Itoa(int(p.Msgs.Peer[r]))),
						ColComm:         str(commLabels(tr.Defs)[p.Msgs.Comm[r]])}})
				}
				if g != p.Msgs.Peer[r] {
					differ++
				}
				rows++
			}
			row++
		}
	}
	if differ == 0 {
		t.Fatal("the split-communicator trace has no message whose global partner differs from its local rank")
	}
	dir := t.TempDir()
	pq := filepath.Join(dir, "split-comm.parquet")
	arrowio.WriteParquet(pq, ev)
	duck := map[arrow.Type]string{arrow.INT64: "BIGINT", arrow.INT32: "INTEGER", arrow.DICTIONARY: "VARCHAR",
		arrow.STRING: "VARCHAR", arrow.FLOAT64: "DOUBLE", arrow.BOOL: "BOOLEAN"}
	type col struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	var cols []col
	for _, f := range ev.Schema().Fields() {
		cols = append(cols, col{f.Name, duck[f.Type.ID()]})
	}
	m, _ := json.Marshal(map[string]any{"files": []any{map[string]any{"path": pq, "format": "parquet",
		"rows": int(tr.NumEvents()), "columns": cols,
		"sums":    map[string]string{ColPartner: strconv.FormatInt(sumGlobal, 10), ColPartnerLocal: strconv.FormatInt(sumLocal, 10)},
		"nulls":   map[string]int64{ColPartner: tr.NumEvents() - rows},
		"rows_at": at}}})
	mpath := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(mpath, m, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", filepath.Join(interop, "check.mjs"), mpath).CombinedOutput()
	if err != nil {
		t.Fatalf("DuckDB disagrees: %v\n%s", err, out)
	}
}
