package nsight

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tracebook/tracebook/builtins/internal/sqlite"
)

// NVTX_EVENTS event types of ranges (the NvtxEventType enum of the
// export's schema).
const (
	nvtxPushPop   = 59 // NvtxPushPopRange
	nvtxStartEnd  = 60 // NvtxStartEndRange
	nvtxtPushPop  = 70 // NvtxtPushPopRange
	nvtxtStartEnd = 71 // NvtxtStartEndRange
)

// copyKinds are the CUPTI memcpy kinds (CUpti_ActivityMemcpyKind) as the
// CSV reports of older nsys versions name them, used when the export has
// no ENUM_CUDA_MEMCPY_OPER table.
var copyKinds = map[int64]string{1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH", 10: "PtoP"}

// ReadSQLite reads the NVTX ranges, CUDA runtime API calls, kernels,
// memory copies and memsets of an SQLite export of nsys (`nsys export
// --type sqlite`). A thread is identified by the export's globalTid: its
// PID is bits 24-47, its TID bits 0-23 (as the nsys report scripts read
// them). Names come from the StringIds table; API names lose the "_v7000"
// style version suffix as in the cuda_api_trace report; memory copies are
// named "[CUDA memcpy <label>]" by the export's ENUM_CUDA_MEMCPY_OPER
// table (or "HtoD", "DtoH", ... when it has none). Push/pop and start/end
// NVTX ranges are read (start/end ranges on the thread that started
// them); rows without a start or end time are skipped and counted.
// progress, if not nil, is called with the number of rows read every 64K
// rows; an error it returns stops the read.
func ReadSQLite(path string, progress func(rows int64) error) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	db, err := sqlite.Open(f, st.Size(), path)
	if err != nil {
		return nil, err
	}
	r := &sqlReader{db: db, path: path, progress: progress, rep: &Report{Kind: SQLite}}
	return r.read()
}

type sqlReader struct {
	db       *sqlite.DB
	path     string
	progress func(int64) error
	rep      *Report
	rows     int64
	strs     map[int64]string
}

func (r *sqlReader) has(table string) bool { return r.db.Columns(table) != nil }

// hasCol reports whether table has column c.
func (r *sqlReader) hasCol(table, c string) bool {
	for _, x := range r.db.Columns(table) {
		if strings.EqualFold(x, c) {
			return true
		}
	}
	return false
}

// scan scans columns of table, counting rows for progress and wrapping
// errors of fn with the table and row.
func (r *sqlReader) scan(table string, cols []string, fn func(rowid int64, v []sqlite.Value) error) error {
	return r.db.Scan(table, cols, func(rowid int64, v []sqlite.Value) error {
		r.rows++
		if r.progress != nil && r.rows&0xffff == 0 {
			if err := r.progress(0x10000); err != nil {
				return err
			}
		}
		if err := fn(rowid, v); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return err
			}
			return &Error{Path: r.path, Table: table, Line: rowid, Err: err}
		}
		return nil
	})
}

func (r *sqlReader) str(v sqlite.Value) string {
	switch v.Type {
	case sqlite.Integer:
		if s, ok := r.strs[v.Int]; ok {
			return s
		}
		return fmt.Sprintf("(string %d)", v.Int)
	case sqlite.Text:
		return string(v.Bytes)
	}
	return ""
}

// interval reads start and end: ok is false (and the row counted as
// skipped) when one is NULL.
func (r *sqlReader) interval(s, e sqlite.Value) (start, end int64, ok bool, err error) {
	if s.Type == sqlite.Null || e.Type == sqlite.Null {
		r.rep.skip("no start or end time")
		return 0, 0, false, nil
	}
	if s.Type != sqlite.Integer || e.Type != sqlite.Integer {
		return 0, 0, false, errors.New("start or end is not an integer")
	}
	if s.Int < 0 {
		return 0, 0, false, fmt.Errorf("negative start %d", s.Int)
	}
	if e.Int < s.Int {
		r.rep.skip("end before start")
		return 0, 0, false, nil
	}
	return s.Int, e.Int, true, nil
}

func intOf(v sqlite.Value, what string) (int64, error) {
	if v.Type != sqlite.Integer || v.Int < 0 {
		return 0, fmt.Errorf("%s is not a non-negative integer", what)
	}
	return v.Int, nil
}

func (r *sqlReader) read() (*Report, error) {
	r.strs = map[int64]string{}
	if r.has("StringIds") {
		err := r.scan("StringIds", []string{"id", "value"}, func(_ int64, v []sqlite.Value) error {
			r.strs[v[0].Int] = string(v[1].Bytes)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if r.has("NVTX_EVENTS") {
		err := r.scan("NVTX_EVENTS", []string{"start", "end", "eventType", "text", "textId", "globalTid"}, func(rowid int64, v []sqlite.Value) error {
			switch v[2].Int {
			case nvtxPushPop, nvtxtPushPop, nvtxStartEnd, nvtxtStartEnd:
			default:
				return nil // marks, domain and category definitions
			}
			start, end, ok, err := r.interval(v[0], v[1])
			if !ok {
				return err
			}
			gt, err := intOf(v[5], "globalTid")
			if err != nil {
				return err
			}
			name := r.str(v[3])
			if v[3].Type == sqlite.Null {
				name = r.str(v[4])
			}
			r.add(Span{Start: start, End: end, Name: name, Src: SrcNVTX, PID: gt >> 24 & 0xffffff, TID: gt & 0xffffff, Device: -1, Context: -1, Stream: -1, Row: rowid})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if r.has("CUPTI_ACTIVITY_KIND_RUNTIME") {
		err := r.scan("CUPTI_ACTIVITY_KIND_RUNTIME", []string{"start", "end", "globalTid", "nameId"}, func(rowid int64, v []sqlite.Value) error {
			start, end, ok, err := r.interval(v[0], v[1])
			if !ok {
				return err
			}
			gt, err := intOf(v[2], "globalTid")
			if err != nil {
				return err
			}
			name := r.str(v[3])
			if n := len(name); n >= 6 && name[n-6:n-4] == "_v" {
				name = name[:n-6]
			}
			r.add(Span{Start: start, End: end, Name: name, Src: SrcAPI, PID: gt >> 24 & 0xffffff, TID: gt & 0xffffff, Device: -1, Context: -1, Stream: -1, Row: rowid})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if t := "CUPTI_ACTIVITY_KIND_KERNEL"; r.has(t) {
		nameCol := "demangledName"
		if !r.hasCol(t, nameCol) {
			nameCol = "shortName"
		}
		if err := r.gpu(t, nameCol, func(v sqlite.Value) (string, Source) { return r.str(v), SrcKernel }); err != nil {
			return nil, err
		}
	}
	if t := "CUPTI_ACTIVITY_KIND_MEMCPY"; r.has(t) {
		labels := map[int64]string{}
		for k, v := range copyKinds {
			labels[k] = v
		}
		if r.has("ENUM_CUDA_MEMCPY_OPER") {
			err := r.scan("ENUM_CUDA_MEMCPY_OPER", []string{"id", "label"}, func(_ int64, v []sqlite.Value) error {
				labels[v[0].Int] = string(v[1].Bytes)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		err := r.gpu(t, "copyKind", func(v sqlite.Value) (string, Source) {
			l, ok := labels[v.Int]
			if !ok {
				l = fmt.Sprintf("kind %d", v.Int)
			}
			return "[CUDA memcpy " + l + "]", SrcMemcpy
		})
		if err != nil {
			return nil, err
		}
	}
	if t := "CUPTI_ACTIVITY_KIND_MEMSET"; r.has(t) {
		if err := r.gpu(t, "", func(sqlite.Value) (string, Source) { return "[CUDA memset]", SrcMemset }); err != nil {
			return nil, err
		}
	}
	return r.rep, nil
}

// gpu reads the operations of a CUPTI activity table on GPU streams; name
// names one from the value of column nameCol.
func (r *sqlReader) gpu(table, nameCol string, name func(sqlite.Value) (string, Source)) error {
	cols := []string{"start", "end", "deviceId", "contextId", "streamId"}
	if nameCol != "" {
		cols = append(cols, nameCol)
	}
	return r.scan(table, cols, func(rowid int64, v []sqlite.Value) error {
		start, end, ok, err := r.interval(v[0], v[1])
		if !ok {
			return err
		}
		s := Span{Start: start, End: end, PID: -1, TID: -1, Row: rowid}
		if s.Device, err = intOf(v[2], "deviceId"); err != nil {
			return err
		}
		if s.Context, err = intOf(v[3], "contextId"); err != nil {
			return err
		}
		if s.Stream, err = intOf(v[4], "streamId"); err != nil {
			return err
		}
		var nv sqlite.Value
		if nameCol != "" {
			nv = v[5]
		}
		s.Name, s.Src = name(nv)
		r.add(s)
		return nil
	})
}

func (r *sqlReader) add(s Span) { r.rep.Spans = append(r.rep.Spans, s) }
