package nsight

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		header string
		want   Kind
	}{
		{"Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree", NVTXPushPop},
		{"Start,End,Duration,DurChild,DurNonChild,Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack", NVTXPushPop},
		{`"Start (ns)","Duration (ns)","Name","Result","CorrID","Pid","Tid","T-Pri","Thread Name"`, CUDAAPI},
		{"Start (us),Duration (us),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name", CUDAGPU},
		{"\ufeffStart (ns),Duration (ns),CorrId,Device,Ctx,GreenCtx,Strm,Name", CUDAGPU},
		{"Timestamp (ns),Event Type,Name,Process,Thread", Unknown},
		{"Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name", Unknown},
		{`"unterminated`, Unknown},
	} {
		if got := KindOf(c.header); got != c.want {
			t.Errorf("KindOf(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

// TestReadCSVUnits: times in another unit (nsys stats --timeunit) are
// converted to ns; a preamble nsys prints on standard output is skipped;
// the default domain's ":" prefix is dropped from NVTX names.
func TestReadCSVUnits(t *testing.T) {
	text := "Generating SQLite file report.sqlite from report.nsys-rep\nProcessing [report.sqlite] with [nvtx_pushpop_trace.py]... \n\n" +
		"Start (us),End (us),Duration (us),Name,PID,TID\n1.5,2.25,0.75,:step,7,8\n"
	rep, err := ReadCSV(strings.NewReader(text), "x.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Span{Start: 1500, End: 2250, Name: "step", Src: SrcNVTX, PID: 7, TID: 8, Device: -1, Context: -1, Stream: -1, Row: 5}
	if rep.Kind != NVTXPushPop || len(rep.Spans) != 1 || rep.Spans[0] != want {
		t.Fatalf("got %v %+v, want %+v", rep.Kind, rep.Spans, want)
	}
	text = "Start (ms),Duration (ms),CorrId,Device,Ctx,Strm,Name\n2,0.5,1,Tesla V100 (3),5,9,k\n3,,2,Tesla V100 (3),5,9,k\n"
	rep, err = ReadCSV(strings.NewReader(text), "x.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	want = Span{Start: 2e6, End: 2.5e6, Name: "k", Src: SrcKernel, PID: -1, TID: -1, Device: 3, Context: 5, Stream: 9, DeviceName: "Tesla V100 (3)", Row: 2}
	if len(rep.Spans) != 1 || rep.Spans[0] != want || rep.Skipped["no start or end time"] != 1 {
		t.Fatalf("got %+v skipped %v, want %+v", rep.Spans, rep.Skipped, want)
	}
	rep, err = ReadCSV(strings.NewReader("Start,End,Name,PID,TID\n5,3,r,1,1\n"), "x.csv", nil)
	if err != nil || len(rep.Spans) != 0 || rep.Skipped["end before start"] != 1 {
		t.Fatalf("got %+v skipped %v, want %+v", rep.Spans, rep.Skipped, want)
	}
}

// TestReadCSVErrors: errors name the file and the line.
func TestReadCSVErrors(t *testing.T) {
	const api = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid\n"
	for _, c := range []struct{ text, want string }{
		{"", "x.csv: line 1: empty file"},
		{"a,b,c\n1,2,3\n", "x.csv: line 1: header"},
		{api + "1,2,f,0,1,10,11\n1,2,f,0,1,ten,11\n", "x.csv: line 3: column \"Pid\""},
		{api + "1,-2,f,0,1,10,11\n", "line 2: column \"Duration (ns)\": time \"-2\" out of range"},
		{api + "1,2,f,0,1,10\n", "line 2: wrong number of fields"},
		{api + "9223372036854775800,100,f,0,1,10,11\n", "overflows"},
		{"Start (fortnights),End (ns),Name,PID,TID\n", "unknown time unit"},
		{"Start,Duration,CorrId,Device,Ctx,Strm,Name\n1,1,1,GPU (x),1,1,k\n", "does not name a device id"},
		{api + "1,2,\"f,0,1,10,11\n", "line 2"},
		{api + "-1,2,f,0,1,10,11\n", "line 2: column \"Start (ns)\": time \"-1\" out of range"},
	} {
		_, err := ReadCSV(strings.NewReader(c.text), "x.csv", nil)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}

// TestReadCSVProgress: an error of the progress callback stops the read.
func TestReadCSVProgress(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid\n")
	for i := 0; i < 70000; i++ {
		b.WriteString("1,2,f,0,1,10,11\n")
	}
	stop := errors.New("stop")
	calls := 0
	_, err := ReadCSV(&b, "x.csv", func(n int64) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Fatalf("err %v after %d calls, want stop after 1", err, calls)
	}
}

func FuzzReadNsightCSV(f *testing.F) {
	for _, name := range []string{"nvtx_pushpop_trace.csv", "cuda_api_trace.csv", "cuda_gpu_trace.csv"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := ReadCSV(bytes.NewReader(b), "f.csv", nil)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		for _, s := range rep.Spans {
			if rep.Kind != NVTXPushPop && s.End < s.Start {
				t.Fatalf("span %+v ends before it starts", s)
			}
			if s.OnGPU() == (rep.Kind != CUDAGPU) {
				t.Fatalf("span %+v on the wrong side", s)
			}
		}
	})
}
