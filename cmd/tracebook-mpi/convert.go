package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/dist/worker"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/internal/mpi"
)

// runConvert implements `mpirun -np N tracebook-mpi convert TRACE OUTDIR`:
// every rank reads its share of the trace's processes (worker.Shares) and writes
// their events table, as `tracebook convert` writes the whole trace's
// (Trace.Events: the same columns, rows and definitions metadata), to
// OUTDIR/part-RANK.parquet. The files are one dataset: every part has the
// same columns in the same order (a column no process of a share has is
// there, all null), and the parts in rank order are the whole trace's table
// cut between processes.
//
// The ranks agree after each step (the first is a barrier after rank 0 made
// OUTDIR): a failure on any rank stops every rank, rank 0 prints every
// rank's error, and every rank exits with status 1.
func runConvert(w *mpi.World, args []string) int {
	c, err := parseConvert(args)
	if err != nil {
		if w.Rank() == 0 {
			fmt.Fprintf(os.Stderr, "tracebook-mpi convert: %v\nusage: tracebook-mpi convert TRACE OUTDIR [--format parquet|arrow]\n", err)
		}
		return 2
	}
	start := time.Now()
	rep, err := c.run(w)
	if err != nil {
		if w.Rank() == 0 {
			fmt.Fprintf(os.Stderr, "tracebook-mpi convert: %v\n", err)
		}
		return 1
	}
	if w.Rank() == 0 {
		fmt.Fprintf(os.Stderr, "%s: %d events of %d locations on %d ranks written to %s in %v\n",
			c.trace, rep.events, rep.procs, w.Size(), c.out, time.Since(start).Round(time.Millisecond))
	}
	return 0
}

// convertJob is one convert command.
type convertJob struct {
	trace, out, ext string
}

func parseConvert(args []string) (convertJob, error) {
	c := convertJob{ext: ".parquet"}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--format" || a == "-format":
			if i+1 == len(args) {
				return c, errors.New("--format needs a value")
			}
			i++
			a = "--format=" + args[i]
			fallthrough
		case strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "-format="):
			switch f := a[strings.Index(a, "=")+1:]; f {
			case "parquet":
				c.ext = ".parquet"
			case "arrow":
				c.ext = ".arrow"
			default:
				return c, fmt.Errorf("unknown format %q (want parquet or arrow)", f)
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return c, fmt.Errorf("unknown flag %s", a)
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		return c, fmt.Errorf("need TRACE and OUTDIR, got %d arguments", len(pos))
	}
	c.trace, c.out = pos[0], pos[1]
	return c, nil
}

// partName is rank's file among n: part-RANK with RANK zero-padded to the
// width of n, so that the names sort in rank order.
func partName(rank, n int, ext string) string {
	return fmt.Sprintf("part-%0*d%s", len(strconv.Itoa(n)), rank, ext)
}

type convertReport struct {
	events int64 // over all ranks
	procs  int
}

func (c convertJob) run(w *mpi.World) (convertReport, error) {
	var rep convertReport
	// Every rank reads the definitions and splits the processes the same way.
	var share []int
	err := guard(func() error {
		skel, err := trace.Load(c.trace, trace.WithoutEvents())
		if err != nil {
			return err
		}
		rep.procs = skel.NumProcesses()
		share = worker.Shares(skel, w.Size())[w.Rank()]
		if w.Rank() == 0 {
			return os.MkdirAll(c.out, 0o755)
		}
		return nil
	})
	if _, err := agree(w, nil, err); err != nil {
		return rep, err
	}

	// Every rank reads its share and builds its table; rank 0 makes the
	// union of their columns, which every part then has.
	var tab *arrowio.Table
	var schema []byte
	err = guard(func() error {
		tr, err := trace.Load(c.trace, trace.WithShare(share...))
		if err != nil {
			return err
		}
		tab = tr.Events()
		schema, err = encodeSchema(tab.Schema())
		return err
	})
	schemas, err := agree(w, schema, err)
	if err != nil {
		return rep, err
	}
	// rank 0 broadcasts the union, or its error after a 1
	var union []byte
	if w.Rank() == 0 {
		union, err = unionSchemas(schemas)
		union = append([]byte{0}, union...)
		if err != nil {
			union = append([]byte{1}, fmt.Sprintf("rank 0: the ranks' columns: %v", err)...)
		}
	}
	if union, err = w.Bcast(0, union); err != nil {
		return rep, fmt.Errorf("rank %d: %w", w.Rank(), err)
	}
	if len(union) == 0 || union[0] != 0 {
		return rep, errors.New(string(union[min(1, len(union)):]))
	}
	union = union[1:]

	// Every rank writes its part.
	var rows []byte
	err = guard(func() error {
		all, err := decodeSchema(union)
		if err != nil {
			return err
		}
		part, err := conform(tab, all)
		if err != nil {
			return err
		}
		rows = []byte(strconv.Itoa(part.NumRows()))
		return writeTable(filepath.Join(c.out, partName(w.Rank(), w.Size(), c.ext)), part)
	})
	counts, err := agree(w, rows, err)
	if err != nil {
		return rep, err
	}
	for _, b := range counts {
		n, _ := strconv.ParseInt(string(b), 10, 64)
		rep.events += n
	}
	return rep, nil
}

// guard runs f, turning a panic (the trace package's notebook form fails
// with one) into its error.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	return f()
}

// writeTable is arrowio.Write returning its error.
func writeTable(path string, t *arrowio.Table) error {
	return guard(func() error { arrowio.Write(path, t); return nil })
}

// Message tags of convert.
const (
	tagAgree   = 1 // a rank's payload or error, to rank 0
	tagVerdict = 2 // rank 0's verdict: empty, or every failed rank's error
)

// agree is a step every rank takes together: each sends rank 0 its
// payload or its error; rank 0 gets every payload (in rank order) and
// broadcasts whether all ranks succeeded. If one failed, every rank returns
// an error holding every failed rank's error, each naming its rank.
func agree(w *mpi.World, payload []byte, err error) ([][]byte, error) {
	msg := append([]byte{0}, payload...)
	if err != nil {
		msg = append([]byte{1}, fmt.Sprintf("rank %d: %v", w.Rank(), err)...)
	}
	var all [][]byte
	var verdict []byte
	if w.Rank() != 0 {
		if e := w.Send(0, tagAgree, msg); e != nil {
			return nil, fmt.Errorf("rank %d: %w", w.Rank(), e)
		}
	} else {
		var failed []string
		for r := 0; r < w.Size(); r++ {
			m := msg
			if r > 0 {
				var e error
				if m, e = recvFrom(w, r, tagAgree); e != nil {
					failed = append(failed, fmt.Sprintf("rank 0: %v", e))
					continue
				}
			}
			if len(m) > 0 && m[0] == 0 {
				all = append(all, m[1:])
			} else {
				failed = append(failed, string(m[1:]))
			}
		}
		if len(failed) > 0 {
			verdict = []byte(strings.Join(failed, "\n"))
		}
	}
	// The verdict goes point to point, received by polling: a rank waiting
	// in MPI_Bcast would spin on a core the ranks still working need.
	if w.Rank() == 0 {
		for r := 1; r < w.Size(); r++ {
			if e := w.Send(r, tagVerdict, verdict); e != nil {
				return nil, fmt.Errorf("rank 0: %w", e)
			}
		}
	} else {
		var e error
		if verdict, e = recvFrom(w, 0, tagVerdict); e != nil {
			return nil, fmt.Errorf("rank %d: %w", w.Rank(), e)
		}
	}
	if len(verdict) > 0 {
		return nil, errors.New(string(verdict))
	}
	return all, nil
}

// recvFrom receives the next message from rank src with tag, whatever its
// size. It polls (MPI_Iprobe, then a sleep of 200 µs): Open MPI's blocking
// calls spin on a core while they wait (measured: a rank blocked 3 s in
// MPI_Recv used 2-2.8 s of CPU, polling every millisecond 0.14 s).
func recvFrom(w *mpi.World, src, tag int) ([]byte, error) {
	for {
		ok, _, _, size, err := w.Probe(src, tag)
		if err != nil {
			return nil, err
		}
		if ok {
			return w.Recv(src, tag, size)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// encodeSchema writes s as an Arrow IPC stream without batches.
func encodeSchema(s *arrow.Schema) ([]byte, error) {
	var buf bytes.Buffer
	wr := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := wr.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeSchema(b []byte) (*arrow.Schema, error) {
	rd, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	defer rd.Release()
	return rd.Schema(), nil
}

// unionSchemas returns the fields of the ranks' schemas (in rank order) in
// the order Trace.Events gives them for the whole trace: pipit's columns,
// the message payloads, Communicator, Request, the collective payloads, the
// metrics in the order they first occur, Region. Unknown columns come last.
func unionSchemas(schemas [][]byte) ([]byte, error) {
	type entry struct {
		f     arrow.Field
		group int
		first int // order of first occurrence over the ranks
	}
	groups := map[string]int{
		trace.ColTimestamp: 0, trace.ColEventType: 1, trace.ColName: 2, trace.ColProcess: 3, trace.ColThread: 4,
		trace.ColPartner: 10, trace.ColTag: 11, trace.ColBytes: 12, trace.ColPartnerLocal: 13,
		trace.ColComm: 20, trace.ColRequest: 30,
		trace.ColCollective: 40, trace.ColRoot: 41, trace.ColSent: 42, trace.ColReceived: 43,
		trace.ColRegion: 60,
	}
	const metricGroup, unknownGroup = 50, 70
	seen := map[string]*entry{}
	var all []*entry
	var meta arrow.Metadata
	for _, b := range schemas {
		s, err := decodeSchema(b)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			meta = s.Metadata()
		}
		for _, f := range s.Fields() {
			if e, ok := seen[f.Name]; ok {
				if !arrow.TypeEqual(e.f.Type, f.Type) {
					return nil, fmt.Errorf("column %q is %v on one rank and %v on another", f.Name, e.f.Type, f.Type)
				}
				continue
			}
			g, ok := groups[f.Name]
			switch {
			case ok:
			case strings.HasPrefix(f.Name, metricPrefix):
				g = metricGroup
			default:
				g = unknownGroup
			}
			e := &entry{f: f, group: g, first: len(all)}
			seen[f.Name] = e
			all = append(all, e)
		}
	}
	slices.SortStableFunc(all, func(a, b *entry) int {
		if a.group != b.group {
			return a.group - b.group
		}
		return a.first - b.first
	})
	fields := make([]arrow.Field, len(all))
	for i, e := range all {
		fields[i] = e.f
	}
	return encodeSchema(arrow.NewSchema(fields, &meta))
}

// metricPrefix begins the name of a metric's column in Trace.Events.
const metricPrefix = "Metric: "

// conform returns t with the fields of schema in its order: t's column of
// that name, or an all-null column of its type; t's metadata is kept.
func conform(t *arrowio.Table, schema *arrow.Schema) (*arrowio.Table, error) {
	have := map[string]bool{}
	for _, n := range t.ColumnNames() {
		have[n] = true
	}
	cols := make([]arrowio.Column, 0, schema.NumFields())
	for _, f := range schema.Fields() {
		if have[f.Name] {
			a, err := t.Array(f.Name)
			if err != nil {
				return nil, err
			}
			cols = append(cols, arrowio.FromArray(f.Name, a))
			delete(have, f.Name)
			continue
		}
		// (array.MakeArrayOfNull gives no array for a dictionary type)
		b := array.NewBuilder(memory.DefaultAllocator, f.Type)
		b.AppendNulls(t.NumRows())
		nulls := b.NewArray()
		b.Release()
		defer nulls.Release() // FromArray retains it in NewTable
		cols = append(cols, arrowio.FromArray(f.Name, nulls))
	}
	if len(have) > 0 {
		return nil, fmt.Errorf("columns %v are not in the union of the ranks' columns", have)
	}
	out, err := arrowio.NewTable(cols...)
	if err != nil {
		return nil, err
	}
	md := t.Schema().Metadata()
	kv := make(map[string]string, md.Len())
	for i, k := range md.Keys() {
		kv[k] = md.Values()[i]
	}
	return out.WithMetadata(kv), nil
}
