package otf2

import "fmt"

// Definition record names by type number, from the OTF2 3.0 layout file
// otf2.defs. Types 5 and 6 differ between the global definition file
// (ClockProperties, Paradigm; 7 and 8 are global only too) and the local
// ones (MappingTable, ClockOffset); 10-43 may appear in both.
var globalDefNames = [...]string{
	5: "ClockProperties", 6: "Paradigm", 7: "ParadigmProperty", 8: "IoParadigm",
	10: "String", 11: "Attribute", 12: "SystemTreeNode", 13: "LocationGroup", 14: "Location",
	15: "Region", 16: "Callsite", 17: "Callpath", 18: "Group", 19: "MetricMember",
	20: "MetricClass", 21: "MetricInstance", 22: "Comm", 23: "Parameter", 24: "RmaWin",
	25: "MetricClassRecorder", 26: "SystemTreeNodeProperty", 27: "SystemTreeNodeDomain",
	28: "LocationGroupProperty", 29: "LocationProperty", 30: "CartDimension",
	31: "CartTopology", 32: "CartCoordinate", 33: "SourceCodeLocation", 34: "CallingContext",
	35: "CallingContextProperty", 36: "InterruptGenerator", 37: "IoFileProperty",
	38: "IoRegularFile", 39: "IoDirectory", 40: "IoHandle", 41: "IoPreCreatedHandleState",
	42: "CallpathParameter", 43: "InterComm",
}

// DefName returns the OTF2 name of global definition record type t
// ("Region"), or "unknown definition N" for a type the OTF2 3.0
// specification does not define.
func DefName(t uint8) string {
	if int(t) < len(globalDefNames) && globalDefNames[t] != "" {
		return globalDefNames[t]
	}
	return fmt.Sprintf("unknown definition %d", t)
}

// LocalDefName is DefName for the records of a location's definition
// file, where types 5 and 6 are MappingTable and ClockOffset and the
// global-only types 7 and 8 are unknown.
func LocalDefName(t uint8) string {
	switch t {
	case localMappingTable:
		return "MappingTable"
	case localClockOffset:
		return "ClockOffset"
	case 7, 8:
		return fmt.Sprintf("unknown definition %d", t)
	}
	return DefName(t)
}

// GlobalDefKinds returns the type numbers of the global definition
// records the reader knows by name, in increasing order.
func GlobalDefKinds() []uint8 {
	var out []uint8
	for t, n := range globalDefNames {
		if n != "" {
			out = append(out, uint8(t))
		}
	}
	return out
}

// EventKinds returns the type numbers of the event records the reader
// knows by name (EventName), in increasing order.
func EventKinds() []uint8 {
	var out []uint8
	for t, n := range eventNames {
		if n != "" {
			out = append(out, uint8(t))
		}
	}
	return out
}

// Region roles, paradigms and flags used by the pre-1.1 conversion
// (OTF2_RegionRole, OTF2_Paradigm, OTF2_RegionFlag of otf2.enums).
const (
	roleFunction       = 1
	roleWrapper        = 2
	roleLoop           = 3
	roleCode           = 4
	roleParallel       = 5
	roleSections       = 6
	roleSection        = 7
	roleWorkshare      = 8
	roleSingle         = 9
	roleSingleSblock   = 10
	roleMaster         = 11
	roleCritical       = 12
	roleCriticalSblock = 13
	roleAtomic         = 14
	roleBarrier        = 15
	roleImplicitBarier = 16
	roleFlush          = 17
	roleOrdered        = 18
	roleOrderedSblock  = 19
	roleTask           = 20
	roleTaskCreate     = 21
	roleTaskWait       = 22
	roleCollOne2All    = 23
	roleCollAll2One    = 24
	roleCollAll2All    = 25
	roleCollOther      = 26
	roleFileIO         = 27

	paradigmUser   = 1
	paradigmOpenMP = 3
	paradigmMPI    = 4

	flagDynamic = 1
	flagPhase   = 2
)

// regionTypes maps the region type of OTF2 1.0 Region records
// (OTF2_RegionType, dropped in 1.1) to role, paradigm and flags.
var regionTypes = [...][3]uint32{
	0:  {0, 0, 0}, // unknown
	1:  {roleFunction, 0, 0},
	2:  {roleLoop, paradigmUser, 0},
	3:  {roleFunction, 0, 0}, // user region
	4:  {roleFileIO, paradigmUser, 0},
	5:  {roleParallel, paradigmOpenMP, 0},
	6:  {roleLoop, paradigmOpenMP, 0},
	7:  {roleSections, paradigmOpenMP, 0},
	8:  {roleSection, paradigmOpenMP, 0},
	9:  {roleWorkshare, paradigmOpenMP, 0},
	10: {roleSingle, paradigmOpenMP, 0},
	11: {roleMaster, paradigmOpenMP, 0},
	12: {roleCritical, paradigmOpenMP, 0},
	13: {roleAtomic, paradigmOpenMP, 0},
	14: {roleBarrier, paradigmOpenMP, 0},
	15: {roleImplicitBarier, paradigmOpenMP, 0},
	16: {roleFlush, paradigmOpenMP, 0},
	17: {roleCriticalSblock, paradigmOpenMP, 0},
	18: {roleSingleSblock, paradigmOpenMP, 0},
	19: {roleWrapper, paradigmOpenMP, 0},
	20: {roleTask, paradigmOpenMP, 0},
	21: {roleTaskWait, paradigmOpenMP, 0},
	22: {roleBarrier, paradigmMPI, 0},
	23: {roleCollOne2All, paradigmMPI, 0},
	24: {roleCollAll2One, paradigmMPI, 0},
	25: {roleCollAll2All, paradigmMPI, 0},
	26: {roleCollOther, paradigmMPI, 0},
	// Phase: the reference library drops the phase flag here although its
	// inverse conversion maps code+user+phase to this type; it is kept.
	27: {roleCode, paradigmUser, flagPhase},
	28: {roleCode, paradigmUser, flagDynamic},
	29: {roleCode, paradigmUser, flagDynamic | flagPhase},
	30: {roleLoop, paradigmUser, flagDynamic},
	31: {roleFunction, paradigmUser, flagDynamic},
	32: {roleLoop, paradigmUser, flagDynamic | flagPhase},
	33: {roleTaskCreate, paradigmOpenMP, 0},
	34: {roleOrdered, paradigmOpenMP, 0},
	35: {roleOrderedSblock, paradigmOpenMP, 0},
}

// regionTypePre11 converts an OTF2 1.0 region type; unknown types give
// role, paradigm and flags 0 (unknown, unknown, none).
func regionTypePre11(t uint8) (role, paradigm uint8, flags uint32) {
	if int(t) < len(regionTypes) {
		r := regionTypes[t]
		return uint8(r[0]), uint8(r[1]), r[2]
	}
	return 0, 0, 0
}

// Group types (OTF2_GroupType).
const (
	groupLocations     = 1
	groupRegions       = 2
	groupMetric        = 3
	groupCommLocations = 4
	groupCommGroup     = 5
	groupCommSelf      = 6
)

// groupTypePre12 converts the group type of OTF2 1.0/1.1 Group records
// (OTF2_GroupTypePre12, replaced in 1.2 by type, paradigm and flags).
// The reference library turns a metric group into a region group; it is
// kept a metric group here.
func groupTypePre12(t uint8) (typ, paradigm uint8, flags uint32) {
	switch t {
	case 1:
		return groupLocations, 0, 0
	case 2:
		return groupRegions, 0, 0
	case 3:
		return groupMetric, 0, 0
	case 4:
		return groupCommGroup, paradigmMPI, 0
	case 5:
		return groupCommSelf, paradigmMPI, 0
	case 6:
		return groupCommLocations, paradigmMPI, 0
	}
	return 0, 0, 0
}
