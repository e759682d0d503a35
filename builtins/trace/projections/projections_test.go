package projections

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// The ping-pong .sts declares what its lines say (read off the file:
// PROCESSORS 2, TOTAL_CHARES 56, TOTAL_EPS 228, CHARE 45 "Ping1" 1,
// ENTRY CHARE 151 "Ping1()" 45 0, TOTAL_MSGS 35, MESSAGE 13 336).
func TestReadStsPingPong(t *testing.T) {
	s, err := ReadStsFile("../../../test/data/traces/ping-pong-projections/pingpong.prj.sts")
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 11 || s.NumPEs != 2 || len(s.Chares) != 56 || len(s.Entries) != 228 || len(s.Messages) != 35 {
		t.Errorf("version %g, %d PEs, %d chares, %d entries, %d messages", s.Version, s.NumPEs, len(s.Chares), len(s.Entries), len(s.Messages))
	}
	if c := s.Chares[45]; c != (Chare{"Ping1", 1}) {
		t.Errorf("chare 45 = %+v", c)
	}
	if e := s.Entries[151]; e != (Entry{"Ping1()", 45, 0}) {
		t.Errorf("entry 151 = %+v", e)
	}
	if n := s.EntryName(155); n != "Ping1::recv_zerocopy(CkNcpyBuffer ncpyBuffer_msg, int size)" {
		t.Errorf("entry 155 is %q", n)
	}
	if s.Messages[13] != 336 || s.Info["CHARMVERSION"] != "v7.0.0" || s.Info["MACHINE"] != "mpi-linux-x86_64" {
		t.Errorf("message 13 %d, info %v", s.Messages[13], s.Info)
	}
}

const testSts = "VERSION 11.0\nPROCESSORS 1\nTOTAL_CHARES 1\nCHARE 0 \"A\" 1\nENTRY CHARE 4 \"go(int n, \\\"x\\\")\" 0 0\nEVENT 3 my phase\nTOTAL_PAPI_EVENTS 2\nPAPI_EVENT 0 PAPI_TOT_CYC\nPAPI_EVENT 1 PAPI_L1_DCM\n"

// Each record type decodes into the fields the Projections log format
// gives it, in order (the values below are the line's numbers).
func TestDecodeRecords(t *testing.T) {
	s, err := ReadSts(strings.NewReader(testSts), "t.sts")
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries[4].Name != `go(int n, \"x\")` || s.UserEvents[3] != "my phase" || len(s.PapiEvents) != 2 {
		t.Fatalf("sts: %+v", s)
	}
	log := "PROJECTIONS-RECORD 9\n" +
		"1 3 4 100 17 0 64 95\n" +
		"2 3 4 110 17 0 64 105 7 8 9 10 111 1000 2000\n" +
		"3 3 4 120 17 0 64 121 1100 2100\n" +
		"\n" +
		"20 3 4 130 18 0 80 129 2\n" +
		"21 3 4 140 19 0 80 139 2 0 5\n" +
		"14 150 0\n" +
		"13 3 160 20 0\n" +
		"100 3 170 21 0 6\n" +
		"32 180 1.5 2.25 0 3\n" +
		"27 4096 190\n" +
		"26 42\n" +
		"29 200 210 3 5 a note\n" +
		"55 1 2 3\n"
	lr := NewLogReader(strings.NewReader(log), "t.log", s)
	var got []Record
	for {
		var r Record
		err := lr.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if lr.Header != 9 {
		t.Errorf("header %d", lr.Header)
	}
	want := []Record{
		{Type: Creation, Known: true, Line: 2, Time: 100, MType: 3, Entry: 4, Event: 17, MsgLen: 64, SendTime: 95, Nested: -1},
		{Type: BeginProcessing, Known: true, Line: 3, Time: 110, MType: 3, Entry: 4, Event: 17, MsgLen: 64, RecvTime: 105,
			ID: []int64{7, 8, 9, 10}, CPUTime: 111, Perf: []int64{1000, 2000}, Nested: -1},
		{Type: EndProcessing, Known: true, Line: 4, Time: 120, MType: 3, Entry: 4, Event: 17, MsgLen: 64, CPUTime: 121, Perf: []int64{1100, 2100}, Nested: -1},
		{Type: CreationBcast, Known: true, Line: 6, Time: 130, MType: 3, Entry: 4, Event: 18, MsgLen: 80, SendTime: 129, NumPEs: 2, Nested: -1},
		{Type: CreationMulticast, Known: true, Line: 7, Time: 140, MType: 3, Entry: 4, Event: 19, MsgLen: 80, SendTime: 139, NumPEs: 2, DestPEs: []int{0, 5}, Nested: -1},
		{Type: BeginIdle, Known: true, Line: 8, Time: 150, Nested: -1},
		{Type: UserEvent, Known: true, Line: 9, Time: 160, User: 3, Event: 20, Nested: -1},
		{Type: UserEventPair, Known: true, Line: 10, Time: 170, User: 3, Event: 21, Nested: 6},
		{Type: UserStat, Known: true, Line: 11, Time: 180, UserTime: 1.5, Stat: 2.25, User: 3, Nested: -1},
		{Type: MemoryUsage, Known: true, Line: 12, Time: 190, Value: 4096, Nested: -1},
		{Type: UserSupplied, Known: true, Line: 13, Time: -1, Value: 42, Nested: -1},
		{Type: UserSuppliedBracketedNote, Known: true, Line: 14, Time: 200, EndTime: 210, User: 3, Note: "a note", Nested: -1},
		{Type: 55, Known: false, Line: 15, Nested: -1},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		want[i].Off = lineStart(log, want[i].Line) // the offset of the line in the text
		g := got[i]
		// nil and empty slices alike
		for _, p := range []*[]int64{&g.ID, &g.Perf} {
			if len(*p) == 0 {
				*p = nil
			}
		}
		if len(g.DestPEs) == 0 {
			g.DestPEs = nil
		}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, g, want[i])
		}
	}
}

// lineStart is the byte offset of line n (1-based) of s.
func lineStart(s string, n int) int64 {
	off := 0
	for i := 1; i < n; i++ {
		off += strings.IndexByte(s[off:], '\n') + 1
	}
	return int64(off)
}

// Bad lines are errors naming the file, the line and its offset.
func TestDecodeErrors(t *testing.T) {
	s, _ := ReadSts(strings.NewReader(testSts), "t.sts")
	for _, c := range []struct{ log, msg string }{
		{"2 3 4 110\n", "truncated record"},
		{"2 3 5 110 17 0 64 105 1 111 1 2\n", "entry method 5 is not in the .sts"},
		{"x 1\n", "record type"},
		{"14 1e3 0\n", "not an integer"},
		{"21 3 4 140 19 0 80 139 9 0\n", "no destination PE"},
		{"21 3 4 140 19 0 80 139 -1\n", "number of PEs"},
		{"32 180 x 2 0 3\n", "not a number"},
		{"14 -4 0\n", "negative time"},
	} {
		lr := NewLogReader(strings.NewReader("PROJECTIONS-RECORD 2\n6 5\n"+c.log), "t.log", s)
		var r Record
		var err error
		for err == nil {
			err = lr.Next(&r)
		}
		var e *Error
		if !errors.As(err, &e) || e.File != "t.log" || e.Line != 3 || e.Offset != 25 || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want an *Error at line 3 (byte 25) saying %q", c.log, err, c.msg)
		}
	}
}

func TestReadStsErrors(t *testing.T) {
	for _, c := range []struct {
		sts  string
		line int
		msg  string
	}{
		{"VERSION 11.0\nPROCESSORS -2\n", 2, "out of range"},
		{"VERSION eleven\n", 1, "not a number"},
		{"VERSION 11.0\nPROCESSORS 1\nCHARE 0 A 1\n", 3, "not quoted"},
		{"VERSION 11.0\nPROCESSORS 1\nENTRY CHARE 1 \"x\"\n", 3, "ENTRY"},
		{"VERSION 11.0\nPROCESSORS 1\nCHARE 9999999 \"A\" 1\n", 3, "beyond"},
		{"VERSION 11.0\nPROCESSORS 1\nTOTAL_PAPI_EVENTS 1000000\n", 3, "more than the file"},
		{"VERSION 11.0\n", 0, "PROCESSORS"},
	} {
		_, err := ReadSts(strings.NewReader(c.sts), "x.sts")
		var e *Error
		if !errors.As(err, &e) || e.File != "x.sts" || e.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want line %d saying %q", c.sts, err, c.line, c.msg)
		}
	}
}

// A gzipped log of the ping-pong run reads whole: its PROJECTIONS-RECORD
// count is the number of records.
func TestOpenLogPingPong(t *testing.T) {
	s, err := ReadStsFile("../../../test/data/traces/ping-pong-projections/pingpong.prj.sts")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../../../test/data/traces/ping-pong-projections/pingpong.prj.0.log.gz", "../../../test/data/traces/ping-pong-projections/pingpong.prj.1.log.gz"} {
		var n int64
		var bytesRead int64
		lg, err := OpenLog(f, s, func(r io.Reader) io.Reader { return &countReader{r, &bytesRead} })
		if err != nil {
			t.Fatal(err)
		}
		var r Record
		for {
			err := lg.Next(&r)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !r.Known {
				t.Errorf("%s: unknown type %d", f, r.Type)
			}
			n++
		}
		lg.Close()
		if n != lg.Header || n == 0 || bytesRead == 0 {
			t.Errorf("%s: %d records, header %d, %d bytes read", f, n, lg.Header, bytesRead)
		}
	}
}

type countReader struct {
	r io.Reader
	n *int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// FuzzReadLog decodes arbitrary log text: it must return records or an
// *Error, never panic.
func FuzzReadLog(f *testing.F) {
	f.Add([]byte("PROJECTIONS-RECORD 2\n6 5\n2 3 4 110 17 0 64 105 7 8 9 10 111 1000 2000\n7 9\n"))
	f.Add([]byte("21 3 4 140 19 0 80 139 2 0 5\n29 200 210 3 5 a note\n32 1 2 3 0 3\n"))
	f.Add([]byte("1 3 4 100 17 0 64 95\n100 3 170 21 0\n"))
	s, err := ReadSts(strings.NewReader(testSts), "t.sts")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := NewLogReader(bytes.NewReader(data), "f.log", s)
		var r Record
		for i := 0; i < 1<<20; i++ {
			err := lr.Next(&r)
			if err == io.EOF {
				return
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %T: %v", err, err)
				}
				return
			}
			if len(r.ID)+len(r.Perf)+len(r.DestPEs) > len(data) {
				t.Fatalf("record holds more values than the input has bytes")
			}
		}
	})
}

// FuzzReadSts decodes arbitrary .sts text: a *Sts or an *Error, never a
// panic.
func FuzzReadSts(f *testing.F) {
	f.Add([]byte(testSts))
	f.Add([]byte("VERSION 7.0\nPROCESSORS 4\nTOTAL_CHARES 3\nCHARE 2 \"B\"\nENTRY CHARE 0 \"x\" 2 0\nMESSAGE 0 8\nSTAT 1 s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSts(bytes.NewReader(data), "f.sts")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		if len(s.Chares)+len(s.PapiEvents) > 2*len(data)+1<<20+1024 {
			t.Fatalf("%d chares, %d PAPI events from %d bytes", len(s.Chares), len(s.PapiEvents), len(data))
		}
	})
}
