package worker

import (
	"fmt"
	"sync"
)

// LocalComms returns the communicators of n ranks in this process, joined
// by memory: the double of MPI for tests, with its matching rules (a
// receive takes the oldest message that matches its source and tag).
func LocalComms(n int) []Comm {
	boxes := make([]*inbox, n)
	for i := range boxes {
		boxes[i] = &inbox{}
	}
	out := make([]Comm, n)
	for i := range out {
		out[i] = &localComm{rank: i, boxes: boxes}
	}
	return out
}

type message struct {
	from, tag int
	data      []byte
}

type inbox struct {
	mu   sync.Mutex
	msgs []message
}

type localComm struct {
	rank  int
	boxes []*inbox
}

func (c *localComm) Rank() int { return c.rank }
func (c *localComm) Size() int { return len(c.boxes) }

func (c *localComm) Send(dst, tag int, b []byte) error {
	if dst < 0 || dst >= len(c.boxes) {
		return fmt.Errorf("Send: rank %d out of range", dst)
	}
	box := c.boxes[dst]
	box.mu.Lock()
	box.msgs = append(box.msgs, message{c.rank, tag, append([]byte(nil), b...)})
	box.mu.Unlock()
	return nil
}

func (c *localComm) match(src, tag int) int {
	for i, m := range c.boxes[c.rank].msgs {
		if (src == AnySource || m.from == src) && (tag == AnyTag || m.tag == tag) {
			return i
		}
	}
	return -1
}

func (c *localComm) Probe(src, tag int) (bool, int, int, int, error) {
	box := c.boxes[c.rank]
	box.mu.Lock()
	defer box.mu.Unlock()
	if i := c.match(src, tag); i >= 0 {
		m := box.msgs[i]
		return true, m.from, m.tag, len(m.data), nil
	}
	return false, 0, 0, 0, nil
}

func (c *localComm) Recv(src, tag, size int) ([]byte, error) {
	box := c.boxes[c.rank]
	box.mu.Lock()
	defer box.mu.Unlock()
	i := c.match(src, tag)
	if i < 0 {
		return nil, fmt.Errorf("Recv: no message from %d with tag %d", src, tag)
	}
	m := box.msgs[i]
	box.msgs = append(box.msgs[:i], box.msgs[i+1:]...)
	return m.data, nil
}

func (c *localComm) Abort(code int) {
	panic(fmt.Sprintf("rank %d aborted the job with code %d", c.rank, code))
}
