package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/go-zeromq/zmq4"

	"github.com/tracebook/tracebook/kernel/wire"
)

// zmqTransport signs and sends on the kernel's sockets.
type zmqTransport struct {
	signer *wire.Signer
	mu     [4]sync.Mutex
	socks  [4]zmq4.Socket
}

func (z *zmqTransport) Send(ch Channel, m *wire.Message) error {
	frames, err := wire.Encode(m, z.signer)
	if err != nil {
		return err
	}
	z.mu[ch].Lock()
	defer z.mu[ch].Unlock()
	return z.socks[ch].SendMulti(zmq4.NewMsgFrom(frames...))
}

// Serve runs a kernel on the sockets of a connection file until a shutdown
// request (it returns nil) or a fatal socket error.
func Serve(ci *wire.ConnectionInfo, newInterp func(Frontend) (Interpreter, error), logf func(string, ...any)) error {
	signer, err := wire.NewSigner(ci.SignatureScheme, ci.Key)
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	z := &zmqTransport{signer: signer}
	z.socks[Shell] = zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-shell")))
	z.socks[Control] = zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-control")))
	z.socks[Stdin] = zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("tracebook-stdin")))
	z.socks[IOPub] = zmq4.NewPub(ctx)
	hb := zmq4.NewRep(ctx)
	ports := map[Channel]int{Shell: ci.ShellPort, Control: ci.ControlPort, Stdin: ci.StdinPort, IOPub: ci.IOPubPort}
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

	k, err := New(z, newInterp)
	if err != nil {
		return err
	}
	if logf != nil {
		k.Logf = logf
	}

	// heartbeat: echo
	go func() {
		for {
			msg, err := hb.Recv()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				continue
			}
			_ = hb.Send(msg)
		}
	}()

	replays := wire.NewReplayGuard(4096)
	recv := func(ch Channel, out chan<- *wire.Message) {
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
				k.Logf("tracebook: dropped message on %s: %v", ch, err)
				continue
			}
			if replays.Seen(m.Signature) {
				k.Logf("tracebook: dropped replayed %s on %s (signature seen before)", m.Header.MsgType, ch)
				continue
			}
			out <- m
		}
	}
	shellQ := make(chan *wire.Message, 1024)
	controlQ := make(chan *wire.Message, 64)
	stdinQ := make(chan *wire.Message, 16)
	go recv(Shell, shellQ)
	go recv(Control, controlQ)
	go recv(Stdin, stdinQ)

	go func() {
		for m := range stdinQ {
			k.Handle(Stdin, m)
		}
	}()
	go func() {
		for m := range controlQ {
			k.Handle(Control, m)
		}
	}()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sig {
			if s == os.Interrupt {
				k.Interrupt()
			} else {
				select {
				case k.shutdown <- false:
				default:
				}
			}
		}
	}()
	var deferred []*wire.Message
	k.OnError = func() {
		for n := len(shellQ); n > 0; n-- {
			q := <-shellQ
			if q.Header.MsgType == "execute_request" {
				k.Abort(Shell, q)
			} else {
				deferred = append(deferred, q)
			}
		}
	}
	go func() {
		for m := range shellQ {
			if m.Header.MsgType == "execute_request" {
				k.execute2(m)
			} else {
				k.Handle(Shell, m)
			}
			for len(deferred) > 0 {
				q := deferred[0]
				deferred = deferred[1:]
				k.Handle(Shell, q)
			}
		}
	}()
	k.status(nil, "starting")
	<-k.ShutdownRequested()
	k.Flush()
	return nil
}
