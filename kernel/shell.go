package kernel

import "github.com/tracebook/tracebook/kernel/wire"

// ServeShell runs the shell requests received on q one at a time, in the
// order they arrived, until q is closed. It is the dispatch loop of the
// shell channel, apart from any transport: Serve feeds it from the socket,
// tests from a slice.
//
// stop_on_error: when an execute_request with stop_on_error (the default)
// fails, the execute_requests already waiting in q are answered "aborted"
// without running, before the failed request's reply, as the protocol
// specifies (a notebook's "run all" stops at the first failing cell; cells
// sent after the failure run). Other requests waiting with them
// (kernel_info, complete, ...) are deferred: they run, in their order,
// right after the failed request.
func (k *Kernel) ServeShell(q <-chan *wire.Message) {
	var deferred []*wire.Message
	k.abortQueued = func() {
		for n := len(q); n > 0; n-- {
			m := <-q
			if m.Header.MsgType == "execute_request" {
				k.abort(Shell, m)
			} else {
				deferred = append(deferred, m)
			}
		}
	}
	for m := range q {
		k.Handle(Shell, m)
		for len(deferred) > 0 {
			d := deferred[0]
			deferred = deferred[1:]
			k.Handle(Shell, d)
		}
	}
}

// abort answers a queued execute_request without running it.
func (k *Kernel) abort(ch Channel, m *wire.Message) {
	k.status(m, "busy")
	k.mu.Lock()
	count := k.count
	k.mu.Unlock()
	k.reply(ch, m, "execute_reply", map[string]any{"status": "aborted", "execution_count": count})
	k.status(m, "idle")
}
