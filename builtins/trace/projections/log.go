package projections

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Record type numbers, as Charm++ writes them (trace-projections and
// Projections' ProjDefs).
const (
	Creation                  = 1
	BeginProcessing           = 2
	EndProcessing             = 3
	Enqueue                   = 4
	Dequeue                   = 5
	BeginComputation          = 6
	EndComputation            = 7
	BeginInterrupt            = 8
	EndInterrupt              = 9
	MessageRecv               = 10
	BeginTrace                = 11
	EndTrace                  = 12
	UserEvent                 = 13
	BeginIdle                 = 14
	EndIdle                   = 15
	BeginPack                 = 16
	EndPack                   = 17
	BeginUnpack               = 18
	EndUnpack                 = 19
	CreationBcast             = 20
	CreationMulticast         = 21
	BeginFunc                 = 22
	EndFunc                   = 23
	UserSupplied              = 26
	MemoryUsage               = 27
	UserSuppliedNote          = 28
	UserSuppliedBracketedNote = 29
	UserStat                  = 32
	BeginUserEventPair        = 98
	EndUserEventPair          = 99
	UserEventPair             = 100
)

var typeNames = map[int]string{
	Creation: "CREATION", BeginProcessing: "BEGIN_PROCESSING", EndProcessing: "END_PROCESSING",
	Enqueue: "ENQUEUE", Dequeue: "DEQUEUE", BeginComputation: "BEGIN_COMPUTATION",
	EndComputation: "END_COMPUTATION", BeginInterrupt: "BEGIN_INTERRUPT", EndInterrupt: "END_INTERRUPT",
	MessageRecv: "MESSAGE_RECV", BeginTrace: "BEGIN_TRACE", EndTrace: "END_TRACE", UserEvent: "USER_EVENT",
	BeginIdle: "BEGIN_IDLE", EndIdle: "END_IDLE", BeginPack: "BEGIN_PACK", EndPack: "END_PACK",
	BeginUnpack: "BEGIN_UNPACK", EndUnpack: "END_UNPACK", CreationBcast: "CREATION_BCAST",
	CreationMulticast: "CREATION_MULTICAST", BeginFunc: "BEGIN_FUNC", EndFunc: "END_FUNC",
	UserSupplied: "USER_SUPPLIED", MemoryUsage: "MEMORY_USAGE", UserSuppliedNote: "USER_SUPPLIED_NOTE",
	UserSuppliedBracketedNote: "USER_SUPPLIED_BRACKETED_NOTE", UserStat: "USER_STAT",
	BeginUserEventPair: "BEGIN_USER_EVENT_PAIR", EndUserEventPair: "END_USER_EVENT_PAIR",
	UserEventPair: "USER_EVENT_PAIR",
}

// TypeName names record type t ("BEGIN_PROCESSING"), or "type <t>" for a
// type this package does not know.
func TypeName(t int) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return "type " + strconv.Itoa(t)
}

// Record is one line of a log. Fields a record type does not have are
// zero; Time is -1 for USER_SUPPLIED, which has none.
type Record struct {
	Type  int   // record type number
	Known bool  // Type is one this package decodes; otherwise only Type is set
	Line  int   // 1-based line number
	Off   int64 // byte offset of the line in the log's text

	Time     int64 // µs
	MType    int   // message type
	Entry    int   // entry method id (CREATION*, BEGIN/END_PROCESSING, BEGIN/END_FUNC)
	Event    int   // event id: with PE, names a message (a creation and its processing)
	PE       int   // the PE of the event: for a message, the PE that created it
	MsgLen   int64 // message length in bytes
	SendTime int64 // CREATION*: µs
	RecvTime int64 // BEGIN_PROCESSING: µs
	CPUTime  int64 // BEGIN/END_PROCESSING: CPU start/end time
	ID       []int64
	Perf     []int64 // BEGIN/END_PROCESSING: PAPI counters
	NumPEs   int     // CREATION_BCAST, CREATION_MULTICAST
	DestPEs  []int   // CREATION_MULTICAST
	User     int     // user event id (USER_EVENT*, USER_STAT, bracketed notes)
	Nested   int     // USER_EVENT_PAIR: nested id (-1 when absent)
	EndTime  int64   // USER_SUPPLIED_BRACKETED_NOTE: µs
	Value    int64   // USER_SUPPLIED value, MEMORY_USAGE bytes, BEGIN_FUNC line
	UserTime float64 // USER_STAT
	Stat     float64 // USER_STAT
	Note     string  // notes; BEGIN_FUNC function name
}

// LogReader reads the records of one PE's log.
type LogReader struct {
	name    string
	sts     *Sts
	br      *bufio.Reader
	buf     []byte
	line    int
	off     int64
	Header  int64 // the count of the PROJECTIONS-RECORD line, -1 if none
	f       []field
	started bool
}

type field struct{ a, b int }

// NewLogReader reads a log's text from r (already decompressed); name
// names it in errors; sts gives the version, entry methods and PAPI
// counters the records depend on.
func NewLogReader(r io.Reader, name string, sts *Sts) *LogReader {
	return &LogReader{name: name, sts: sts, br: bufio.NewReaderSize(r, 256<<10), Header: -1}
}

// Log is an opened log file; Close closes it.
type Log struct {
	*LogReader
	file *os.File
	gz   *gzip.Reader
}

// Close closes the file.
func (l *Log) Close() error {
	if l.gz != nil {
		l.gz.Close()
	}
	return l.file.Close()
}

// OpenLog opens a log file, gzipped (detected by its magic bytes) or plain
// text. counter, if not nil, wraps the file's reads (to count the bytes
// read, for progress).
func OpenLog(path string, sts *Sts, counter func(io.Reader) io.Reader) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Offset: -1, Err: err}
	}
	var r io.Reader = f
	if counter != nil {
		r = counter(f)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	l := &Log{file: f}
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, &Error{File: path, Offset: 0, Err: fmt.Errorf("gzip header: %w", err)}
		}
		gz.Multistream(true)
		l.gz = gz
		l.LogReader = NewLogReader(gz, path, sts)
	} else {
		l.LogReader = NewLogReader(br, path, sts)
	}
	return l, nil
}

func (lr *LogReader) errf(line int, off int64, format string, args ...any) error {
	return &Error{File: lr.name, Line: line, Offset: off, Err: fmt.Errorf(format, args...)}
}

// readLine returns the next line without its end of line, or io.EOF.
// maxLine bounds a log line (records are tens of bytes; a multicast lists
// its PEs), so that a corrupt or hostile log, one line of gigabytes once
// unzipped, fails instead of taking the memory.
const maxLine = 1 << 20

func (lr *LogReader) readLine() ([]byte, error) {
	s, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.buf = append(lr.buf[:0], s...)
		for err == bufio.ErrBufferFull {
			if len(lr.buf) > maxLine {
				return nil, lr.errf(lr.line+1, lr.off, "line longer than %d bytes: not a Projections log", maxLine)
			}
			s, err = lr.br.ReadSlice('\n')
			lr.buf = append(lr.buf, s...)
		}
		s = lr.buf
	}
	switch {
	case err == io.EOF && len(s) == 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		return nil, lr.errf(lr.line+1, lr.off, "reading: %w", err)
	}
	lr.line++
	lr.off += int64(len(s))
	return bytes.TrimRight(s, "\r\n"), nil
}

// Next reads the next record into rec; it returns io.EOF after the last
// one. Blank lines are skipped; a record of an unknown type is returned
// with Known false.
func (lr *LogReader) Next(rec *Record) error {
	for {
		start := lr.off
		s, err := lr.readLine()
		if err != nil {
			return err
		}
		lr.f = lr.f[:0]
		for i := 0; i < len(s); {
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			if j > i {
				lr.f = append(lr.f, field{i, j})
			}
			i = j
		}
		if len(lr.f) == 0 {
			continue
		}
		if !lr.started {
			lr.started = true
			if string(s[lr.f[0].a:lr.f[0].b]) == "PROJECTIONS-RECORD" {
				if len(lr.f) > 1 {
					lr.Header, _ = strconv.ParseInt(string(s[lr.f[1].a:lr.f[1].b]), 10, 64)
				}
				continue
			}
		}
		return lr.decode(rec, s, start)
	}
}

// decode fills rec from the fields of line s.
func (lr *LogReader) decode(rec *Record, s []byte, off int64) error {
	f := lr.f
	k := 0
	var bad error
	next := func(what string) int64 {
		if bad != nil {
			return 0
		}
		if k >= len(f) {
			bad = lr.errf(lr.line, off, "%s: truncated record: no %s (field %d)", TypeName(rec.Type), what, k+1)
			return 0
		}
		v, ok := parseInt(s[f[k].a:f[k].b])
		if !ok {
			bad = lr.errf(lr.line, off, "%s: %s (field %d) %q is not an integer", TypeName(rec.Type), what, k+1, s[f[k].a:f[k].b])
		}
		k++
		return v
	}
	nextFloat := func(what string) float64 {
		if bad != nil {
			return 0
		}
		if k >= len(f) {
			bad = lr.errf(lr.line, off, "%s: truncated record: no %s (field %d)", TypeName(rec.Type), what, k+1)
			return 0
		}
		v, err := strconv.ParseFloat(string(s[f[k].a:f[k].b]), 64)
		if err != nil {
			bad = lr.errf(lr.line, off, "%s: %s (field %d) %q is not a number", TypeName(rec.Type), what, k+1, s[f[k].a:f[k].b])
		}
		k++
		return v
	}
	rest := func() string { // the rest of the line, from field k
		if k >= len(f) {
			return ""
		}
		return string(s[f[k].a:])
	}
	typ, ok := parseInt(s[f[0].a:f[0].b])
	if !ok || typ < 0 || typ > 1<<20 {
		return lr.errf(lr.line, off, "record type %q is not a number", s[f[0].a:f[0].b])
	}
	k = 1
	id, perf, dest := rec.ID[:0], rec.Perf[:0], rec.DestPEs[:0]
	*rec = Record{Type: int(typ), Known: true, Line: lr.line, Off: off, Nested: -1}
	ver := 11.0
	npapi := 0
	if lr.sts != nil {
		ver, npapi = lr.sts.Version, len(lr.sts.PapiEvents)
	}
	message := func() {
		rec.MType = int(next("message type"))
		rec.Entry = int(next("entry"))
		rec.Time = next("time")
		rec.Event = int(next("event"))
		rec.PE = int(next("pe"))
		if ver >= 2 {
			rec.MsgLen = next("message length")
		}
	}
	switch rec.Type {
	case Creation, CreationBcast, CreationMulticast:
		message()
		if ver >= 5 {
			rec.SendTime = next("send time")
		}
		if rec.Type != Creation {
			n := next("number of PEs")
			if n < 0 || (rec.Type == CreationMulticast && n > int64(len(f))) {
				if bad == nil {
					bad = lr.errf(lr.line, off, "%s: number of PEs %d out of range", TypeName(rec.Type), n)
				}
			}
			rec.NumPEs = int(n)
			if rec.Type == CreationMulticast {
				for i := 0; i < rec.NumPEs && bad == nil; i++ {
					dest = append(dest, int(next("destination PE")))
				}
			}
		}
	case BeginProcessing:
		message()
		if ver >= 4 {
			rec.RecvTime = next("receive time")
			// the index, the CPU start time (6.5) and the PAPI counters
			// (6.6) follow: the index is what lies between
			tail := len(f) - k
			extra := 0
			if ver >= 6.5 {
				extra++
			}
			if ver >= 6.6 {
				extra += npapi
			}
			nid := tail - extra
			if nid < 0 {
				nid = 0
			}
			for i := 0; i < nid && bad == nil; i++ {
				id = append(id, next("chare index"))
			}
		}
		if ver >= 6.5 {
			rec.CPUTime = next("CPU start time")
		}
		if ver >= 6.6 {
			for i := 0; i < npapi && bad == nil; i++ {
				perf = append(perf, next("PAPI counter"))
			}
		}
	case EndProcessing:
		message()
		if ver >= 6.5 {
			rec.CPUTime = next("CPU end time")
		}
		if ver >= 6.6 {
			for i := 0; i < npapi && bad == nil; i++ {
				perf = append(perf, next("PAPI counter"))
			}
		}
	case Enqueue, Dequeue:
		rec.MType = int(next("message type"))
		rec.Time = next("time")
		rec.Event = int(next("event"))
		rec.PE = int(next("pe"))
	case BeginComputation, EndComputation, BeginTrace, EndTrace:
		rec.Time = next("time")
	case BeginInterrupt, EndInterrupt:
		rec.Time = next("time")
		rec.Event = int(next("event"))
		rec.PE = int(next("pe"))
	case MessageRecv:
		rec.MType = int(next("message type"))
		rec.Time = next("time")
		rec.Event = int(next("event"))
		rec.PE = int(next("pe"))
		rec.MsgLen = next("message length")
	case UserEvent, UserEventPair, BeginUserEventPair, EndUserEventPair:
		rec.User = int(next("user event"))
		rec.Time = next("time")
		rec.Event = int(next("event"))
		rec.PE = int(next("pe"))
		if rec.Type != UserEvent && k < len(f) {
			rec.Nested = int(next("nested id"))
		}
	case BeginIdle, EndIdle, BeginPack, EndPack, BeginUnpack, EndUnpack:
		rec.Time = next("time")
		rec.PE = int(next("pe"))
	case BeginFunc:
		rec.Time = next("time")
		rec.Entry = int(next("function id"))
		rec.Value = next("line number")
		rec.Note = rest()
	case EndFunc:
		rec.Time = next("time")
		rec.Entry = int(next("function id"))
	case UserSupplied:
		rec.Value = next("value")
		rec.Time = -1
	case MemoryUsage:
		rec.Value = next("memory usage")
		rec.Time = next("time")
	case UserSuppliedNote:
		rec.Time = next("time")
		next("note length")
		rec.Note = rest()
	case UserSuppliedBracketedNote:
		rec.Time = next("time")
		rec.EndTime = next("end time")
		rec.User = int(next("user event"))
		next("note length")
		rec.Note = rest()
	case UserStat:
		rec.Time = next("time")
		rec.UserTime = nextFloat("user time")
		rec.Stat = nextFloat("value")
		rec.PE = int(next("pe"))
		rec.User = int(next("user stat"))
	default:
		rec.Known = false
	}
	rec.ID, rec.Perf, rec.DestPEs = id, perf, dest
	if bad != nil {
		return bad
	}
	if rec.Type != UserSupplied && rec.Time < 0 {
		return lr.errf(lr.line, off, "%s: negative time %d", TypeName(rec.Type), rec.Time)
	}
	switch rec.Type {
	case Creation, CreationBcast, CreationMulticast, BeginProcessing, EndProcessing:
		if lr.sts != nil {
			if _, ok := lr.sts.Entries[rec.Entry]; !ok {
				return lr.errf(lr.line, off, "%s: entry method %d is not in the .sts file", TypeName(rec.Type), rec.Entry)
			}
		}
	}
	return nil
}

// parseInt parses a decimal integer with an optional sign.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		if len(b) > 18 {
			v, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil {
				return 0, false
			}
			if neg {
				v = -v
			}
			return v, true
		}
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// Line returns the number of lines read so far.
func (lr *LogReader) Line() int { return lr.line }
