package otf2

import (
	"io"
	"sort"
)

// Undefined is OTF2's undefined reference (OTF2_UNDEFINED_UINT32).
const Undefined = 0xFFFFFFFF

// UndefinedLocation is OTF2_UNDEFINED_LOCATION.
const UndefinedLocation = 0xFFFFFFFFFFFFFFFF

// ClockProperties is the ClockProperties definition.
type ClockProperties struct {
	Resolution   uint64 // ticks per second
	GlobalOffset uint64 // ticks
	Length       uint64 // ticks
	Realtime     uint64 // realtime timestamp (3.0), Undefined before
}

// Region is a Region definition.
type Region struct {
	Self, Name, CanonicalName, Description uint32
	Role, Paradigm                         uint8
	Flags, SourceFile, BeginLine, EndLine  uint32
}

// SystemTreeNode is a SystemTreeNode definition.
type SystemTreeNode struct{ Self, Name, ClassName, Parent uint32 }

// LocationGroup is a LocationGroup definition.
type LocationGroup struct {
	Self, Name                      uint32
	Type                            uint8
	SystemTreeParent, CreatingGroup uint32
}

// Location is a Location definition.
type Location struct {
	Self          uint64
	Name          uint32
	Type          uint8
	NumEvents     uint64
	LocationGroup uint32
}

// Group is a Group definition.
type Group struct {
	Self, Name     uint32
	Type, Paradigm uint8
	Flags          uint32
	Members        []uint64
}

// Comm is a Comm definition (InterComm records are stored here too, with
// Group = GroupA).
type Comm struct{ Self, Name, Group, Parent, Flags uint32 }

// MetricMember is a MetricMember definition.
type MetricMember struct {
	Self, Name, Description           uint32
	MetricType, Mode, ValueType, Base uint8
	Exponent                          int64
	Unit                              uint32
}

// MetricClass is a MetricClass definition.
type MetricClass struct {
	Self                     uint32
	Members                  []uint32
	Occurrence, RecorderKind uint8
}

// MetricInstance is a MetricInstance definition.
type MetricInstance struct {
	Self, Class uint32
	Recorder    uint64
	ScopeType   uint8
	Scope       uint64
}

// Attribute is an Attribute definition.
type Attribute struct {
	Self, Name, Description uint32
	Type                    uint8
}

// Paradigm is a Paradigm definition.
type Paradigm struct {
	Paradigm uint8
	Name     uint32
	Class    uint8
}

// GlobalDefs are the global definitions of an archive, in file order.
// Records the model does not use are counted in Skipped by record name.
type GlobalDefs struct {
	Clock           ClockProperties
	HaveClock       bool
	Strings         map[uint32]string
	Regions         []Region
	SystemTree      []SystemTreeNode
	LocationGroups  []LocationGroup
	Locations       []Location
	Groups          []Group
	Comms           []Comm
	MetricMembers   []MetricMember
	MetricClasses   []MetricClass
	MetricInstances []MetricInstance
	Attributes      []Attribute
	Paradigms       []Paradigm
	// Skipped counts the records this package reads past without modelling,
	// by OTF2 record name ("IoRegularFile", "CallingContext", ...; see
	// DefName), and records of unknown type as "unknown definition N".
	Skipped map[string]int64
	// Counts counts every definition record read, modelled or not, by
	// record name (as Skipped).
	Counts map[string]int64
}

// String returns string definition id, or "" if undefined.
func (g *GlobalDefs) String(id uint32) string { return g.Strings[id] }

// Global definition record types (otf2.defs).
const (
	defClockProperties = 5
	defParadigm        = 6
	defString          = 10
	defAttribute       = 11
	defSystemTreeNode  = 12
	defLocationGroup   = 13
	defLocation        = 14
	defRegion          = 15
	defGroup           = 18
	defMetricMember    = 19
	defMetricClass     = 20
	defMetricInstance  = 21
	defComm            = 22
	defInterComm       = 43
	localMappingTable  = 5
	localClockOffset   = 6
)

func readGlobalDefs(file string, r io.Reader, chunkSize int) (*GlobalDefs, error) {
	g := &GlobalDefs{Strings: map[uint32]string{}, Skipped: map[string]int64{}, Counts: map[string]int64{}}
	d := &decoder{}
	var counts, skipped [256]int64 // by record type, named once read
	err := readChunked(file, r, chunkSize, d, func() bool { return g.chunk(d, &counts, &skipped) })
	if err != nil {
		return nil, err
	}
	for t := range counts {
		if counts[t] > 0 {
			g.Counts[DefName(uint8(t))] += counts[t]
		}
		if skipped[t] > 0 {
			g.Skipped[DefName(uint8(t))] += skipped[t]
		}
	}
	return g, nil
}

// chunk reads one chunk of global definitions, counting every record and
// those it skips by type.
func (g *GlobalDefs) chunk(d *decoder, counts, skipped *[256]int64) bool {
	for {
		at := d.pos
		typ := d.u8()
		switch typ {
		case markEndOfFile:
			return true
		case markEndOfChunk:
			return false
		case markEndOfBuffer:
			d.failAt(at, "unexpected end-of-buffer marker")
		}
		end := d.recordEnd()
		counts[typ]++
		more := func() bool { return d.pos < end }
		switch typ {
		case defClockProperties:
			g.Clock = ClockProperties{Resolution: d.u64(), GlobalOffset: d.u64(), Length: d.u64(), Realtime: UndefinedLocation}
			if more() {
				g.Clock.Realtime = d.u64()
			}
			g.HaveClock = true
		case defParadigm:
			g.Paradigms = append(g.Paradigms, Paradigm{Paradigm: d.u8(), Name: d.u32(), Class: d.u8()})
		case defString:
			self := d.u32()
			// the string may not reach past the record
			sd := decoder{file: d.file, buf: d.buf[:end], pos: d.pos, base: d.base, be: d.be}
			g.Strings[self] = sd.str()
			d.pos = sd.pos
		case defAttribute:
			a := Attribute{Self: d.u32(), Name: d.u32(), Type: d.u8(), Description: Undefined}
			if more() {
				a.Description = d.u32()
			}
			g.Attributes = append(g.Attributes, a)
		case defSystemTreeNode:
			g.SystemTree = append(g.SystemTree, SystemTreeNode{Self: d.u32(), Name: d.u32(), ClassName: d.u32(), Parent: d.u32()})
		case defLocationGroup:
			lg := LocationGroup{Self: d.u32(), Name: d.u32(), Type: d.u8(), SystemTreeParent: d.u32(), CreatingGroup: Undefined}
			if more() {
				lg.CreatingGroup = d.u32()
			}
			g.LocationGroups = append(g.LocationGroups, lg)
		case defLocation:
			g.Locations = append(g.Locations, Location{Self: d.u64(), Name: d.u32(), Type: d.u8(), NumEvents: d.u64(), LocationGroup: d.u32()})
		case defRegion:
			// 1.0: self, name, description, region type, file, begin, end;
			// 1.1 appended canonical name, role, paradigm, flags (the
			// region type stays, unused). Each appended field is read only
			// if the record holds it: archives of 1.1 pre-releases (the
			// OTF2 integrity test archive) hold the canonical name alone.
			r := Region{Self: d.u32(), Name: d.u32(), Description: d.u32()}
			rt := d.u8()
			r.SourceFile, r.BeginLine, r.EndLine = d.u32(), d.u32(), d.u32()
			r.CanonicalName = r.Name
			r.Role, r.Paradigm, r.Flags = regionTypePre11(rt)
			if more() {
				r.CanonicalName = d.u32()
			}
			if more() {
				r.Role = d.u8()
			}
			if more() {
				r.Paradigm = d.u8()
			}
			if more() {
				r.Flags = d.u32()
			}
			g.Regions = append(g.Regions, r)
		case defGroup:
			// 1.0: self, name, group type (pre-1.2 enumeration), members;
			// 1.2 appended type, paradigm, flags.
			gr := Group{Self: d.u32(), Name: d.u32()}
			gr.Type, gr.Paradigm, gr.Flags = groupTypePre12(d.u8())
			n := d.u32()
			if uint64(n) > d.left(end) {
				d.fail("group member count %d exceeds the record", n)
			}
			gr.Members = make([]uint64, n)
			for i := range gr.Members {
				gr.Members[i] = d.u64()
			}
			if more() {
				gr.Type = d.u8()
			}
			if more() {
				gr.Paradigm = d.u8()
			}
			if more() {
				gr.Flags = d.u32()
			}
			g.Groups = append(g.Groups, gr)
		case defMetricMember:
			g.MetricMembers = append(g.MetricMembers, MetricMember{Self: d.u32(), Name: d.u32(), Description: d.u32(),
				MetricType: d.u8(), Mode: d.u8(), ValueType: d.u8(), Base: d.u8(), Exponent: d.i64(), Unit: d.u32()})
		case defMetricClass:
			mc := MetricClass{Self: d.u32()}
			n := d.u8()
			mc.Members = make([]uint32, n)
			for i := range mc.Members {
				mc.Members[i] = d.u32()
			}
			mc.Occurrence = d.u8()
			if more() {
				mc.RecorderKind = d.u8()
			}
			g.MetricClasses = append(g.MetricClasses, mc)
		case defMetricInstance:
			g.MetricInstances = append(g.MetricInstances, MetricInstance{Self: d.u32(), Class: d.u32(), Recorder: d.u64(), ScopeType: d.u8(), Scope: d.u64()})
		case defComm:
			c := Comm{Self: d.u32(), Name: d.u32(), Group: d.u32(), Parent: d.u32()}
			if more() {
				c.Flags = d.u32()
			}
			g.Comms = append(g.Comms, c)
		case defInterComm:
			c := Comm{Self: d.u32(), Name: d.u32(), Group: d.u32()}
			d.u32() // group B
			c.Parent, c.Flags = d.u32(), d.u32()
			g.Comms = append(g.Comms, c)
		default:
			skipped[typ]++
			d.pos = end
		}
		if d.pos > end { // the name is made only for the error
			d.checkEnd(end, DefName(typ)+" definition")
		}
		d.pos = end
	}
}

// idMap is one local->global mapping table (OTF2_IdMap).
type idMap struct {
	dense  []uint64 // dense: global id of local i
	sparse []uint64 // sparse: sorted (local, global) pairs
}

func (m *idMap) get(local uint64) uint64 {
	if m == nil {
		return local
	}
	if m.dense != nil {
		if local < uint64(len(m.dense)) {
			return m.dense[local]
		}
		return local
	}
	s := m.sparse
	i := sort.Search(len(s)/2, func(i int) bool { return s[2*i] >= local })
	if 2*i < len(s) && s[2*i] == local {
		return s[2*i+1]
	}
	return local
}

// Mapping table types (OTF2_MappingType).
const (
	mapString    = 0
	mapAttribute = 1
	mapLocation  = 2
	mapRegion    = 3
	mapGroup     = 4
	mapMetric    = 5
	mapComm      = 6
	mapParameter = 7
	mapMax       = 15
)

type clockInterval struct {
	begin, end uint64
	offset     int64
	slope      float64
}

// LocalDefs are one location's local definitions as the reader applies them.
type LocalDefs struct {
	maps      [mapMax]*idMap
	intervals []clockInterval
	// ClockOffsets lists the ClockOffset records (time, offset, stddev).
	ClockOffsets [][3]float64
	// Skipped counts the other local definition records by OTF2 record
	// name (see LocalDefName), records of unknown type as
	// "unknown definition N".
	Skipped map[string]int64

	pending     clockInterval
	havePending bool
}

func readLocalDefs(file string, r io.Reader, chunkSize int) (*LocalDefs, error) {
	l := &LocalDefs{Skipped: map[string]int64{}}
	d := &decoder{}
	err := readChunked(file, r, chunkSize, d, func() bool { return l.chunk(d) })
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (l *LocalDefs) chunk(d *decoder) bool {
	for {
		at := d.pos
		typ := d.u8()
		switch typ {
		case markEndOfFile:
			if l.havePending {
				l.havePending = false
			}
			return true
		case markEndOfChunk:
			return false
		case markEndOfBuffer:
			d.failAt(at, "unexpected end-of-buffer marker")
		}
		end := d.recordEnd()
		switch typ {
		case localMappingTable:
			mt := d.u8()
			size := d.u64()
			mode := d.u8()
			if size > d.left(end) {
				d.fail("mapping table size %d exceeds the record", size)
			}
			m := &idMap{}
			switch mode {
			case 0:
				m.dense = make([]uint64, size)
				for i := range m.dense {
					m.dense[i] = d.u64()
				}
			case 1:
				m.sparse = make([]uint64, 2*size)
				for i := range m.sparse {
					m.sparse[i] = d.u64()
				}
				sorted := true
				for i := 2; i < len(m.sparse); i += 2 {
					sorted = sorted && m.sparse[i-2] < m.sparse[i]
				}
				if !sorted {
					pairs := make([][2]uint64, size)
					for i := range pairs {
						pairs[i] = [2]uint64{m.sparse[2*i], m.sparse[2*i+1]}
					}
					sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
					for i, p := range pairs {
						m.sparse[2*i], m.sparse[2*i+1] = p[0], p[1]
					}
				}
			default:
				d.fail("invalid mapping table mode %d", mode)
			}
			if int(mt) < mapMax {
				l.maps[mt] = m
			}
		case localClockOffset:
			t := d.u64full()
			off := d.i64()
			sd := d.f64()
			l.ClockOffsets = append(l.ClockOffsets, [3]float64{float64(t), float64(off), sd})
			// Same interval construction as the reference reader: each pair of
			// consecutive offsets is one interval with linear interpolation.
			if l.havePending {
				p := l.pending
				if p.begin >= t {
					d.failAt(at, "clock offsets not in increasing time order")
				}
				p.end = t
				p.slope = float64(off-p.offset) / float64(t-p.begin)
				l.intervals = append(l.intervals, p)
			}
			l.pending = clockInterval{begin: t, offset: off}
			l.havePending = true
		default:
			l.Skipped[LocalDefName(typ)]++
			d.pos = end
		}
		if d.pos > end {
			d.checkEnd(end, "local "+LocalDefName(typ)+" definition")
		}
		d.pos = end
	}
}
