package trace

// Reading the Chrome/Perfetto Trace Event Format (JSON), as Chrome's
// about:tracing, Perfetto, PyTorch/Kineto and pipit's to_chrome write it.
//
// The format is Google's "Trace Event Format" document
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
// What this reader follows of it, and how each phase maps to the model:
//
//   - Both containers: the JSON Array Format, [ {event}, ... ], whose closing
//     "]" may be missing (Chrome allows it, so that a crashed process leaves a
//     readable file), and the JSON Object Format, {"traceEvents": [...],
//     "displayTimeUnit": "ns", ...}, whose other members are skipped.
//     displayTimeUnit is display only: it is kept in Definitions.Properties
//     and never scales the data.
//   - Times: "ts" and "dur" are microseconds, integer or decimal; the decimal
//     text is converted exactly to int64 nanoseconds ("12.345" is 12345 ns,
//     no float rounding), digits below the nanosecond rounded to the nearest
//     (half away from zero). Model times are ns from the smallest "ts" of an
//     event the model holds; Clock (1e9 ticks/s) has that ts as its Offset
//     when it is positive, so that Offset + Time is the file's time.
//   - pid and tid, numbers or strings, name location groups and locations.
//     Metadata events (ph "M") process_name, process_sort_index,
//     thread_name and thread_sort_index name and order
//     them: groups by sort index, then numeric pids in numeric order, then
//     string pids in order of appearance; threads likewise within a group.
//     Process.Rank is the group's index, Process.Thread the thread's index
//     within its group. Names are trimmed of surrounding blanks (Kineto
//     writes "stream 7 "). Other metadata events (process_labels, ...) are
//     not modelled: counted as skipped.
//   - Accelerators (PyTorch/Kineto): a location is an accelerator stream
//     ("accelerator_stream") when its thread_name or string tid starts with
//     "stream", or one of its events has a GPU category (kernel, gpu_memcpy,
//     gpu_memset, gpu_user_annotation); its group is an "accelerator" when
//     its process_name starts with "GPU" or all its locations are streams.
//     Process.Place and Label then say "GPU n stream m".
//   - Duration events B/E and complete events X become Enter/Leave of the
//     region named by "name" (regions are identified by name; the paradigm
//     is "cuda" for Kineto's GPU and CUDA runtime categories, else "user").
//     Events of one thread are ordered by ts; at equal ts, X events come
//     first, longer first, then the others in file order (B and E must be in
//     order in the file, as the format requires). An E closes the innermost
//     open B of its thread (as Perfetto), except when it names an enclosing
//     B and the calls above that one are B calls begun at the E's own ts
//     and, under those, B calls whose named E events follow at that ts: then
//     the events of one timestamp were written out of order (pipit's
//     to_chrome sorts events by time unstably), and the E ends its named
//     call after the calls inside it (whose later E events are then spent)
//     and before the calls begun at its ts (counted in
//     Properties["chrome:reordered"]). Two calls of one name at one ts stay
//     ambiguous (siblings or nested): the file order decides.
//     An E with no B open is an error. A B never ended is kept open, as an
//     OTF2 call that was never left: the call tree closes it at the last
//     event and the summary counts it (see CallRepairs). An X that starts
//     inside another X and ends after it is clipped to end with it; the
//     number clipped is in Properties["chrome:clipped"]. B/E nested across
//     the end of an X (a B inside an X still open when the X ends) are an
//     error.
//   - Instant events i/I whose name is a model event kind (MpiSend, MpiRecv,
//     MpiIsend, ..., MpiCollectiveEnd, ProgramBegin, ProgramEnd,
//     MeasurementOn/Off), as pipit's to_chrome writes them, become that event
//     with its payload from "args" in pipit's keys (receiver or sender,
//     msg_tag, msg_length, communicator, request_id; collective_op, root,
//     size_sent, size_received): the events-table reader's rule (FromTable).
//     Other instants have no place in the model: they are skipped and counted.
//   - Flow events s/f with the same category and id become a message: an
//     MpiSend at the s event's ts on its thread and an MpiRecv at the f
//     event's ts on its thread, when the two are different threads. Peer is
//     the partner's location group (Process.Rank), Comm -1 (no
//     communicator), Tag args.msg_tag (else -1), Bytes args.msg_length or
//     args.bytes (else 0). Flow steps (t), unmatched ends, and flows within
//     one thread are skipped and counted. Kineto's "ac2g" flows thus link a
//     CUDA launch on a CPU thread to its kernel on a GPU stream.
//   - Counter events C become metric streams (METRIC locations of the
//     counter's process, see MetricStream): one per process, counter name,
//     id and series (each numeric member of args is a series), named as
//     Perfetto names its counter tracks: "name series" ("name id: 5 series"
//     with an id); values are float64; members of args that are not
//     numbers are ignored.
//   - WriteChrome's exports (a "tracebook_definitions" metadata event):
//     args.level (the calls open before an event) orders the events of one
//     ts exactly, as written; an X with args.unclosed is a call never left;
//     instants take WriteChrome's argument names too (peer, tag, bytes,
//     request, comm as "Comm <id>"; op, root, sent, received); "Metric"
//     instants become Metric events, their numeric args (but level, class,
//     location) metric members by name, values float64; a thread of
//     "metric stream" Metric instants only is a metric stream; the derived
//     flows (category "message") and counters (categories "metric" and
//     "metric stream") are skipped. The definitions it carries are not
//     restored: regions, communicators and members are identified by name.
//   - Every other phase (async b/n/e and S/T/p/F, object N/O/D, sample P,
//     memory dumps V/v, mark R, clock sync c, contexts) and the skipped
//     events above are counted by phase and listed in
//     Properties["chrome:skipped"] ("async begin b ×3, instant i ×1"); those on
//     a location also count in its Process.Skipped (the summary's "not
//     modelled").
//
// Errors are *Error values naming the file and the byte offset of the
// offending event (in the uncompressed stream), wrapping a *ChromeEventError
// with the event's index in the traceEvents array: malformed JSON, a
// truncated file (inside an event), wrong types ("ts":"abc"), missing fields
// (ph, ts, pid, tid, dur of X, name of B/X), unbalanced B/E. A memory
// error (work.Reserve) is an *Error wrapping the *work.MemoryError; an
// interrupt returns work.ErrInterrupted. The file is
// read as a stream (gzip when it starts with gzip's magic bytes, whatever its
// name), holding one event's text at a time; memory is checked with
// work.Reserve as the events grow, progress and interrupts go through
// package work.

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/builtins/work"
)

// ChromeEventError is the cause of an error reading a Trace Event Format
// file at one event: its index in the traceEvents array (-1 when the error
// is outside the events) and what is wrong. The *Error around it has the
// byte offset where the event starts.
type ChromeEventError struct {
	Index int64
	Err   error
}

func (e *ChromeEventError) Error() string {
	if e.Index < 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("event %d: %v", e.Index, e.Err)
}

// Unwrap returns the cause.
func (e *ChromeEventError) Unwrap() error { return e.Err }

// isChromePath reports whether Load reads path as Trace Event Format JSON.
func isChromePath(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")
}

// loadChrome reads the Trace Event Format file at path.
func loadChrome(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	t, err := readChrome(f, size, path)
	if err != nil {
		return nil, err
	}
	t.Path = path
	return t, nil
}

// ReadChrome reads a trace in the Chrome/Perfetto Trace Event Format (JSON,
// or gzip-compressed JSON) from r; see Load for the mapping. Errors are
// *Error values with the byte offset of the offending event.
func ReadChrome(r io.Reader) (*Trace, error) {
	return readChrome(r, 0, "")
}

// countingReader counts the bytes read through it, for progress.
type countingReader struct {
	r   io.Reader
	job *work.Job
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if jerr := c.job.Add(int64(n)); jerr != nil {
		return n, jerr
	}
	return n, err
}

func readChrome(r io.Reader, size int64, path string) (*Trace, error) {
	label := "reading Chrome trace"
	if path != "" {
		label = "reading " + filepath.Base(path)
	}
	job := work.Start(label, size, "bytes")
	defer job.Done()
	cr := &countingReader{r: r, job: job}
	br := bufio.NewReaderSize(cr, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &Error{Path: path, Offset: 0, Err: fmt.Errorf("gzip: %w", err)}
		}
		defer zr.Close()
		in = zr
	} else if size > 0 {
		// a first estimate, before any allocation: ~100 bytes of JSON per
		// event, each held as a chromeItem while reading and as about two
		// model events after
		if err := work.Reserve("reading "+path, size/100*(chromeItemBytes+2*EventBytes)); err != nil {
			return nil, &Error{Path: path, Offset: -1, Err: err}
		}
	}
	rd := newChromeReader(in, path)
	if err := rd.read(); err != nil {
		return nil, err
	}
	return rd.build()
}

// chromeItem is one event of a thread, held until the thread's events are
// sorted: an X (dur >= 0), a B, an E, or an instant or flow event of the
// model (ref: its row in the thread's side table).
type chromeItem struct {
	ts    int64 // ns, as in the file
	dur   int64 // X: ns; -1 otherwise
	off   int64 // byte offset of the event
	idx   int64 // index in traceEvents
	ref   int32 // region id (B, X) or side-table row (instants)
	ph    byte  // 'B', 'E', 'X', or 'i' with kind
	kind  EventKind
	level int32 // args.level of WriteChrome: the calls open before it; -1 if none
}

// chromeItemBytes is the memory of a chromeItem, for work.Reserve.
const chromeItemBytes = 48

type chromeThread struct {
	key     string // tid
	group   *chromeGroup
	name    string
	sortIdx int64
	hasSort bool
	first   int // order of appearance in the group
	num     bool
	numVal  float64
	items   []chromeItem
	proc    *Process // side tables, filled while reading
	gpu     bool     // an event with a GPU category
	msgs    bool     // an end of a message
	stream  bool     // WriteChrome's metric stream: Metric instants of category "metric stream"
	// unsorted says the first nScan items (those read, before the
	// messages of flows) are not in chromeItemLess order
	unsorted bool
	nScan    int
	skipped  int64
	index    int32 // within the group, once ordered
}

type chromeGroup struct {
	key      string // pid
	name     string
	sortIdx  int64
	hasSort  bool
	first    int
	num      bool
	numVal   float64
	threads  map[string]*chromeThread // by numeric tid
	sthreads map[string]*chromeThread // by string tid
	order    []*chromeThread
	counters map[string]*chromeCounter
	corder   []*chromeCounter
	index    int32
	gpu      bool
}

// chromeCounter is one series of a counter of a process.
type chromeCounter struct {
	name string // "name series"
	ts   []int64
	val  []float64
}

// chromeFlowEnd is one end of a flow.
type chromeFlowEnd struct {
	th  *chromeThread
	ts  int64
	off int64
	idx int64
	tag int32
	n   int64 // bytes
	set bool
}

type chromeFlowPair struct {
	start, end chromeFlowEnd
	cat        string
}

// chromeFlowKey identifies a flow: its category and id (an integer, or the
// text of another number or a string).
type chromeFlowKey struct {
	cat   string
	num   int64
	str   string
	isStr bool
}

// intern returns b as a string, one allocation per distinct value.
func (c *chromeReader) intern(b []byte) string {
	if s, ok := c.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	c.strs[s] = s
	return s
}

// atoi returns the value of a canonical integer of at most 18 digits.
func atoi(b []byte) int64 {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var v int64
	for _, d := range b {
		v = v*10 + int64(d-'0')
	}
	if neg {
		return -v
	}
	return v
}

type chromeReader struct {
	s    *jsonScanner
	path string
	ev   chromeRaw

	groups   map[string]*chromeGroup // by numeric pid
	sgroups  map[string]*chromeGroup // by string pid
	gorder   []*chromeGroup
	regions  []Region
	region   map[string]int32
	comms    []Comm
	comm     map[string]int32
	flows    map[chromeFlowKey]int32 // index in flowList
	flowList []chromeFlowPair
	strs     map[string]string // interned categories

	// the last group and thread looked up, by pid and tid
	lastGroup                *chromeGroup
	lastThread               *chromeThread
	lastPid, lastTid         []byte
	lastPidKind, lastTidKind jsonKind

	index     int64 // of the next event
	minTs     int64
	hasTs     bool
	items     int64 // held, for work.Reserve
	reserved  int64
	skipped   map[string]int64
	clipped   int64
	metrics   Definitions      // the metric members and classes of Metric instants
	member    map[string]int32 // metric member by name
	tracebook bool             // the file is WriteChrome's export (a tracebook_definitions event)
	reordered int64
	format    string
	unit      string
}

func newChromeReader(r io.Reader, path string) *chromeReader {
	return &chromeReader{s: newJSONScanner(r), path: path, groups: map[string]*chromeGroup{}, sgroups: map[string]*chromeGroup{},
		region: map[string]int32{}, comm: map[string]int32{}, flows: map[chromeFlowKey]int32{}, member: map[string]int32{}, strs: map[string]string{}, skipped: map[string]int64{}}
}

// errAt returns the *Error of event idx starting at byte off.
func (c *chromeReader) errAt(off, idx int64, err error) error {
	var se *chromeSyntaxError
	if errors.As(err, &se) && idx < 0 {
		off = se.Offset
	}
	if errors.Is(err, work.ErrInterrupted) {
		return err
	}
	return &Error{Path: c.path, Offset: off, Err: &ChromeEventError{Index: idx, Err: err}}
}

// read reads the whole input into per-thread events.
func (c *chromeReader) read() error {
	s := c.s
	b, ok := s.peek()
	if !ok {
		if s.err != nil {
			return c.errAt(0, -1, s.err)
		}
		return c.errAt(0, -1, errors.New("empty file: not a Trace Event Format file"))
	}
	switch b {
	case '[':
		c.format = "JSON array"
		if err := c.events(true); err != nil {
			return err
		}
	case '{':
		c.format = "JSON object"
		found := false
		err := s.object(func(key []byte) error {
			switch string(key) {
			case "traceEvents":
				found = true
				return c.events(false)
			case "displayTimeUnit":
				k, v, err := s.scalar()
				if err == nil && k == jsonString {
					c.unit = string(v)
				}
				return err
			}
			return s.skip()
		})
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) || errors.Is(err, work.ErrInterrupted) {
				return err
			}
			return c.errAt(s.offset(), -1, err)
		}
		if !found {
			return c.errAt(0, -1, errors.New(`JSON object without "traceEvents": not a Trace Event Format file`))
		}
	default:
		return c.errAt(s.offset(), -1, fmt.Errorf("not a Trace Event Format file: want '[' or '{' at byte %d, found %s", s.offset(), quoteByte(b)))
	}
	if b, ok := s.peek(); ok {
		return c.errAt(s.offset(), -1, fmt.Errorf("data after the end of the trace at byte %d: %s", s.offset(), quoteByte(b)))
	}
	if s.err != nil {
		return c.errAt(s.offset(), -1, s.err)
	}
	return nil
}

// events reads the array of events; open says the array may end without
// its "]" (the JSON Array Format).
func (c *chromeReader) events(open bool) error {
	s := c.s
	if err := s.expect('[', "'[' (the array of events)"); err != nil {
		return c.errAt(s.offset(), -1, err)
	}
	for {
		b, ok := s.peek()
		if !ok {
			if open && s.err == nil {
				return nil
			}
			return c.errAt(s.offset(), -1, fmt.Errorf("the array of events ends without ']' after %d events: %w", c.index, s.truncated()))
		}
		if b == ']' {
			s.pos++
			return nil
		}
		off := s.offset()
		if err := c.event(off); err != nil {
			return c.errAt(off, c.index, err)
		}
		if err := c.reserve(); err != nil {
			return &Error{Path: c.path, Offset: off, Err: err}
		}
		c.index++
		b, ok = s.peek()
		if !ok {
			if open && s.err == nil {
				return nil
			}
			return c.errAt(s.offset(), -1, fmt.Errorf("the array of events ends without ']' after %d events: %w", c.index, s.truncated()))
		}
		s.pos++
		switch b {
		case ',':
		case ']':
			return nil
		default:
			return c.errAt(s.offset()-1, -1, fmt.Errorf("want ',' or ']' after event %d, found %s at byte %d", c.index-1, quoteByte(b), s.offset()-1))
		}
	}
}

// chromeSpan is a piece of chromeRaw.arena.
type chromeSpan struct{ a, b int32 }

type chromeArg struct {
	key, val chromeSpan
	kind     jsonKind
}

// chromeRaw is the fields of one event, their text in arena.
type chromeRaw struct {
	arena                                  []byte
	name, cat, ph, bp, scope, id, pid, tid chromeSpan
	ts, dur                                chromeSpan
	has                                    uint16
	pidKind, tidKind, tsKind, durKind      jsonKind
	idKind                                 jsonKind
	args                                   []chromeArg
}

const (
	hasName = 1 << iota
	hasCat
	hasPh
	hasBp
	hasScope
	hasID
	hasPid
	hasTid
	hasTs
	hasDur
)

func (r *chromeRaw) put(b []byte) chromeSpan {
	a := int32(len(r.arena))
	r.arena = append(r.arena, b...)
	return chromeSpan{a, int32(len(r.arena))}
}

func (r *chromeRaw) text(sp chromeSpan) []byte { return r.arena[sp.a:sp.b] }

// arg returns the value of args[key] and its kind, jsonNull if absent.
func (r *chromeRaw) arg(key string) (jsonKind, []byte) {
	for _, a := range r.args {
		if string(r.text(a.key)) == key {
			return a.kind, r.text(a.val)
		}
	}
	return jsonNull, nil
}

// argInt returns the integer value of args[key] (a number, or a string
// holding one).
func (r *chromeRaw) argInt(key string) (int64, bool) {
	k, v := r.arg(key)
	if k != jsonNumber && k != jsonString {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == float64(int64(f)) {
		return int64(f), true
	}
	return 0, false
}

// event parses one event object and files it.
func (c *chromeReader) event(off int64) error {
	s := c.s
	r := &c.ev
	r.arena, r.args, r.has = r.arena[:0], r.args[:0], 0
	err := s.object(func(key []byte) error {
		var bit uint16
		var dst *chromeSpan
		var kdst *jsonKind
		switch string(key) {
		case "name":
			bit, dst = hasName, &r.name
		case "cat":
			bit, dst = hasCat, &r.cat
		case "ph":
			bit, dst = hasPh, &r.ph
		case "bp":
			bit, dst = hasBp, &r.bp
		case "s":
			bit, dst = hasScope, &r.scope
		case "id":
			bit, dst, kdst = hasID, &r.id, &r.idKind
		case "pid":
			bit, dst, kdst = hasPid, &r.pid, &r.pidKind
		case "tid":
			bit, dst, kdst = hasTid, &r.tid, &r.tidKind
		case "ts":
			bit, dst, kdst = hasTs, &r.ts, &r.tsKind
		case "dur":
			bit, dst, kdst = hasDur, &r.dur, &r.durKind
		case "args":
			if b, ok := s.peek(); ok && b == '{' {
				return s.object(func(k []byte) error {
					ks := r.put(k)
					kind, v, err := s.scalar()
					if err != nil {
						return err
					}
					r.args = append(r.args, chromeArg{key: ks, val: r.put(v), kind: kind})
					return nil
				})
			}
			return s.skip()
		default:
			return s.skip()
		}
		kind, v, err := s.scalar()
		if err != nil {
			return err
		}
		if kind == jsonNull {
			return nil // as if absent
		}
		*dst = r.put(v)
		if kdst != nil {
			*kdst = kind
		} else if kind != jsonString {
			return fmt.Errorf("%q is %s, want a string", key, kind)
		}
		r.has |= bit
		return nil
	})
	if err != nil {
		return err
	}
	return c.file(off)
}

// need returns an error unless the event has every field of bits.
func (r *chromeRaw) need(ph string, bits uint16) error {
	names := [...]string{"name", "cat", "ph", "bp", "s", "id", "pid", "tid", "ts", "dur"}
	for i, n := range names {
		if bits&(1<<i) != 0 && r.has&(1<<i) == 0 {
			article := "a"
			if strings.IndexByte("AEFHILMNORSX", ph[0]) >= 0 {
				article = "an" // "an X event", "an M thread_name event"
			}
			return fmt.Errorf("%s %s event without %q", article, ph, n)
		}
	}
	return nil
}

// micros returns the value of ts or dur in ns.
func (r *chromeRaw) micros(field string, sp chromeSpan, kind jsonKind) (int64, error) {
	if kind != jsonNumber {
		return 0, fmt.Errorf("%q is %s (%.40q), want a number of microseconds", field, kind, r.text(sp))
	}
	v, ok := parseMicros(r.text(sp))
	if !ok {
		return 0, fmt.Errorf("%q %s is out of range", field, r.text(sp))
	}
	return v, nil
}

// plainInt reports whether a JSON number is an integer written without a
// fraction or exponent ("12", "-3"): its text is then its identity.
func plainInt(text []byte) bool {
	for i, c := range text {
		if (c < '0' || c > '9') && (i > 0 || c != '-') {
			return false
		}
	}
	return len(text) > 0
}

// idKey returns the identity of a pid or tid: numbers as their value's
// text ("1.0" is "1"), strings as themselves; and whether it is a number,
// with its value.
func idKey(kind jsonKind, text []byte) (string, bool, float64) {
	if kind == jsonNumber {
		f, err := strconv.ParseFloat(string(text), 64)
		if err == nil {
			if canonicalInt(text) {
				return string(text), true, f
			}
			return strconv.FormatFloat(f, 'g', -1, 64), true, f
		}
	}
	return string(text), false, 0
}

// sameID reports whether the pid or tid of kind and text is the last one
// looked up (kind lk, text lt): most events are on the thread of the one
// before.
func sameID(kind jsonKind, text []byte, lk jsonKind, lt []byte) bool {
	return kind == lk && string(text) == string(lt)
}

// canonicalInt reports whether a number's text is its own identity: an
// integer without a fraction, exponent or leading zero.
func canonicalInt(text []byte) bool {
	return plainInt(text) && (len(text) < 2 || text[0] != '0' && text[0] != '-' || text[0] == '-' && text[1] != '0')
}

func (c *chromeReader) groupOf(r *chromeRaw) *chromeGroup {
	pid := r.text(r.pid)
	if c.lastGroup != nil && sameID(r.pidKind, pid, c.lastPidKind, c.lastPid) {
		return c.lastGroup
	}
	m := c.sgroups // string pids apart from numbers: "1" is not 1
	if r.pidKind == jsonNumber {
		m = c.groups
	}
	var g *chromeGroup
	if r.pidKind != jsonNumber || canonicalInt(pid) {
		g = m[string(pid)] // no allocation: the common case
	}
	if g == nil {
		k, num, v := idKey(r.pidKind, pid)
		if g = m[k]; g == nil {
			g = &chromeGroup{key: k, num: num, numVal: v, first: len(c.gorder), threads: map[string]*chromeThread{},
				sthreads: map[string]*chromeThread{}, counters: map[string]*chromeCounter{}}
			m[k] = g
			c.gorder = append(c.gorder, g)
		}
	}
	c.lastGroup, c.lastPidKind, c.lastPid = g, r.pidKind, append(c.lastPid[:0], pid...)
	c.lastThread = nil
	return g
}

func (c *chromeReader) threadOf(r *chromeRaw) *chromeThread {
	g := c.groupOf(r)
	tid := r.text(r.tid)
	if c.lastThread != nil && sameID(r.tidKind, tid, c.lastTidKind, c.lastTid) {
		return c.lastThread
	}
	m := g.sthreads
	if r.tidKind == jsonNumber {
		m = g.threads
	}
	var t *chromeThread
	if r.tidKind != jsonNumber || canonicalInt(tid) {
		t = m[string(tid)]
	}
	if t == nil {
		k, num, v := idKey(r.tidKind, tid)
		if t = m[k]; t == nil {
			t = &chromeThread{key: k, group: g, num: num, numVal: v, first: len(g.order), proc: &Process{}}
			m[k] = t
			g.order = append(g.order, t)
		}
	}
	c.lastThread, c.lastTidKind, c.lastTid = t, r.tidKind, append(c.lastTid[:0], tid...)
	return t
}

// phaseNames names the phases the model skips, for the skipped count.
var phaseNames = map[string]string{
	"b": "async begin b", "n": "async instant n", "e": "async end e",
	"S": "async begin S", "T": "async step T", "p": "async step p", "F": "async end F",
	"N": "object created N", "O": "object snapshot O", "D": "object destroyed D",
	"P": "sample P", "V": "memory dump V", "v": "memory dump v", "R": "mark R",
	"c": "clock sync c", "(": "context (", ")": "context )",
	"i": "instant i", "I": "instant I", "t": "flow step t", "M": "metadata M",
}

// phaseName names phase ph for the skipped count: "async begin b".
func phaseName(ph string) string {
	if n, ok := phaseNames[ph]; ok {
		return n
	}
	return fmt.Sprintf("phase %q", ph)
}

// skip counts an event the model does not hold, under what (a phaseName
// or a reason), on thread t if it has one.
func (c *chromeReader) skip(what string, t *chromeThread) {
	c.skipped[what]++
	if t != nil {
		t.skipped++
	}
}

// gpuCategories are Kineto's categories of events on a GPU stream.
var gpuCategories = map[string]bool{"kernel": true, "gpu_memcpy": true, "gpu_memset": true, "gpu_user_annotation": true}

// file adds the parsed event to its thread, group, counter or flow.
func (c *chromeReader) file(off int64) error {
	r := &c.ev
	if r.has&hasPh == 0 {
		return errors.New(`event without "ph" (its phase)`)
	}
	ph := string(r.text(r.ph))
	var ts int64
	if r.has&hasTs != 0 {
		v, err := r.micros("ts", r.ts, r.tsKind)
		if err != nil {
			return err
		}
		ts = v
	}
	if r.has&hasPid != 0 && r.pidKind != jsonNumber && r.pidKind != jsonString {
		return fmt.Errorf(`"pid" is %s, want a number or a string`, r.pidKind)
	}
	if r.has&hasTid != 0 && r.tidKind != jsonNumber && r.tidKind != jsonString {
		return fmt.Errorf(`"tid" is %s, want a number or a string`, r.tidKind)
	}
	switch ph {
	case "B", "E", "X":
		need := uint16(hasTs | hasPid | hasTid)
		if ph != "E" {
			need |= hasName
		}
		if ph == "X" {
			need |= hasDur
		}
		if err := r.need(ph, need); err != nil {
			return err
		}
		it := chromeItem{ts: ts, dur: -1, off: off, idx: c.index, ref: -1, ph: ph[0], level: c.level()}
		if k, v := r.arg("unclosed"); ph == "X" && k == jsonBool && string(v) == "true" {
			it.ph = 'B' // WriteChrome's call never left: a B never ended
		} else if ph == "X" {
			d, err := r.micros("dur", r.dur, r.durKind)
			if err != nil {
				return err
			}
			if d < 0 {
				return fmt.Errorf(`an X event with a negative "dur" %s`, r.text(r.dur))
			}
			it.dur = d
		}
		t := c.threadOf(r)
		if ph != "E" {
			it.ref = c.regionOf(r)
		} else if id, ok := c.region[string(r.text(r.name))]; ok && r.has&hasName != 0 {
			it.ref = id // to end a call written before B events of the same ts
		}
		if r.has&hasCat != 0 && gpuCategories[string(r.text(r.cat))] {
			t.gpu = true
		}
		c.add(t, it)
	case "i", "I":
		kind, ok := ParseEventKind(string(r.text(r.name)))
		if !ok || kind == Enter || kind == Leave || r.has&hasName == 0 {
			var t *chromeThread
			if r.has&(hasPid|hasTid) == hasPid|hasTid && (r.has&hasScope == 0 || string(r.text(r.scope)) == "t") {
				t = c.threadOf(r)
			}
			c.skip(phaseName(ph), t)
			return nil
		}
		if err := r.need(ph, hasTs|hasPid|hasTid); err != nil {
			return err
		}
		t := c.threadOf(r)
		ref, err := c.payload(t, kind)
		if err != nil {
			return err
		}
		c.add(t, chromeItem{ts: ts, dur: -1, off: off, idx: c.index, ref: ref, ph: 'i', kind: kind, level: c.level()})
	case "s", "f":
		if err := r.need(ph, hasTs|hasPid|hasTid|hasID); err != nil {
			return err
		}
		key := chromeFlowKey{cat: c.intern(r.text(r.cat))}
		if id := r.text(r.id); r.idKind == jsonNumber && canonicalInt(id) && len(id) < 19 {
			key.num = atoi(id)
		} else {
			key.str = string(id)
			key.isStr = r.idKind != jsonNumber
		}
		fi, ok := c.flows[key]
		if !ok {
			fi = int32(len(c.flowList))
			c.flows[key] = fi
			c.flowList = append(c.flowList, chromeFlowPair{cat: key.cat})
		}
		fl := &c.flowList[fi]
		end := &fl.start
		if ph == "f" {
			end = &fl.end
		}
		if end.set { // a second start or end of the id: the earlier is left alone
			c.skip("repeated flow "+ph+" of one id", nil)
			return nil
		}
		tag, n := int64(-1), int64(0)
		if v, ok := r.argInt("msg_tag"); ok {
			tag = v
		}
		if v, ok := r.argInt("msg_length"); ok {
			n = v
		} else if v, ok := r.argInt("bytes"); ok {
			n = v
		}
		*end = chromeFlowEnd{th: c.threadOf(r), ts: ts, off: off, idx: c.index, tag: int32(tag), n: n, set: true}
	case "C":
		if err := r.need(ph, hasTs|hasPid|hasName); err != nil {
			return err
		}
		if cat := string(r.text(r.cat)); c.tracebook && (cat == "metric" || cat == "metric stream") {
			c.skip("derived counter of a tracebook export (its values are Metric instants)", nil)
			return nil
		}
		g := c.groupOf(r)
		prefix := string(r.text(r.name))
		if r.has&hasID != 0 {
			prefix += " id: " + string(r.text(r.id))
		}
		for _, a := range r.args {
			if a.kind != jsonNumber {
				continue
			}
			v, err := strconv.ParseFloat(string(r.text(a.val)), 64)
			if err != nil {
				return fmt.Errorf("counter %q: series %q: %v", prefix, r.text(a.key), err)
			}
			name := prefix + " " + string(r.text(a.key))
			ct := g.counters[name]
			if ct == nil {
				ct = &chromeCounter{name: name}
				g.counters[name] = ct
				g.corder = append(g.corder, ct)
			}
			ct.ts = append(ct.ts, ts)
			ct.val = append(ct.val, v)
			c.note(ts)
			c.items += 2 // time and value: about an item's memory
		}
	case "M":
		return c.metadata()
	default:
		var t *chromeThread
		if r.has&(hasPid|hasTid) == hasPid|hasTid {
			t = c.threadOf(r)
		}
		c.skip(phaseName(ph), t)
	}
	return nil
}

// metadata files a metadata event.
func (c *chromeReader) metadata() error {
	r := &c.ev
	name := string(r.text(r.name))
	switch name {
	case "process_name", "process_sort_index":
		if r.has&hasPid == 0 {
			return fmt.Errorf("a metadata event %s without \"pid\"", name)
		}
		g := c.groupOf(r)
		switch name {
		case "process_name":
			if k, v := r.arg("name"); k == jsonString {
				g.name = strings.TrimSpace(string(v))
			}
		default:
			if v, ok := r.argInt("sort_index"); ok {
				g.sortIdx, g.hasSort = v, true
			}
		}
	case "thread_name", "thread_sort_index":
		if err := r.need("M "+name, hasPid|hasTid); err != nil {
			return err
		}
		t := c.threadOf(r)
		if name == "thread_name" {
			if k, v := r.arg("name"); k == jsonString {
				t.name = strings.TrimSpace(string(v))
			}
		} else if v, ok := r.argInt("sort_index"); ok {
			t.sortIdx, t.hasSort = v, true
		}
	case "tracebook_definitions":
		c.tracebook = true // WriteChrome's export
	default:
		c.skip(phaseName("M"), nil)
	}
	return nil
}

// metricArg returns a metric value: a number, or the strings "NaN",
// "+Inf" and "-Inf" (as WriteChrome writes them).
func metricArg(kind jsonKind, text []byte) (float64, bool) {
	switch kind {
	case jsonNumber:
		v, err := strconv.ParseFloat(string(text), 64)
		return v, err == nil
	case jsonString:
		switch string(text) {
		case "NaN":
			return math.NaN(), true
		case "+Inf":
			return math.Inf(1), true
		case "-Inf":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

// level returns the event's args.level (WriteChrome's number of calls
// open before it), -1 when it has none.
func (c *chromeReader) level() int32 {
	if v, ok := c.ev.argInt("level"); ok && v >= 0 && v < 1<<31 {
		return int32(v)
	}
	return -1
}

// payload adds the side-table row of an instant of a model kind, with
// pipit's argument names, and returns its ref.
func (c *chromeReader) payload(t *chromeThread, k EventKind) (int32, error) {
	r := &c.ev
	p := t.proc
	// pipit's key, else WriteChrome's
	get := func(key, alt string, def int64) int64 {
		if v, ok := r.argInt(key); ok {
			return v
		}
		if v, ok := r.argInt(alt); ok {
			return v
		}
		return def
	}
	commRef := func() int32 {
		kind, v := r.arg("communicator")
		if kind != jsonString && kind != jsonNumber {
			// WriteChrome's communicator id, named as pipit names them
			n, ok := r.argInt("comm")
			if !ok || n < 0 {
				return -1
			}
			kind, v = jsonString, []byte("Comm "+strconv.FormatInt(n, 10))
		}
		id, ok := c.comm[string(v)]
		if !ok {
			id = int32(len(c.comms))
			c.comm[string(v)] = id
			c.comms = append(c.comms, Comm{Name: string(v), Group: -1, Parent: -1})
		}
		return id
	}
	switch k {
	case MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete, MpiIrecvRequest, MpiRequestCancelled:
		peer := get(pipitAttribute(ColPartner, k), "peer", -1)
		return p.Msgs.Add(int32(peer), commRef(), int32(get("msg_tag", "tag", -1)), get("msg_length", "bytes", 0), get("request_id", "request", 0)), nil
	case MpiCollectiveEnd:
		op := uint8(0)
		kind, v := r.arg("collective_op")
		if kind != jsonString {
			kind, v = r.arg("op")
		}
		if kind == jsonString {
			o, ok := ParseCollectiveOp(string(v))
			if !ok {
				return 0, fmt.Errorf("unknown collective_op %q of an MpiCollectiveEnd", v)
			}
			op = o
		}
		return p.Colls.Add(op, commRef(), uint32(get("root", "root", RootNone)), get("size_sent", "sent", 0), get("size_received", "received", 0)), nil
	case Metric:
		// WriteChrome's metric record: args member: value, by member name
		var members []int32
		var vals []uint64
		for _, a := range r.args {
			key := string(r.text(a.key))
			if key == "level" || key == "class" || key == "location" {
				continue
			}
			v, ok := metricArg(a.kind, r.text(a.val))
			if !ok {
				continue
			}
			id, seen := c.member[key]
			if !seen {
				id = int32(len(c.metrics.MetricMembers))
				c.member[key] = id
				c.metrics.MetricMembers = append(c.metrics.MetricMembers, MetricMember{Name: key, ValueType: "double"})
			}
			members = append(members, id)
			vals = append(vals, math.Float64bits(v))
		}
		if string(r.text(r.cat)) == "metric stream" {
			t.stream = true
		}
		types := make([]uint8, len(vals))
		for i := range types {
			types[i] = MetricDouble
		}
		return p.Metrics.Add(metricClassFor(&c.metrics, members), types, vals), nil
	}
	return -1, nil
}

func (c *chromeReader) regionOf(r *chromeRaw) int32 {
	name := r.text(r.name)
	if id, ok := c.region[string(name)]; ok {
		return id
	}
	paradigm := "user"
	switch string(r.text(r.cat)) {
	case "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "gpu_user_annotation":
		paradigm = "cuda"
	}
	id := int32(len(c.regions))
	n := string(name)
	c.region[n] = id
	c.regions = append(c.regions, Region{Name: n, Canonical: n, Role: "function", Paradigm: paradigm})
	return id
}

func (c *chromeReader) note(ts int64) {
	if !c.hasTs || ts < c.minTs {
		c.minTs, c.hasTs = ts, true
	}
}

func (c *chromeReader) add(t *chromeThread, it chromeItem) {
	if n := len(t.items); n > 0 && !t.unsorted && chromeItemLess(&t.items[n-1], &it) > 0 {
		t.unsorted = true
	}
	t.items = append(t.items, it)
	c.note(it.ts)
	c.items++
}

// reserve checks, each time the events held double (from 64K), that
// memory is left for as many again and for the model events they become:
// the size of a gzip stream's content is not known before it is read.
func (c *chromeReader) reserve() error {
	if c.items < c.reserved {
		return nil
	}
	c.reserved = max(1<<16, 2*c.items)
	return work.Reserve("reading "+c.path, c.reserved*(chromeItemBytes+2*EventBytes))
}

// ordered sorts groups (or threads): by sort index, numeric ids before
// string ids, numbers by value, then order of appearance.
func orderedLess(aSort, bSort bool, ai, bi int64, an, bn bool, av, bv float64, af, bf int) bool {
	if aSort != bSort || ai != bi {
		// a missing sort index counts as 0, as in Chrome
		x, y := int64(0), int64(0)
		if aSort {
			x = ai
		}
		if bSort {
			y = bi
		}
		if x != y {
			return x < y
		}
	}
	if an != bn {
		return an
	}
	if an && av != bv {
		return av < bv
	}
	return af < bf
}

// build turns what was read into a trace.
func (c *chromeReader) build() (*Trace, error) {
	// reserve what the sorted threads become
	if err := work.Reserve("building "+c.path, 2*c.items*EventBytes); err != nil {
		return nil, &Error{Path: c.path, Offset: -1, Err: err}
	}
	// flows: messages between two threads
	var msgs []chromeMsg
	for i := range c.flowList {
		fl := &c.flowList[i]
		switch {
		case c.tracebook && fl.cat == "message":
			c.skip("derived flow of a tracebook export (its messages are instants)", nil)
		case !fl.start.set:
			c.skip("flow end f without start", fl.end.th)
		case !fl.end.set:
			c.skip("flow start s without end", fl.start.th)
		case fl.start.th == fl.end.th:
			c.skip("flow within one thread", fl.start.th)
		default:
			msgs = append(msgs, chromeMsg{fl.start.th, fl.end.th, fl})
			fl.start.th.msgs, fl.end.th.msgs = true, true
		}
	}
	// the groups and threads that hold something
	var groups []*chromeGroup
	for _, g := range c.gorder {
		var threads []*chromeThread
		allGPU := true
		for _, t := range g.order {
			if len(t.items) == 0 && !t.msgs {
				continue
			}
			t.gpu = t.gpu || strings.HasPrefix(t.name, "stream") || !t.num && strings.HasPrefix(t.key, "stream")
			allGPU = allGPU && t.gpu
			threads = append(threads, t)
		}
		if len(threads) == 0 && len(g.corder) == 0 {
			continue
		}
		g.gpu = strings.HasPrefix(g.name, "GPU") || len(threads) > 0 && allGPU
		sort.SliceStable(threads, func(i, j int) bool {
			a, b := threads[i], threads[j]
			return orderedLess(a.hasSort, b.hasSort, a.sortIdx, b.sortIdx, a.num, b.num, a.numVal, b.numVal, a.first, b.first)
		})
		for i, t := range threads {
			t.index = int32(i)
		}
		g.order = threads
		groups = append(groups, g)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		return orderedLess(a.hasSort, b.hasSort, a.sortIdx, b.sortIdx, a.num, b.num, a.numVal, b.numVal, a.first, b.first)
	})
	for i, g := range groups {
		g.index = int32(i)
	}
	for _, g := range c.gorder {
		for _, t := range g.order {
			t.nScan = len(t.items)
		}
	}
	for _, m := range msgs {
		fl := m.fl
		p, q := m.from.proc, m.to.proc
		c.add(m.from, chromeItem{level: -1, ts: fl.start.ts, dur: -1, off: fl.start.off, idx: fl.start.idx, ph: 'i', kind: MpiSend,
			ref: p.Msgs.Add(m.to.group.index, -1, fl.start.tag, fl.start.n, 0)})
		tag, n := fl.end.tag, fl.end.n
		if tag == -1 {
			tag = fl.start.tag
		}
		if n == 0 {
			n = fl.start.n
		}
		c.add(m.to, chromeItem{level: -1, ts: fl.end.ts, dur: -1, off: fl.end.off, idx: fl.end.idx, ph: 'i', kind: MpiRecv,
			ref: q.Msgs.Add(m.from.group.index, -1, tag, n, 0)})
	}

	defs := &Definitions{Regions: c.regions, Comms: c.comms, Properties: map[string]string{},
		MetricMembers: c.metrics.MetricMembers, MetricClasses: c.metrics.MetricClasses}
	defs.Clock = Clock{Resolution: 1e9}
	if c.hasTs && c.minTs > 0 {
		defs.Clock.Offset = uint64(c.minTs)
	}
	offset := c.minTs
	defs.Properties["format"] = "Chrome Trace Event Format (" + c.format + ")"
	if c.unit != "" {
		defs.Properties["displayTimeUnit"] = c.unit
	}
	var locs []*Process
	var kinds []locKind
	job := work.Start("building the trace model", c.items, "events")
	defer job.Done()
	for _, g := range groups {
		gname := g.name
		if gname == "" {
			gname = "Process " + g.key
		}
		gtype := "process"
		if g.gpu {
			gtype = "accelerator"
		}
		defs.LocationGroups = append(defs.LocationGroups, LocationGroup{Name: gname, Type: gtype, SystemNode: -1})
		for _, t := range g.order {
			tname := t.name
			if tname == "" {
				tname = "Thread " + t.key
			}
			ltype := "cpu_thread"
			if t.gpu || g.gpu {
				ltype = "accelerator_stream"
			}
			p := t.proc
			p.Rank, p.Thread, p.Name = g.index, t.index, gname+" / "+tname
			p.Skipped = t.skipped
			if err := c.thread(t, offset); err != nil {
				return nil, err
			}
			if err := job.Add(int64(len(t.items))); err != nil {
				return nil, err
			}
			t.items = nil
			defs.Locations = append(defs.Locations, Location{Name: tname, Type: ltype, Group: g.index, NumEvents: uint64(len(p.Kind))})
			locs = append(locs, p)
			if t.stream && isStream(p) {
				kinds = append(kinds, locStream)
				defs.Locations[len(defs.Locations)-1].Type = "metric"
			} else {
				kinds = append(kinds, locProcess)
			}
		}
		for _, ct := range g.corder {
			member := int32(len(defs.MetricMembers))
			defs.MetricMembers = append(defs.MetricMembers, MetricMember{Name: ct.name, ValueType: "double", Mode: "absolute_point"})
			cls := metricClassFor(defs, []int32{member})
			idx := make([]int, len(ct.ts))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return ct.ts[idx[a]] < ct.ts[idx[b]] })
			p := &Process{Rank: g.index, Name: gname + " / " + ct.name}
			p.Kind = make([]EventKind, len(idx))
			p.Time = make([]int64, len(idx))
			p.Ref = make([]int32, len(idx))
			for i, j := range idx {
				p.Kind[i] = Metric
				p.Time[i] = ct.ts[j] - offset
				p.Ref[i] = p.Metrics.Add(cls, []uint8{MetricDouble}, []uint64{math.Float64bits(ct.val[j])})
			}
			defs.Locations = append(defs.Locations, Location{Name: ct.name, Type: "metric", Group: g.index, NumEvents: uint64(len(idx))})
			locs = append(locs, p)
			kinds = append(kinds, locStream)
		}
	}
	if len(c.skipped) > 0 {
		defs.Properties["chrome:skipped"] = countsByName(c.skipped)
	}
	if c.reordered > 0 {
		defs.Properties["chrome:reordered"] = fmt.Sprintf("%d E events written after B events of their own ts ended their call before those", c.reordered)
	}
	if c.clipped > 0 {
		defs.Properties["chrome:clipped"] = fmt.Sprintf("%d X events ended after the X event enclosing them: clipped to its end", c.clipped)
	}
	t := newTraceOf(defs, locs, kinds)
	if d := t.Duration(); d > 0 {
		defs.Clock.Length = uint64(d)
	}
	return t, nil
}

// isStream reports whether p holds Metric events only.
func isStream(p *Process) bool {
	for _, k := range p.Kind {
		if k != Metric {
			return false
		}
	}
	return true
}

// chromeMsg is a flow between two threads: a message.
type chromeMsg struct {
	from, to *chromeThread
	fl       *chromeFlowPair
}
