package dist

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracebook/tracebook/builtins/dist/internal/link"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/internal/mpi/launch"
)

// Error is the error of this package's functions (an alias of work.Error).
type Error = work.Error

// WorkerName is the name of the worker binary.
const WorkerName = "tracebook-mpi"

// Job is an MPI job of tracebook workers and the authenticated link from
// this kernel to its rank 0.
type Job struct {
	ranks   int
	mode    string        // "mpirun" (Start) or "attached" (Listen)
	timeout time.Duration // how long a request waits for rank 0 to connect
	cmd     *exec.Cmd
	out     *tail // mpirun's stdout and stderr
	exited  chan struct{}
	ln      net.Listener
	addr    string
	keyDir  string
	keyFile string
	command string // Listen: the line for the job script

	connected chan struct{}
	conn      *link.Conn
	hello     link.Hello
	refused   atomic.Int64 // connections that failed the handshake

	reqMu          sync.Mutex // one request at a time
	mu             sync.Mutex
	nextID         uint64
	waiting        map[uint64]chan link.Frame
	progressFrames atomic.Int64
	dead           chan struct{}
	deadErr        error
	stopped        bool

	traces  int
	opened  []openRecord
	records []Record
}

type openRecord struct {
	path    string
	reports []link.Report
}

// Record is one request the job answered: what the notebook asked, how
// long it took, and what moved.
type Record struct {
	Request        string  // "profile.comm round 0", "open traces.otf2", "... (interrupted)"
	Seconds        float64 // wall time at the kernel
	BytesToKernel  int64   // the answer's frame
	BytesBetween   int64   // partials sent up the tree between ranks
	MaxPeakRSS     int64   // the largest peak resident memory of a rank
	SlowestRank    int
	SlowestSeconds float64
	// StopSeconds is, for an interrupted request, the longest time a rank
	// took from the interrupt's arrival to the end of its computation.
	StopSeconds float64
}

// Option configures Start and Listen.
type Option func(*config)

type config struct {
	worker  string
	bind    string
	mpirun  []string
	timeout time.Duration
}

// WithWorker names the worker binary (default: $TRACEBOOK_MPI_WORKER, then
// tracebook-mpi next to the kernel's executable, then on PATH).
func WithWorker(path string) Option { return func(c *config) { c.worker = path } }

// WithBind sets the address the kernel listens on for rank 0 (default
// 127.0.0.1:0, loopback only). On a cluster whose ranks run on other nodes
// bind an address they reach, e.g. WithBind("0.0.0.0:0"); the link is
// authenticated either way.
func WithBind(addr string) Option { return func(c *config) { c.bind = addr } }

// WithLauncher replaces mpirun for Start: the command and its arguments
// before the worker's, e.g. WithLauncher("srun", "-n", "4").
func WithLauncher(cmd ...string) Option { return func(c *config) { c.mpirun = cmd } }

// WithTimeout bounds how long Start and the first request after Listen
// wait for rank 0 to connect (default 60 s).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

var (
	curMu   sync.Mutex
	current *Job
)

// Current returns the job Start or Listen made last, nil if none runs.
func Current() *Job {
	curMu.Lock()
	defer curMu.Unlock()
	return current
}

func setCurrent(j *Job) {
	curMu.Lock()
	old := current
	current = j
	curMu.Unlock()
	if old != nil && old != j {
		old.Stop()
	}
}

// FindWorker returns the path of the worker binary: $TRACEBOOK_MPI_WORKER,
// then tracebook-mpi next to this executable, then on PATH; an error saying
// what to install when there is none.
func FindWorker() (string, error) {
	if p := os.Getenv("TRACEBOOK_MPI_WORKER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("TRACEBOOK_MPI_WORKER=%s: %w", p, err)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), WorkerName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(WorkerName); err == nil {
		return p, nil
	}
	return "", errors.New("the MPI worker " + WorkerName + " is not installed: install Open MPI (as root: apt-get install openmpi-bin libopenmpi-dev) and run `make install` in tracebook's source, which builds it next to the kernel")
}

// Start launches a job of n ranks on this machine (mpirun --oversubscribe
// over loopback, or WithLauncher's command) and waits for its rank 0 to
// connect. The job becomes Current; a job running before is stopped.
func Start(n int, opts ...Option) *Job {
	const fn = "dist.Start"
	if n < 1 {
		work.Fail(fn, "n = %d ranks: want at least 1", n)
	}
	c := configOf(opts)
	worker := c.worker
	if worker == "" {
		var err error
		if worker, err = FindWorker(); err != nil {
			work.Fail(fn, "%v", err)
		}
	}
	launcher := c.mpirun
	if launcher == nil {
		mpirun, err := exec.LookPath("mpirun")
		if err != nil {
			work.Fail(fn, "mpirun is not on PATH: install Open MPI (as root: apt-get install openmpi-bin libopenmpi-dev)")
		}
		launcher = append([]string{mpirun}, launch.MpirunArgs(n)...)
	}
	j := newJob(fn, n, "mpirun", c)
	args := append(launcher[1:], worker, "worker", "--connect", j.addr, "--key-file", j.keyFile)
	j.cmd = exec.Command(launcher[0], args...)
	j.cmd.Env = append(os.Environ(), launch.MpirunEnv()...)
	j.out = &tail{max: 64 << 10}
	j.cmd.Stdout, j.cmd.Stderr = j.out, j.out
	if err := j.cmd.Start(); err != nil {
		j.cleanup()
		work.Fail(fn, "starting %s: %v", launcher[0], err)
	}
	go func() {
		_ = j.cmd.Wait()
		close(j.exited)
	}()
	if err := j.waitConnected(c.timeout); err != nil {
		j.Stop()
		work.FailErr(fn, err)
	}
	setCurrent(j)
	return j
}

// Listen waits for a job started elsewhere (by the site's batch system) to
// connect: it prints the worker command to put in the job script, with the
// address and a key file readable by the user only (on a shared home
// directory, the ranks read it). Bind an address the compute nodes reach
// with WithBind. The first request waits for rank 0 (WithTimeout). The job
// becomes Current.
func Listen(opts ...Option) *Job {
	const fn = "dist.Listen"
	c := configOf(opts)
	worker := c.worker
	if worker == "" {
		worker = WorkerName
	}
	j := newJob(fn, 0, "attached", c)
	j.command = fmt.Sprintf("srun --kill-on-bad-exit=1 %s worker --connect %s --key-file %s", worker, j.addr, j.keyFile)
	fmt.Println("Put this line in the job script (Slurm; with Open MPI's launcher: mpirun -np N instead of srun --kill-on-bad-exit=1):")
	fmt.Println("  " + j.command)
	go func() {
		if err := j.waitConnected(365 * 24 * time.Hour); err != nil {
			j.fail(err)
		}
	}()
	setCurrent(j)
	return j
}

func configOf(opts []Option) config {
	c := config{bind: "127.0.0.1:0", timeout: 60 * time.Second}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

func newJob(fn string, n int, mode string, c config) *Job {
	ln, err := net.Listen("tcp", c.bind)
	if err != nil {
		work.Fail(fn, "listening on %s: %v", c.bind, err)
	}
	j := &Job{ranks: n, mode: mode, timeout: c.timeout, ln: ln, exited: make(chan struct{}), connected: make(chan struct{}),
		waiting: map[uint64]chan link.Frame{}, dead: make(chan struct{})}
	j.addr = ln.Addr().String()
	if host, port, _ := net.SplitHostPort(j.addr); host == "0.0.0.0" || host == "::" {
		h, _ := os.Hostname()
		j.addr = net.JoinHostPort(h, port)
	}
	key := link.NewKey()
	dir := ""
	if mode == "attached" {
		if d, err := os.UserConfigDir(); err == nil {
			dir = filepath.Join(d, "tracebook")
			_ = os.MkdirAll(dir, 0o700)
		}
	}
	if j.keyDir, err = os.MkdirTemp(dir, "dist-"); err != nil {
		ln.Close()
		work.Fail(fn, "making the key's directory: %v", err)
	}
	j.keyFile = filepath.Join(j.keyDir, "key")
	if err := link.WriteKeyFile(j.keyFile, key); err != nil {
		ln.Close()
		work.Fail(fn, "writing the key: %v", err)
	}
	go j.accept(key)
	return j
}

// accept takes connections until one holds the key: it becomes the link to
// rank 0. Connections that fail the handshake are refused and counted.
func (j *Job) accept(key []byte) {
	for {
		c, err := j.ln.Accept()
		if err != nil {
			return
		}
		lc, err := link.Accept(c, key, 10*time.Second)
		if err != nil {
			j.refused.Add(1)
			c.Close()
			continue
		}
		f, err := lc.Recv()
		if err != nil || f.Type != link.THello || link.Decode(f.Payload, &j.hello) != nil {
			j.refused.Add(1)
			lc.Close()
			continue
		}
		j.ln.Close()
		j.mu.Lock()
		j.conn = lc
		if j.ranks == 0 {
			j.ranks = j.hello.Size
		}
		j.mu.Unlock()
		close(j.connected)
		go j.read()
		return
	}
}

// Refused returns how many connections to the listener failed the
// handshake (did not hold the job's key).
func (j *Job) Refused() int64 { return j.refused.Load() }

func (j *Job) waitConnected(timeout time.Duration) error {
	if err := j.Err(); err != nil {
		return err
	}
	select {
	case <-j.connected:
		return nil
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-j.connected:
		return nil
	case <-j.exited:
		return fmt.Errorf("the MPI job ended before its rank 0 connected: %s", j.cause())
	case <-j.dead:
		return j.deadErr
	case <-t.C:
		return fmt.Errorf("rank 0 did not connect to %s within %s (%s)", j.addr, timeout, j.cause())
	case <-work.Context().Done():
		return work.ErrInterrupted
	}
}

// read dispatches the frames from rank 0 to the requests waiting for them.
func (j *Job) read() {
	for {
		f, err := j.conn.Recv()
		if err != nil {
			j.fail(err)
			return
		}
		j.mu.Lock()
		ch := j.waiting[f.ID]
		j.mu.Unlock()
		if ch == nil {
			continue // the answer of an interrupted request
		}
		select {
		case ch <- f:
		default:
			if f.Type != link.TProgress {
				go func() { ch <- f }()
			}
		}
	}
}

// fail marks the job dead with the cause err, completed by what mpirun said.
func (j *Job) fail(err error) {
	j.mu.Lock()
	if j.deadErr != nil {
		j.mu.Unlock()
		return
	}
	stopped := j.stopped
	j.mu.Unlock()
	msg := ""
	if !stopped {
		if j.cmd != nil {
			select { // mpirun says which rank died once it has reaped it
			case <-j.exited:
			case <-time.After(3 * time.Second):
			}
		}
		msg = j.cause()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if stopped || j.stopped {
		j.deadErr = errors.New("the job was stopped (dist.Stop)")
	} else {
		j.deadErr = fmt.Errorf("the MPI job failed (%v): %s; start a new one with dist.Start", err, msg)
	}
	close(j.dead)
}

var rankDied = regexp.MustCompile(`(?m)^.*process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+) \(([^)]*)\).*$|^.*process rank (\d+) with PID (\d+) on node (\S+) exited .*$`)

// cause is what mpirun said about the end of the job: the rank that died
// and why, or its last lines.
func (j *Job) cause() string {
	if j.out == nil {
		return "the link to rank 0 closed"
	}
	s := j.out.String()
	if m := rankDied.FindStringSubmatch(s); m != nil {
		if m[1] != "" {
			pid := ""
			if m[2] != "0" {
				pid = "pid " + m[2] + " "
			}
			return fmt.Sprintf("rank %s (%son %s) died of signal %s (%s)", m[1], pid, m[3], m[4], m[5])
		}
		return strings.TrimSpace(m[0])
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "----") {
			keep = append(keep, l)
		}
	}
	if len(keep) > 6 {
		keep = keep[len(keep)-6:]
	}
	if len(keep) == 0 {
		return "mpirun said nothing"
	}
	return "mpirun: " + strings.Join(keep, " / ")
}

// Err returns why the job is no longer usable, nil while it is.
func (j *Job) Err() error {
	select {
	case <-j.dead:
		return j.deadErr
	default:
		return nil
	}
}

// request sends a frame and waits for its answer; progress frames drive a
// bar, an interrupt of the cell is passed to every rank.
func (j *Job) request(label string, typ byte, payload []byte) (link.Frame, *Record, error) {
	j.reqMu.Lock()
	defer j.reqMu.Unlock()
	if err := j.Err(); err != nil {
		return link.Frame{}, nil, err
	}
	if err := j.waitConnected(j.timeout); err != nil {
		return link.Frame{}, nil, err
	}
	j.mu.Lock()
	j.nextID++
	id := j.nextID
	ch := make(chan link.Frame, 8)
	j.waiting[id] = ch
	j.mu.Unlock()
	forget := func() {
		j.mu.Lock()
		delete(j.waiting, id)
		j.mu.Unlock()
	}
	interrupted := false
	defer func() {
		if !interrupted {
			forget()
		}
	}()
	start := time.Now()
	if err := j.conn.Send(link.Frame{Type: typ, ID: id, Payload: payload}); err != nil {
		j.fail(err)
		<-j.dead
		return link.Frame{}, nil, j.deadErr
	}
	bar := work.Start(fmt.Sprintf("%s on %d ranks", label, j.ranks), int64(j.ranks)*1000, "‰ of ranks")
	defer bar.Done()
	for {
		select {
		case f := <-ch:
			if f.Type == link.TProgress {
				j.progressFrames.Add(1)
				var p link.Progress
				if link.Decode(f.Payload, &p) == nil {
					_ = bar.Set(p.Done)
				}
				continue
			}
			rec := &Record{Request: label, Seconds: time.Since(start).Seconds(), BytesToKernel: int64(len(f.Payload)) + 49}
			if f.Type == link.TError {
				var e link.Error
				if err := link.Decode(f.Payload, &e); err != nil {
					return f, rec, err
				}
				if e.Interrupted {
					return f, rec, work.ErrInterrupted
				}
				return f, rec, &e
			}
			return f, rec, nil
		case <-work.Context().Done():
			_ = j.conn.Send(link.Frame{Type: link.TInterrupt, ID: id})
			interrupted = true
			at := time.Now()
			go j.afterInterrupt(label, id, ch, at, forget)
			return link.Frame{}, nil, work.ErrInterrupted
		case <-j.dead:
			return link.Frame{}, nil, j.deadErr
		}
	}
}

// afterInterrupt waits (at most a minute) for the ranks' answer to an
// interrupted request and records how long they took to stop.
func (j *Job) afterInterrupt(label string, id uint64, ch chan link.Frame, at time.Time, forget func()) {
	defer forget()
	timeout := time.After(time.Minute)
	for {
		select {
		case f := <-ch:
			if f.Type == link.TProgress {
				continue
			}
			rec := &Record{Request: label + " (interrupted)", Seconds: time.Since(at).Seconds(), BytesToKernel: int64(len(f.Payload)) + 49}
			var e link.Error
			if f.Type == link.TError && link.Decode(f.Payload, &e) == nil {
				for _, r := range e.Reports {
					rec.StopSeconds = max(rec.StopSeconds, r.StopSeconds)
				}
				j.record(rec, e.Reports)
			} else {
				j.record(rec, nil)
			}
			return
		case <-timeout:
			return
		case <-j.dead:
			return
		}
	}
}

func (j *Job) record(rec *Record, reports []link.Report) {
	for _, r := range reports {
		if r.Rank != 0 {
			rec.BytesBetween += r.SentBytes
		}
		rec.MaxPeakRSS = max(rec.MaxPeakRSS, r.PeakRSS)
		if r.Seconds >= rec.SlowestSeconds {
			rec.SlowestRank, rec.SlowestSeconds = r.Rank, r.Seconds
		}
	}
	j.mu.Lock()
	j.records = append(j.records, *rec)
	j.mu.Unlock()
}

// Records returns the requests the job answered, in order.
func (j *Job) Records() []Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Record(nil), j.records...)
}

// Ranks returns the number of ranks (0 while a Listen job has not
// connected).
func (j *Job) Ranks() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ranks
}

// Open opens the trace at path on the job: every rank reads its share of
// the processes (contiguous blocks balanced by their events; OTF2 keeps one
// file per location, so a rank opens only its share's files), and the
// notebook gets a trace holding the definitions and processes without
// their events. The methods of package part's contract run on the ranks
// and answer with the same results as on trace.Open(path); functions that
// need the events of every process here panic saying so. The path is the
// ranks' path to the trace (on a cluster, on the shared file system).
func (j *Job) Open(path string) *trace.Trace {
	const fn = "dist.Open"
	j.mu.Lock()
	j.traces++
	tid := uint64(j.traces)
	j.mu.Unlock()
	abs := path
	if a, err := filepath.Abs(path); err == nil {
		abs = a
	}
	f, rec, err := j.request("open "+filepath.Base(path), link.TOpen, link.Encode(link.OpenReq{TraceID: tid, Path: abs}))
	if err != nil {
		work.FailErr(fn, err)
	}
	var o link.Opened
	if err := link.Decode(f.Payload, &o); err != nil {
		work.FailErr(fn, err)
	}
	var defs trace.Definitions
	if err := link.Decode(o.Defs, &defs); err != nil {
		work.FailErr(fn, err)
	}
	procs := make([]*trace.Process, len(o.Procs))
	for i, p := range o.Procs {
		procs[i] = &trace.Process{Rank: p.Rank, Thread: p.Thread, Name: p.Name}
	}
	full := trace.NewTrace(&defs, procs)
	full.Path = abs
	sk := full.Skeleton()
	part.Attach(sk, &executor{j: j, id: tid, n: len(procs)})
	j.record(rec, o.Reports)
	j.mu.Lock()
	j.opened = append(j.opened, openRecord{path: abs, reports: o.Reports})
	j.mu.Unlock()
	return sk
}

// Open opens path on the Current job (see Job.Open).
func Open(path string) *trace.Trace {
	j := Current()
	if j == nil {
		work.Fail("dist.Open", "no job runs: start one with dist.Start(n) or dist.Listen()")
	}
	return j.Open(path)
}

// Stop stops the Current job.
func Stop() {
	curMu.Lock()
	j := current
	current = nil
	curMu.Unlock()
	if j != nil {
		j.Stop()
	}
}

// Stop ends the job: rank 0 tells every rank to quit, mpirun exits (it is
// killed if it has not after 5 s), and the key is removed. Traces opened on
// the job answer with an error afterwards.
func (j *Job) Stop() {
	j.mu.Lock()
	if j.stopped {
		j.mu.Unlock()
		return
	}
	j.stopped = true
	conn := j.conn
	j.mu.Unlock()
	if conn != nil {
		_ = conn.Send(link.Frame{Type: link.TQuit})
	}
	if j.cmd != nil && j.cmd.Process != nil {
		select {
		case <-j.exited:
		case <-time.After(5 * time.Second):
			_ = j.cmd.Process.Kill()
			<-j.exited
		}
	}
	j.ln.Close()
	if conn != nil {
		conn.Close()
	}
	j.fail(errors.New("stopped"))
	j.cleanup()
	curMu.Lock()
	if current == j {
		current = nil
	}
	curMu.Unlock()
}

func (j *Job) cleanup() {
	if j.keyDir != "" {
		os.RemoveAll(j.keyDir)
	}
}

// Command is the worker command Listen printed ("" for Start).
func (j *Job) Command() string { return j.command }

// Addr is the address the kernel listens on for rank 0.
func (j *Job) Addr() string { return j.addr }

// KeyFile is the file holding the job's key (readable by its owner only).
func (j *Job) KeyFile() string { return j.keyFile }

// String describes the job in one line.
func (j *Job) String() string {
	state := "running"
	if err := j.Err(); err != nil {
		state = err.Error()
	} else {
		select {
		case <-j.connected:
		default:
			state = "waiting for rank 0 to connect to " + j.addr
		}
	}
	pid := ""
	if j.cmd != nil && j.cmd.Process != nil {
		pid = ", mpirun pid " + strconv.Itoa(j.cmd.Process.Pid)
	}
	return fmt.Sprintf("MPI job (%s): %d ranks%s, %d traces open, %d requests answered; %s", j.mode, j.Ranks(), pid, len(j.opened), len(j.Records()), state)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = bytes.Clone(t.b[len(t.b)-t.max:])
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// executor runs the rounds of methods on a trace opened on the job.
type executor struct {
	j  *Job
	id uint64
	n  int
}

func (e *executor) RunRound(m part.Method, procs []int, round int, decision []byte) (part.Partial, error) {
	label := m.Name()
	if m.Rounds() > 1 {
		label += " round " + strconv.Itoa(round)
	}
	req := link.RunReq{TraceID: e.id, Method: m.Name(), Params: m.Params(), Procs: procs, Round: round, Decision: decision}
	f, rec, err := e.j.request(label, link.TRun, link.Encode(req))
	if err != nil {
		return nil, &Error{Func: "dist", Msg: label + ": " + err.Error(), Err: err}
	}
	var res link.Result
	if err := link.Decode(f.Payload, &res); err != nil {
		return nil, err
	}
	e.j.record(rec, res.Reports)
	return part.Decode(m, round, res.Data)
}

// Fetch brings the events of a few processes of a trace opened on a job to
// this notebook (the representatives of groups, a process to look at call
// by call): they become ordinary processes. Processes holding their events
// already are skipped.
func Fetch(procs ...*trace.Process) {
	if len(procs) == 0 {
		return
	}
	if err := part.Fetch(procs[0].Trace, procs); err != nil {
		work.FailErr("dist.Fetch", err)
	}
}
