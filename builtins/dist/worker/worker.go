package worker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tracebook/tracebook/builtins/dist/internal/link"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Tags of the messages between ranks.
const (
	tagReq  = 1 // rank 0 to every rank: a request (gob of link.Frame)
	tagInt  = 2 // rank 0 to every rank: interrupt request ID (decimal)
	tagPart = 3 // child to parent: gob of upMsg
	tagProg = 4 // every rank to rank 0: gob of progMsg
	tagQuit = 5 // rank 0 to every rank: end
)

// Options configure a worker.
type Options struct {
	Connect string        // the kernel's address (rank 0 only)
	Key     []byte        // the job's key (rank 0 only)
	Timeout time.Duration // to connect (default 30 s)
	Log     func(format string, args ...any)
}

type upMsg struct {
	ID      uint64
	Type    byte // rank 0: the frame type of the answer
	Data    []byte
	Err     *link.Error
	Reports []link.Report
}

type progMsg struct {
	ID          uint64
	Done, Total int64
}

type task struct {
	id       uint64
	cancel   context.CancelFunc
	children chan []byte  // the children's upMsgs, as they arrive
	intAt    atomic.Int64 // when the interrupt arrived (UnixNano), 0 if none
	out      chan upMsg   // the merged result of the subtree
	start    time.Time
}

type node struct {
	comm       Comm
	rank, size int
	parent     int   // -1 for rank 0
	children   []int // in merge order
	opt        Options
	host       string

	conn    *link.Conn      // rank 0: to the kernel
	kernel  chan link.Frame // rank 0: frames from the kernel
	kerr    atomic.Value    // rank 0: why the kernel link ended
	traces  map[uint64]*trace.Trace
	cur     *task
	pending []link.Frame        // requests that wait for the current task to end
	queue   map[uint64][][]byte // children's messages by request, in arrival order
	prog    []progMsg           // rank 0: latest progress per rank
	ints    map[uint64]bool     // interrupts of requests not started
	// rank 0: the skeletons of the traces being opened, by request
	skeletons map[uint64]*trace.Trace

	done, total atomic.Int64 // this rank's current job, from work.Observe
}

// Tree returns the parent (-1 for rank 0) and the children, in merge order,
// of rank in the binomial tree of size ranks: at step s = 1, 2, 4, ... a
// rank with bit s set sends to rank-s; the others receive from rank+s.
func Tree(rank, size int) (parent int, children []int) {
	parent = -1
	for s := 1; s < size; s <<= 1 {
		if rank&s != 0 {
			return rank - s, children
		}
		if rank+s < size {
			children = append(children, rank+s)
		}
	}
	return parent, children
}

// Run is the loop of one rank: rank 0 connects to the kernel and relays its
// requests to every rank; every rank computes its part and merges its
// children's. It returns when the kernel says quit or the link ends.
func Run(comm Comm, opt Options) error {
	if opt.Timeout == 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.Log == nil {
		opt.Log = func(string, ...any) {}
	}
	n := &node{comm: comm, rank: comm.Rank(), size: comm.Size(), opt: opt, traces: map[uint64]*trace.Trace{}, ints: map[uint64]bool{}, queue: map[uint64][][]byte{}, skeletons: map[uint64]*trace.Trace{}}
	n.host, _ = os.Hostname()
	n.parent, n.children = Tree(n.rank, n.size)
	work.Observe(func(_ string, done, total int64) { n.done.Store(done); n.total.Store(total) })
	if n.rank == 0 {
		if err := n.connect(); err != nil {
			n.quitAll()
			return err
		}
		defer n.conn.Close()
	}
	return n.loop()
}

// connect dials the kernel, retrying while it refuses (its listener may
// start after the job) until Options.Timeout.
func (n *node) connect() error {
	deadline := time.Now().Add(n.opt.Timeout)
	var c *link.Conn
	var err error
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		if c, err = link.Dial(n.opt.Connect, n.opt.Key, n.opt.Timeout); err == nil {
			break
		}
		var ne *net.OpError
		if !errors.As(err, &ne) || ne.Op != "dial" || time.Now().Add(wait).After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
	n.conn = c
	hello := link.Hello{Size: n.size}
	if err := c.Send(link.Frame{Type: link.THello, Payload: link.Encode(hello)}); err != nil {
		return err
	}
	n.kernel = make(chan link.Frame, 16)
	n.prog = make([]progMsg, n.size)
	go func() {
		defer close(n.kernel)
		for {
			f, err := c.Recv()
			if err != nil {
				n.kerr.Store(err)
				return
			}
			n.kernel <- f
		}
	}()
	return nil
}

func (n *node) quitAll() {
	for r := 1; r < n.size; r++ {
		_ = n.comm.Send(r, tagQuit, nil)
	}
}

func (n *node) loop() error {
	backoff := 50 * time.Microsecond
	lastProg := time.Now()
	for {
		active := false
		if n.rank == 0 {
			select {
			case f, ok := <-n.kernel:
				if !ok {
					n.quitAll()
					if err, _ := n.kerr.Load().(error); err != nil && !errors.Is(err, os.ErrClosed) && err.Error() != "EOF" {
						return fmt.Errorf("the link to the kernel ended: %w", err)
					}
					return nil
				}
				active = true
				if quit := n.fromKernel(f); quit {
					return nil
				}
			default:
			}
		}
		ok, from, tag, size, err := n.comm.Probe(AnySource, AnyTag)
		if err != nil {
			return err
		}
		if ok {
			active = true
			b, err := n.comm.Recv(from, tag, size)
			if err != nil {
				return err
			}
			if quit := n.fromRank(from, tag, b); quit {
				return nil
			}
		}
		if n.cur == nil && len(n.pending) > 0 {
			f := n.pending[0]
			n.pending = n.pending[1:]
			n.start(f)
		}
		if n.cur != nil {
			for q := n.queue[n.cur.id]; len(q) > 0; q = n.queue[n.cur.id] {
				select {
				case n.cur.children <- q[0]:
					n.queue[n.cur.id] = q[1:]
					active = true
					continue
				default:
				}
				break
			}
			select {
			case up := <-n.cur.out:
				active = true
				delete(n.queue, n.cur.id)
				n.cur = nil
				if err := n.sendUp(up); err != nil {
					return err
				}
			default:
				if time.Since(lastProg) > 200*time.Millisecond && time.Since(n.cur.start) > 300*time.Millisecond {
					lastProg = time.Now()
					if err := n.progress(progMsg{ID: n.cur.id, Done: n.done.Load(), Total: n.total.Load()}, n.rank); err != nil {
						return err
					}
				}
			}
		}
		if active {
			backoff = 50 * time.Microsecond
			continue
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, 2*time.Millisecond)
	}
}

// fromKernel relays a kernel frame to every rank and acts on it here.
func (n *node) fromKernel(f link.Frame) (quit bool) {
	switch f.Type {
	case link.TQuit:
		n.quitAll()
		return true
	case link.TOpen:
		n.open(f)
		return false
	case link.TInterrupt:
		id := strconv.FormatUint(f.ID, 10)
		for r := 1; r < n.size; r++ {
			_ = n.comm.Send(r, tagInt, []byte(id))
		}
		n.interrupt(f.ID)
		return false
	}
	b := link.Encode(f)
	for r := 1; r < n.size; r++ {
		if err := n.comm.Send(r, tagReq, b); err != nil {
			n.reply(link.Frame{Type: link.TError, ID: f.ID, Payload: link.Encode(link.Error{Rank: 0, Host: n.host, Msg: "sending the request to rank " + strconv.Itoa(r) + ": " + err.Error()})})
			return false
		}
	}
	n.pending = append(n.pending, f)
	return false
}

// open deals the shares of the trace an Open request names: rank 0 reads
// the definitions and the list of processes, sends every rank the request
// with its share, and keeps the skeleton for its answer.
func (n *node) open(f link.Frame) {
	var o link.OpenReq
	sk, err := func() (*trace.Trace, error) {
		if err := link.Decode(f.Payload, &o); err != nil {
			return nil, err
		}
		return trace.Load(o.Path, trace.WithoutEvents())
	}()
	if err != nil {
		n.reply(link.Frame{Type: link.TError, ID: f.ID, Payload: link.Encode(link.Error{Rank: 0, Host: n.host, Msg: err.Error()})})
		return
	}
	shares := Shares(sk, n.size)
	for r := 1; r < n.size; r++ {
		o.Share = shares[r]
		if err := n.comm.Send(r, tagReq, link.Encode(link.Frame{Type: link.TOpen, ID: f.ID, Payload: link.Encode(o)})); err != nil {
			n.reply(link.Frame{Type: link.TError, ID: f.ID, Payload: link.Encode(link.Error{Rank: 0, Host: n.host, Msg: "sending the request to rank " + strconv.Itoa(r) + ": " + err.Error()})})
			return
		}
	}
	o.Share = shares[0]
	n.skeletons[f.ID] = sk
	n.pending = append(n.pending, link.Frame{Type: link.TOpen, ID: f.ID, Payload: link.Encode(o)})
}

func (n *node) fromRank(from, tag int, b []byte) (quit bool) {
	switch tag {
	case tagQuit:
		return true
	case tagReq:
		var f link.Frame
		if err := link.Decode(b, &f); err != nil {
			n.opt.Log("rank %d: %v", n.rank, err)
			return false
		}
		n.pending = append(n.pending, f)
	case tagInt:
		id, _ := strconv.ParseUint(string(b), 10, 64)
		n.interrupt(id)
	case tagPart:
		if len(b) >= 8 {
			id := binary.LittleEndian.Uint64(b)
			n.queue[id] = append(n.queue[id], b[8:])
		}
	case tagProg:
		var p progMsg
		if link.Decode(b, &p) == nil {
			_ = n.progress(p, from)
		}
	}
	return false
}

func (n *node) interrupt(id uint64) {
	if n.cur != nil && n.cur.id == id {
		n.cur.intAt.CompareAndSwap(0, time.Now().UnixNano())
		n.cur.cancel()
		return
	}
	n.ints[id] = true
}

// progress records (rank 0) or forwards (other ranks) a rank's progress.
func (n *node) progress(p progMsg, from int) error {
	if n.rank != 0 {
		return n.comm.Send(0, tagProg, link.Encode(p))
	}
	n.prog[from] = p
	var done int64
	for _, q := range n.prog {
		if q.ID == p.ID && q.Total > 0 {
			done += min(1000, q.Done*1000/q.Total)
		}
	}
	return n.conn.Send(link.Frame{Type: link.TProgress, ID: p.ID, Payload: link.Encode(link.Progress{Done: done, Total: int64(n.size) * 1000})})
}

func (n *node) reply(f link.Frame) {
	if err := n.conn.Send(f); err != nil {
		n.opt.Log("rank 0: replying to the kernel: %v", err)
	}
}

// sendUp sends a finished subtree's message to the parent, or (rank 0) the
// answer to the kernel.
func (n *node) sendUp(up upMsg) error {
	if n.rank != 0 {
		b := binary.LittleEndian.AppendUint64(nil, up.ID)
		b = append(b, link.Encode(up)...)
		return n.comm.Send(n.parent, tagPart, b)
	}
	switch {
	case up.Err != nil:
		n.reply(link.Frame{Type: link.TError, ID: up.ID, Payload: link.Encode(*up.Err)})
	default:
		n.reply(link.Frame{Type: up.Type, ID: up.ID, Payload: up.Data})
	}
	return nil
}

// start begins the task of request f on this rank.
func (n *node) start(f link.Frame) {
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{id: f.ID, cancel: cancel, children: make(chan []byte, len(n.children)), out: make(chan upMsg, 1), start: time.Now()}
	n.cur = t
	n.done.Store(0)
	n.total.Store(0)
	if n.ints[f.ID] {
		delete(n.ints, f.ID)
		t.intAt.Store(time.Now().UnixNano())
		cancel()
	}
	work.SetContext(ctx)
	opened := n.skeletons[f.ID] // rank 0 answers an Open with it
	delete(n.skeletons, f.ID)
	go func() {
		up := n.run(t, f, opened)
		up.ID = f.ID
		t.out <- up
	}()
}

// run computes this rank's part of f, then merges the children's in order.
func (n *node) run(t *task, f link.Frame, opened *trace.Trace) (up upMsg) {
	rep := link.Report{Rank: n.rank, Host: n.host, PID: os.Getpid()}
	fail := func(err error) *link.Error {
		if errors.Is(err, work.ErrInterrupted) {
			return &link.Error{Rank: n.rank, Host: n.host, Msg: "interrupted", Interrupted: true}
		}
		return &link.Error{Rank: n.rank, Host: n.host, Msg: err.Error()}
	}
	var mine part.Partial
	var m part.Method
	var req link.RunReq
	err := func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				if e := work.StopError(v); e != nil {
					err = e
					return
				}
				err = fmt.Errorf("panic: %v\n%s", v, firstLines(string(debug.Stack()), 12))
			}
		}()
		switch f.Type {
		case link.TOpen:
			var o link.OpenReq
			if err := link.Decode(f.Payload, &o); err != nil {
				return err
			}
			tr, err := trace.Load(o.Path, trace.WithShare(o.Share...))
			if err != nil {
				return err
			}
			n.traces[o.TraceID] = tr
			rep.Procs, rep.Events = tr.NumProcesses(), tr.NumEvents()
		case link.TClose:
			var o link.OpenReq
			if err := link.Decode(f.Payload, &o); err != nil {
				return err
			}
			delete(n.traces, o.TraceID)
			debug.FreeOSMemory()
		case link.TRun:
			if err := link.Decode(f.Payload, &req); err != nil {
				return err
			}
			tr := n.traces[req.TraceID]
			if tr == nil {
				return fmt.Errorf("trace %d is not open on this rank", req.TraceID)
			}
			if m, err = part.Lookup(req.Method, req.Params); err != nil {
				return err
			}
			var procs []*trace.Process
			for _, p := range tr.Processes() {
				if _, ok := slices.BinarySearch(req.Procs, p.Index); ok {
					procs = append(procs, p)
				}
			}
			if mine, err = m.Compute(tr, procs, req.Round, req.Decision); err != nil {
				return err
			}
		}
		return nil
	}()
	rep.Seconds = time.Since(t.start).Seconds()
	if err != nil {
		up.Err = fail(err)
	}
	// the children's messages, in merge order
	reports := []link.Report{}
	byRank := map[int]upMsg{}
	for range n.children {
		var c upMsg
		if derr := link.Decode(<-t.children, &c); derr != nil {
			if up.Err == nil {
				up.Err = fail(derr)
			}
			continue
		}
		byRank[c.Reports[0].Rank] = c
	}
	for _, ch := range n.children {
		c, ok := byRank[ch]
		if !ok {
			if up.Err == nil {
				up.Err = &link.Error{Rank: ch, Msg: "its partial did not arrive"}
			}
			continue
		}
		reports = append(reports, c.Reports...)
		if up.Err != nil {
			continue
		}
		if c.Err != nil {
			up.Err = c.Err
			continue
		}
		if f.Type == link.TRun {
			cp, err := part.Decode(m, req.Round, c.Data)
			if err == nil {
				err = merge(mine, cp)
			}
			if err != nil {
				up.Err = fail(fmt.Errorf("merging rank %d's partial: %w", ch, err))
			}
		}
	}
	if at := t.intAt.Load(); at != 0 {
		rep.StopSeconds = time.Since(time.Unix(0, at)).Seconds()
	}
	rep.PeakRSS = PeakRSS()
	var enc []byte // this rank's merged partial
	if up.Err == nil && f.Type == link.TRun {
		var err error
		if enc, err = part.Encode(m, req.Round, mine); err != nil {
			up.Err = fail(err)
		}
		if n.rank != 0 {
			rep.SentBytes = int64(len(enc)) // what it sends its parent (besides the reports)
		}
	}
	up.Reports = append([]link.Report{rep}, reports...)
	if up.Err != nil {
		if n.rank == 0 {
			e := *up.Err
			e.Reports = up.Reports
			up.Err = &e
		}
		return up
	}
	switch f.Type {
	case link.TRun:
		up.Data = enc
		if n.rank == 0 {
			up.Type, up.Data = link.TResult, link.Encode(link.Result{Data: enc, Reports: up.Reports})
		}
	case link.TOpen:
		if n.rank == 0 {
			o := link.Opened{Reports: up.Reports, Defs: link.Encode(opened.Defs)}
			for _, p := range opened.Processes() {
				o.Procs = append(o.Procs, link.ProcInfo{Rank: p.Rank, Thread: p.Thread, Name: p.Name})
			}
			up.Type, up.Data = link.TOpened, link.Encode(o)
		}
	case link.TClose:
		if n.rank == 0 {
			up.Type, up.Data = link.TResult, link.Encode(link.Result{Reports: up.Reports})
		}
	}
	return up
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// PeakRSS is the process's peak resident memory (VmHWM), 0 where /proc
// does not tell.
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// merge merges o into p, a panic of Merge becoming an error.
func merge(p, o part.Partial) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				err = e
				return
			}
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return p.Merge(o)
}
