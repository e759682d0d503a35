package ccg

import (
	"fmt"

	"github.com/tracebook/tracebook/arrowio"
)

// MessageOrder is the check that lossy compression reversed no message:
// every matched point-to-point message received no earlier than it was
// sent. The deviation bounds hold per location, but a send and its
// receive lie on two locations: when both move towards each other by up
// to Abs, a message faster than 2*Abs can arrive before it left
// (Knüpfer 5.6.1: "the absolute time deviation should be below of half the
// minimum message latency to avoid reversed messages"). Nothing in the
// single pass over one location can prevent that, so it is checked on the
// graph and reported.
type MessageOrder struct {
	Messages int64   // matched messages
	Reversed int64   // messages received before they were sent
	Worst    int64   // the most negative latency (receive - send) among them, ns; 0 if none
	First    Message // the earliest reversed message (by send time), if any
}

// MessageOrder matches the graph's messages (Messages) and counts those
// received before they were sent. It is computed once per graph; the
// graph's summary line reports it for graphs whose times are lossy.
func (g *Graph) MessageOrder() MessageOrder {
	g.orderOnce.Do(func() { g.order = messageOrder(Messages(g)) })
	return g.order
}

// messageOrder checks the messages of m.
func messageOrder(m *MessageMatch) MessageOrder {
	o := MessageOrder{Messages: int64(m.Len())}
	for i := range m.Len() { // by send time: the first reversed one is the earliest
		if lat := m.Recv[i] - m.Send[i]; lat < 0 {
			if o.Reversed == 0 {
				o.First = m.Message(i)
			}
			o.Reversed++
			o.Worst = min(o.Worst, lat)
		}
	}
	return o
}

// String is the check's line, e.g. "3 of 1,024 messages received before
// they were sent (worst -3.50 µs)".
func (o MessageOrder) String() string {
	if o.Reversed == 0 {
		return fmt.Sprintf("no message received before it was sent (%s checked)", arrowio.FormatCount(o.Messages))
	}
	return fmt.Sprintf("%s of %s messages received before they were sent (worst %s)",
		arrowio.FormatCount(o.Reversed), arrowio.FormatCount(o.Messages), arrowio.FormatDuration(o.Worst))
}

// lossyTimes reports whether the graph's time stamps may differ from the
// original ones (so that messages may be reversed).
func (b Bounds) lossyTimes() bool { return b.Abs != 0 && b.Rel != 0 }
