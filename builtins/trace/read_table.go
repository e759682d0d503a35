package trace

// The events table reader: FromTable, and Load of .parquet, .arrow and
// .csv files (the format of table_format.go, and pipit's own tables).

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
)

// column is one input column converted to Go values.
type column struct {
	ints  []int64
	flts  []float64
	strs  []string
	valid []bool
}

func readColumn(a arrow.Array) (*column, error) {
	n := a.Len()
	c := &column{valid: make([]bool, n)}
	for i := range c.valid {
		c.valid[i] = a.IsValid(i)
	}
	switch x := a.(type) {
	case *array.Int64:
		c.ints = append([]int64(nil), x.Int64Values()...)
	case *array.Int32:
		c.ints = make([]int64, n)
		for i, v := range x.Int32Values() {
			c.ints[i] = int64(v)
		}
	case *array.Uint32:
		c.ints = make([]int64, n)
		for i, v := range x.Uint32Values() {
			c.ints[i] = int64(v)
		}
	case *array.Uint64:
		c.ints = make([]int64, n)
		for i, v := range x.Uint64Values() {
			c.ints[i] = int64(v)
		}
	case *array.Float64:
		c.flts = append([]float64(nil), x.Float64Values()...)
	case *array.String:
		c.strs = make([]string, n)
		for i := range c.strs {
			c.strs[i] = strings.TrimSpace(x.Value(i))
		}
		c.parseNumbers()
	case *array.Dictionary:
		d, ok := x.Dictionary().(*array.String)
		if !ok {
			return nil, fmt.Errorf("dictionary of %s, want strings", x.Dictionary().DataType())
		}
		c.strs = make([]string, n)
		for i := range c.strs {
			if x.IsValid(i) {
				c.strs[i] = strings.TrimSpace(d.Value(x.GetValueIndex(i)))
			}
		}
	case *array.Boolean:
		c.ints = make([]int64, n)
		for i := range c.ints {
			if x.Value(i) {
				c.ints[i] = 1
			}
		}
	default:
		return nil, fmt.Errorf("unsupported column type %s", a.DataType())
	}
	return c, nil
}

// parseNumbers fills ints or floats from a string column whose valid
// cells all parse as numbers (CSV cells padded with blanks).
func (c *column) parseNumbers() {
	ints := make([]int64, len(c.strs))
	isInt := true
	for i, s := range c.strs {
		if !c.valid[i] {
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			isInt = false
			break
		}
		ints[i] = v
	}
	if isInt {
		c.ints = ints
		return
	}
	flts := make([]float64, len(c.strs))
	for i, s := range c.strs {
		if !c.valid[i] {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return
		}
		flts[i] = v
	}
	c.flts = flts
}

// int returns row i as an integer (floats rounded), ok false if null or
// not numeric.
func (c *column) int(i int) (int64, bool) {
	if c == nil || !c.valid[i] {
		return 0, false
	}
	switch {
	case c.ints != nil:
		return c.ints[i], true
	case c.flts != nil:
		return int64(math.Round(c.flts[i])), !math.IsNaN(c.flts[i])
	}
	return 0, false
}

func (c *column) str(i int) string {
	if c == nil || !c.valid[i] || c.strs == nil {
		return ""
	}
	return c.strs[i]
}

func (c *column) float(i int) (float64, bool) {
	if c == nil || !c.valid[i] {
		return 0, false
	}
	switch {
	case c.flts != nil:
		return c.flts[i], true
	case c.ints != nil:
		return float64(c.ints[i]), true
	}
	return 0, false
}

// FromTable builds a trace from an events table in pipit's schema (see
// Events). Timestamps come from "Timestamp (ns)" (integer or float) or
// pipit's "Timestamp (s)"; a missing Thread column means thread 0.
// Locations are the distinct (Process, Thread) pairs, in ascending order;
// events are stably sorted by time within each.
func FromTable(tb *arrowio.Table) (*Trace, error) {
	byName := map[string]*column{}
	var metricCols []string
	for _, nm := range tb.ColumnNames() {
		if t := strings.TrimSpace(nm); strings.HasPrefix(t, metricPrefix) {
			metricCols = append(metricCols, t)
		}
		a, err := tb.Array(nm)
		if err != nil {
			return nil, err
		}
		c, err := readColumn(a)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", nm, err)
		}
		byName[strings.TrimSpace(nm)] = c
	}
	n := tb.NumRows()
	var saved *tableTrace
	if js, ok := tb.Metadata(DefinitionsKey); ok {
		var err error
		if saved, err = parseTableJSON(js); err != nil {
			return nil, fmt.Errorf("metadata %q: %w", DefinitionsKey, err)
		}
	}
	tsNs := byName[ColTimestamp]
	tsSec := byName[ColTimestampSec]
	etype, name, proc, thread := byName[ColEventType], byName[ColName], byName[ColProcess], byName[ColThread]
	switch {
	case tsNs == nil && tsSec == nil:
		return nil, fmt.Errorf("no %q or %q column", ColTimestamp, ColTimestampSec)
	case etype == nil || etype.strs == nil:
		return nil, fmt.Errorf("no string column %q", ColEventType)
	case name == nil || name.strs == nil:
		return nil, fmt.Errorf("no string column %q", ColName)
	case proc == nil || (proc.ints == nil && proc.flts == nil):
		return nil, fmt.Errorf("no integer column %q", ColProcess)
	}
	timeAt := func(i int) (int64, error) {
		if tsNs != nil {
			if v, ok := tsNs.int(i); ok {
				return v, nil
			}
		} else if v, ok := tsSec.float(i); ok {
			return int64(math.Round(v * 1e9)), nil
		}
		return 0, fmt.Errorf("row %d: missing or non-numeric timestamp", i)
	}
	type loc struct{ proc, thread int32 }
	locRows := map[loc][]int32{}
	// Three passes over the rows (locations, times, events), counted
	// in one job.
	job := work.Start("building the trace model", 3*int64(n), "rows")
	defer job.Done()
	step := func(i int) error {
		if i&0xffff == 0xffff {
			return job.Add(0x10000)
		}
		return nil
	}
	for i := 0; i < n; i++ {
		if err := step(i); err != nil {
			return nil, err
		}
		pv, ok := proc.int(i)
		if !ok {
			return nil, fmt.Errorf("row %d: missing %s", i, ColProcess)
		}
		tv, _ := thread.int(i)
		l := loc{int32(pv), int32(tv)}
		locRows[l] = append(locRows[l], int32(i))
	}
	locs := make([]loc, 0, len(locRows))
	// an export's processes come back in its order, with those that have
	// no events; rows of other (Process, Thread) pairs follow, sorted
	nsaved := 0
	seen := map[loc]bool{}
	if saved != nil {
		for _, sp := range saved.Processes {
			l := loc{sp.Rank, sp.Thread}
			if seen[l] {
				break // not a location key: (Process, Thread) pairs must be distinct
			}
			seen[l] = true
			locs = append(locs, l)
		}
		nsaved = len(locs)
	}
	extra := make([]loc, 0, len(locRows))
	for l := range locRows {
		if !seen[l] {
			extra = append(extra, l)
		}
	}
	sort.Slice(extra, func(i, j int) bool {
		if extra[i].proc != extra[j].proc {
			return extra[i].proc < extra[j].proc
		}
		return extra[i].thread < extra[j].thread
	})
	locs = append(locs, extra...)

	defs := &Definitions{Clock: Clock{Resolution: 1e9}, Properties: map[string]string{}}
	regionID := map[string]int32{}
	commID := map[string]int32{}
	memberID := map[string]int32{}
	groupID := map[int32]int32{}
	if saved != nil {
		defs = saved.Defs
		for i, r := range defs.Regions {
			if _, ok := regionID[r.Name]; !ok {
				regionID[r.Name] = int32(i)
			}
		}
		for i, l := range commLabels(defs) {
			commID[l] = int32(i)
		}
		for i, m := range defs.MetricMembers {
			if _, ok := memberID[m.Name]; !ok {
				memberID[m.Name] = int32(i)
			}
		}
	}
	regionCol, localCol := byName[ColRegion], byName[ColPartnerLocal]
	inverse := &localRanks{defs: defs}
	procs := make([]*Process, len(locs))
	times := make([]int64, n)
	for i := 0; i < n; i++ {
		if err := step(i); err != nil {
			return nil, err
		}
		v, err := timeAt(i)
		if err != nil {
			return nil, err
		}
		times[i] = v
	}
	for li, l := range locs {
		rows := locRows[l]
		sort.SliceStable(rows, func(a, b int) bool { return times[rows[a]] < times[rows[b]] })
		var p *Process
		if li < nsaved {
			sp := saved.Processes[li]
			p = &Process{Rank: l.proc, Thread: l.thread, Name: sp.Name, Skipped: sp.Skipped}
		} else {
			g, ok := groupID[l.proc]
			if !ok {
				g = int32(len(defs.LocationGroups))
				groupID[l.proc] = g
				defs.LocationGroups = append(defs.LocationGroups, LocationGroup{Name: fmt.Sprintf("Process %d", l.proc), Type: "process", SystemNode: -1})
			}
			p = &Process{Rank: l.proc, Thread: l.thread, Name: fmt.Sprintf("Process %d / Thread %d", l.proc, l.thread)}
			if len(defs.Locations) == li {
				defs.Locations = append(defs.Locations, Location{Name: fmt.Sprintf("Thread %d", l.thread), Type: "cpu_thread", Group: g, NumEvents: uint64(len(rows))})
			}
		}
		p.makeEvents(len(rows))
		for _, r32 := range rows {
			i := int(r32)
			if err := step(i); err != nil {
				return nil, err
			}
			typ, nm := etype.str(i), name.str(i)
			var kind EventKind
			ref := int32(-1)
			switch typ {
			case "Enter", "Leave":
				kind = Enter
				if typ == "Leave" {
					kind = Leave
				}
				id, ok := regionID[nm]
				if v, valid := regionCol.int(i); valid && saved != nil && v >= 0 && v < int64(len(defs.Regions)) && defs.Regions[v].Name == nm {
					id, ok = int32(v), true
				}
				if !ok {
					id = int32(len(defs.Regions))
					regionID[nm] = id
					defs.Regions = append(defs.Regions, Region{Name: nm, Canonical: nm, Role: "function", Paradigm: "unknown"})
				}
				ref = id
			case "Instant":
				k, ok := ParseEventKind(nm)
				if !ok || k == Enter || k == Leave {
					p.Skipped++
					continue
				}
				kind = k
				// pipit keeps message fields in a Python-dict Attributes column
				// ({'receiver': 1, 'msg_length': 16384, ...}); the dedicated columns
				// of Events win where both exist
				attrs := parseAttributes(byName[ColAttributes].str(i))
				commRef := func() int32 {
					s := byName[ColComm].str(i)
					if s == "" {
						s = attrs["communicator"]
					}
					if s == "" {
						return -1
					}
					id, ok := commID[s]
					if !ok {
						id = int32(len(defs.Comms))
						commID[s] = id
						defs.Comms = append(defs.Comms, Comm{Name: s, Group: -1, Parent: -1})
					}
					return id
				}
				get := func(col string, def int64) int64 {
					if v, ok := byName[col].int(i); ok {
						return v
					}
					// (a missing attribute is not parsed: ParseInt's error allocates,
					// once per message row of a table without attributes)
					if a := attrs[pipitAttribute(col, k)]; a != "" {
						if v, err := strconv.ParseInt(a, 10, 64); err == nil {
							return v
						}
					}
					return def
				}
				switch k {
				case MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete, MpiIrecvRequest, MpiRequestCancelled:
					// the model keeps the rank in the communicator; only an export's
					// definitions have the groups that resolve it again
					peer, comm := get(ColPartner, -1), commRef()
					if v, ok := localCol.int(i); ok && saved != nil {
						peer = v
					} else if saved != nil && localCol == nil {
						peer = int64(inverse.local(comm, int32(peer), p.Rank))
					}
					ref = p.Msgs.Add(int32(peer), comm, int32(get(ColTag, -1)), get(ColBytes, 0), get(ColRequest, 0))
				case MpiCollectiveEnd:
					opName := byName[ColCollective].str(i)
					op, ok := ParseCollectiveOp(opName)
					if !ok {
						return nil, fmt.Errorf("row %d: unknown %s %q", i, ColCollective, opName)
					}
					ref = p.Colls.Add(op, commRef(), uint32(get(ColRoot, RootNone)), get(ColSent, 0), get(ColReceived, 0))
				case Metric:
					m := &p.Metrics
					ref = int32(len(m.Metric))
					if len(m.Start) == 0 {
						m.Start = append(m.Start, 0)
					}
					var members []int32
					var vals []float64
					for _, mc := range metricCols {
						v, ok := byName[mc].float(i)
						if !ok {
							continue
						}
						mn := strings.TrimPrefix(mc, metricPrefix)
						id, seen := memberID[mn]
						if !seen {
							id = int32(len(defs.MetricMembers))
							memberID[mn] = id
							defs.MetricMembers = append(defs.MetricMembers, MetricMember{Name: mn, ValueType: "double"})
						}
						members = append(members, id)
						vals = append(vals, v)
					}
					cls := int32(-1)
					if saved != nil {
						set := make(map[int32]bool, len(members))
						for _, id := range members {
							set[id] = true
						}
						cls = classOfMembers(defs, set)
					}
					if cls >= 0 { // an export's class: its members' order and types
						for _, id := range defs.MetricClasses[cls].Members {
							typ := metricType(defs.MetricMembers[id].ValueType)
							m.Types = append(m.Types, typ)
							m.Values = append(m.Values, metricBits(typ, vals[slices.Index(members, id)]))
						}
					} else {
						for _, v := range vals {
							m.Types = append(m.Types, MetricDouble)
							m.Values = append(m.Values, math.Float64bits(v))
						}
						cls = metricClassFor(defs, members)
					}
					m.Metric = append(m.Metric, cls)
					m.Start = append(m.Start, int32(len(m.Values)))
				}
			default:
				return nil, fmt.Errorf("row %d: unknown %s %q", i, ColEventType, typ)
			}
			p.addEvent(kind, times[i], ref)
		}
		procs[li] = p
	}
	t := NewTrace(defs, procs)
	if saved != nil {
		t.name = saved.Name
		return t, nil
	}
	defs.Clock.Length = uint64(max(0, t.Duration()))
	if js, ok := tb.Metadata(DefinitionsKey); ok {
		if err := t.restoreDefinitions(js); err != nil {
			return nil, fmt.Errorf("metadata %q: %w", DefinitionsKey, err)
		}
	}
	return t, nil
}

// pipitAttribute is the key of pipit's Attributes dict that holds a message column: the partner
// is the receiver of a send and the sender of a receive.
func pipitAttribute(col string, k EventKind) string {
	switch col {
	case ColPartner:
		if k == MpiRecv || k == MpiIrecv || k == MpiIrecvRequest {
			return "sender"
		}
		return "receiver"
	case ColTag:
		return "msg_tag"
	case ColBytes:
		return "msg_length"
	case ColRequest:
		return "request_id"
	}
	return ""
}

// parseAttributes reads the top-level keys of a Python dict literal with number and string
// values ({'receiver': 1, 'communicator': 'Comm 1'}); nested dicts and lists are skipped, and
// text that is not such a dict gives no keys.
func parseAttributes(s string) map[string]string {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil
	}
	out := map[string]string{}
	i := 1
	token := func() (string, bool) { // a quoted string or a bare word
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return "", false
		}
		if q := s[i]; q == '\'' || q == '"' {
			j := strings.IndexByte(s[i+1:], q)
			if j < 0 {
				return "", false
			}
			t := s[i+1 : i+1+j]
			i += j + 2
			return t, true
		}
		if s[i] == '{' || s[i] == '[' || s[i] == '(' { // a nested value: skip it
			depth := 0
			for ; i < len(s); i++ {
				switch s[i] {
				case '{', '[', '(':
					depth++
				case '}', ']', ')':
					depth--
				}
				if depth == 0 {
					i++
					break
				}
			}
			return "", true
		}
		j := i
		for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ':' {
			j++
		}
		t := strings.TrimSpace(s[i:j])
		i = j
		return t, true
	}
	for i < len(s)-1 {
		key, ok := token()
		if !ok {
			break
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || s[i] != ':' {
			break
		}
		i++
		val, ok := token()
		if !ok {
			break
		}
		out[key] = val
	}
	return out
}

type tableDefs struct {
	Regions   []Region          `json:"regions"`
	Locations []tableLocation   `json:"locations"`
	Clock     Clock             `json:"clock"`
	Props     map[string]string `json:"properties,omitempty"`
}

type tableLocation struct {
	Rank, Thread int32
	Name, Type   string
	Process      string // the model's process name
	Group        string // the location group's name and type
	GroupType    string
}

// restoreDefinitions fills the definitions of a trace built from table
// columns with those Events stored: regions matched by name, locations by
// (process, thread), location groups by process.
func (t *Trace) restoreDefinitions(js string) error {
	var d tableDefs
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		return err
	}
	regions := make(map[string]Region, len(d.Regions))
	for _, r := range d.Regions {
		if _, dup := regions[r.Name]; !dup {
			regions[r.Name] = r
		}
	}
	for i, r := range t.Defs.Regions {
		if m, ok := regions[r.Name]; ok {
			t.Defs.Regions[i] = m
		}
	}
	type key struct{ rank, thread int32 }
	locs := make(map[key]tableLocation, len(d.Locations))
	for _, l := range d.Locations {
		locs[key{l.Rank, l.Thread}] = l
	}
	// FromTable made one location (and a location group per process) for
	// each process, at the same index
	for i, p := range t.procs {
		l, ok := locs[key{p.Rank, p.Thread}]
		if !ok {
			continue
		}
		p.Name = l.Process
		loc := &t.Defs.Locations[i]
		loc.Name, loc.Type = l.Name, l.Type
		if l.Group != "" {
			g := &t.Defs.LocationGroups[loc.Group]
			g.Name, g.Type = l.Group, l.GroupType
		}
	}
	t.Defs.Clock = d.Clock
	if len(d.Props) > 0 {
		t.Defs.Properties = d.Props
	}
	return nil
}

func metricClassFor(defs *Definitions, members []int32) int32 {
	for i, c := range defs.MetricClasses {
		if len(c.Members) == len(members) {
			same := true
			for j := range members {
				same = same && c.Members[j] == members[j]
			}
			if same {
				return int32(i)
			}
		}
	}
	defs.MetricClasses = append(defs.MetricClasses, MetricClass{Members: append([]int32(nil), members...)})
	return int32(len(defs.MetricClasses) - 1)
}

func loadTable(path string) (*Trace, error) {
	tb, err := arrowio.Read(path)
	if err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	defer tb.Release()
	t, err := FromTable(tb)
	if err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	t.Path = path
	return t, nil
}
