// Package kernel is the Jupyter kernel: dispatch of protocol messages to an
// Interpreter (execute, complete, inspect, is_complete, history, comms,
// interrupt, shutdown).
//
// The three seams of STYLE.md are kept apart, each in its files:
//   - transport: kernel/serve binds the five sockets of a connection file
//     and feeds the loops; kernel/wire signs and frames messages. Here, a
//     Transport sends (transport.go);
//   - dispatch (kernel.go, shell.go, execute.go, history.go, frontend.go,
//     publish.go): Kernel.Handle dispatches a decoded message and
//     ServeShell runs the shell queue (order, stop_on_error, deferred
//     requests); they talk to the outside only through a Transport, so
//     they are tested without sockets;
//   - interpreter (interpreter.go): the Interpreter interface and the types
//     it speaks in, which kernel/session implements with yaegi.
//
// The package imports only the standard library and kernel/wire: neither
// the sockets nor the interpreter.
//
// Output to IOPub goes through one publisher goroutine: stream text is
// batched (every 50 ms or 64 KiB) and everything is queued without bound
// and never dropped (zmq4's PUB socket silently drops when a high-water
// mark is set, go-zeromq/zmq4#151, so none is set and the batching keeps
// the message count low). A cell's output is flushed before its reply.
package kernel
