package otf2

import (
	"encoding/binary"
	"io"
)

// Columns receives a location's events as columns, for a reader that
// keeps every event (the trace model): ReadColumns decodes Enter and Leave
// records straight into Kind, Time and Ref through the caller's tables,
// with no call per event, and calls Other for every other record. It is
// the same decoding as ReadLocation's, at about twice its speed on traces
// where calls dominate.
type Columns struct {
	// EnterKind and LeaveKind are appended to Kind for Enter and Leave.
	EnterKind, LeaveKind uint8
	// Region maps a global region id to the value appended to Ref. A
	// record whose region is out of its range or maps to a negative value
	// goes to Other instead (with Event.Region set), which decides.
	Region []int32
	// TimeOffset is subtracted from each corrected timestamp (ticks) to
	// give the value appended to Time; a timestamp before it gives a
	// negative value.
	TimeOffset uint64

	// Kind, Time and Ref are the columns ReadColumns appends to.
	Kind []uint8
	Time []int64
	Ref  []int32

	// Other is called for each record other than the Enter and Leave
	// records decoded into the columns, with the Event ReadLocation would
	// deliver (Time corrected, not offset). When keep is true, kind, the
	// record's time less TimeOffset, and ref are appended to the columns.
	// An error stops the reading and is returned as is. Without Other,
	// those records are counted and dropped.
	Other func(e *Event) (kind uint8, ref int32, keep bool, err error)
	// Read is the number of records read so far, the current one
	// included, when Other is called (to size side tables by projection).
	Read int64
	// Progress, when set, is called at the end of a chunk once 16384
	// records or more were read since its last call, and at the end of
	// the file, with that number; an error stops the reading and is
	// returned as is.
	Progress func(n int64) error
}

// ReadColumns reads location loc's local definitions and its events into
// c (see Columns). It returns the number of event records read, Enter and
// Leave included, as ReadLocation does. Attribute lists of the Enter and
// Leave records decoded into the columns are read and dropped.
func (a *Archive) ReadColumns(loc uint64, c *Columns) (int64, error) {
	local, path, f, err := a.openEvents(loc)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return readColumns(path, f, int(a.Anchor.ChunkSizeEvents), local, c)
}

// readColumns decodes an event file from r into c.
func readColumns(path string, r io.Reader, chunkSize int, local *LocalDefs, c *Columns) (int64, error) {
	er := &evtReader{local: local}
	cr := &colReader{er: er, c: c}
	err := readChunked(path, r, chunkSize, &er.d, cr.chunk)
	if err == nil && c.Progress != nil && cr.pending > 0 {
		err = c.Progress(cr.pending)
	}
	return er.count, err
}

type colReader struct {
	er      *evtReader
	c       *Columns
	pending int64 // records since the last Progress call
}

// chunk decodes one chunk, Enter and Leave records into the columns, the
// others through Other; it reports whether the end-of-file marker was
// seen. The buffer and position are kept in locals, and the common encodings
// (little-endian timestamps, one-byte region ids) are decoded inline; the
// decoder's methods, with their checks and error offsets, take the rest
// (d.pos is set before each call and read back after).
func (cr *colReader) chunk() bool {
	er, c := cr.er, cr.c
	d := &er.d
	ev := &er.ev
	var dense []uint64 // a dense local region mapping, or nil
	regionMap := er.local.maps[mapRegion]
	if regionMap != nil && regionMap.dense != nil {
		dense, regionMap = regionMap.dense, nil
	}
	noClock := len(er.local.intervals) == 0
	region := c.Region
	kinds := [2]uint8{c.EnterKind, c.LeaveKind}
	kind, tm, ref := c.Kind, c.Time, c.Ref
	other := c.Other
	offset := c.TimeOffset
	fast := !d.be && flipRecorder == nil
	start := er.count
	count := er.count
	buf, pos := d.buf, d.pos
	defer func() {
		// the columns are written back even when a decoding error panics
		c.Kind, c.Time, c.Ref = kind, tm, ref
		er.count = count
	}()
	for {
		at := pos
		if pos >= len(buf) {
			d.pos = pos
			d.fail("unexpected end of data")
		}
		typ := buf[pos]
		pos++
		switch typ {
		case markEndOfChunk, markEndOfFile:
			d.pos = pos
			if typ == markEndOfFile && len(ev.Attributes) > 0 {
				d.failAt(at, "attribute list without a record")
			}
			c.Kind, c.Time, c.Ref = kind, tm, ref
			er.count = count
			if c.Progress != nil {
				cr.pending += count - start
				if cr.pending >= 1<<14 {
					n := cr.pending
					cr.pending = 0
					if err := c.Progress(n); err != nil {
						panic(userError{err})
					}
				}
			}
			return typ == markEndOfFile
		case markEndOfBuffer:
			d.pos = pos
			d.failAt(at, "unexpected end-of-buffer marker")
		case markTimestamp:
			if fast && pos+8 <= len(buf) {
				er.time = binary.LittleEndian.Uint64(buf[pos:])
				pos += 8
				continue
			}
			d.pos = pos
			er.time = d.u64full()
			pos = d.pos
			continue
		case markAttrList:
			d.pos = pos
			er.attributes()
			pos = d.pos
			continue
		case EvEnter, EvLeave:
			var r uint32
			if fast && pos+1 < len(buf) && buf[pos] == 1 {
				r = uint32(buf[pos+1])
				pos += 2
			} else {
				d.pos = pos
				r = d.u32()
				pos = d.pos
			}
			switch {
			case dense != nil:
				if r != Undefined && uint64(r) < uint64(len(dense)) {
					r = uint32(dense[r])
				}
			case regionMap != nil && r != Undefined:
				r = uint32(regionMap.get(uint64(r)))
			}
			if uint64(r) < uint64(len(region)) && region[r] >= 0 {
				t := er.time
				if !noClock {
					t = er.correct(t)
				}
				kind = append(kind, kinds[typ-EvEnter])
				tm = append(tm, int64(t-offset))
				ref = append(ref, region[r])
				count++
				if len(ev.Attributes) > 0 {
					ev.Attributes = ev.Attributes[:0]
				}
				continue
			}
			ev.Type, ev.Time, ev.Region = typ, er.correct(er.time), r
		default:
			ev.Type = typ
			ev.Time = er.correct(er.time)
			d.pos = pos
			er.fields(typ)
			pos = d.pos
		}
		count++
		if other != nil {
			c.Read = count
			k, r, keep, err := other(ev)
			if err != nil {
				panic(userError{err})
			}
			if keep {
				kind = append(kind, k)
				tm = append(tm, int64(ev.Time-offset))
				ref = append(ref, r)
			}
		}
		ev.Attributes = ev.Attributes[:0]
		ev.Payload = nil
	}
}
