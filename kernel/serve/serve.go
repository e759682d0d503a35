// Package serve is the kernel's ZeroMQ transport: it binds the five sockets
// of a Jupyter connection file, checks the signature of every message (and
// refuses replays), signs what the kernel sends, and feeds a kernel.Kernel's
// loops (shell, control, stdin) until a shutdown request.
package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/wire"
)

// zmqTransport signs and sends on the kernel's sockets.
type zmqTransport struct {
	signer *wire.Signer
	mu     [4]sync.Mutex
	socks  [4]zmq4.Socket // by kernel.Channel
}

func (z *zmqTransport) Send(ch kernel.Channel, m *wire.Message) error {
	frames, err := wire.Encode(m, z.signer)
	if err != nil {
		return err
	}
	z.mu[ch].Lock()
	defer z.mu[ch].Unlock()
	return z.socks[ch].SendMulti(zmq4.NewMsgFrom(frames...))
}

// Backlog returns how many messages wait for the least busy subscriber of
// ch (kernel.IOPub): the publisher paces itself on it (see publisher.loop).
func (z *zmqTransport) Backlog(ch kernel.Channel) int {
	if b, ok := z.socks[ch].(interface{ Backlog() int }); ok {
		return b.Backlog()
	}
	return 0
}

// MaxMessageSize is the largest message a peer may send on any socket
// (frames included): a larger one closes that peer's connection. The
// TRACEBOOK_MAX_MESSAGE_SIZE environment variable (bytes, or with a K, M or
// G suffix) sets it for a kernel.
var MaxMessageSize int64 = 256 << 20

// ReplayWindow is how many signatures the replay guard remembers (ipykernel
// keeps 65,536).
const ReplayWindow = 1 << 16

// Run runs a kernel on the sockets of a connection file until a shutdown
// request (it returns nil) or a fatal socket error.
func Run(ci *wire.ConnectionInfo, newInterp func(kernel.Frontend) (kernel.Interpreter, error), logf func(string, ...any)) error {
	signer, err := wire.NewSigner(ci.SignatureScheme, ci.Key)
	if err != nil {
		return err
	}
	if ci.Key == "" {
		fmt.Fprintln(os.Stderr, "tracebook: WARNING: the connection file has an empty key: messages are not signed, "+
			"and anyone who can reach the ports can run code as this user")
	}
	maxMsg := MaxMessageSize
	if v := os.Getenv("TRACEBOOK_MAX_MESSAGE_SIZE"); v != "" {
		n, err := work.ParseBytes(v)
		if err == nil && n <= 0 {
			err = fmt.Errorf("%q is not a positive byte count", v)
		}
		if err != nil {
			return fmt.Errorf("TRACEBOOK_MAX_MESSAGE_SIZE: %w", err)
		}
		maxMsg = n
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	z := &zmqTransport{signer: signer}
	limit := zmq4.WithMaxMessageSize(maxMsg)
	z.socks[kernel.Shell] = zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-shell")), limit)
	z.socks[kernel.Control] = zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-control")), limit)
	z.socks[kernel.Stdin] = zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-stdin")), limit)
	z.socks[kernel.IOPub] = zmq4.NewPub(ctx, limit)
	// The heartbeat echoes on a ROUTER (as ipykernel does): a REP socket
	// serves one request at a time, so a client that pings and never reads
	// the answers would stall every other client's heartbeat.
	hb := zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-hb")), zmq4.WithMaxMessageSize(64<<10))
	ports := map[kernel.Channel]int{kernel.Shell: ci.ShellPort, kernel.Control: ci.ControlPort, kernel.Stdin: ci.StdinPort, kernel.IOPub: ci.IOPubPort}
	for ch, port := range ports {
		if err := z.socks[ch].Listen(ci.Endpoint(port)); err != nil {
			return fmt.Errorf("%s socket on %s: %w", ch, ci.Endpoint(port), err)
		}
	}
	if err := hb.Listen(ci.Endpoint(ci.HBPort)); err != nil {
		return fmt.Errorf("heartbeat socket on %s: %w", ci.Endpoint(ci.HBPort), err)
	}
	defer func() {
		for _, s := range z.socks {
			if s != nil {
				s.Close()
			}
		}
		hb.Close()
	}()

	k, err := kernel.New(z, newInterp)
	if err != nil {
		return err
	}
	if logf != nil {
		k.Logf = logf
	}

	// heartbeat: echo (the ROUTER's identity frame routes it back)
	go func() {
		for {
			msg, err := hb.Recv()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				continue
			}
			_ = hb.SendMulti(msg)
		}
	}()

	replays := wire.NewReplayGuard(ReplayWindow)
	dropLog := newRateLog(k.Logf, time.Second)
	recv := func(ch kernel.Channel, out chan<- *wire.Message) {
		for {
			msg, err := z.socks[ch].Recv()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if errors.Is(err, context.Canceled) {
					return
				}
				continue
			}
			m, err := wire.Decode(msg.Frames, signer)
			if err != nil {
				dropLog.printf("tracebook: dropped message on %s: %v", ch, err)
				continue
			}
			if replays.Seen(m.Signature) {
				dropLog.printf("tracebook: dropped replayed %s on %s (signature seen before)", m.Header.MsgType, ch)
				continue
			}
			out <- m
		}
	}
	shellQ := make(chan *wire.Message, 1024)
	controlQ := make(chan *wire.Message, 64)
	stdinQ := make(chan *wire.Message, 16)
	go recv(kernel.Shell, shellQ)
	go recv(kernel.Control, controlQ)
	go recv(kernel.Stdin, stdinQ)

	go func() {
		for m := range stdinQ {
			k.Handle(kernel.Stdin, m)
		}
	}()
	go func() {
		for m := range controlQ {
			k.Handle(kernel.Control, m)
		}
	}()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sig {
			if s == os.Interrupt {
				k.Interrupt()
			} else {
				k.RequestShutdown(false)
			}
		}
	}()
	go k.ServeShell(shellQ)
	k.Starting()
	exitWhenOrphaned(k.Logf, ctx.Done())
	<-k.ShutdownRequested()
	k.Flush()
	return nil
}

// rateLog logs at most one line per period and says how many it held back,
// so a burst of forged messages does not flood the log.
type rateLog struct {
	logf       func(string, ...any)
	period     time.Duration
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func newRateLog(logf func(string, ...any), period time.Duration) *rateLog {
	return &rateLog{logf: logf, period: period}
}

func (r *rateLog) printf(format string, args ...any) {
	r.mu.Lock()
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < r.period {
		r.suppressed++
		r.mu.Unlock()
		return
	}
	n := r.suppressed
	r.last, r.suppressed = now, 0
	r.mu.Unlock()
	if n > 0 {
		format += fmt.Sprintf(" (and %d more dropped messages not logged)", n)
	}
	r.logf(format, args...)
}
