package trace

// The Chrome/Perfetto Trace Event Format writer: WriteChrome.

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/internal/atomicfile"
)

// ChromeStreamTid is the tid of metric stream L (Definitions.Locations
// index) less L in WriteChrome's output: above any thread's index.
const ChromeStreamTid = 1 << 20

// ChromeFormat is the version of the conventions WriteChrome follows,
// written as otherData.tracebook.format.
const ChromeFormat = 1

// WriteChrome writes tr to path in the Trace Event Format (the JSON Object
// Format) that Perfetto's UI (ui.perfetto.dev), chrome://tracing and
// pipit read; gzip-compressed when path ends in ".gz". The file is
// written event by event (never built in memory) and atomically (see
// arrowio.Write): a write that fails panics with a *work.Error naming
// "trace.WriteChrome", the path and the cause, and leaves the file as it
// was; an interrupted cell stops it likewise.
//
// tr may be nil when WithTracks gives the events (align.Result.WriteChrome).
//
// # Conventions (ChromeFormat 1)
//
// The file is {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}.
// Times "ts" and durations "dur" are microseconds written as decimals
// with exactly three fractional digits: the model's nanoseconds from the
// trace start, exact ("ts":1234.567 is 1234567 ns; negative times keep
// their sign). No float rounding happens anywhere.
//
// Strings are JSON strings; a byte that is not UTF-8 becomes U+FFFD.
//
// Processes and threads: "pid" is the location group (Process.Rank, the
// index in Definitions.LocationGroups), "tid" is the location's index in
// its group (Process.Thread). Metadata events ("ph":"M") come first: per
// group "process_name" ({"name":"rank 3"}, "GPU 0" for an accelerator
// group, numbered as Process.Label numbers them) and "process_sort_index"
// ({"sort_index":pid}); per location "thread_name" ({"name":
// Process.Name}) and "thread_sort_index" ({"sort_index":tid}). A GPU's
// streams are thus threads of their own process.
//
// Every event of the model is written as exactly one primary event, in
// the process's event order (processes in Trace.Processes order), so the
// file's events of one tid have non-decreasing "ts" and a reader gets the
// events back exactly:
//
//   - An Enter and its Leave: one complete event {"ph":"X","name":region,
//     "cat":paradigm,"ts":enter,"dur":leave-enter,"args":{"level":L}},
//     written at the Enter's position. L is the call depth (0 for a
//     top-level call). "cat" is the region's paradigm ("mpi", "user"...),
//     "region" when unknown. When region names repeat in the
//     definitions, args also holds "region": the region id.
//   - An Enter never left (a trace that ends inside calls): the same X
//     event lasting to the process's last event, with args "unclosed":true
//     (the reader writes no Leave for it).
//   - A Leave with no call open: an instant {"ph":"i","s":"t","name":
//     region,"cat":"leave","args":{"level":0}} (the reader writes a Leave).
//     A Leave of another region than the innermost open call closes that
//     call; args "leave_region" then holds the region the Leave named.
//   - Every other record (MpiSend, MpiIrecv, MpiCollectiveBegin,
//     MpiCollectiveEnd, ProgramBegin, MeasurementOff...): a thread-scoped
//     instant {"ph":"i","s":"t","name":kind (EventKind.String),
//     "cat":"mpi"|"program"|"measurement","args":{"level":L,...}} with L the
//     number of calls open at it. Message records hold their side-table
//     row: "peer" (the partner's rank in the communicator), "comm"
//     (communicator id), "tag", "bytes", "request"; MpiCollectiveEnd
//     holds "op" (CollectiveOpName), "comm", "root" (absent without
//     one), "sent", "received". Measurement off intervals are the
//     MeasurementOff/MeasurementOn instant pairs.
//   - A Metric record: an instant {"ph":"i","s":"t","name":"Metric",
//     "cat":"metric","args":{"level":L,"class":id,member:value,...}}, "class"
//     its Metrics.Metric (class or instance id), members named by
//     Definitions.MetricMembers ("metric N" for the N-th value when
//     undefined), values exact (integers as integers, doubles in the
//     shortest form that reads back the same bits; NaN and infinities as
//     the strings "NaN", "+Inf", "-Inf"). Right after it, a derived counter
//     event {"ph":"C","name":"metrics","cat":"metric",...,"args":{member:
//     value,...}} (NaN and infinities left out) from which Perfetto draws
//     one counter track per member and process.
//
// The level of every primary event is the number of calls open before
// it, so that a reader closes the open calls (writes their Leaves) down
// to that level before the event: this orders Leaves and events of equal
// timestamps exactly.
//
// Derived events, which a reader skips: matched point-to-point messages
// as flow events, {"ph":"s","cat":"message","name":"message","id":k} at
// the send record (same ts and tid, right after its instant) and
// {"ph":"f","bp":"e",...,"id":k} at the receive's completion record,
// args {"bytes","tag","comm"} (the communicator's name); k numbers the
// messages from 0 in send order. Messages are matched by the matcher in
// ChromeMessages (nil: no flow events) among tr's processes: on a window
// (Window, Between, Subset...) a message with a record outside it has no
// flow.
//
// Metric streams (MetricStreams) are threads of their own: pid their
// group (or, for streams of no group, one more pid named "metric
// streams"), tid ChromeStreamTid + L with L the stream's index in
// Definitions.Locations, named by a "thread_name" event (MetricStream.Name).
// Each sample is a primary instant {"ph":"i","s":"t","name":"Metric",
// "cat":"metric stream","args":{"level":0,"location":L,"class":id,
// member:value,...}} followed by a derived counter event {"ph":"C",
// "name":MetricStream.Name,"cat":"metric stream","args":{member:value,...}}.
//
// otherData holds {"tracebook":{"format":ChromeFormat,"name":tr.Name()}}.
// The first event is {"ph":"M","name":"tracebook_definitions","pid":0,
// "args":{"definitions":...}}: the definitions and process list in the
// JSON of Events' schema metadata (DefinitionsKey), so that a reader can
// restore region, communicator and metric ids exactly. (This package's
// reader does not yet: it matches regions, communicators and metrics by
// name, so roles, units and communicator groups are lost.) (Not in otherData: Perfetto
// fails on an otherData larger than its first chunk of the file; it
// ignores metadata events it does not know.)
//
// Tracks of WithTracks follow, on pids after the trace's (see
// ChromeTrack).
//
// Two processes of one trace with the same Rank and Thread (hand-built
// traces; readers and generators never make them) would share a thread
// of the file.
func WriteChrome(tr *Trace, path string, opts ...ChromeOption) {
	const fn = "trace.WriteChrome"
	defer work.RecoverAs(fn)
	var cfg chromeConfig
	for _, o := range opts {
		o(&cfg)
	}
	if tr == nil && len(cfg.tracks) == 0 {
		work.Fail(fn, "trace is nil")
	}
	if tr != nil {
		for _, p := range tr.procs {
			p.NeedEvents(fn)
		}
	}
	gz := strings.HasSuffix(path, ".gz")
	err := atomicfile.Write(path, func(w io.Writer) error {
		if !gz {
			return writeChrome(w, tr, &cfg)
		}
		z, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // measured: 2.7x faster than the default level, files 1.5x larger
		if err := writeChrome(z, tr, &cfg); err != nil {
			return err
		}
		return z.Close()
	})
	if err != nil {
		if work.Interrupted(err) {
			panic(err)
		}
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Op + ": " + pe.Err.Error()
		}
		panic(&work.Error{Func: fn, Msg: path + ": " + msg, Err: err})
	}
}

// ChromeOption configures WriteChrome.
type ChromeOption func(*chromeConfig)

type chromeConfig struct {
	tracks  []ChromeTrack
	noFlows bool
}

// WithTracks adds tracks to WriteChrome's output after the trace's
// processes: extra threads of complete events, such as the states of a
// comparison (align.Result.WriteChrome).
func WithTracks(tracks ...ChromeTrack) ChromeOption {
	return func(c *chromeConfig) { c.tracks = append(c.tracks, tracks...) }
}

// WithoutFlows leaves out the flow events of messages (and the matching
// they need).
func WithoutFlows() ChromeOption { return func(c *chromeConfig) { c.noFlows = true } }

// ChromeTrack is an extra thread of WriteChrome: tracks with the same
// Process share a pid (numbered after the trace's groups, in order of
// first appearance, named by a "process_name" event), each track is a tid
// of it (0, 1, ... in order) named Name. Its slices are complete events
// {"ph":"X","name":Name,"cat":Cat,"ts":Start,"dur":End-Start,"args":
// {"level":Level, Args...}}, written in the order given.
type ChromeTrack struct {
	Process string
	Name    string
	Slices  []ChromeSlice
}

// ChromeSlice is one complete event of a ChromeTrack; times are ns.
type ChromeSlice struct {
	Name, Cat  string
	Start, End int64
	Level      int
	Args       []ChromeArg
}

// ChromeArg is one string argument of a ChromeSlice.
type ChromeArg struct{ Key, Value string }

// ChromeMessage is one matched point-to-point message: the process
// (index in Trace.Processes) and event index of its send record and of
// its receive's completion record.
type ChromeMessage struct {
	SendProcess, SendEvent int
	RecvProcess, RecvEvent int
}

// ChromeMessages matches a trace's point-to-point messages for
// WriteChrome's flow events, in send order. The one matcher
// (builtins/internal/p2p) imports this package, so it cannot be called
// from here: package profile sets this hook in its init, to the matcher of
// profile.Messages; nil writes no flow events.
var ChromeMessages func(t *Trace) []ChromeMessage

// chromeWriter appends events to a buffer flushed to a bufio.Writer.
type chromeWriter struct {
	w     *bufio.Writer
	b     []byte
	first bool
}

func (c *chromeWriter) begin() {
	if c.first {
		c.first = false
		c.b = append(c.b, '\n')
	} else {
		c.b = append(c.b, ",\n"...)
	}
}

func (c *chromeWriter) flush() error {
	_, err := c.w.Write(c.b)
	c.b = c.b[:0]
	return err
}

// appendMicros appends ns as microseconds with three fractional digits.
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = uint64(-ns) // -MinInt64 wraps to itself, read as uint64 it is right
	}
	b = strconv.AppendUint(b, u/1000, 10)
	r := u % 1000
	return append(b, '.', byte('0'+r/100), byte('0'+r/10%10), byte('0'+r%10))
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// appendFloat appends v so that it reads back as the same float64.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Inf"`...)
	}
	b = strconv.AppendFloat(b, v, 'g', -1, 64)
	return b
}

// appendMetricValue appends one metric value in its exact form.
func appendMetricValue(b []byte, typ uint8, v uint64) []byte {
	switch typ {
	case MetricInt64:
		return strconv.AppendInt(b, int64(v), 10)
	case MetricUint64:
		return strconv.AppendUint(b, v, 10)
	}
	return appendFloat(b, math.Float64frombits(v))
}

// chromeFlow is a flow event end on a process: at event Event, message ID.
type chromeFlow struct {
	Event int
	ID    int
	Send  bool
}

// writeChrome writes the JSON document to w (see WriteChrome).
func writeChrome(w io.Writer, tr *Trace, cfg *chromeConfig) error {
	const fn = "trace.WriteChrome"
	c := &chromeWriter{w: bufio.NewWriterSize(w, 1<<16), b: make([]byte, 0, 1<<16), first: true}
	c.b = append(c.b, `{"displayTimeUnit":"ns","otherData":{"tracebook":{"format":`...)
	c.b = strconv.AppendInt(c.b, ChromeFormat, 10)
	name := ""
	if tr != nil {
		name = tr.Name()
	}
	c.b = append(c.b, `,"name":`...)
	c.b = appendJSONString(c.b, name)
	c.b = append(c.b, `}},"traceEvents":[`...)
	if tr != nil {
		// Perfetto reads otherData whole from its first chunk of the file:
		// the definitions, which may be megabytes, go in an event instead
		c.begin()
		c.b = append(c.b, `{"ph":"M","name":"tracebook_definitions","pid":0,"args":{"definitions":`...)
		c.b = append(c.b, tr.tableJSON()...)
		c.b = append(c.b, "}}"...)
	}
	nextPid := 0
	if tr != nil {
		var total int64 = tr.NumEvents()
		for _, s := range tr.streams {
			total += int64(s.Len())
		}
		job := work.Start(fn, total, "events")
		defer job.Done()
		var err error
		if nextPid, err = writeChromeTrace(c, tr, cfg, job); err != nil {
			return err
		}
	}
	if err := writeChromeTracks(c, cfg.tracks, nextPid); err != nil {
		return err
	}
	c.b = append(c.b, "\n]}\n"...)
	if err := c.flush(); err != nil {
		return err
	}
	return c.w.Flush()
}

// meta appends a metadata event.
func (c *chromeWriter) meta(name string, pid, tid int, key string, str string, num int) {
	c.begin()
	c.b = append(c.b, `{"ph":"M","name":"`...)
	c.b = append(c.b, name...)
	c.b = append(c.b, `","pid":`...)
	c.b = strconv.AppendInt(c.b, int64(pid), 10)
	if tid >= 0 {
		c.b = append(c.b, `,"tid":`...)
		c.b = strconv.AppendInt(c.b, int64(tid), 10)
	}
	c.b = append(c.b, `,"args":{"`...)
	c.b = append(c.b, key...)
	c.b = append(c.b, `":`...)
	if key == "name" {
		c.b = appendJSONString(c.b, str)
	} else {
		c.b = strconv.AppendInt(c.b, int64(num), 10)
	}
	c.b = append(c.b, "}}"...)
}

// head appends the common start of an event: ph, name (pre-quoted), cat, pid, tid, ts.
func (c *chromeWriter) head(ph string, quotedName, cat []byte, pid, tid int32, ts int64) {
	c.begin()
	c.b = append(c.b, `{"ph":"`...)
	c.b = append(c.b, ph...)
	c.b = append(c.b, `","name":`...)
	c.b = append(c.b, quotedName...)
	c.b = append(c.b, `,"cat":`...)
	c.b = append(c.b, cat...)
	c.b = append(c.b, `,"pid":`...)
	c.b = strconv.AppendInt(c.b, int64(pid), 10)
	c.b = append(c.b, `,"tid":`...)
	c.b = strconv.AppendInt(c.b, int64(tid), 10)
	c.b = append(c.b, `,"ts":`...)
	c.b = appendMicros(c.b, ts)
}

func (c *chromeWriter) argInt(key string, v int64) {
	c.b = append(c.b, ',', '"')
	c.b = append(c.b, key...)
	c.b = append(c.b, '"', ':')
	c.b = strconv.AppendInt(c.b, v, 10)
}

// groupNames returns the process name of every location group.
func chromeGroupNames(tr *Trace) []string {
	names := make([]string, len(tr.Defs.LocationGroups))
	for _, p := range tr.procs {
		if int(p.Rank) < 0 || int(p.Rank) >= len(names) || names[p.Rank] != "" {
			continue
		}
		gpu, n, _ := p.Place()
		if gpu {
			names[p.Rank] = "GPU " + strconv.Itoa(int(n))
		} else {
			names[p.Rank] = "rank " + strconv.Itoa(int(n))
		}
	}
	for g, n := range names {
		if n == "" {
			if nm := tr.Defs.LocationGroups[g].Name; nm != "" {
				names[g] = nm
			} else {
				names[g] = "group " + strconv.Itoa(g)
			}
		}
	}
	return names
}

// writeChromeTrace writes tr's metadata, processes and metric streams and
// returns the first pid free for tracks.
func writeChromeTrace(c *chromeWriter, tr *Trace, cfg *chromeConfig, job *work.Job) (int, error) {
	defs := tr.Defs
	groups := chromeGroupNames(tr)
	nextPid := len(groups)
	for _, p := range tr.procs {
		nextPid = max(nextPid, int(p.Rank)+1)
	}
	streamPid := -1
	for _, s := range tr.streams {
		if s.Rank < 0 || int(s.Rank) >= len(groups) {
			streamPid = nextPid
			nextPid++
			break
		}
	}
	// metadata: the groups that hold processes or streams, then threads
	used := make(map[int32]bool)
	for _, p := range tr.procs {
		used[p.Rank] = true
	}
	for _, s := range tr.streams {
		if s.Rank >= 0 && int(s.Rank) < len(groups) {
			used[s.Rank] = true
		}
	}
	for g := range groups {
		if used[int32(g)] {
			c.meta("process_name", g, -1, "name", groups[g], 0)
			c.meta("process_sort_index", g, -1, "sort_index", "", g)
		}
	}
	for _, p := range tr.procs {
		if int(p.Rank) >= len(groups) || p.Rank < 0 {
			c.meta("process_name", int(p.Rank), -1, "name", "group "+strconv.Itoa(int(p.Rank)), 0)
		}
		c.meta("thread_name", int(p.Rank), int(p.Thread), "name", p.Name, 0)
		c.meta("thread_sort_index", int(p.Rank), int(p.Thread), "sort_index", "", int(p.Thread))
	}
	if streamPid >= 0 {
		c.meta("process_name", streamPid, -1, "name", "metric streams", 0)
		c.meta("process_sort_index", streamPid, -1, "sort_index", "", streamPid)
	}
	for _, s := range tr.streams {
		pid := int(s.Rank)
		if pid < 0 || pid >= len(groups) {
			pid = streamPid
		}
		c.meta("thread_name", pid, ChromeStreamTid+s.Location, "name", s.Name, 0)
		c.meta("thread_sort_index", pid, ChromeStreamTid+s.Location, "sort_index", "", ChromeStreamTid+s.Location)
	}
	if err := c.flush(); err != nil {
		return 0, err
	}

	// names and categories, quoted once
	dup := duplicateRegionNames(defs)
	regName := make([][]byte, len(defs.Regions))
	regCat := make([][]byte, len(defs.Regions))
	for i, r := range defs.Regions {
		regName[i] = appendJSONString(nil, r.Name)
		cat := r.Paradigm
		if cat == "" {
			cat = "region"
		}
		regCat[i] = appendJSONString(nil, cat)
	}
	regionOf := func(id int32) ([]byte, []byte) {
		if id >= 0 && int(id) < len(regName) {
			return regName[id], regCat[id]
		}
		return appendJSONString(nil, "region "+strconv.Itoa(int(id))), []byte(`"region"`)
	}
	var kindName [numEventKinds][]byte
	for k := range kindName {
		kindName[k] = appendJSONString(nil, EventKind(k).String())
	}
	memberName := make([][]byte, len(defs.MetricMembers))
	for i, m := range defs.MetricMembers {
		memberName[i] = appendJSONString(nil, m.Name)
	}
	// scratch: the call matching of the largest process (4 bytes an
	// event) and the flows: a message and its two ends (80 bytes), at
	// most one per point-to-point record
	var most, p2p int64
	for _, p := range tr.procs {
		most = max(most, int64(len(p.Kind)))
		p2p += int64(p.Msgs.Len())
	}
	if err := work.Reserve("trace.WriteChrome", 4*most+80*p2p); err != nil {
		return 0, err
	}
	var flows []ChromeMessage
	if !cfg.noFlows && ChromeMessages != nil {
		flows = ChromeMessages(tr)
	}
	// flow ends per process, by event
	ends := make([][]chromeFlow, len(tr.procs))
	for k, m := range flows {
		if m.SendProcess >= 0 && m.SendProcess < len(ends) {
			ends[m.SendProcess] = append(ends[m.SendProcess], chromeFlow{Event: m.SendEvent, ID: k, Send: true})
		}
		if m.RecvProcess >= 0 && m.RecvProcess < len(ends) {
			ends[m.RecvProcess] = append(ends[m.RecvProcess], chromeFlow{Event: m.RecvEvent, ID: k})
		}
	}
	commNames := map[int32][]byte{}
	commName := func(id int32) []byte {
		q, ok := commNames[id]
		if !ok {
			q = appendJSONString(nil, defs.CommName(id))
			commNames[id] = q
		}
		return q
	}
	var done int64
	for pi, p := range tr.procs {
		fe := ends[pi]
		slices.SortStableFunc(fe, func(a, b chromeFlow) int { return a.Event - b.Event })
		fi := 0
		leave := matchLeaves(p)
		var last int64
		if n := len(p.Time); n > 0 {
			last = p.Time[n-1]
		}
		depth := 0
		for i, k := range p.Kind {
			if i&0xfff == 0 {
				if err := c.flush(); err != nil {
					return 0, err
				}
				if err := job.Set(done + int64(i)); err != nil {
					return 0, err
				}
			}
			t := p.Time[i]
			switch k {
			case Enter:
				nm, cat := regionOf(p.Ref[i])
				c.head("X", nm, cat, p.Rank, p.Thread, t)
				end := last
				if j := leave[i]; j >= 0 {
					end = p.Time[j]
				}
				c.b = append(c.b, `,"dur":`...)
				c.b = appendMicros(c.b, end-t)
				c.b = append(c.b, `,"args":{"level":`...)
				c.b = strconv.AppendInt(c.b, int64(depth), 10)
				if dup {
					c.argInt("region", int64(p.Ref[i]))
				}
				if j := leave[i]; j < 0 {
					c.b = append(c.b, `,"unclosed":true`...)
				} else if p.Ref[j] != p.Ref[i] {
					c.argInt("leave_region", int64(p.Ref[j]))
				}
				c.b = append(c.b, "}}"...)
				depth++
			case Leave:
				if leave[i] == -2 { // no call open
					nm, _ := regionOf(p.Ref[i])
					c.head("i", nm, []byte(`"leave"`), p.Rank, p.Thread, t)
					c.b = append(c.b, `,"s":"t","args":{"level":0`...)
					if dup {
						c.argInt("region", int64(p.Ref[i]))
					}
					c.b = append(c.b, "}}"...)
				} else {
					depth--
				}
			case Metric:
				r := int(p.Ref[i])
				c.head("i", kindName[Metric], []byte(`"metric"`), p.Rank, p.Thread, t)
				c.b = append(c.b, `,"s":"t","args":{"level":`...)
				c.b = strconv.AppendInt(c.b, int64(depth), 10)
				c.b = append(c.b, ',')
				c.metricArgs(defs, &p.Metrics, r, memberName, true)
				c.b = append(c.b, "}}"...)
				c.head("C", []byte(`"metrics"`), []byte(`"metric"`), p.Rank, p.Thread, t)
				c.b = append(c.b, `,"args":{`...)
				c.metricArgs(defs, &p.Metrics, r, memberName, false)
				c.b = append(c.b, "}}"...)
			default:
				cat := `"mpi"`
				switch k {
				case ProgramBegin, ProgramEnd:
					cat = `"program"`
				case MeasurementOff, MeasurementOn:
					cat = `"measurement"`
				}
				kn := []byte(`"?"`)
				if int(k) < len(kindName) {
					kn = kindName[k]
				}
				c.head("i", kn, []byte(cat), p.Rank, p.Thread, t)
				c.b = append(c.b, `,"s":"t","args":{"level":`...)
				c.b = strconv.AppendInt(c.b, int64(depth), 10)
				r := int(p.Ref[i])
				switch k {
				case MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete, MpiIrecvRequest, MpiRequestCancelled:
					m := &p.Msgs
					if r >= 0 && r < m.Len() {
						c.argInt("peer", int64(m.Peer[r]))
						c.argInt("comm", int64(m.Comm[r]))
						c.argInt("tag", int64(m.Tag[r]))
						c.argInt("bytes", m.Bytes[r])
						c.argInt("request", m.Request[r])
					}
				case MpiCollectiveEnd:
					cl := &p.Colls
					if r >= 0 && r < cl.Len() {
						c.b = append(c.b, `,"op":`...)
						c.b = appendJSONString(c.b, CollectiveOpName(cl.Op[r]))
						c.argInt("comm", int64(cl.Comm[r]))
						if cl.Root[r] != RootNone {
							c.argInt("root", int64(cl.Root[r]))
						}
						c.argInt("sent", cl.Sent[r])
						c.argInt("received", cl.Received[r])
					}
				}
				c.b = append(c.b, "}}"...)
			}
			for ; fi < len(fe) && fe[fi].Event <= i; fi++ {
				if fe[fi].Event < i {
					continue
				}
				f := fe[fi]
				m := flows[f.ID]
				ph := "f"
				if f.Send {
					ph = "s"
				}
				c.head(ph, []byte(`"message"`), []byte(`"message"`), p.Rank, p.Thread, t)
				if !f.Send {
					c.b = append(c.b, `,"bp":"e"`...)
				}
				c.argInt("id", int64(f.ID))
				c.b = append(c.b, `,"args":{`...)
				if row := flowRow(tr, m); row >= 0 {
					sp := tr.procs[m.SendProcess]
					c.b = append(c.b, `"bytes":`...)
					c.b = strconv.AppendInt(c.b, sp.Msgs.Bytes[row], 10)
					c.argInt("tag", int64(sp.Msgs.Tag[row]))
					c.b = append(c.b, `,"comm":`...)
					c.b = append(c.b, commName(sp.Msgs.Comm[row])...)
				}
				c.b = append(c.b, "}}"...)
			}
		}
		done += int64(len(p.Kind))
	}
	// metric streams
	for _, s := range tr.streams {
		pid := s.Rank
		if pid < 0 || int(pid) >= len(groups) {
			pid = int32(streamPid)
		}
		tid := int32(ChromeStreamTid + s.Location)
		name := appendJSONString(nil, s.Name)
		for i := range s.Len() {
			if i&0xfff == 0 {
				if err := c.flush(); err != nil {
					return 0, err
				}
				if err := job.Set(done + int64(i)); err != nil {
					return 0, err
				}
			}
			c.head("i", kindName[Metric], []byte(`"metric stream"`), pid, tid, s.Time[i])
			c.b = append(c.b, `,"s":"t","args":{"level":0,"location":`...)
			c.b = strconv.AppendInt(c.b, int64(s.Location), 10)
			c.b = append(c.b, ',')
			c.metricArgs(defs, &s.Metrics, i, memberName, true)
			c.b = append(c.b, "}}"...)
			c.head("C", name, []byte(`"metric stream"`), pid, tid, s.Time[i])
			c.b = append(c.b, `,"args":{`...)
			c.metricArgs(defs, &s.Metrics, i, memberName, false)
			c.b = append(c.b, "}}"...)
		}
		done += int64(s.Len())
	}
	return nextPid, c.flush()
}

// metricArgs appends the members of metric row r as "name":value pairs
// (no leading comma), preceded by "class":id when exact; otherwise (for a
// counter event) values that are not finite are left out.
func (c *chromeWriter) metricArgs(defs *Definitions, m *Metrics, r int, memberName [][]byte, exact bool) {
	if r < 0 || r >= m.Len() {
		return
	}
	cls := m.Metric[r]
	var members []int32
	if cls >= 0 && int(cls) < len(defs.MetricClasses) {
		members = defs.MetricClasses[cls].Members
	}
	lo, hi := int(m.Start[r]), int(m.Start[r+1])
	comma := false
	if exact {
		c.b = append(c.b, `"class":`...)
		c.b = strconv.AppendInt(c.b, int64(cls), 10)
		comma = true
	}
	for j := lo; j < hi; j++ {
		if !exact && m.Types[j] != MetricInt64 && m.Types[j] != MetricUint64 {
			if v := math.Float64frombits(m.Values[j]); math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
		}
		if comma {
			c.b = append(c.b, ',')
		}
		comma = true
		jj := j - lo
		if jj < len(members) && members[jj] >= 0 && int(members[jj]) < len(memberName) {
			c.b = append(c.b, memberName[members[jj]]...)
		} else {
			c.b = appendJSONString(c.b, "metric "+strconv.Itoa(jj))
		}
		c.b = append(c.b, ':')
		c.b = appendMetricValue(c.b, m.Types[j], m.Values[j])
	}
}

// flowRow returns the Messages row of m's send record, -1 if there is none.
func flowRow(tr *Trace, m ChromeMessage) int {
	if m.SendProcess < 0 || m.SendProcess >= len(tr.procs) {
		return -1
	}
	p := tr.procs[m.SendProcess]
	if m.SendEvent < 0 || m.SendEvent >= len(p.Ref) {
		return -1
	}
	if row := int(p.Ref[m.SendEvent]); row >= 0 && row < p.Msgs.Len() {
		return row
	}
	return -1
}

// matchLeaves returns, per event of p, for an Enter the index of its
// Leave (-1: never left), for a Leave -2 when no call was open (else -1).
func matchLeaves(p *Process) []int32 {
	out := make([]int32, len(p.Kind))
	var stack []int32
	for i, k := range p.Kind {
		out[i] = -1
		switch k {
		case Enter:
			stack = append(stack, int32(i))
		case Leave:
			if len(stack) == 0 {
				out[i] = -2
				continue
			}
			out[stack[len(stack)-1]] = int32(i)
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// writeChromeTracks writes the extra tracks, pids from pid on.
func writeChromeTracks(c *chromeWriter, tracks []ChromeTrack, pid int) error {
	pids := map[string]int{}
	tids := map[string]int{}
	for _, tk := range tracks {
		p, ok := pids[tk.Process]
		if !ok {
			p = pid
			pid++
			pids[tk.Process] = p
			c.meta("process_name", p, -1, "name", tk.Process, 0)
			c.meta("process_sort_index", p, -1, "sort_index", "", p)
		}
		tid := tids[tk.Process]
		tids[tk.Process]++
		c.meta("thread_name", p, tid, "name", tk.Name, 0)
		c.meta("thread_sort_index", p, tid, "sort_index", "", tid)
		for i, s := range tk.Slices {
			if i&0xfff == 0 {
				if err := c.flush(); err != nil {
					return err
				}
				if err := work.Err(); err != nil {
					return err
				}
			}
			cat := s.Cat
			if cat == "" {
				cat = "track"
			}
			c.head("X", appendJSONString(nil, s.Name), appendJSONString(nil, cat), int32(p), int32(tid), s.Start)
			c.b = append(c.b, `,"dur":`...)
			c.b = appendMicros(c.b, s.End-s.Start)
			c.b = append(c.b, `,"args":{"level":`...)
			c.b = strconv.AppendInt(c.b, int64(s.Level), 10)
			for _, a := range s.Args {
				c.b = append(c.b, ',')
				c.b = appendJSONString(c.b, a.Key)
				c.b = append(c.b, ':')
				c.b = appendJSONString(c.b, a.Value)
			}
			c.b = append(c.b, "}}"...)
		}
	}
	return c.flush()
}
