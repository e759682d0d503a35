// Package kernel is the Jupyter kernel: dispatch of protocol messages to an
// Interpreter (execute, complete, inspect, is_complete, history, comms,
// interrupt, shutdown) and the ZeroMQ transport that carries them.
//
// The three seams of STYLE.md are kept apart: kernel/wire signs and frames
// messages; Kernel.Handle dispatches a decoded message and talks to the
// outside only through a Transport (so dispatch is tested without sockets);
// the Interpreter (kernel/session in production) knows nothing of either.
// Serve binds the five sockets of a connection file and runs the loops.
//
// Output to IOPub goes through one publisher goroutine: stream text is
// batched (every 50 ms or 64 KiB) and everything is queued without bound
// and never dropped (zmq4's PUB socket silently drops when a high-water
// mark is set, go-zeromq/zmq4#151, so none is set and the batching keeps
// the message count low). A cell's output is flushed before its reply.
package kernel
