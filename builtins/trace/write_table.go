package trace

// The events table writer: Events, in pipit's schema with the metadata
// of table_format.go.

import (
	"fmt"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
)

// Events returns all events as an Arrow table in pipit's schema:
// Timestamp (ns), Event Type (Enter/Leave/Instant), Name (region, or the
// record kind for instants such as MpiSend), Process, Thread, then nullable
// payload columns Partner (the partner's global rank), Tag, Bytes, Partner
// in Communicator (the rank the record holds), Communicator, Request,
// Collective, Root, Sent, Received, one "Metric: NAME" column per metric
// member, and Region when region names repeat. The schema metadata
// DefinitionsKey holds the run's name and all definitions, so that Load of
// a Parquet or Arrow IPC file of the table gives back the same trace (see
// table_format.go). Rows are grouped by location, in time order within each.
func (t *Trace) Events() *arrowio.Table {
	for _, p := range t.procs {
		p.NeedEvents("trace.Events")
	}
	n := int(t.NumEvents())
	// Columns built here and their Arrow copies: about 64 bytes an event.
	if err := work.Reserve("trace.Events", 64*int64(n)); err != nil {
		work.FailErr("trace.Events", err)
	}
	job := work.Start("trace.Events", int64(n), "events")
	defer job.Done()
	ts := make([]int64, 0, n)
	etype := make([]int32, 0, n)
	name := make([]int32, 0, n)
	proc := make([]int32, 0, n)
	thread := make([]int32, 0, n)
	nmsg, ncoll, nmet := 0, 0, 0
	for _, p := range t.procs {
		nmsg += p.Msgs.Len()
		ncoll += p.Colls.Len()
		nmet += p.Metrics.Len()
	}
	// Name dictionary: regions, then kind names.
	names := make([]string, 0, len(t.Defs.Regions)+int(numEventKinds))
	for _, r := range t.Defs.Regions {
		names = append(names, r.Name)
	}
	kindBase := int32(len(names))
	for k := EventKind(0); k < numEventKinds; k++ {
		names = append(names, k.String())
	}
	var (
		partner, tag, root               = nullable[int32](n, nmsg+ncoll), nullable[int32](n, nmsg), nullable[int32](n, ncoll)
		local, region                    = nullable[int32](n, nmsg), nullable[int32](n, 0)
		ranks                            = NewRankResolver(t.Defs)
		dupRegions                       = duplicateRegionNames(t.Defs)
		bytes, req, sent, recv           = nullable[int64](n, nmsg), nullable[int64](n, nmsg), nullable[int64](n, ncoll), nullable[int64](n, ncoll)
		comm, coll                       = nullable[int32](n, nmsg+ncoll), nullable[int32](n, ncoll)
		metrics                          = map[int32]*nullCol[float64]{}
		metricOrder                      []int32
		haveMsgs, haveColls, haveMetrics = nmsg > 0, ncoll > 0, nmet > 0
		haveReq                          bool
	)
	row := 0
	for _, p := range t.procs {
		for i, k := range p.Kind {
			if row&0xffff == 0xffff {
				job.Add(0x10000)
				job.Check()
			}
			ts = append(ts, p.Time[i])
			proc = append(proc, p.Rank)
			thread = append(thread, p.Thread)
			switch k {
			case Enter, Leave:
				etype = append(etype, int32(k))
				name = append(name, p.Ref[i])
				if dupRegions {
					region.set(row, p.Ref[i])
				}
			default:
				etype = append(etype, 2)
				name = append(name, kindBase+int32(k))
			}
			r := int(p.Ref[i])
			switch k {
			case MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete, MpiIrecvRequest, MpiRequestCancelled:
				m := &p.Msgs
				if m.Peer[r] >= 0 {
					g, _ := ranks.Global(m.Comm[r], m.Peer[r], p.Rank)
					partner.set(row, g)
					local.set(row, m.Peer[r])
					tag.set(row, m.Tag[r])
					bytes.set(row, m.Bytes[r])
				}
				if m.Comm[r] >= 0 {
					comm.set(row, m.Comm[r])
				}
				if k != MpiSend && k != MpiRecv {
					req.set(row, m.Request[r])
					haveReq = true
				}
			case MpiCollectiveEnd:
				c := &p.Colls
				coll.set(row, int32(c.Op[r]))
				if c.Comm[r] >= 0 {
					comm.set(row, c.Comm[r])
				}
				if c.Root[r] != RootNone {
					root.set(row, int32(c.Root[r]))
				}
				sent.set(row, c.Sent[r])
				recv.set(row, c.Received[r])
			case Metric:
				m := &p.Metrics
				cls := m.Metric[r]
				var members []int32
				if cls >= 0 && int(cls) < len(t.Defs.MetricClasses) {
					members = t.Defs.MetricClasses[cls].Members
				}
				for j := int(m.Start[r]); j < int(m.Start[r+1]); j++ {
					id := int32(-1 - (j - int(m.Start[r])))
					if jj := j - int(m.Start[r]); jj < len(members) {
						id = members[jj]
					}
					col, ok := metrics[id]
					if !ok {
						col = nullable[float64](n, n)
						metrics[id] = col
						metricOrder = append(metricOrder, id)
					}
					col.set(row, metricFloat(m.Types[j], m.Values[j]))
				}
			}
			row++
		}
	}
	evNames := []string{"Enter", "Leave", "Instant"}
	cols := []arrowio.Column{
		arrowio.Int64(ColTimestamp, ts),
		arrowio.DictCodes(ColEventType, etype, nil, evNames),
		arrowio.DictCodes(ColName, name, nil, names),
		arrowio.Int32(ColProcess, proc),
		arrowio.Int32(ColThread, thread),
	}
	if haveMsgs {
		cols = append(cols, arrowio.NullableInt32(ColPartner, partner.vals(), partner.valid),
			arrowio.NullableInt32(ColTag, tag.vals(), tag.valid),
			arrowio.NullableInt64(ColBytes, bytes.vals(), bytes.valid),
			arrowio.NullableInt32(ColPartnerLocal, local.vals(), local.valid))
	}
	if haveMsgs || haveColls {
		// Communicators the definitions lack (generated or hand-built traces) get "comm c"
		// names, after the defined ones and only for the codes that occur: a dictionary up to
		// the largest code would follow a data value (comm 2000000000: 32 GB of names).
		commNames := commLabels(t.Defs)
		codes, extra := comm.vals(), map[int32]int32{}
		for i, c := range codes {
			if comm.valid[i] && int(c) >= len(t.Defs.Comms) {
				k, ok := extra[c]
				if !ok {
					k = int32(len(commNames))
					extra[c] = k
					commNames = append(commNames, t.Defs.CommName(c))
				}
				codes[i] = k
			}
		}
		cols = append(cols, arrowio.DictCodes(ColComm, codes, comm.valid, commNames))
	}
	if haveReq {
		cols = append(cols, arrowio.NullableInt64(ColRequest, req.vals(), req.valid))
	}
	if haveColls {
		// ops beyond OTF2's named ones (newer or corrupt traces) get OP_n names
		maxOp := len(collectiveOps) - 1
		for _, v := range coll.vals() {
			maxOp = max(maxOp, int(v))
		}
		ops := make([]string, maxOp+1)
		for i := range ops {
			ops[i] = CollectiveOpName(uint8(i))
		}
		cols = append(cols, arrowio.DictCodes(ColCollective, coll.vals(), coll.valid, ops),
			arrowio.NullableInt32(ColRoot, root.vals(), root.valid),
			arrowio.NullableInt64(ColSent, sent.vals(), sent.valid),
			arrowio.NullableInt64(ColReceived, recv.vals(), recv.valid))
	}
	if haveMetrics {
		for _, id := range metricOrder {
			nm := fmt.Sprintf("metric %d", -1-id)
			if id >= 0 && int(id) < len(t.Defs.MetricMembers) {
				nm = t.Defs.MetricMembers[id].Name
			}
			c := metrics[id]
			cols = append(cols, arrowio.NullableFloat64(metricPrefix+nm, c.vals(), c.valid))
		}
	}
	if dupRegions {
		cols = append(cols, arrowio.NullableInt32(ColRegion, region.vals(), region.valid))
	}
	return arrowio.MustTable(cols...).WithMetadata(map[string]string{DefinitionsKey: t.tableJSON()})
}

// nullCol is a sparse nullable column: values are allocated on first use.
type nullCol[T any] struct {
	n     int
	v     []T
	valid []bool
}

func nullable[T any](n, _ int) *nullCol[T] { return &nullCol[T]{n: n} }

func (c *nullCol[T]) set(i int, v T) {
	if c.v == nil {
		c.v = make([]T, c.n)
		c.valid = make([]bool, c.n)
	}
	c.v[i] = v
	c.valid[i] = true
}

func (c *nullCol[T]) vals() []T {
	if c.v == nil {
		c.v = make([]T, c.n)
		c.valid = make([]bool, c.n)
	}
	return c.v
}
