package nsight

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Kind is the report a file holds.
type Kind int

// Report kinds.
const (
	Unknown     Kind = iota
	NVTXPushPop      // nvtx_pushpop_trace: NVTX push/pop ranges per thread
	CUDAAPI          // cuda_api_trace: CUDA runtime API calls per thread
	CUDAGPU          // cuda_gpu_trace: kernels, memcpy and memset per stream
	SQLite           // an SQLite export
)

var kindNames = [...]string{"unknown", "nvtx_pushpop_trace", "cuda_api_trace", "cuda_gpu_trace", "sqlite"}

// String returns the nsys name of the report ("cuda_gpu_trace").
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Source is what a span records.
type Source uint8

// Span sources.
const (
	SrcNVTX     Source = iota // an NVTX push/pop range
	SrcAPI                    // a CUDA API call
	SrcKernel                 // a kernel
	SrcMemcpy                 // a memory copy ("[CUDA memcpy HtoD]")
	SrcMemset                 // a memset ("[CUDA memset]")
	SrcGPUOther               // another GPU operation of a cuda_gpu_trace report
)

// Span is one interval of a report.
type Span struct {
	Start, End int64 // ns, on the report's clock
	Name       string
	Src        Source
	// CPU side (NVTX, API): process and thread ids; -1 on the GPU side.
	PID, TID int64
	// GPU side: device, context and stream ids; -1 on the CPU side.
	Device, Context, Stream int64
	DeviceName              string // "NVIDIA A100 (0)" when the report names it
	Row                     int64  // CSV line (1 is the header) or SQLite rowid
}

// OnGPU reports whether s is on a GPU stream.
func (s *Span) OnGPU() bool { return s.Stream >= 0 }

// Report is the spans of one file.
type Report struct {
	Kind  Kind
	Spans []Span
	// Skipped counts the rows left out, by reason ("no end time").
	Skipped map[string]int64
}

func (r *Report) skip(why string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int64{}
	}
	r.Skipped[why]++
}

// Error is an error reading a report: Line is the CSV line (from 1) or,
// for SQLite, the row; Table names the SQLite table ("" for CSV).
type Error struct {
	Path  string
	Table string
	Line  int64
	Err   error
}

func (e *Error) Error() string {
	switch {
	case e.Table != "":
		return fmt.Sprintf("nsight: %s: table %s row %d: %v", e.Path, e.Table, e.Line, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("nsight: %s: line %d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("nsight: %s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// column splits a header field "Start (ns)" into its name and unit.
func column(h string) (name, unit string) {
	h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	if strings.HasSuffix(h, ")") {
		if i := strings.LastIndex(h, " ("); i > 0 {
			return h[:i], h[i+2 : len(h)-1]
		}
	}
	return h, ""
}

// the columns each report must have
var required = map[Kind][]string{
	NVTXPushPop: {"Start", "End", "Name", "PID", "TID"},
	CUDAAPI:     {"Start", "Duration", "Name", "Pid", "Tid", "CorrID"},
	CUDAGPU:     {"Start", "Duration", "CorrId", "Device", "Ctx", "Strm", "Name"},
}

// KindOf tells which report a header line (the first line of the file)
// starts: Unknown when it is none of those this package reads.
func KindOf(header string) Kind {
	rec, err := csv.NewReader(strings.NewReader(header)).Read()
	if err != nil {
		return Unknown
	}
	return kindOfFields(rec)
}

func kindOfFields(rec []string) Kind {
	have := map[string]bool{}
	for _, h := range rec {
		n, _ := column(h)
		have[n] = true
	}
	// the GPU trace first: it has no PID/TID; the API trace has no End
	for _, k := range []Kind{CUDAGPU, CUDAAPI, NVTXPushPop} {
		ok := true
		for _, c := range required[k] {
			ok = ok && have[c]
		}
		if ok {
			return k
		}
	}
	return Unknown
}

// timeScale returns the ns per unit of a time column.
func timeScale(unit string) (float64, bool) {
	switch unit {
	case "", "ns":
		return 1, true
	case "us", "μs", "µs":
		return 1e3, true
	case "ms":
		return 1e6, true
	case "s", "sec":
		return 1e9, true
	}
	return 0, false
}

// skipPreamble skips the lines nsys prints before a report's header when
// its standard output is captured, and returns how many.
func skipPreamble(br *bufio.Reader) (int64, error) {
	var skipped int64
	for {
		b, err := br.Peek(1)
		if err != nil || b[0] == '"' || b[0] == 0xEF {
			return skipped, nil
		}
		line, err := br.Peek(11)
		if err != nil && len(line) == 0 {
			return skipped, nil
		}
		s := string(line)
		if !(strings.HasPrefix(s, "Generating") || strings.HasPrefix(s, "Processing") || strings.HasPrefix(s, "\n") || strings.HasPrefix(s, "\r\n") || strings.HasPrefix(s, "NOTICE")) {
			return skipped, nil
		}
		if _, err := br.ReadString('\n'); err != nil {
			return skipped, errors.New("no report header")
		}
		skipped++
	}
}

// Detect tells which report r holds, from its header line (after the lines
// nsys may print before it); Unknown if none. It reads at most 64 KiB.
func Detect(r io.Reader) Kind {
	br := bufio.NewReaderSize(io.LimitReader(r, 1<<16), 1<<16)
	if _, err := skipPreamble(br); err != nil {
		return Unknown
	}
	line, err := br.ReadString('\n')
	if err != nil && line == "" {
		return Unknown
	}
	return KindOf(strings.TrimRight(line, "\r\n"))
}

// ReadCSV reads a CSV report of nsys stats from r; path names it in
// errors. Lines that nsys prints before the header when its standard
// output is captured ("Generating SQLite file ...", "Processing [...]")
// are skipped. progress, if not nil, is called with the bytes read every
// 64K rows; an error it returns stops the read.
func ReadCSV(r io.Reader, path string, progress func(bytes int64) error) (*Report, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	skipped, err := skipPreamble(br)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			err = errors.New("empty file: no report header")
		}
		return nil, &Error{Path: path, Line: skipped + 1, Err: err}
	}
	header = append([]string(nil), header...)
	kind := kindOfFields(header)
	if kind == Unknown {
		return nil, &Error{Path: path, Line: skipped + 1, Err: fmt.Errorf("header %q is not that of an nvtx_pushpop_trace, cuda_api_trace or cuda_gpu_trace report", strings.Join(header, ","))}
	}
	col := map[string]int{}
	units := map[string]string{}
	for i, h := range header {
		n, u := column(h)
		if _, dup := col[n]; !dup {
			col[n] = i
			units[n] = u
		}
	}
	scale := func(c string) (float64, error) {
		s, ok := timeScale(units[c])
		if !ok {
			return 0, fmt.Errorf("column %q: unknown time unit %q", c, units[c])
		}
		return s, nil
	}
	sStart, err := scale("Start")
	if err != nil {
		return nil, &Error{Path: path, Line: skipped + 1, Err: err}
	}
	endCol := "End"
	if kind != NVTXPushPop {
		endCol = "Duration"
	}
	sEnd, err := scale(endCol)
	if err != nil {
		return nil, &Error{Path: path, Line: skipped + 1, Err: err}
	}
	cStart, cEnd, cName := col["Start"], col[endCol], col["Name"]
	cPID, cTID := col["PID"], col["TID"]
	if kind == CUDAAPI {
		cPID, cTID = col["Pid"], col["Tid"]
	}
	cDev, cCtx, cStrm := col["Device"], col["Ctx"], col["Strm"]
	rep := &Report{Kind: kind}
	names := map[string]string{}
	for n := int64(0); ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var row int64
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				row = skipped + int64(pe.Line)
				err = pe.Err
			}
			return nil, &Error{Path: path, Line: row, Err: err}
		}
		line, _ := cr.FieldPos(0)
		row := skipped + int64(line)
		if progress != nil && n&0xffff == 0xffff {
			if err := progress(cr.InputOffset()); err != nil {
				return nil, err
			}
		}
		fail := func(c int, err error) error {
			return &Error{Path: path, Line: row, Err: fmt.Errorf("column %q: %w", header[c], err)}
		}
		if strings.TrimSpace(rec[cStart]) == "" || strings.TrimSpace(rec[cEnd]) == "" {
			rep.skip("no start or end time")
			continue
		}
		start, err := parseTime(rec[cStart], sStart)
		if err != nil {
			return nil, fail(cStart, err)
		}
		end, err := parseTime(rec[cEnd], sEnd)
		if err != nil {
			return nil, fail(cEnd, err)
		}
		if kind != NVTXPushPop {
			if start > math.MaxInt64-end {
				return nil, fail(cEnd, errors.New("start + duration overflows"))
			}
			end += start
		} else if end < start {
			rep.skip("end before start")
			continue
		}
		sp := Span{Start: start, End: end, Name: rec[cName], PID: -1, TID: -1, Device: -1, Context: -1, Stream: -1, Row: row}
		switch kind {
		case NVTXPushPop, CUDAAPI:
			sp.Src = SrcNVTX
			if kind == CUDAAPI {
				sp.Src = SrcAPI
			}
			if sp.PID, err = parseID(rec[cPID]); err != nil {
				return nil, fail(cPID, err)
			}
			if sp.TID, err = parseID(rec[cTID]); err != nil {
				return nil, fail(cTID, err)
			}
		case CUDAGPU:
			sp.DeviceName = rec[cDev]
			if sp.Device, err = deviceID(rec[cDev]); err != nil {
				return nil, fail(cDev, err)
			}
			if sp.Context, err = parseID(rec[cCtx]); err != nil {
				return nil, fail(cCtx, err)
			}
			if sp.Stream, err = parseID(rec[cStrm]); err != nil {
				return nil, fail(cStrm, err)
			}
			sp.Src = gpuSource(sp.Name, rec, col)
		}
		if kind == NVTXPushPop {
			// nsys 2023+ names a range "domain:name", ":name" in the default domain
			sp.Name = strings.TrimPrefix(sp.Name, ":")
		}
		sp.Name = intern(names, sp.Name)
		sp.DeviceName = intern(names, sp.DeviceName)
		rep.Spans = append(rep.Spans, sp)
	}
	return rep, nil
}

// gpuSource tells a kernel from a memory operation in a cuda_gpu_trace
// row: nsys names memory copies "[CUDA memcpy ...]" and memsets "[CUDA
// memset]", and leaves the grid columns of memory operations empty.
func gpuSource(name string, rec []string, col map[string]int) Source {
	switch {
	case strings.HasPrefix(name, "[CUDA memcpy"):
		return SrcMemcpy
	case strings.HasPrefix(name, "[CUDA memset"):
		return SrcMemset
	}
	if c, ok := col["GrdX"]; ok && strings.TrimSpace(rec[c]) != "" {
		return SrcKernel
	}
	if c, ok := col["Bytes"]; ok && strings.TrimSpace(rec[c]) != "" {
		return SrcGPUOther
	}
	return SrcKernel
}

// parseTime reads a time in the column's unit and returns ns.
func parseTime(s string, scale float64) (int64, error) {
	s = strings.TrimSpace(s)
	if scale == 1 {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v >= 0 {
			return v, nil
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time", s)
	}
	f = math.Round(f * scale)
	if math.IsNaN(f) || f >= math.MaxInt64 || f < 0 {
		return 0, fmt.Errorf("time %q out of range", s)
	}
	return int64(f), nil
}

// parseID reads a non-negative integer id.
func parseID(s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not an id", s)
	}
	return v, nil
}

// deviceID reads the device id of a Device column: "NVIDIA A100 (0)"
// (nsys prints the GPU name and its id) or a bare id.
func deviceID(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, ")") {
		if i := strings.LastIndexByte(t, '('); i >= 0 {
			t = t[i+1 : len(t)-1]
		}
	}
	v, err := parseID(t)
	if err != nil {
		return 0, fmt.Errorf("%q does not name a device id", s)
	}
	return v, nil
}

// intern returns the copy of s held in names, adding one.
func intern(names map[string]string, s string) string {
	if v, ok := names[s]; ok {
		return v
	}
	s = strings.Clone(s)
	names[s] = s
	return s
}
