package otf2

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sync"

	"github.com/tracebook/tracebook/internal/regular"
)

// Event record types of the OTF2 3.0 specification (otf2.events).
const (
	EvBufferFlush                   = 10
	EvMeasurementOnOff              = 11
	EvEnter                         = 12
	EvLeave                         = 13
	EvMpiSend                       = 14
	EvMpiIsend                      = 15
	EvMpiIsendComplete              = 16
	EvMpiIrecvRequest               = 17
	EvMpiRecv                       = 18
	EvMpiIrecv                      = 19
	EvMpiRequestTest                = 20
	EvMpiRequestCancelled           = 21
	EvMpiCollectiveBegin            = 22
	EvMpiCollectiveEnd              = 23
	EvOmpFork                       = 24
	EvOmpJoin                       = 25
	EvOmpAcquireLock                = 26
	EvOmpReleaseLock                = 27
	EvOmpTaskCreate                 = 28
	EvOmpTaskSwitch                 = 29
	EvOmpTaskComplete               = 30
	EvMetric                        = 31
	EvParameterString               = 32
	EvParameterInt                  = 33
	EvParameterUnsignedInt          = 34
	EvRmaWinCreate                  = 35
	EvThreadFork                    = 53
	EvThreadJoin                    = 54
	EvCallingContextEnter           = 66
	EvCallingContextLeave           = 67
	EvCallingContextSample          = 68
	EvIoCreateHandle                = 69
	EvProgramBegin                  = 83
	EvProgramEnd                    = 84
	EvNonBlockingCollectiveRequest  = 85
	EvNonBlockingCollectiveComplete = 86
	EvCommCreate                    = 87
	EvCommDestroy                   = 88
	evMax                           = 88
)

var eventNames = [...]string{
	10: "BufferFlush", 11: "MeasurementOnOff", 12: "Enter", 13: "Leave", 14: "MpiSend",
	15: "MpiIsend", 16: "MpiIsendComplete", 17: "MpiIrecvRequest", 18: "MpiRecv", 19: "MpiIrecv",
	20: "MpiRequestTest", 21: "MpiRequestCancelled", 22: "MpiCollectiveBegin", 23: "MpiCollectiveEnd",
	24: "OmpFork", 25: "OmpJoin", 26: "OmpAcquireLock", 27: "OmpReleaseLock", 28: "OmpTaskCreate",
	29: "OmpTaskSwitch", 30: "OmpTaskComplete", 31: "Metric", 32: "ParameterString", 33: "ParameterInt",
	34: "ParameterUnsignedInt", 35: "RmaWinCreate", 36: "RmaWinDestroy", 37: "RmaCollectiveBegin",
	38: "RmaCollectiveEnd", 39: "RmaGroupSync", 40: "RmaRequestLock", 41: "RmaAcquireLock",
	42: "RmaTryLock", 43: "RmaReleaseLock", 44: "RmaSync", 45: "RmaWaitChange", 46: "RmaPut",
	47: "RmaGet", 48: "RmaAtomic", 49: "RmaOpCompleteBlocking", 50: "RmaOpCompleteNonBlocking",
	51: "RmaOpTest", 52: "RmaOpCompleteRemote", 53: "ThreadFork", 54: "ThreadJoin",
	55: "ThreadTeamBegin", 56: "ThreadTeamEnd", 57: "ThreadAcquireLock", 58: "ThreadReleaseLock",
	59: "ThreadTaskCreate", 60: "ThreadTaskSwitch", 61: "ThreadTaskComplete", 62: "ThreadCreate",
	63: "ThreadBegin", 64: "ThreadWait", 65: "ThreadEnd", 66: "CallingContextEnter",
	67: "CallingContextLeave", 68: "CallingContextSample", 69: "IoCreateHandle", 70: "IoDestroyHandle",
	71: "IoDuplicateHandle", 72: "IoSeek", 73: "IoChangeStatusFlags", 74: "IoDeleteFile",
	75: "IoOperationBegin", 76: "IoOperationTest", 77: "IoOperationIssued", 78: "IoOperationComplete",
	79: "IoOperationCancelled", 80: "IoAcquireLock", 81: "IoReleaseLock", 82: "IoTryLock",
	83: "ProgramBegin", 84: "ProgramEnd", 85: "NonBlockingCollectiveRequest",
	86: "NonBlockingCollectiveComplete", 87: "CommCreate", 88: "CommDestroy",
}

// OTF2_MeasurementMode values of Event.MeasurementMode.
const (
	MeasurementOn  = 1
	MeasurementOff = 2
)

// EventName returns the OTF2 name of event record type t ("Enter").
func EventName(t uint8) string {
	if int(t) < len(eventNames) && eventNames[t] != "" {
		return eventNames[t]
	}
	return fmt.Sprintf("Unknown%d", t)
}

// AttributeValue is one entry of an event's attribute list. Value holds
// the raw bits (integers zero-extended, float/double as IEEE bits);
// references are mapped to global ids.
type AttributeValue struct {
	Attribute uint32
	Type      uint8 // OTF2_Type
	Value     uint64
}

// Event is one event record. Only the fields of its Type are set; slices
// and Payload are reused between callbacks (copy what you keep).
type Event struct {
	Type uint8  // record type (EvEnter, ...)
	Time uint64 // ticks, clock offsets applied

	Region uint32 // Enter, Leave

	Peer    uint32 // MPI p2p: receiver (sends) or sender (receives) rank
	Comm    uint32 // MPI p2p and collectives
	Tag     uint32
	Bytes   uint64
	Request uint64 // Isend, Irecv, IsendComplete, IrecvRequest, RequestTest, RequestCancelled

	CollOp         uint8 // MpiCollectiveEnd
	Root           uint32
	Sent, Received uint64

	Metric       uint32  // Metric: class or instance
	MetricTypes  []uint8 // OTF2_Type per value: 4 uint64, 8 int64, 10 double
	MetricValues []uint64

	// MeasurementMode is OTF2_MeasurementMode of MeasurementOnOff:
	// MeasurementOn (1) or MeasurementOff (2).
	MeasurementMode uint8

	ProgramName uint32 // ProgramBegin
	ProgramArgs []uint32
	ExitStatus  int64 // ProgramEnd

	Attributes []AttributeValue
	// Payload is the record's raw bytes (after type and length) for record
	// types this package does not decode.
	Payload []byte
}

// Decoded reports whether the reader decodes the fields of record type t
// (otherwise only Type, Time, Attributes and Payload are set).
func Decoded(t uint8) bool {
	switch t {
	case EvEnter, EvLeave, EvMpiSend, EvMpiIsend, EvMpiIsendComplete, EvMpiIrecvRequest, EvMpiRecv,
		EvMpiIrecv, EvMpiRequestTest, EvMpiRequestCancelled, EvMpiCollectiveBegin, EvMpiCollectiveEnd,
		EvMetric, EvProgramBegin, EvProgramEnd, EvMeasurementOnOff:
		return true
	}
	return false
}

var chunkPool sync.Pool

// ReadLocalDefs reads location loc's local definitions; a missing file
// gives empty definitions (no mapping tables, no clock offsets).
func (a *Archive) ReadLocalDefs(loc uint64) (*LocalDefs, error) {
	path := a.LocationFile(loc, "def")
	f, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &LocalDefs{Skipped: map[string]int64{}}, nil
	}
	if err != nil {
		return nil, &Error{File: path, Offset: -1, Err: err}
	}
	defer f.Close()
	return readLocalDefs(path, f, int(a.Anchor.ChunkSizeDefs))
}

// ReadLocation reads location loc's local definitions and calls fn for
// each of its events in file order. It returns the number of events. An
// error from fn stops the reading and is returned as is.
func (a *Archive) ReadLocation(loc uint64, fn func(*Event) error) (int64, error) {
	local, path, f, err := a.openEvents(loc)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return readEvents(path, f, int(a.Anchor.ChunkSizeEvents), local, fn)
}

// openEvents reads location loc's local definitions and opens its event
// file (named path).
func (a *Archive) openEvents(loc uint64) (local *LocalDefs, path string, f *os.File, err error) {
	if local, err = a.ReadLocalDefs(loc); err != nil {
		return nil, "", nil, err
	}
	path = a.LocationFile(loc, "evt")
	if f, err = regular.Open(path); err != nil {
		return nil, "", nil, &Error{File: path, Offset: -1, Err: err}
	}
	return local, path, f, nil
}

type userError struct{ err error }

// readEvents decodes an event file from r chunk by chunk, calling fn for
// each record: the column reader with no region table, so that every
// record goes to Other.
func readEvents(path string, r io.Reader, chunkSize int, local *LocalDefs, fn func(*Event) error) (int64, error) {
	return readColumns(path, r, chunkSize, local, &Columns{Other: func(e *Event) (uint8, int32, bool, error) {
		return 0, 0, false, fn(e)
	}})
}

// readChunked reads a chunked OTF2 file (events, definitions) from r and
// calls body for each chunk, with d positioned after the chunk header;
// body reports whether it saw the end-of-file marker. Decoding panics
// (*Error) and callback errors (userError) become the returned error.
func readChunked(path string, r io.Reader, chunkSize int, d *decoder, body func() bool) (err error) {
	// A file smaller than a chunk (local definitions, short locations)
	// is read into a buffer of its size: a chunk is 1-4 MiB, and making
	// (zeroing) one per file would cost more than decoding a small file.
	need := chunkSize
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < int64(chunkSize) {
			need = max(int(fi.Size()), 64)
		}
	}
	var buf []byte
	if b, ok := chunkPool.Get().(*[]byte); ok && cap(*b) >= need {
		buf = (*b)[:need]
	} else {
		buf = make([]byte, need)
	}
	defer chunkPool.Put(&buf)
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *Error:
				err = e
			case userError:
				err = e.err
			default:
				panic(r)
			}
		}
	}()
	d.file = path
	var off int64
	for {
		m, rerr := io.ReadFull(r, buf)
		if rerr == io.EOF {
			return &Error{File: path, Offset: off, Err: errors.New("missing end-of-file marker (file truncated?)")}
		}
		if rerr != nil && rerr != io.ErrUnexpectedEOF {
			return &Error{File: path, Offset: off, Err: rerr}
		}
		if m == len(buf) && len(buf) < chunkSize {
			// The file holds more than its size said (a file system that
			// reports sizes wrongly, a file still written): read a chunk.
			var one [1]byte
			if k, _ := io.ReadFull(r, one[:]); k == 1 {
				big := make([]byte, chunkSize)
				copy(big, buf[:m])
				big[m] = one[0]
				k, rerr = io.ReadFull(r, big[m+1:])
				if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
					return &Error{File: path, Offset: off + int64(m+1+k), Err: rerr}
				}
				m += 1 + k
				buf = big
			}
		}
		d.buf, d.pos, d.base = buf[:m], 0, off
		d.header()
		d.u64full() // number of the chunk's first event
		d.u64full() // number of the chunk's last event
		if body() {
			return nil
		}
		if m < chunkSize {
			return &Error{File: path, Offset: off + int64(m), Err: errors.New("unexpected end of file inside a chunk (file truncated?)")}
		}
		off += int64(m)
	}
}

// evtReader is the state of a location's event decoding (see
// colReader.chunk, which decodes every record).
type evtReader struct {
	d     decoder
	local *LocalDefs
	ev    Event
	time  uint64
	count int64
	ci    int // current clock interval
}

// fields decodes the fields of a record of type typ (not a buffer marker)
// into er.ev, leaving the decoder after the record.
func (er *evtReader) fields(typ uint8) {
	d := &er.d
	ev := &er.ev
	switch typ {
	case EvEnter, EvLeave:
		ev.Region = er.mapped(mapRegion, d.u32())
	case EvMpiIsendComplete, EvMpiIrecvRequest, EvMpiRequestTest, EvMpiRequestCancelled:
		ev.Request = d.u64()
	case EvOmpFork, EvOmpTaskCreate, EvOmpTaskSwitch, EvOmpTaskComplete:
		s := d.pos
		d.u64()
		ev.Payload = d.buf[s:d.pos]
	default:
		end := d.recordEnd()
		switch typ {
		case EvMpiSend, EvMpiRecv, EvMpiIsend, EvMpiIrecv:
			ev.Peer = d.u32()
			ev.Comm = er.mapped(mapComm, d.u32())
			ev.Tag = d.u32()
			ev.Bytes = d.u64()
			ev.Request = 0
			if typ == EvMpiIsend || typ == EvMpiIrecv {
				ev.Request = d.u64()
			}
		case EvMpiCollectiveBegin:
		case EvMpiCollectiveEnd:
			ev.CollOp = d.u8()
			ev.Comm = er.mapped(mapComm, d.u32())
			ev.Root = d.u32()
			ev.Sent = d.u64()
			ev.Received = d.u64()
		case EvMetric:
			ev.Metric = er.mapped(mapMetric, d.u32())
			k := int(d.u8())
			ev.MetricTypes = ev.MetricTypes[:0]
			ev.MetricValues = ev.MetricValues[:0]
			for i := 0; i < k; i++ {
				ev.MetricTypes = append(ev.MetricTypes, d.u8())
				ev.MetricValues = append(ev.MetricValues, d.u64())
			}
		case EvProgramBegin:
			ev.ProgramName = er.mapped(mapString, d.u32())
			k := d.u32()
			if uint64(k) > d.left(end) {
				d.fail("argument count %d exceeds the record", k)
			}
			ev.ProgramArgs = ev.ProgramArgs[:0]
			for i := uint32(0); i < k; i++ {
				ev.ProgramArgs = append(ev.ProgramArgs, er.mapped(mapString, d.u32()))
			}
		case EvProgramEnd:
			ev.ExitStatus = d.i64()
		case EvMeasurementOnOff:
			ev.MeasurementMode = d.u8()
		default:
			ev.Payload = d.buf[d.pos:end]
			d.pos = end
		}
		d.checkEnd(end, EventName(typ))
		d.pos = end
	}
}

func (er *evtReader) mapped(kind int, id uint32) uint32 {
	if m := er.local.maps[kind]; m != nil && id != Undefined {
		return uint32(m.get(uint64(id)))
	}
	return id
}

// correct applies the location's clock offsets like the reference reader:
// linear interpolation within the interval holding t (the last interval
// beyond its end), rounded to nearest even.
func (er *evtReader) correct(t uint64) uint64 {
	iv := er.local.intervals
	if len(iv) == 0 {
		return t
	}
	for er.ci+1 < len(iv) && t > iv[er.ci].end {
		er.ci++
	}
	c := &iv[er.ci]
	var diff float64
	if t >= c.begin {
		diff = float64(t - c.begin)
	} else {
		diff = -float64(c.begin - t)
	}
	return t + uint64(c.offset+int64(math.RoundToEven(c.slope*diff)))
}

func (er *evtReader) attributes() {
	d := &er.d
	end := d.recordEnd()
	n := d.u32()
	if uint64(n) > d.left(end) {
		d.fail("attribute count %d exceeds the attribute list", n)
	}
	ev := &er.ev
	for i := uint32(0); i < n; i++ {
		a := AttributeValue{Attribute: er.mapped(mapAttribute, d.u32()), Type: d.u8()}
		switch a.Type {
		case 1, 5: // uint8, int8
			a.Value = uint64(d.u8())
		case 2, 6: // uint16, int16
			a.Value = uint64(d.u16())
		case 3, 7: // uint32, int32
			a.Value = uint64(d.u32())
		case 4, 8: // uint64, int64
			a.Value = d.u64()
		case 9:
			a.Value = uint64(d.u32full())
		case 10:
			a.Value = d.u64full()
		case 11: // string ref
			a.Value = uint64(er.mapped(mapString, d.u32()))
		case 12:
			a.Value = uint64(er.mapped(mapAttribute, d.u32()))
		case 13: // location
			v := d.u64()
			if m := er.local.maps[mapLocation]; m != nil && v != UndefinedLocation {
				v = m.get(v)
			}
			a.Value = v
		case 14:
			a.Value = uint64(er.mapped(mapRegion, d.u32()))
		case 15:
			a.Value = uint64(er.mapped(mapGroup, d.u32()))
		case 16:
			a.Value = uint64(er.mapped(mapMetric, d.u32()))
		case 17:
			a.Value = uint64(er.mapped(mapComm, d.u32()))
		case 18:
			a.Value = uint64(er.mapped(mapParameter, d.u32()))
		case 19, 20, 21, 22, 23, 24, 25:
			kind := [...]int{8, 9, 10, 11, 12, 13, 14}[a.Type-19]
			a.Value = uint64(er.mapped(kind, d.u32()))
		default:
			d.fail("invalid attribute type %d", a.Type)
		}
		ev.Attributes = append(ev.Attributes, a)
	}
	d.checkEnd(end, "attribute list")
	d.pos = end
}
