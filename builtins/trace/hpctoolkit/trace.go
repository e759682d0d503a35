package hpctoolkit

import (
	"encoding/binary"
	"fmt"
	"io"
)

// TraceDB is an open trace.db: its trace lines, read by ReadLine.
type TraceDB struct {
	Minor   uint8
	Lines   []TraceLine
	MinTime uint64 // smallest timestamp of the traces (ns since the epoch)
	MaxTime uint64 // largest timestamp

	name string
	f    io.ReaderAt
	c    io.Closer
}

// TraceLine is the header of one trace line: the samples of one profile.
type TraceLine struct {
	Profile    uint32 // index into the profiles of profile.db
	Start, End int64  // file offsets of its samples: [Start, End)
	Header     int64  // file offset of its header, for errors
}

// NumSamples returns the number of samples of the line.
func (l TraceLine) NumSamples() int64 { return (l.End - l.Start) / SampleBytes }

// Sample is one trace sample: at Time (ns since the epoch) the thread was
// in the context Ctx (a Context.ID of meta.db; 0: it was not running).
type Sample struct {
	Time uint64
	Ctx  uint32
}

// SampleBytes is the size of a sample in trace.db.
const SampleBytes = 12

// OpenTrace opens the trace.db file name and reads its trace headers.
// Close it when done.
func OpenTrace(name string) (*TraceDB, error) {
	f, size, err := openFile(name)
	if err != nil {
		return nil, err
	}
	t, err := readTrace(name, f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.c = f
	return t, nil
}

// Close closes the file.
func (t *TraceDB) Close() error {
	if t.c == nil {
		return nil
	}
	return t.c.Close()
}

func readTrace(name string, f io.ReaderAt, size int64) (t *TraceDB, err error) {
	h, err := readHeader(name, f, size, "trce", traceFooter, 1)
	if err != nil {
		return nil, err
	}
	sec := h.Sections[0]
	s, err := readSection(name, f, sec)
	if err != nil {
		return nil, err
	}
	defer catch(&err)
	t = &TraceDB{Minor: h.Minor, name: name, f: f}
	if sec.Size == 0 {
		return t, nil
	}
	p := s.u64(sec.Pointer, "pTraces")
	n := uint64(s.u32(sec.Pointer+8, "nTraces"))
	sz := uint64(s.u8(sec.Pointer+0xc, "szTrace"))
	t.MinTime = s.u64(sec.Pointer+0x10, "minTimestamp")
	t.MaxTime = s.u64(sec.Pointer+0x18, "maxTimestamp")
	if n > 0 && sz < 0x18 {
		s.fail(int64(sec.Pointer+0xc), "szTrace %d is smaller than 24", sz)
	}
	s.at(p, int(min(n*sz, sec.Size+1)), "trace headers")
	t.Lines = make([]TraceLine, n)
	for i := range t.Lines {
		o := p + uint64(i)*sz
		start, end := s.u64(o+8, "pStart"), s.u64(o+0x10, "pEnd")
		switch {
		case start > end || end > uint64(size):
			s.fail(int64(o+8), "trace line %d [%d, %d) lies beyond the end of the file (%d bytes) or ends before it starts", i, start, end, size)
		case (end-start)%SampleBytes != 0:
			s.fail(int64(o+8), "trace line %d is %d bytes long, not a multiple of %d", i, end-start, SampleBytes)
		}
		t.Lines[i] = TraceLine{Profile: s.u32(o, "profIndex"), Start: int64(start), End: int64(end), Header: int64(o)}
	}
	return t, nil
}

// chunkSamples is how many samples ReadLine reads at a time (1.5 MiB).
const chunkSamples = 1 << 17

// ReadLine calls fn with the samples of trace line i, in file order, a
// chunk at a time (the slice is reused: fn must not keep it). An error fn
// returns stops the reading and is returned. Samples are not checked for
// order or context ids: the caller does.
func (t *TraceDB) ReadLine(i int, fn func(samples []Sample) error) error {
	if i < 0 || i >= len(t.Lines) {
		return &Error{File: t.name, Offset: -1, Err: fmt.Errorf("trace line %d of %d", i, len(t.Lines))}
	}
	l := t.Lines[i]
	n := l.NumSamples()
	buf := make([]byte, min(n, chunkSamples)*SampleBytes)
	out := make([]Sample, min(n, chunkSamples))
	for off := l.Start; off < l.End; {
		k := min((l.End-off)/SampleBytes, chunkSamples)
		b := buf[:k*SampleBytes]
		if _, err := t.f.ReadAt(b, off); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return &Error{File: t.name, Offset: off, Err: err}
		}
		s := out[:k]
		for j := range s {
			s[j] = Sample{Time: binary.LittleEndian.Uint64(b[j*SampleBytes:]), Ctx: binary.LittleEndian.Uint32(b[j*SampleBytes+8:])}
		}
		if err := fn(s); err != nil {
			return err
		}
		off += k * SampleBytes
	}
	return nil
}

// SampleOffset returns the file offset of sample j of line i, for errors.
func (t *TraceDB) SampleOffset(i int, j int64) int64 { return t.Lines[i].Start + j*SampleBytes }

// Name returns the file name.
func (t *TraceDB) Name() string { return t.name }
