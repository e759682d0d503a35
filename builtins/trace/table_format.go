package trace

import (
	"encoding/json"
	"fmt"
	"math"
)

// An export that changes nothing (issue 32, "A faithful data model and
// export"): Events writes, besides pipit's columns, everything the model
// holds that columns cannot, so that Load of the written Parquet or Arrow IPC
// file gives back the same trace (the same definitions, processes and event
// columns) and therefore the same result from every builtin.
//
//   - Partner is the partner's GLOBAL rank (the Process number of the partner,
//     resolved through the communicator's group as RankResolver does), so a
//     DuckDB or pandas user joins Partner with Process. The rank the record
//     holds (the partner's rank in its communicator, what OTF2 stores) is
//     ColPartnerLocal.
//   - Communicator names each row's communicator; communicators that share a
//     name ("MPI_COMM_WORLD split" twice) are told apart by their index
//     ("name (comm 3)"), see commLabels.
//   - Region, the region id, is written only when two regions share a name
//     (a name would not say which was entered).
//   - The schema metadata DefinitionsKey holds, as JSON (tableTrace), the
//     format version, the run's name and all definitions: strings, regions
//     (used or not), the system tree, location groups, locations, groups
//     (with their members), communicators (with their group and parent),
//     metric members (with unit, type and mode) and classes, attributes, the
//     clock and the trace properties; and per process its rank, thread, name
//     and skipped-record count, in the model's process order.
//
// Metric values are written as float64: integer counters read back exactly up
// to 2^53 and are restored with their member's integer type. CSV keeps no
// schema metadata: a CSV export reads back with the columns' content only (the
// used regions, communicators by name without groups, the global Partner).

// Column names of the events table (pipit's schema plus typed payloads).
const (
	ColTimestamp    = "Timestamp (ns)"
	ColTimestampSec = "Timestamp (s)" // accepted on input (pipit CSV)
	ColEventType    = "Event Type"
	ColName         = "Name"
	ColProcess      = "Process"
	ColThread       = "Thread"
	ColPartner      = "Partner"
	ColTag          = "Tag"
	ColBytes        = "Bytes"
	ColComm         = "Communicator"
	ColRequest      = "Request"
	ColCollective   = "Collective"
	ColRoot         = "Root"
	ColSent         = "Sent"
	ColReceived     = "Received"
	metricPrefix    = "Metric: "
)

// ColAttributes is pipit's column of per-event attributes, a Python dict as text.
const ColAttributes = "Attributes"

// DefinitionsKey is the schema metadata key under which Events stores, as
// JSON, what pipit's columns cannot hold: the run's name, all definitions
// and the processes' names (format 2, see the top of this file; format 1 held regions,
// locations, the clock and the properties and is still read). Parquet and
// Arrow IPC files keep it, so a trace written as a table and read back is
// the same trace; CSV keeps only what the columns hold.
const DefinitionsKey = "tracebook.definitions"

// Columns of Events beyond pipit's.
const (
	// ColPartnerLocal is the partner's rank in the record's communicator, as
	// the trace recorded it (ColPartner is the global rank).
	ColPartnerLocal = "Partner in Communicator"
	// ColRegion is the region id of an Enter or Leave, written only when two
	// regions share a name.
	ColRegion = "Region"
)

// tableFormat is the version of the DefinitionsKey JSON that Events writes.
// Version 1 (no "version" key) held regions, locations, the clock and the
// properties only; it is still read.
const tableFormat = 2

// tableTrace is the DefinitionsKey JSON of format 2.
type tableTrace struct {
	Version   int            `json:"version"`
	Name      string         `json:"name,omitempty"`
	Defs      *Definitions   `json:"definitions"`
	Processes []tableProcess `json:"processes"`
}

type tableProcess struct {
	Rank    int32  `json:"rank"`
	Thread  int32  `json:"thread"`
	Name    string `json:"name"`
	Skipped int64  `json:"skipped,omitempty"`
}

func (t *Trace) tableJSON() string {
	d := tableTrace{Version: tableFormat, Name: t.exportName(), Defs: t.Defs, Processes: make([]tableProcess, len(t.procs))}
	for i, p := range t.procs {
		d.Processes[i] = tableProcess{Rank: p.Rank, Thread: p.Thread, Name: p.Name, Skipped: p.Skipped}
	}
	js, err := json.Marshal(d)
	if err != nil {
		panic("trace: definitions do not marshal: " + err.Error()) // plain data: cannot happen
	}
	return string(js)
}

// parseTableJSON returns the format-2 metadata, or nil for format 1 (or
// none).
func parseTableJSON(js string) (*tableTrace, error) {
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return nil, err
	}
	if v.Version < 2 {
		return nil, nil
	}
	if v.Version > tableFormat {
		return nil, fmt.Errorf("format version %d is newer than this reader's (%d)", v.Version, tableFormat)
	}
	var d tableTrace
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		return nil, err
	}
	if d.Defs == nil {
		d.Defs = &Definitions{}
	}
	if d.Defs.Properties == nil {
		d.Defs.Properties = map[string]string{}
	}
	return &d, nil
}

// commLabels returns the Communicator column's label of each defined
// communicator: its name, or "name (comm i)" when several share the name.
func commLabels(d *Definitions) []string {
	out := make([]string, len(d.Comms))
	count := map[string]int{}
	for i := range d.Comms {
		out[i] = d.CommName(int32(i))
		count[out[i]]++
	}
	for i, s := range out {
		if count[s] > 1 {
			out[i] = fmt.Sprintf("%s (comm %d)", s, i)
		}
	}
	return out
}

// duplicateRegionNames reports whether two regions share a name.
func duplicateRegionNames(d *Definitions) bool {
	seen := make(map[string]bool, len(d.Regions))
	for _, r := range d.Regions {
		if seen[r.Name] {
			return true
		}
		seen[r.Name] = true
	}
	return false
}

// metricType is the Metrics.Types code of a member's OTF2 value type.
func metricType(valueType string) uint8 {
	switch valueType {
	case "int64", "int32", "int16", "int8":
		return MetricInt64
	case "uint64", "uint32", "uint16", "uint8":
		return MetricUint64
	}
	return MetricDouble
}

// metricBits stores v as the raw value of type typ (see Metrics).
func metricBits(typ uint8, v float64) uint64 {
	switch typ {
	case MetricInt64:
		return uint64(int64(v))
	case MetricUint64:
		if v < 0 {
			return uint64(int64(v))
		}
		return uint64(v)
	}
	return math.Float64bits(v)
}

// classOfMembers finds the metric class whose members are exactly set
// (member id -> position in the row), first in definition order; -1 if none.
func classOfMembers(d *Definitions, set map[int32]bool) int32 {
	for i, c := range d.MetricClasses {
		if len(c.Members) != len(set) {
			continue
		}
		ok := true
		for _, m := range c.Members {
			ok = ok && set[m]
		}
		if ok {
			return int32(i)
		}
	}
	return -1
}

// localRanks inverts RankResolver for tables whose "Partner in
// Communicator" column was dropped (a pandas user's selection): the rank in
// communicator comm of global rank g, seen from global rank own.
type localRanks struct {
	defs *Definitions
	inv  map[int32]map[int32]int32 // comm -> global -> local, built on first use
}

func (l *localRanks) local(comm, g, own int32) int32 {
	d := l.defs
	if comm < 0 || int(comm) >= len(d.Comms) || g < 0 {
		return g
	}
	c := d.Comms[comm]
	if c.Group < 0 || int(c.Group) >= len(d.Groups) {
		return g
	}
	grp := &d.Groups[c.Group]
	switch grp.Type {
	case "comm_self":
		if g == own {
			return 0
		}
		return g
	case "comm_locations":
		return g
	}
	if l.inv == nil {
		l.inv = map[int32]map[int32]int32{}
	}
	m, ok := l.inv[comm]
	if !ok {
		m = make(map[int32]int32, len(grp.Members))
		for i, r := range grp.Members {
			if _, dup := m[int32(r)]; !dup && r <= 1<<31-1 {
				m[int32(r)] = int32(i)
			}
		}
		l.inv[comm] = m
	}
	if r, ok := m[g]; ok {
		return r
	}
	return g
}

// exportName is the name an export carries: the name given (Named,
// SetName, an export read back) or the archive's; not a generator's
// fallback name ("generated A, 8 ranks"), which would name every export of
// one generator alike: a read-back without a name is named by its file.
func (t *Trace) exportName() string {
	if t.name != "" {
		return t.name
	}
	return nameFromPath(t.Path)
}
